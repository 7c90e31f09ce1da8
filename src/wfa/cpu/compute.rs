//! Per-score recurrence kernels (`wavefront_compute_{edit,linear,affine,affine2p}.c`).
//!
//! Inputs arrive as slices already aligned to the output range so the loops carry no
//! index arithmetic: `x[j]` is the value the recurrence reads for output diagonal
//! `lo + j`. Unlike M, the I/D values are never nulled upstream (they can hold
//! `NULL + n` garbage), and later steps read them, so the arithmetic is kept verbatim.

use super::wavefront::OFFSET_NULL;

/// Upstream's out-of-matrix test: `h` and `v` compared as unsigned, so negatives fail.
#[inline(always)]
fn clip(k: i32, offset: i32, plen: u32, tlen: u32) -> i32 {
    let h = offset as u32;
    let v = offset.wrapping_sub(k) as u32;
    if h > tlen || v > plen {
        OFFSET_NULL
    } else {
        offset
    }
}

pub struct Dims {
    pub lo: i32,
    pub plen: u32,
    pub tlen: u32,
}

/// Indel: `ins = prev[k-1] + 1`, `del = prev[k+1]`. `prev` spans `lo-1 ..= hi+1`.
pub fn indel(d: &Dims, prev: &[i32], out: &mut [i32]) {
    let n = out.len();
    let (below, above) = (&prev[..n], &prev[2..n + 2]);
    for (j, o) in out.iter_mut().enumerate() {
        let m = above[j].max(below[j] + 1);
        *o = clip(d.lo + j as i32, m, d.plen, d.tlen);
    }
}

/// Edit: `max(del, max(ins, misms) + 1)`. `prev` spans `lo-1 ..= hi+1`.
pub fn edit(d: &Dims, prev: &[i32], out: &mut [i32]) {
    let n = out.len();
    let (below, mid, above) = (&prev[..n], &prev[1..n + 1], &prev[2..n + 2]);
    for (j, o) in out.iter_mut().enumerate() {
        let m = above[j].max(below[j].max(mid[j]) + 1);
        *o = clip(d.lo + j as i32, m, d.plen, d.tlen);
    }
}

/// Gap-linear: `max(open[k+1], max(misms[k], open[k-1]) + 1)`; `open` spans
/// `lo-1 ..= hi+1`.
pub fn linear(d: &Dims, misms: &[i32], open: &[i32], out: &mut [i32]) {
    let n = out.len();
    let (misms, below, above) = (&misms[..n], &open[..n], &open[2..n + 2]);
    for (j, o) in out.iter_mut().enumerate() {
        let m = above[j].max(misms[j].max(below[j]) + 1);
        *o = clip(d.lo + j as i32, m, d.plen, d.tlen);
    }
}

/// Inputs of one gap piece: `open` spans `lo-1 ..= hi+1`, `i_ext` holds `I[k-1]`,
/// `d_ext` holds `D[k+1]`.
pub struct GapInputs<'a> {
    pub open: &'a [i32],
    pub i_ext: &'a [i32],
    pub d_ext: &'a [i32],
}

/// Gap-affine: computes I1, D1 and M for every output diagonal.
pub fn affine(
    d: &Dims,
    misms: &[i32],
    g: &GapInputs,
    out_m: &mut [i32],
    out_i: &mut [i32],
    out_d: &mut [i32],
) {
    let n = out_m.len();
    let (misms, below, above) = (&misms[..n], &g.open[..n], &g.open[2..n + 2]);
    let (i_ext, d_ext) = (&g.i_ext[..n], &g.d_ext[..n]);
    let (out_i, out_d) = (&mut out_i[..n], &mut out_d[..n]);
    for j in 0..n {
        let ins = below[j].max(i_ext[j]) + 1;
        out_i[j] = ins;
        let del = above[j].max(d_ext[j]);
        out_d[j] = del;
        let m = del.max((misms[j] + 1).max(ins));
        out_m[j] = clip(d.lo + j as i32, m, d.plen, d.tlen);
    }
}

/// Gap-affine 2-piece: I1, D1, I2, D2 and M.
pub struct Affine2pOut<'a> {
    pub m: &'a mut [i32],
    pub i1: &'a mut [i32],
    pub d1: &'a mut [i32],
    pub i2: &'a mut [i32],
    pub d2: &'a mut [i32],
}

// Seven inputs and five outputs walk in lockstep; an index loop reads clearest.
#[allow(clippy::needless_range_loop)]
pub fn affine2p(d: &Dims, misms: &[i32], g1: &GapInputs, g2: &GapInputs, out: Affine2pOut) {
    let n = out.m.len();
    let misms = &misms[..n];
    let (below1, above1) = (&g1.open[..n], &g1.open[2..n + 2]);
    let (below2, above2) = (&g2.open[..n], &g2.open[2..n + 2]);
    let (i1_ext, d1_ext) = (&g1.i_ext[..n], &g1.d_ext[..n]);
    let (i2_ext, d2_ext) = (&g2.i_ext[..n], &g2.d_ext[..n]);
    let (o_i1, o_d1) = (&mut out.i1[..n], &mut out.d1[..n]);
    let (o_i2, o_d2) = (&mut out.i2[..n], &mut out.d2[..n]);
    for j in 0..n {
        let ins1 = below1[j].max(i1_ext[j]) + 1;
        o_i1[j] = ins1;
        let ins2 = below2[j].max(i2_ext[j]) + 1;
        o_i2[j] = ins2;
        let del1 = above1[j].max(d1_ext[j]);
        o_d1[j] = del1;
        let del2 = above2[j].max(d2_ext[j]);
        o_d2[j] = del2;
        let m = del1.max(del2).max((misms[j] + 1).max(ins1.max(ins2)));
        out.m[j] = clip(d.lo + j as i32, m, d.plen, d.tlen);
    }
}
