//! Backtrace data of the med and low memory modes.
//!
//! High memory keeps every wavefront and lets the backtrace read offsets from
//! them. Med and low keep only the wavefronts the recurrence still reads (a
//! ring, as score-only does) and, once a score's wavefronts are final, record
//! for each of their cells which predecessor the high-memory backtrace would pick
//! there: a few bits per cell instead of a 4-byte offset per cell and component.
//! The decisions come from the backtrace's own oracle (`backtrace::best_source`),
//! so every tie rule, range and heuristic cut is the same as in high memory.
//!
//! At the end, the chain of decisions is followed back from the end cell to a
//! cell with no predecessor, and the offsets along it are rebuilt forwards: a gap
//! cell holds its predecessor's offset plus its step, an M cell that offset
//! extended over the matching bases. Cells whose value does not come from the
//! recurrence (wavefront 0, begin-free cells injected later) keep their offset.
//! The high-memory walk then runs over those sources and writes the same CIGAR.

use std::collections::HashMap;

use super::backtrace::{
    BT_D1_EXT, BT_D1_OPEN, BT_D2_EXT, BT_D2_OPEN, BT_I1_EXT, BT_I1_OPEN, BT_I2_EXT, BT_I2_OPEN,
    BT_M, EndCell, NO_SOURCE, SourceScores, best_source, offset_step,
};
use super::wavefront::{Component as Matrix, Components, OFFSET_NULL};
use crate::engine::panic::reserve_or_unwind;
use crate::wfa::penalties::{DistanceMetric, WfPenalties};

/// The diagonals of one score that hold decisions, and where their codes start.
#[derive(Clone, Copy)]
struct Span {
    lo: i32,
    hi: i32,
    start: usize,
}

const NO_SPAN: Span = Span {
    lo: 1,
    hi: 0,
    start: 0,
};

/// A cell's code: the M tag (0 when none) in bits 0..4, then two bits per gap
/// component (0 none, 1 opening, 2 extension). Gap-affine fits a byte; the
/// two-piece metric needs two.
fn field_shift(matrix: Matrix) -> u32 {
    match matrix {
        Matrix::M => 0,
        Matrix::I1 => 4,
        Matrix::D1 => 6,
        Matrix::I2 => 8,
        Matrix::D2 => 10,
    }
}

/// Tag of the opening source of a gap component (its extension is the next tag).
fn opening_tag(matrix: Matrix) -> i64 {
    match matrix {
        Matrix::I1 => BT_I1_OPEN,
        Matrix::D1 => BT_D1_OPEN,
        Matrix::I2 => BT_I2_OPEN,
        _ => BT_D2_OPEN,
    }
}

fn encode(matrix: Matrix, tag: i64) -> u16 {
    let field = match matrix {
        Matrix::M => tag,
        gap => tag - opening_tag(gap) + 1,
    };
    (field as u16) << field_shift(matrix)
}

fn decode(matrix: Matrix, code: u16) -> i64 {
    match matrix {
        Matrix::M => i64::from(code & 0xF),
        gap => match (code >> field_shift(gap)) & 0x3 {
            0 => 0,
            field => opening_tag(gap) + i64::from(field) - 1,
        },
    }
}

/// The code of a cell whose best source is `best` (none when negative).
#[inline(always)]
fn encode_best(matrix: Matrix, best: i64) -> u16 {
    if best < 0 {
        0
    } else {
        encode(matrix, best & 0xF)
    }
}

/// One source wavefront of the score being recorded, resolved once per score
/// (an absent one has an empty range).
#[derive(Clone, Copy)]
struct Source<'a> {
    lo: i32,
    hi: i32,
    base: i32,
    offs: &'a [i32],
}

impl<'a> Source<'a> {
    fn of(comps: &'a Components, matrix: Matrix, score: i32) -> Source<'a> {
        match comps.slot(score).and_then(|s| comps.of(matrix).get(s)) {
            Some(w) if w.present => Source {
                lo: w.lo,
                hi: w.hi,
                base: w.base,
                offs: &w.offs,
            },
            _ => Source {
                lo: 1,
                hi: 0,
                base: 0,
                offs: &[],
            },
        }
    }

    /// `backtrace::best_source`'s candidate from this wavefront.
    #[inline(always)]
    fn packed(&self, k: i32, add: i32, tag: i64) -> i64 {
        if k < self.lo || k > self.hi {
            NO_SOURCE
        } else {
            (i64::from(self.offs[(k - self.base) as usize] + add) << 4) | tag
        }
    }
}

/// Every source a cell of one score may read; the same candidates as
/// `backtrace::best_source` (a maximum, so their order does not matter), with
/// the wavefronts looked up once per score rather than once per cell.
struct Sources<'a> {
    misms: Source<'a>,
    open1: Source<'a>,
    i1: Source<'a>,
    d1: Source<'a>,
    open2: Source<'a>,
    i2: Source<'a>,
    d2: Source<'a>,
    metric: DistanceMetric,
}

