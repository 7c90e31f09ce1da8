//! Backtrace (`wavefront_backtrace.c`), writing the CIGAR backwards from the end of
//! the buffer exactly as upstream, so `begin_offset` matches too.
//!
//! The walk asks a source oracle for the winning predecessor of each cell it
//! visits. High memory answers from the stored wavefronts ([`best_source`]); the
//! med/low modes answer from the decisions they recorded while computing (see
//! `piggyback`), which were made by the same function, so both walks agree.

use super::wavefront::{Component as Matrix, Components, OFFSET_NULL, Wavefront};
use crate::wfa::Cigar;
use crate::wfa::penalties::{DistanceMetric, WfPenalties};

// Source tags; larger wins on equal offsets (mismatch > deletion > insertion,
// extension > opening, second piece > first piece).
pub(super) const BT_M: i64 = 9;
pub(super) const BT_D2_EXT: i64 = 8;
pub(super) const BT_D2_OPEN: i64 = 7;
pub(super) const BT_D1_EXT: i64 = 6;
pub(super) const BT_D1_OPEN: i64 = 5;
pub(super) const BT_I2_EXT: i64 = 4;
pub(super) const BT_I2_OPEN: i64 = 3;
pub(super) const BT_I1_EXT: i64 = 2;
pub(super) const BT_I1_OPEN: i64 = 1;

pub(super) const NO_SOURCE: i64 = OFFSET_NULL as i64;

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

/// Offset of `comp` at `score` / diagonal `k`, packed with its tag.
#[inline]
fn pick(comps: &Components, comp: &[Wavefront], score: i32, k: i32, add: i32, tag: i64) -> i64 {
    let Some(s) = comps.slot(score) else {
        return NO_SOURCE;
    };
    match comp.get(s).and_then(|w| w.get_in_range(k)) {
        Some(off) => (((off + add) as i64) << 4) | tag,
        None => NO_SOURCE,
    }
}

/// The scores a cell of `score` reads its candidates from.
#[derive(Clone, Copy)]
pub(super) struct SourceScores {
    pub mismatch: i32,
    pub open1: i32,
    pub open2: i32,
    pub ext1: i32,
    pub ext2: i32,
}

impl SourceScores {
    #[inline]
    pub fn new(pen: &WfPenalties, score: i32) -> SourceScores {
        let gap_affine = matches!(
            pen.metric,
            DistanceMetric::GapAffine | DistanceMetric::GapAffine2p
        );
        // Unit and linear metrics have no extension: a gap step costs its opening.
        let open1 = if gap_affine {
            score - pen.gap_opening1 - pen.gap_extension1
        } else {
            score - pen.gap_opening1
        };
        SourceScores {
            mismatch: score - pen.mismatch,
            open1,
            open2: score - pen.gap_opening2 - pen.gap_extension2,
            ext1: score - pen.gap_extension1,
            ext2: score - pen.gap_extension2,
        }
    }

    /// The cell a source tag leads to from diagonal `k`: (score, matrix, diagonal).
    #[inline]
    pub fn predecessor(&self, tag: i64, k: i32) -> (i32, Matrix, i32) {
        match tag {
            BT_M => (self.mismatch, Matrix::M, k),
            BT_I1_OPEN => (self.open1, Matrix::M, k - 1),
            BT_I2_OPEN => (self.open2, Matrix::M, k - 1),
            BT_I1_EXT => (self.ext1, Matrix::I1, k - 1),
            BT_I2_EXT => (self.ext2, Matrix::I2, k - 1),
            BT_D1_OPEN => (self.open1, Matrix::M, k + 1),
            BT_D2_OPEN => (self.open2, Matrix::M, k + 1),
            BT_D1_EXT => (self.ext1, Matrix::D1, k + 1),
            _ => (self.ext2, Matrix::D2, k + 1),
        }
    }
}

/// What a source tag adds to its predecessor's offset (one text base for
/// mismatches and insertions, none for deletions).
#[inline]
pub(super) fn offset_step(tag: i64) -> i32 {
    match tag {
        BT_M | BT_I1_OPEN | BT_I1_EXT | BT_I2_OPEN | BT_I2_EXT => 1,
        _ => 0,
    }
}

