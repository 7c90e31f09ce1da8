//! The banded dynamic programme of f5c's CPU `align()`.
//!
//! Geometry: DP rows are events −1..n_events−1, columns k-mers −1..n_kmers−1.
//! Band b is the anti-diagonal e + k + 2 = b with [`ALN_BANDWIDTH`] cells;
//! `ll[b]` is its lower-left cell (offset 0: largest event, smallest k-mer),
//! and offset o is the cell (ll.e − o, ll.k + o).
//!
//! Arithmetic follows f5c exactly: f32 cells and emissions, f64 transition
//! penalties, each score summed in f64 from the f32 neighbour and rounded to
//! f32 once, and the same comparison order for ties (L over U over D).

use super::emission::KmerEmission;
use super::{ALN_BANDWIDTH, AlignedPair, Event, Model, Scalings, kmer};

pub(crate) const FROM_D: u8 = 0;
pub(crate) const FROM_U: u8 = 1;
pub(crate) const FROM_L: u8 = 2;

const BW: i64 = ALN_BANDWIDTH as i64;
/// Score bands carry one −∞ guard cell on each side, so the neighbour at
/// offset −1 or `ALN_BANDWIDTH` reads −∞ exactly as f5c's validity test does,
/// without a branch in the inner loop.
const STRIDE: usize = ALN_BANDWIDTH + 2;

const MIN_AVERAGE_LOG_EMISSION: f64 = -5.0;
const MAX_GAP_THRESHOLD: i32 = 50;

/// Reusable workspace for [`align`](Aligner::align); keeping one per thread
/// avoids reallocating the O((n_events + n_kmers) × 100) band arrays per read.
#[derive(Default)]
pub struct Aligner {
    kmer_ranks: Vec<u32>,
    kmer_emission: Vec<KmerEmission>,
    /// Event means in reverse order: along a band the event index falls as
    /// the offset rises, and reversing makes every inner-loop stream forward.
    rev_means: Vec<f32>,
    bands: Vec<f32>,
    /// Kept at f5c's stride of exactly `ALN_BANDWIDTH` per band: the
    /// backtrack may address an offset outside [0, 100), which in f5c's flat
    /// array lands in a neighbouring band, and that must be reproduced.
    trace: Vec<u8>,
    ll_event: Vec<i32>,
    ll_kmer: Vec<i32>,
    pairs: Vec<AlignedPair>,
}

/// Transition log-probabilities, computed in f64 as f5c does. The GPU path
/// takes these from here too, so both paths start from the same bits.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Penalties {
    pub lp_skip: f64,
    pub lp_stay: f64,
    pub lp_step: f64,
    pub lp_trim: f64,
}

impl Penalties {
    pub(crate) fn new(n_events: usize, n_kmers: usize) -> Self {
        let events_per_kmer = n_events as f64 / n_kmers as f64;
        let p_stay = 1.0 - (1.0 / (events_per_kmer + 1.0));
        // A tiny skip probability keeps the true path inside the adaptive
        // band (nanopolish's empirical choice).
        let epsilon = 1e-10f64;
        let lp_skip = epsilon.ln();
        let lp_stay = p_stay.ln();
        let lp_step = (1.0 - lp_skip.exp() - lp_stay.exp()).ln();
        let lp_trim = 0.01f64.ln();
        Penalties {
            lp_skip,
            lp_stay,
            lp_step,
            lp_trim,
        }
    }
}

impl Aligner {
    pub fn new() -> Self {
        Self::default()
    }

    /// Releases the band arrays (they grow to the largest read seen).
    pub fn shrink(&mut self) {
        *self = Self::default();
    }

    /// Bytes the workspace holds on to between reads.
    pub fn footprint(&self) -> usize {
        4 * (self.kmer_ranks.capacity()
            + self.rev_means.capacity()
            + self.bands.capacity()
            + self.ll_event.capacity()
            + self.ll_kmer.capacity())
            + self.trace.capacity()
            + std::mem::size_of::<KmerEmission>() * self.kmer_emission.capacity()
            + std::mem::size_of::<AlignedPair>() * self.pairs.capacity()
    }

