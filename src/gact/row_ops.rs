//! The element-wise passes over one DP row. Each is a separate,
//! never-inlined function taking its slices as separate arguments: only
//! reference arguments carry LLVM's no-alias facts, and without them the
//! loops vectorise only behind runtime overlap checks (or not at all).

use super::lane::Lane;

/// `out[x] = a[x] + b[x]`.
#[inline(never)]
pub(super) fn add_rows<T: Lane>(a: &[T], b: &[T], out: &mut [T]) {
    for ((o, &x), &y) in out.iter_mut().zip(a).zip(b) {
        *o = x.plus(y);
    }
}

/// The horizontal gap recurrence along every lane at once: starting from
/// `d` (one value per lane), each step computes
/// `d = max(m_left + go, d + ge)` for the next vector of slots, i.e. the next
/// column of every lane. With `STORE` each step's vector is written to `out`;
/// the last one is returned. The running vector stays in registers.
#[inline(never)]
pub(super) fn gap_chain<T: Lane, const L: usize, const STORE: bool>(
    m_left: &[T],
    mut d: [T; L],
    out: &mut [T],
    go: T,
    ge: T,
) -> [T; L] {
    if STORE {
        for (m_vec, out_vec) in m_left.chunks_exact(L).zip(out.chunks_exact_mut(L)) {
            for k in 0..L {
                d[k] = m_vec[k].plus(go).max(d[k].plus(ge));
            }
            out_vec.copy_from_slice(&d);
        }
    } else {
        for m_vec in m_left.chunks_exact(L) {
            for k in 0..L {
                d[k] = m_vec[k].plus(go).max(d[k].plus(ge));
            }
        }
    }
    d
}

/// Scalars of the element-wise pass.
#[derive(Clone, Copy)]
pub(super) struct RowScalars<T> {
    pub go: T,
    pub ge: T,
}

/// The element-wise part of a row: I, H, the direction code (at lane width)
/// and the row maximum over real slots. D is already final, so no slot
/// depends on another. Inputs: M of column j-1 (`m_left`) and of column j
/// (`m_cur`), the final D (`d_cur`), M of the previous row (`m_prev`).
/// Returns the row maximum (-1 unless `TRACK_MAX`).
// Separate slice arguments are the point (see the module comment).
#[allow(clippy::too_many_arguments)]
#[inline(never)]
pub(super) fn finish_row<T: Lane, const TRACK_MAX: bool, const STORE_DIR: bool>(
    m_left: &[T],
    m_cur: &[T],
    d_cur: &[T],
    m_prev: &[T],
    i_prev: &mut [T],
    h_out: &mut [T],
    dir_out: &mut [T],
    real_slot: &[T],
    k: RowScalars<T>,
) -> T {
    let n = dir_out.len();
    let zero = T::default();
    let [one, two, four, eight] = [1, 2, 4, 8].map(T::from_i32);
    let (go, ge) = (k.go, k.ge);
    let (m_left, m_cur, d_cur, m_prev) = (&m_left[..n], &m_cur[..n], &d_cur[..n], &m_prev[..n]);
    let (i_prev, h_out) = (&mut i_prev[..n], &mut h_out[..n]);
    let real_slot = &real_slot[..n];
    let mut row_max = T::from_i32(-1);
    for x in 0..n {
        let m = m_cur[x];
        let ins_open = m_prev[x].plus(go);
        let iv = ins_open.max(i_prev[x].plus(ge));
        let dv = d_cur[x];
        let del_open = m_left[x].plus(go);
        let hv = m.max(iv).max(dv.max(zero));
        // Upstream's state with its priority M over I over D, expressed
        // through H: M if M == H, else I if I == H, else D; Z when H == 0
        // (no candidate positive). Bit 1 is set for M and I, bit 0 for M
        // and D.
        let is_m = m == hv;
        let is_i = iv == hv;
        let positive = hv > zero;
        let code = (T::mask((is_m | is_i) & positive) & two)
            | (T::mask((is_m | !is_i) & positive) & one)
            | (T::mask(dv == del_open) & four)
            | (T::mask(iv == ins_open) & eight);
        if STORE_DIR {
            dir_out[x] = code;
        }
        h_out[x] = hv;
        i_prev[x] = iv;
        if TRACK_MAX {
            // A plain max reduction over the real (non-padding) slots; H >= 0,
            // so masking padding to 0 never raises it.
            row_max = row_max.max(hv & real_slot[x]);
        }
    }
    row_max
}

/// Packs a row of direction codes two per byte: for every vector of L
/// slots, byte `l` (l < L/2) holds lane l in its low nibble and lane
/// l + L/2 in its high nibble, a layout that needs no shuffles.
#[inline(never)]
pub(super) fn narrow_codes<T: Lane, const L: usize>(codes: &[T], out: &mut [u8]) {
    let half = L / 2;
    for (c, o) in codes.chunks_exact(L).zip(out.chunks_exact_mut(half)) {
        for l in 0..half {
            o[l] = c[l].low_byte() | (c[l + half].low_byte() << 4);
        }
    }
}