/// The winning predecessor of cell (`matrix`, `score`, `k`) in the stored
/// wavefronts, packed as `(offset it produces << 4) | tag`, or negative when
/// there is none. Every tie rule of the backtrace lives here.
pub(super) fn best_source(
    comps: &Components,
    pen: &WfPenalties,
    matrix: Matrix,
    score: i32,
    k: i32,
) -> i64 {
    let sc = SourceScores::new(pen, score);
    match pen.metric {
        DistanceMetric::GapAffine | DistanceMetric::GapAffine2p => {}
        metric => {
            let misms = if metric != DistanceMetric::Indel {
                pick(comps, &comps.m, sc.mismatch, k, 1, BT_M)
            } else {
                NO_SOURCE
            };
            let ins = pick(comps, &comps.m, sc.open1, k - 1, 1, BT_I1_OPEN);
            let del = pick(comps, &comps.m, sc.open1, k + 1, 0, BT_D1_OPEN);
            return misms.max(ins.max(del));
        }
    }
    let ins1 = || {
        pick(comps, &comps.m, sc.open1, k - 1, 1, BT_I1_OPEN).max(pick(
            comps,
            &comps.i1,
            sc.ext1,
            k - 1,
            1,
            BT_I1_EXT,
        ))
    };
    let del1 = || {
        pick(comps, &comps.m, sc.open1, k + 1, 0, BT_D1_OPEN).max(pick(
            comps,
            &comps.d1,
            sc.ext1,
            k + 1,
            0,
            BT_D1_EXT,
        ))
    };
    let ins2 = || {
        pick(comps, &comps.m, sc.open2, k - 1, 1, BT_I2_OPEN).max(pick(
            comps,
            &comps.i2,
            sc.ext2,
            k - 1,
            1,
            BT_I2_EXT,
        ))
    };
    let del2 = || {
        pick(comps, &comps.m, sc.open2, k + 1, 0, BT_D2_OPEN).max(pick(
            comps,
            &comps.d2,
            sc.ext2,
            k + 1,
            0,
            BT_D2_EXT,
        ))
    };
    match matrix {
        Matrix::M => {
            let misms = pick(comps, &comps.m, sc.mismatch, k, 1, BT_M);
            if pen.metric == DistanceMetric::GapAffine2p {
                misms.max(ins1().max(ins2()).max(del1().max(del2())))
            } else {
                misms.max(ins1().max(del1()))
            }
        }
        Matrix::I1 => ins1(),
        Matrix::I2 => ins2(),
        Matrix::D1 => del1(),
        Matrix::D2 => del2(),
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

/// Where the walk starts: the end cell and the pair's lengths.
#[derive(Clone, Copy)]
pub(super) struct EndCell {
    pub plen: i32,
    pub tlen: i32,
    pub matrix: Matrix,
    pub score: i32,
    pub k: i32,
    pub offset: i32,
}

/// Backtrace for gap-affine and gap-affine-2p from the end cell (BiWFA halves may
/// end in a gap component), reading the stored wavefronts. Fills `cigar`.
pub fn affine(comps: &Components, pen: &WfPenalties, end: EndCell, cigar: &mut Cigar) {
    affine_walk(
        |matrix, score, k| best_source(comps, pen, matrix, score, k),
        pen,
        end,
        cigar,
    );
}

/// Backtrace for indel, edit and gap-linear (single M component).
pub fn linear(comps: &Components, pen: &WfPenalties, end: EndCell, cigar: &mut Cigar) {
    linear_walk(
        |_, score, k| best_source(comps, pen, Matrix::M, score, k),
        pen,
        end,
        cigar,
    );
}

/// The gap-affine walk over an oracle of winning sources.
pub(super) fn affine_walk(
    mut best_of: impl FnMut(Matrix, i32, i32) -> i64,
    pen: &WfPenalties,
    end: EndCell,
    cigar: &mut Cigar,
) {
    let (plen, tlen) = (end.plen, end.tlen);
    let mut w = begin_writer(cigar);
    let mut matrix = end.matrix;
    let mut score = end.score;
    let mut k = end.k;
    let mut offset = end.offset;
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
        let best = best_of(matrix, score, k);
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
        let (next_score, next_matrix, _) = SourceScores::new(pen, score).predecessor(tag, k);
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

/// The single-component walk (indel, edit, gap-linear) over an oracle.
pub(super) fn linear_walk(
    mut best_of: impl FnMut(Matrix, i32, i32) -> i64,
    pen: &WfPenalties,
    end: EndCell,
    cigar: &mut Cigar,
) {
    let (plen, tlen) = (end.plen, end.tlen);
    let mut w = begin_writer(cigar);
    let mut score = end.score;
    let mut k = end.k;
    let mut offset = end.offset;
    let mut h = offset;
    let mut v = offset - k;
    if v < plen {
        w.push_n(b'D', plen - v);
    }
    if h < tlen {
        w.push_n(b'I', tlen - h);
    }
    while v > 0 && h > 0 && score > 0 {
        let best = best_of(Matrix::M, score, k);
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
        let tag = best & 0xF;
        score = SourceScores::new(pen, score).predecessor(tag, k).0;
        match tag {
            BT_M => {
                w.push(b'X');
                offset -= 1;
            }
            BT_I1_OPEN => {
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
