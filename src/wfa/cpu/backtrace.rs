//! High-memory backtrace (`wavefront_backtrace.c`), writing the CIGAR backwards from the
//! end of the buffer exactly as upstream, so `begin_offset` matches too.

use super::wavefront::{Component as Matrix, Components, OFFSET_NULL, Wavefront};
use crate::wfa::Cigar;
use crate::wfa::penalties::{DistanceMetric, WfPenalties};

// Source tags; larger wins on equal offsets (mismatch > deletion > insertion,
// extension > opening, second piece > first piece).
const BT_M: i64 = 9;
const BT_D2_EXT: i64 = 8;
const BT_D2_OPEN: i64 = 7;
const BT_D1_EXT: i64 = 6;
const BT_D1_OPEN: i64 = 5;
const BT_I2_EXT: i64 = 4;
const BT_I2_OPEN: i64 = 3;
const BT_I1_EXT: i64 = 2;
const BT_I1_OPEN: i64 = 1;

const NO_SOURCE: i64 = OFFSET_NULL as i64;

/// Reverse writer over the CIGAR buffer.
struct Writer<'a> {
    ops: &'a mut [u8],
    pos: i32,
}

impl Writer<'_> {
    #[inline]
    fn push(&mut self, op: u8) {
        self.ops[self.pos as usize] = op;
        self.pos -= 1;
    }

    fn push_n(&mut self, op: u8, n: i32) {
        for _ in 0..n {
            self.push(op);
        }
    }
}

struct Candidates<'a> {
    comps: &'a Components,
}

impl Candidates<'_> {
    /// Offset of `comp` at `score` / diagonal `k`, packed with its tag.
    #[inline]
    fn pick(&self, comp: &[Wavefront], score: i32, k: i32, add: i32, tag: i64) -> i64 {
        if score < 0 {
            return NO_SOURCE;
        }
        let Some(s) = self.comps.slot(score) else {
            return NO_SOURCE;
        };
        match comp.get(s).and_then(|w| w.get_in_range(k)) {
            Some(off) => (((off + add) as i64) << 4) | tag,
            None => NO_SOURCE,
        }
    }
}

fn begin_writer(cigar: &mut Cigar) -> Writer<'_> {
    let max = cigar.max_operations;
    cigar.end_offset = max - 1;
    cigar.ops[(max - 1) as usize] = 0;
    Writer {
        ops: &mut cigar.ops,
        pos: max - 2,
    }
}