    /// Band cells (`n_bands × ALN_BANDWIDTH`) f5c allocates for a read; the
    /// unit of the performance figures.
    pub fn band_cells(sequence_len: usize, n_events: usize, kmer_size: u32) -> usize {
        kmer::n_kmers(sequence_len, kmer_size)
            .map_or(0, |nk| (n_events + 1 + nk + 1) * ALN_BANDWIDTH)
    }

    /// Runs ABEA and returns the aligned pairs (ascending), or an empty slice
    /// when the read fails QC.
    ///
    /// Where f5c's behaviour is undefined or aborts, this returns an empty
    /// slice instead: no events, a sequence shorter than `kmer_size`,
    /// `kmer_size > 16`, `models` shorter than 4^`kmer_size`, more than
    /// ~2^31 bands (f5c's `int` indices overflow), or a backtrack that would
    /// leave f5c's trace array. `sample_rate`, `scaling.var` and
    /// `scaling.log_var` are unused, as in f5c.
    pub fn align(
        &mut self,
        sequence: &[u8],
        events: &[Event],
        models: &[Model],
        kmer_size: u32,
        scaling: Scalings,
        _sample_rate: f32,
    ) -> &[AlignedPair] {
        self.pairs.clear();
        let fill = |rev: &mut Vec<f32>| rev.extend(events.iter().rev().map(|e| e.mean));
        if !self.run(sequence, events.len(), fill, models, kmer_size, &scaling) {
            self.pairs.clear();
        }
        &self.pairs
    }

    /// As [`align`](Self::align), from the event means alone (the only event
    /// field ABEA reads); what batch jobs carry.
    pub fn align_means(
        &mut self,
        sequence: &[u8],
        means: &[f32],
        models: &[Model],
        kmer_size: u32,
        scaling: Scalings,
    ) -> &[AlignedPair] {
        self.pairs.clear();
        let fill = |rev: &mut Vec<f32>| rev.extend(means.iter().rev());
        if !self.run(sequence, means.len(), fill, models, kmer_size, &scaling) {
            self.pairs.clear();
        }
        &self.pairs
    }

    /// As [`align`](Self::align) but with f5c's output convention: pairs
    /// written to `out`, count returned (0 on QC failure or when `out` is too
    /// small, in which case `out` is untouched).
    #[allow(clippy::too_many_arguments)]
    pub fn align_into(
        &mut self,
        out: &mut [AlignedPair],
        sequence: &[u8],
        events: &[Event],
        models: &[Model],
        kmer_size: u32,
        scaling: Scalings,
        sample_rate: f32,
    ) -> usize {
        let pairs = self.align(sequence, events, models, kmer_size, scaling, sample_rate);
        super::copy_pairs(out, pairs)
    }

    /// Fills `self.pairs`; `false` means "return 0".
    fn run(
        &mut self,
        sequence: &[u8],
        n_events: usize,
        fill_rev_means: impl FnOnce(&mut Vec<f32>),
        models: &[Model],
        kmer_size: u32,
        scaling: &Scalings,
    ) -> bool {
        let Some(shape) = Shape::new(sequence.len(), n_events, models.len(), kmer_size) else {
            return false;
        };
        let Shape {
            n_kmers, n_bands, ..
        } = shape;
        let pen = Penalties::new(n_events, n_kmers);

        fill_kmer_emission(
            sequence,
            models,
            kmer_size,
            scaling,
            &mut self.kmer_ranks,
            &mut self.kmer_emission,
        );
        self.rev_means.clear();
        fill_rev_means(&mut self.rev_means);

        if !self.reserve_bands(n_bands) {
            return false;
        }
        self.fill(n_events, n_kmers, n_bands, &pen);

        let bands = &self.bands[..n_bands * STRIDE];
        let rev_means = &self.rev_means;
        backtrack(
            &Traceback {
                n_events,
                n_kmers,
                lp_trim: pen.lp_trim,
                trace: &self.trace[..n_bands * ALN_BANDWIDTH],
                ll_event: &self.ll_event[..n_bands],
                kmer_emission: &self.kmer_emission,
            },
            |e| rev_means[n_events - 1 - e],
            |_, b, o| bands[b * STRIDE + 1 + o],
            &mut self.pairs,
        )
    }