impl<'a> Sources<'a> {
    fn of(comps: &'a Components, pen: &WfPenalties, score: i32) -> Sources<'a> {
        let sc = SourceScores::new(pen, score);
        let affine = matches!(
            pen.metric,
            DistanceMetric::GapAffine | DistanceMetric::GapAffine2p
        );
        let two_piece = pen.metric == DistanceMetric::GapAffine2p;
        let none = Source {
            lo: 1,
            hi: 0,
            base: 0,
            offs: &[],
        };
        let source = |on: bool, matrix, score| {
            if on {
                Source::of(comps, matrix, score)
            } else {
                none
            }
        };
        Sources {
            misms: source(pen.metric != DistanceMetric::Indel, Matrix::M, sc.mismatch),
            open1: Source::of(comps, Matrix::M, sc.open1),
            i1: source(affine, Matrix::I1, sc.ext1),
            d1: source(affine, Matrix::D1, sc.ext1),
            open2: source(two_piece, Matrix::M, sc.open2),
            i2: source(two_piece, Matrix::I2, sc.ext2),
            d2: source(two_piece, Matrix::D2, sc.ext2),
            metric: pen.metric,
        }
    }

    #[inline(always)]
    fn ins1(&self, k: i32) -> i64 {
        let open = self.open1.packed(k - 1, 1, BT_I1_OPEN);
        open.max(self.i1.packed(k - 1, 1, BT_I1_EXT))
    }

    #[inline(always)]
    fn del1(&self, k: i32) -> i64 {
        let open = self.open1.packed(k + 1, 0, BT_D1_OPEN);
        open.max(self.d1.packed(k + 1, 0, BT_D1_EXT))
    }

    #[inline(always)]
    fn ins2(&self, k: i32) -> i64 {
        let open = self.open2.packed(k - 1, 1, BT_I2_OPEN);
        open.max(self.i2.packed(k - 1, 1, BT_I2_EXT))
    }

    #[inline(always)]
    fn del2(&self, k: i32) -> i64 {
        let open = self.open2.packed(k + 1, 0, BT_D2_OPEN);
        open.max(self.d2.packed(k + 1, 0, BT_D2_EXT))
    }

    #[inline(always)]
    fn m_cell(&self, k: i32) -> i64 {
        let misms = self.misms.packed(k, 1, BT_M);
        let one = misms.max(self.ins1(k)).max(self.del1(k));
        if self.metric == DistanceMetric::GapAffine2p {
            one.max(self.ins2(k)).max(self.del2(k))
        } else {
            one
        }
    }

    #[inline(always)]
    fn gap_cell(&self, matrix: Matrix, k: i32) -> i64 {
        match matrix {
            Matrix::I1 => self.ins1(k),
            Matrix::D1 => self.del1(k),
            Matrix::I2 => self.ins2(k),
            _ => self.del2(k),
        }
    }
}

/// The recorded decisions of one alignment; the buffers are kept for the next.
#[derive(Default)]
pub struct Decisions {
    codes: Vec<u8>,
    /// Two bytes per cell (gap-affine-2p) instead of one.
    wide: bool,
    /// Indexed by score.
    spans: Vec<Span>,
    /// Offsets (after extension) of M cells whose value does not come from the
    /// recurrence, by (score, diagonal).
    fixed: HashMap<(i32, i32), i32>,
    /// Diagonals whose cell the current score's M-wavefront got by injection.
    pub injected: Vec<i32>,
}

impl Decisions {
    pub fn clear(&mut self, metric: DistanceMetric) {
        self.codes.clear();
        self.spans.clear();
        self.fixed.clear();
        self.injected.clear();
        self.wide = metric == DistanceMetric::GapAffine2p;
    }

    /// Bytes held (for the memory probe).
    pub fn bytes(&self) -> u64 {
        let fixed = self.fixed.capacity() * std::mem::size_of::<((i32, i32), i32)>();
        (self.codes.capacity()
            + self.spans.capacity() * std::mem::size_of::<Span>()
            + fixed
            + self.injected.capacity() * std::mem::size_of::<i32>()) as u64
    }

    fn matrices(pen: &WfPenalties) -> &'static [Matrix] {
        match pen.metric {
            DistanceMetric::GapAffine => &[Matrix::M, Matrix::I1, Matrix::D1],
            DistanceMetric::GapAffine2p => {
                &[Matrix::M, Matrix::I1, Matrix::D1, Matrix::I2, Matrix::D2]
            }
            _ => &[Matrix::M],
        }
    }