/// Backtrace for gap-affine and gap-affine-2p from the end cell in `component_end`
/// (BiWFA halves may end in a gap component). Returns nothing: fills `cigar`.
#[allow(clippy::too_many_arguments)]
pub fn affine(
    comps: &Components,
    pen: &WfPenalties,
    plen: i32,
    tlen: i32,
    component_end: Matrix,
    end_score: i32,
    end_k: i32,
    end_offset: i32,
    cigar: &mut Cigar,
) {
    let two_piece = pen.metric == DistanceMetric::GapAffine2p;
    let c = Candidates { comps };
    let mut w = begin_writer(cigar);
    let mut matrix = component_end;
    let mut score = end_score;
    let mut k = end_k;
    let mut offset = end_offset;
    let mut h = offset;
    let mut v = offset - k;
    // Unaligned tails (ends-free) only exist when the alignment ends in M.
    if matrix == Matrix::M {
        if v < plen {
            w.push_n(b'D', plen - v);
        }
        if h < tlen {
            w.push_n(b'I', tlen - h);
        }
    }
    while v > 0 && h > 0 && score > 0 {
        let mismatch = score - pen.mismatch;
        let open1 = score - pen.gap_opening1 - pen.gap_extension1;
        let open2 = score - pen.gap_opening2 - pen.gap_extension2;
        let ext1 = score - pen.gap_extension1;
        let ext2 = score - pen.gap_extension2;
        let ins1 = || {
            c.pick(&comps.m, open1, k - 1, 1, BT_I1_OPEN).max(c.pick(
                &comps.i1,
                ext1,
                k - 1,
                1,
                BT_I1_EXT,
            ))
        };
        let del1 = || {
            c.pick(&comps.m, open1, k + 1, 0, BT_D1_OPEN).max(c.pick(
                &comps.d1,
                ext1,
                k + 1,
                0,
                BT_D1_EXT,
            ))
        };
        let ins2 = || {
            c.pick(&comps.m, open2, k - 1, 1, BT_I2_OPEN).max(c.pick(
                &comps.i2,
                ext2,
                k - 1,
                1,
                BT_I2_EXT,
            ))
        };
        let del2 = || {
            c.pick(&comps.m, open2, k + 1, 0, BT_D2_OPEN).max(c.pick(
                &comps.d2,
                ext2,
                k + 1,
                0,
                BT_D2_EXT,
            ))
        };
        let best = match matrix {
            Matrix::M => {
                let misms = c.pick(&comps.m, mismatch, k, 1, BT_M);
                if two_piece {
                    misms.max(ins1().max(ins2()).max(del1().max(del2())))
                } else {
                    misms.max(ins1().max(del1()))
                }
            }
            Matrix::I1 => ins1(),
            Matrix::I2 => ins2(),
            Matrix::D1 => del1(),
            Matrix::D2 => del2(),
        };
        if best < 0 {
            break;
        }
        if matrix == Matrix::M {
            let src = (best >> 4) as i32;
            w.push_n(b'M', offset - src);
            offset = src;
            v = offset - k;
            h = offset;
            if v <= 0 || h <= 0 {
                break;
            }
        }
        let tag = best & 0xF;
        let (next_score, next_matrix) = match tag {
            BT_M => (mismatch, Matrix::M),
            BT_I1_OPEN | BT_D1_OPEN => (open1, Matrix::M),
            BT_I2_OPEN | BT_D2_OPEN => (open2, Matrix::M),
            BT_I1_EXT => (ext1, Matrix::I1),
            BT_I2_EXT => (ext2, Matrix::I2),
            BT_D1_EXT => (ext1, Matrix::D1),
            _ => (ext2, Matrix::D2),
        };
        score = next_score;
        matrix = next_matrix;
        match tag {
            BT_M => {
                w.push(b'X');
                offset -= 1;
            }
            BT_I1_OPEN | BT_I1_EXT | BT_I2_OPEN | BT_I2_EXT => {
                w.push(b'I');
                k -= 1;
                offset -= 1;
            }
            _ => {
                w.push(b'D');
                k += 1;
            }
        }
        v = offset - k;
        h = offset;
    }
    if matrix == Matrix::M {
        if v > 0 && h > 0 {
            let n = v.min(h);
            w.push_n(b'M', n);
            v -= n;
            h -= n;
        }
        w.push_n(b'D', v);
        w.push_n(b'I', h);
    }
    // Ending in a gap component, upstream checks that the origin was reached (and
    // aborts otherwise); BiWFA's halves always reach it, so nothing to mirror here.
    cigar.begin_offset = w.pos + 1;
}

/// Backtrace for indel, edit and gap-linear (single M component).
#[allow(clippy::too_many_arguments)]
pub fn linear(
    comps: &Components,
    pen: &WfPenalties,
    plen: i32,
    tlen: i32,
    end_score: i32,
    end_k: i32,
    end_offset: i32,
    cigar: &mut Cigar,
) {
    let c = Candidates { comps };
    let mut w = begin_writer(cigar);
    let mut score = end_score;
    let mut k = end_k;
    let mut offset = end_offset;
    let mut h = offset;
    let mut v = offset - k;
    if v < plen {
        w.push_n(b'D', plen - v);
    }
    if h < tlen {
        w.push_n(b'I', tlen - h);
    }
    while v > 0 && h > 0 && score > 0 {
        let mismatch = score - pen.mismatch;
        let open1 = score - pen.gap_opening1;
        let misms = if pen.metric != DistanceMetric::Indel {
            c.pick(&comps.m, mismatch, k, 1, BT_M)
        } else {
            NO_SOURCE
        };
        let ins = c.pick(&comps.m, open1, k - 1, 1, BT_I1_OPEN);
        let del = c.pick(&comps.m, open1, k + 1, 0, BT_D1_OPEN);
        let best = misms.max(ins.max(del));
        if best < 0 {
            break;
        }
        let src = (best >> 4) as i32;
        w.push_n(b'M', offset - src);
        offset = src;
        v = offset - k;
        h = offset;
        if v <= 0 || h <= 0 {
            break;
        }
        match best & 0xF {
            BT_M => {
                score = mismatch;
                w.push(b'X');
                offset -= 1;
            }
            BT_I1_OPEN => {
                score = open1;
                w.push(b'I');
                k -= 1;
                offset -= 1;
            }
            _ => {
                score = open1;
                w.push(b'D');
                k += 1;
            }
        }
        v = offset - k;
        h = offset;
    }
    if v > 0 && h > 0 {
        let n = v.min(h);
        w.push_n(b'M', n);
        v -= n;
        h -= n;
    }
    w.push_n(b'D', v);
    w.push_n(b'I', h);
    cigar.begin_offset = w.pos + 1;
}