    /// Grows the band arrays to `n_bands`; `false` if the allocation fails
    /// (f5c exits the process there; a library should not abort).
    fn reserve_bands(&mut self, n_bands: usize) -> bool {
        // Every band is reset just before it is computed, so stale data from
        // an earlier read is never visible; only the lengths must suffice.
        fn grow<T: Copy>(v: &mut Vec<T>, len: usize, fill: T) -> bool {
            if v.len() < len {
                if v.try_reserve_exact(len - v.len()).is_err() {
                    return false;
                }
                v.resize(len, fill);
            }
            true
        }
        grow(&mut self.bands, n_bands * STRIDE, f32::NEG_INFINITY)
            && grow(&mut self.trace, n_bands * ALN_BANDWIDTH, 0)
            && grow(&mut self.ll_event, n_bands, 0)
            && grow(&mut self.ll_kmer, n_bands, 0)
    }

    fn fill(&mut self, n_events: usize, n_kmers: usize, n_bands: usize, pen: &Penalties) {
        let bands = &mut self.bands[..n_bands * STRIDE];
        let trace = &mut self.trace[..n_bands * ALN_BANDWIDTH];
        // Every entry up to n_bands is written before it is read.
        let ll_event = &mut self.ll_event[..n_bands];
        let ll_kmer = &mut self.ll_kmer[..n_bands];
        let kmer_emission = &self.kmer_emission[..n_kmers];
        let rev_means = &self.rev_means[..n_events];

        let half = (ALN_BANDWIDTH / 2) as i32;
        bands[..2 * STRIDE].fill(f32::NEG_INFINITY);
        trace[..2 * ALN_BANDWIDTH].fill(0);
        // Band 0 holds the start cell (−1, −1), band 1 the first trimmed
        // event (0, −1); both sit at offset `half`.
        ll_event[0] = half - 1;
        ll_kmer[0] = -1 - half;
        ll_event[1] = ll_event[0] + 1;
        ll_kmer[1] = ll_kmer[0];
        bands[1 + half as usize] = 0.0;
        bands[STRIDE + 1 + half as usize] = pen.lp_trim as f32;
        trace[ALN_BANDWIDTH + half as usize] = FROM_U;

        let n_ev = n_events as i64;
        let n_km = n_kmers as i64;

        for b in 2..n_bands {
            let (done, rest) = bands.split_at_mut(b * STRIDE);
            let prev = &done[(b - 1) * STRIDE..b * STRIDE];
            let prev2 = &done[(b - 2) * STRIDE..(b - 1) * STRIDE];
            let cur = &mut rest[..STRIDE];
            let tr = &mut trace[b * ALN_BANDWIDTH..(b + 1) * ALN_BANDWIDTH];
            cur.fill(f32::NEG_INFINITY);
            tr.fill(0);

            // Suzuki–Kasahara: move towards the better of the previous band's
            // two ends; when neither end is reachable, alternate.
            let lower_left = prev[1];
            let upper_right = prev[ALN_BANDWIDTH];
            let right = if lower_left == f32::NEG_INFINITY && upper_right == f32::NEG_INFINITY {
                b % 2 == 1
            } else {
                lower_left < upper_right
            };
            let (pe, pk) = (ll_event[b - 1], ll_kmer[b - 1]);
            let (le, lk) = if right { (pe, pk + 1) } else { (pe + 1, pk) };
            ll_event[b] = le;
            ll_kmer[b] = lk;
            let (le, lk) = (i64::from(le), i64::from(lk));

            // Trim state (k-mer −1): events before the alignment start.
            let trim_offset = -1 - lk;
            if (0..BW).contains(&trim_offset) {
                let e = le - trim_offset;
                let t = trim_offset as usize;
                if (0..n_ev).contains(&e) {
                    cur[1 + t] = (pen.lp_trim * (e + 1) as f64) as f32;
                    tr[t] = FROM_U;
                } else {
                    cur[1 + t] = f32::NEG_INFINITY;
                }
            }

            // Offsets whose cell has 0 ≤ k < n_kmers and 0 ≤ e < n_events.
            let min_offset = (-lk).max(le - (n_ev - 1)).max(0);
            let max_offset = (n_km - lk).min(le + 1).min(BW);
            if min_offset >= max_offset {
                continue;
            }

            // Neighbour offsets differ from the cell's offset by a constant
            // in {−1, 0, 1} that depends only on the last two band moves.
            let ll_e1 = i64::from(pe);
            let ll_k1 = i64::from(pk);
            let ll_k2 = i64::from(ll_kmer[b - 2]);
            let d_up = ll_e1 - le + 1;
            let d_left = lk - 1 - ll_k1;
            let d_diag = lk - 1 - ll_k2;

            let n = (max_offset - min_offset) as usize;
            let o0 = min_offset;
            let slot = |d: i64| (1 + o0 + d) as usize;
            let up = &prev[slot(d_up)..][..n];
            let left = &prev[slot(d_left)..][..n];
            let diag = &prev2[slot(d_diag)..][..n];
            let out = &mut cur[slot(0)..][..n];
            let out_tr = &mut tr[o0 as usize..][..n];
            let kp = &kmer_emission[(lk + o0) as usize..][..n];
            let ev = &rev_means[(n_ev - 1 - (le - o0)) as usize..][..n];

            let (lp_step, lp_stay, lp_skip) = (pen.lp_step, pen.lp_stay, pen.lp_skip);
            for i in 0..n {
                let lp_emission = kp[i].log_probability(ev[i]);
                let score_d = ((f64::from(diag[i]) + lp_step) + f64::from(lp_emission)) as f32;
                let score_u = ((f64::from(up[i]) + lp_stay) + f64::from(lp_emission)) as f32;
                let score_l = (f64::from(left[i]) + lp_skip) as f32;

                let mut max_score = score_d;
                let mut from = FROM_D;
                if score_u > max_score {
                    max_score = score_u;
                }
                if max_score == score_u {
                    from = FROM_U;
                }
                if score_l > max_score {
                    max_score = score_l;
                }
                if max_score == score_l {
                    from = FROM_L;
                }
                out[i] = max_score;
                out_tr[i] = from;
            }
        }
    }
}