    /// Records the decisions of every cell of `score`, whose wavefronts are final
    /// (computed, extended and cut), while its sources are still in the ring.
    pub fn record(&mut self, comps: &Components, pen: &WfPenalties, score: i32) {
        let matrices = Self::matrices(pen);
        let live = |m: Matrix| comps.stored(m, score).filter(|w| w.lo <= w.hi);
        let (mut lo, mut hi) = (i32::MAX, i32::MIN);
        for &m in matrices {
            if let Some(w) = live(m) {
                lo = lo.min(w.lo);
                hi = hi.max(w.hi);
            }
        }
        let index = score as usize;
        if self.spans.len() <= index {
            let more = index + 1 - self.spans.len();
            reserve_or_unwind(&mut self.spans, more);
            self.spans.resize(index + 1, NO_SPAN);
        }
        if let Some(w) = live(Matrix::M) {
            if score == 0 {
                for k in w.lo..=w.hi {
                    if w.get(k) != OFFSET_NULL {
                        self.fixed.insert((0, k), w.get(k));
                    }
                }
            }
            for &k in &self.injected {
                if w.lo <= k && k <= w.hi {
                    self.fixed.insert((score, k), w.get(k));
                }
            }
        }
        self.injected.clear();
        if lo > hi || score == 0 {
            // The backtrace stops at score 0 and never enters an empty wavefront.
            self.spans[index] = NO_SPAN;
            return;
        }
        let stride = if self.wide { 2 } else { 1 };
        let start = self.codes.len();
        let cells = (hi - lo + 1) as usize * stride;
        if self.codes.capacity() - start < cells {
            // Doubling keeps the appends amortised; failing fails the alignment.
            reserve_or_unwind(&mut self.codes, cells.max(start));
        }
        self.codes.resize(start + cells, 0);
        let out = &mut self.codes[start..start + cells];
        let sources = Sources::of(comps, pen, score);
        for &m in matrices {
            let Some(w) = live(m) else { continue };
            let first = (w.lo - lo) as usize;
            let last = (w.hi - lo) as usize;
            match (m, self.wide) {
                (Matrix::M, false) => {
                    for (k, code) in (w.lo..).zip(&mut out[first..=last]) {
                        *code |= encode_best(m, sources.m_cell(k)) as u8;
                    }
                }
                (_, false) => {
                    for (k, code) in (w.lo..).zip(&mut out[first..=last]) {
                        *code |= encode_best(m, sources.gap_cell(m, k)) as u8;
                    }
                }
                (_, true) => {
                    for (k, pair) in (w.lo..).zip(out[2 * first..2 * last + 2].chunks_exact_mut(2))
                    {
                        let best = match m {
                            Matrix::M => sources.m_cell(k),
                            gap => sources.gap_cell(gap, k),
                        };
                        let code = encode_best(m, best);
                        pair[0] |= code as u8;
                        pair[1] |= (code >> 8) as u8;
                    }
                }
            }
            debug_assert!((w.lo..=w.hi).all(|k| {
                let fast = match m {
                    Matrix::M => sources.m_cell(k),
                    gap => sources.gap_cell(gap, k),
                };
                let slow = best_source(comps, pen, m, score, k);
                // Below zero both mean "no source" (an absent source reads
                // as NO_SOURCE here, a NULL offset packs lower there).
                fast == slow || (fast < 0 && slow < 0)
            }));
        }
        self.spans[index] = Span { lo, hi, start };
    }

    /// The recorded tag of cell (`matrix`, `score`, `k`), 0 when it has none.
    fn tag(&self, matrix: Matrix, score: i32, k: i32) -> i64 {
        let Some(span) = self.spans.get(score as usize) else {
            return 0;
        };
        if k < span.lo || k > span.hi {
            return 0;
        }
        let code = if self.wide {
            let at = span.start + 2 * (k - span.lo) as usize;
            u16::from(self.codes[at]) | (u16::from(self.codes[at + 1]) << 8)
        } else {
            u16::from(self.codes[span.start + (k - span.lo) as usize])
        };
        decode(matrix, code)
    }

    /// The sources the high-memory walk from `end` would read, packed as
    /// `backtrace::best_source` packs them, in the order the walk visits them and
    /// ending with `NO_SOURCE`. `extend(k, offset)` extends an offset along its
    /// diagonal as the forward pass did.
    pub fn sources(
        &self,
        pen: &WfPenalties,
        end: &EndCell,
        mut extend: impl FnMut(i32, i32) -> i32,
        out: &mut Vec<i64>,
    ) {
        let mut chain: Vec<(i32, Matrix, i32, i64)> = Vec::new();
        let (mut score, mut matrix, mut k) = (end.score, end.matrix, end.k);
        while score > 0 {
            let tag = self.tag(matrix, score, k);
            if tag == 0 {
                break;
            }
            chain.push((score, matrix, k, tag));
            (score, matrix, k) = SourceScores::new(pen, score).predecessor(tag, k);
        }
        // The root has no predecessor, so its value did not come from the
        // recurrence: it is wavefront 0 or an injected begin-free cell.
        let root = self.fixed.get(&(score, k)).copied();
        debug_assert!(
            root.is_some() && matrix == Matrix::M,
            "backtrace root without a recorded offset"
        );
        let mut offset = root.unwrap_or(OFFSET_NULL);
        out.clear();
        out.resize(chain.len() + 1, NO_SOURCE);
        for (j, &(score, matrix, k, tag)) in chain.iter().enumerate().rev() {
            let src = offset + offset_step(tag);
            out[j] = (i64::from(src) << 4) | tag;
            offset = match matrix {
                Matrix::M => match self.fixed.get(&(score, k)) {
                    Some(&o) => o,
                    None => extend(k, src),
                },
                _ => src,
            };
        }
        debug_assert_eq!(offset, end.offset, "rebuilt end offset");
    }
}

#[cfg(test)]
mod tests;