/// The sizes of one alignment problem, or `None` where f5c's behaviour is
/// undefined or aborts (see [`Aligner::align`]); shared by both paths so that
/// they refuse exactly the same inputs.
#[derive(Clone, Copy, Debug)]
pub(crate) struct Shape {
    pub n_kmers: usize,
    pub n_bands: usize,
}

impl Shape {
    pub(crate) fn new(
        sequence_len: usize,
        n_events: usize,
        n_models: usize,
        kmer_size: u32,
    ) -> Option<Shape> {
        let n_kmers = kmer::n_kmers(sequence_len, kmer_size)?;
        // With no k-mer, f5c's backtrack never emits a pair and it returns 0.
        // With no event, f5c reads event 0 of an empty table.
        if n_kmers == 0 || n_events == 0 || kmer_size > kmer::MAX_RANKABLE_K {
            return None;
        }
        if (n_models as u64) < 1u64 << (2 * kmer_size) {
            return None;
        }
        let n_bands = (n_events + 1) + (n_kmers + 1);
        // f5c keeps band, event and k-mer indices in `int`.
        if n_bands > (i32::MAX as usize) - 2 * ALN_BANDWIDTH {
            return None;
        }
        Some(Shape { n_kmers, n_bands })
    }
}

/// Ranks every k-mer and hoists its emission parameters (f5c's per-cell
/// arithmetic split without changing a bit; see [`KmerEmission`]).
pub(crate) fn fill_kmer_emission(
    sequence: &[u8],
    models: &[Model],
    kmer_size: u32,
    scaling: &Scalings,
    ranks: &mut Vec<u32>,
    out: &mut Vec<KmerEmission>,
) {
    kmer::fill_kmer_ranks(sequence, kmer_size, ranks);
    out.clear();
    out.extend(
        ranks
            .iter()
            .map(|&r| KmerEmission::new(&models[r as usize], scaling)),
    );
}

/// What the backtrack reads from a filled band matrix, wherever it was filled.
pub(crate) struct Traceback<'a> {
    pub n_events: usize,
    pub n_kmers: usize,
    pub lp_trim: f64,
    /// `n_bands × ALN_BANDWIDTH` trace bytes at f5c's stride.
    pub trace: &'a [u8],
    pub ll_event: &'a [i32],
    pub kmer_emission: &'a [KmerEmission],
}

/// f5c's end-cell search, backtrack and QC. `mean_of(e)` is event e's mean;
/// `end_cell(e, b, o)` the score at band b, offset o, which is always the
/// cell (e, n_kmers − 1). Fills `pairs` ascending; `false` means "return 0".
pub(crate) fn backtrack(
    tb: &Traceback<'_>,
    mean_of: impl Fn(usize) -> f32,
    end_cell: impl Fn(usize, usize, usize) -> f32,
    pairs: &mut Vec<AlignedPair>,
) -> bool {
    let trace = tb.trace;
    let ll_event = tb.ll_event;
    let n_ev = tb.n_events as i64;
    let n_km = tb.n_kmers as i64;
    let n_kmers = tb.n_kmers;

    // Best cell in the last k-mer column, paying the trim penalty for
    // the events after it; strict `>` keeps the lowest event on ties.
    let mut max_score = f32::NEG_INFINITY;
    let mut curr_event: i64 = 0;
    let mut curr_kmer: i64 = n_km - 1;
    for e in 0..n_ev {
        let b = (e + n_km + 1) as usize;
        let o = i64::from(ll_event[b]) - e;
        if (0..BW).contains(&o) {
            let cell = end_cell(e as usize, b, o as usize);
            let s = (f64::from(cell) + (n_ev - e) as f64 * tb.lp_trim) as f32;
            if s > max_score {
                max_score = s;
                curr_event = e;
            }
        }
    }

    pairs.clear();
    let mut sum_emission = 0.0f64;
    let mut n_aligned_events = 0.0f64;
    let mut curr_gap = 0i32;
    let mut max_gap = 0i32;
    while curr_kmer >= 0 && curr_event >= 0 {
        pairs.push(AlignedPair {
            ref_pos: curr_kmer as i32,
            read_pos: curr_event as i32,
        });
        let ev_mean = mean_of(curr_event as usize);
        sum_emission += f64::from(tb.kmer_emission[curr_kmer as usize].log_probability(ev_mean));
        n_aligned_events += 1.0;

        let b = curr_event + curr_kmer + 2;
        let o = i64::from(ll_event[b as usize]) - curr_event;
        // f5c indexes its flat trace array without checking the offset;
        // reproduce that, and give up only where f5c would leave the
        // allocation.
        let flat = b * BW + o;
        let Some(&from) = usize::try_from(flat).ok().and_then(|i| trace.get(i)) else {
            return false;
        };
        match from {
            FROM_D => {
                curr_kmer -= 1;
                curr_event -= 1;
                curr_gap = 0;
            }
            FROM_U => {
                curr_event -= 1;
                curr_gap = 0;
            }
            _ => {
                curr_kmer -= 1;
                curr_gap += 1;
                max_gap = max_gap.max(curr_gap);
            }
        }
    }
    pairs.reverse();

    let (Some(first), Some(last)) = (pairs.first(), pairs.last()) else {
        // f5c returns its (zero) count whatever its QC decides here.
        return false;
    };
    let avg_log_emission = sum_emission / n_aligned_events;
    let spanned = first.ref_pos == 0 && last.ref_pos == (n_kmers - 1) as i32;
    !(avg_log_emission < MIN_AVERAGE_LOG_EMISSION || !spanned || max_gap > MAX_GAP_THRESHOLD)
}

#[cfg(test)]
impl Aligner {
    /// What the fill left for the read aligned last: every trace byte, every
    /// band's lower-left event and the last k-mer column's scores (`None`
    /// outside the band), for comparing other fills bit for bit.
    pub(crate) fn fill_outputs(
        &self,
        n_events: usize,
        n_kmers: usize,
    ) -> (Vec<u8>, Vec<i32>, Vec<Option<f32>>) {
        let n_bands = n_events + n_kmers + 2;
        let last = (0..n_events)
            .map(|e| {
                let b = e + n_kmers + 1;
                let o = i64::from(self.ll_event[b]) - e as i64;
                (0..BW)
                    .contains(&o)
                    .then(|| self.bands[b * STRIDE + 1 + o as usize])
            })
            .collect();
        (
            self.trace[..n_bands * ALN_BANDWIDTH].to_vec(),
            self.ll_event[..n_bands].to_vec(),
            last,
        )
    }
}
