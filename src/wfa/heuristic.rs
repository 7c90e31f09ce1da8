//! Heuristic wavefront cut-offs (`wavefront_heuristic.c`). They decide which diagonals
//! survive, so every comparison and counter here must match upstream exactly.

use super::cpu::wavefront::{OFFSET_NULL, Wavefront};

/// `DPMATRIX_DIAGONAL_NULL`.
const DIAGONAL_NULL: i32 = i32::MAX;

/// Heuristic configuration plus its per-alignment state, like `wavefront_heuristic_t`.
/// Strategies are bit flags because upstream ORs them when several setters are called.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Heuristic {
    pub strategy: u32,
    pub steps_between_cutoffs: i32,
    pub min_k: i32,
    pub max_k: i32,
    pub min_wavefront_length: i32,
    pub max_distance_threshold: i32,
    pub xdrop: i32,
    pub zdrop: i32,
    pub(crate) steps_wait: i32,
    pub(crate) max_sw_score: i32,
    pub(crate) max_sw_score_offset: i32,
    pub(crate) max_sw_score_k: i32,
}

impl Heuristic {
    pub const NONE: u32 = 0x0;
    pub const BANDED_STATIC: u32 = 0x1;
    pub const BANDED_ADAPTIVE: u32 = 0x2;
    pub const WFADAPTIVE: u32 = 0x4;
    pub const XDROP: u32 = 0x10;
    pub const ZDROP: u32 = 0x20;
    pub const WFMASH: u32 = 0x40;

    pub fn none() -> Heuristic {
        Heuristic {
            strategy: Self::NONE,
            steps_between_cutoffs: 1,
            min_k: 0,
            max_k: 0,
            min_wavefront_length: 0,
            max_distance_threshold: 0,
            xdrop: 0,
            zdrop: 0,
            steps_wait: 0,
            max_sw_score: 0,
            max_sw_score_offset: 0,
            max_sw_score_k: 0,
        }
    }

    pub fn wfadaptive(min_wavefront_length: i32, max_distance_threshold: i32, steps: i32) -> Self {
        let mut h = Self::none();
        h.set_wfadaptive(min_wavefront_length, max_distance_threshold, steps);
        h
    }

    pub fn wfmash(min_wavefront_length: i32, max_distance_threshold: i32, steps: i32) -> Self {
        let mut h = Self::none();
        h.set_wfmash(min_wavefront_length, max_distance_threshold, steps);
        h
    }

    pub fn xdrop(xdrop: i32, steps: i32) -> Self {
        let mut h = Self::none();
        h.set_xdrop(xdrop, steps);
        h
    }

    pub fn zdrop(zdrop: i32, steps: i32) -> Self {
        let mut h = Self::none();
        h.set_zdrop(zdrop, steps);
        h
    }

    pub fn banded_static(band_min_k: i32, band_max_k: i32) -> Self {
        let mut h = Self::none();
        h.set_banded_static(band_min_k, band_max_k);
        h
    }

    pub fn banded_adaptive(band_min_k: i32, band_max_k: i32, steps: i32) -> Self {
        let mut h = Self::none();
        h.set_banded_adaptive(band_min_k, band_max_k, steps);
        h
    }

    /// `wavefront_heuristic_set_none`: only the strategy changes.
    pub fn set_none(&mut self) {
        self.strategy = Self::NONE;
    }

    pub fn set_wfadaptive(&mut self, min_len: i32, max_dist: i32, steps: i32) {
        self.strategy |= Self::WFADAPTIVE;
        self.min_wavefront_length = min_len;
        self.max_distance_threshold = max_dist;
        self.steps_between_cutoffs = steps;
        self.steps_wait = steps;
    }

    pub fn set_wfmash(&mut self, min_len: i32, max_dist: i32, steps: i32) {
        self.strategy |= Self::WFMASH;
        self.min_wavefront_length = min_len;
        self.max_distance_threshold = max_dist;
        self.steps_between_cutoffs = steps;
        self.steps_wait = steps;
    }

    pub fn set_xdrop(&mut self, xdrop: i32, steps: i32) {
        self.strategy |= Self::XDROP;
        self.xdrop = xdrop;
        self.steps_between_cutoffs = steps;
        self.steps_wait = steps;
        self.reset_sw_max();
    }

    pub fn set_zdrop(&mut self, zdrop: i32, steps: i32) {
        self.strategy |= Self::ZDROP;
        self.zdrop = zdrop;
        self.steps_between_cutoffs = steps;
        self.steps_wait = steps;
        self.reset_sw_max();
    }

    pub fn set_banded_static(&mut self, band_min_k: i32, band_max_k: i32) {
        self.strategy |= Self::BANDED_STATIC;
        self.min_k = band_min_k;
        self.max_k = band_max_k;
    }

    pub fn set_banded_adaptive(&mut self, band_min_k: i32, band_max_k: i32, steps: i32) {
        self.strategy |= Self::BANDED_ADAPTIVE;
        self.min_k = band_min_k;
        self.max_k = band_max_k;
        self.steps_between_cutoffs = steps;
        self.steps_wait = steps;
    }

    fn reset_sw_max(&mut self) {
        self.max_sw_score = 0;
        self.max_sw_score_offset = OFFSET_NULL;
        self.max_sw_score_k = DIAGONAL_NULL;
    }

    /// What `wavefront_aligner_new` derives from the attributes: strategies are re-set in
    /// a fixed precedence, so e.g. wfadaptive hides wfmash.
    pub(crate) fn from_attributes(attr: &Heuristic) -> Heuristic {
        let mut h = *attr;
        if attr.strategy == Self::NONE {
            h.strategy = Self::NONE;
            return h;
        }
        h.strategy = 0;
        let s = attr.strategy;
        if s & Self::WFADAPTIVE != 0 {
            h.set_wfadaptive(
                attr.min_wavefront_length,
                attr.max_distance_threshold,
                attr.steps_between_cutoffs,
            );
        } else if s & Self::WFMASH != 0 {
            h.set_wfmash(
                attr.min_wavefront_length,
                attr.max_distance_threshold,
                attr.steps_between_cutoffs,
            );
        }
        if s & Self::XDROP != 0 {
            h.set_xdrop(attr.xdrop, attr.steps_between_cutoffs);
        } else if s & Self::ZDROP != 0 {
            h.set_zdrop(attr.zdrop, attr.steps_between_cutoffs);
        }
        if s & Self::BANDED_STATIC != 0 {
            h.set_banded_static(attr.min_k, attr.max_k);
        } else if s & Self::BANDED_ADAPTIVE != 0 {
            h.set_banded_adaptive(attr.min_k, attr.max_k, attr.steps_between_cutoffs);
        }
        h
    }

    /// Per-alignment reset (`wavefront_heuristic_clear`).
    pub(crate) fn clear_state(&mut self) {
        self.steps_wait = self.steps_between_cutoffs;
        self.reset_sw_max();
    }
}

/// Sequence geometry and penalties the cut-offs read.
pub(crate) struct CutoffInput {
    pub pattern_length: i32,
    pub text_length: i32,
    pub score: i32,
    pub wf_match: i32,
    pub gap_extension1: i32,
}

#[inline]
fn distance_end2end(offset: i32, k: i32, plen: i32, tlen: i32) -> i32 {
    if offset >= 0 {
        (plen - (offset - k)).max(tlen - offset)
    } else {
        -OFFSET_NULL
    }
}

#[inline]
fn distance_end2end_weighted(offset: i32, k: i32, plen: i32, tlen: i32, mfactor: i32) -> i32 {
    // Float arithmetic as in C (float operands, truncating conversion).
    let left_v = ((plen - (offset - k)) as f32 / plen as f32 * mfactor as f32) as i32;
    let left_h = ((tlen - offset) as f32 / tlen as f32 * mfactor as f32) as i32;
    if offset >= 0 {
        left_v.max(left_h)
    } else {
        -OFFSET_NULL
    }
}

/// Applies the configured cut-offs to the freshly extended M-wavefront. The caller then
/// clamps the I/D wavefronts of the same score to the new range.
pub(crate) fn cutoff(
    h: &mut Heuristic,
    m: &mut Wavefront,
    inp: &CutoffInput,
    scratch: &mut Vec<i32>,
) {
    // Wraps as 2.3.3's `steps_wait--` does: a client may pass INT_MIN steps.
    h.steps_wait = h.steps_wait.wrapping_sub(1);
    if h.strategy & Heuristic::WFADAPTIVE != 0 {
        wfadaptive(h, m, inp, scratch, false);
    } else if h.strategy & Heuristic::WFMASH != 0 {
        wfadaptive(h, m, inp, scratch, true);
    }
    if h.strategy & Heuristic::XDROP != 0 {
        xdrop(h, m, inp, scratch);
    } else if h.strategy & Heuristic::ZDROP != 0 {
        zdrop(h, m, inp, scratch);
    }
    if h.strategy & Heuristic::BANDED_STATIC != 0 {
        if m.lo < h.min_k {
            m.lo = h.min_k;
        }
        if m.hi > h.max_k {
            m.hi = h.max_k;
        }
    } else if h.strategy & Heuristic::BANDED_ADAPTIVE != 0 {
        banded_adaptive(h, m, inp);
    }
}

fn wfadaptive(
    h: &mut Heuristic,
    m: &mut Wavefront,
    inp: &CutoffInput,
    dist: &mut Vec<i32>,
    mash: bool,
) {
    if h.steps_wait > 0 {
        return;
    }
    let (lo, hi) = (m.lo, m.hi);
    if hi - lo + 1 < h.min_wavefront_length {
        return;
    }
    let (plen, tlen) = (inp.pattern_length, inp.text_length);
    dist.clear();
    let mut min_distance = plen.max(tlen);
    if mash {
        let mfactor = ((plen + tlen) as f32 / 2.0) as i32;
        for k in lo..=hi {
            let d = distance_end2end_weighted(m.get(k), k, plen, tlen, mfactor);
            dist.push(d);
            min_distance = min_distance.min(d);
        }
    } else {
        for k in lo..=hi {
            let d = distance_end2end(m.get(k), k, plen, tlen);
            dist.push(d);
            min_distance = min_distance.min(d);
        }
    }
    let d = |k: i32| dist[(k - lo) as usize];
    let thr = h.max_distance_threshold;
    let alignment_k = tlen - plen;
    // Never cut the diagonal the alignment must end on.
    let top_limit = alignment_k.min(hi);
    let mut new_lo = lo;
    let mut k = lo;
    while k < top_limit {
        if d(k) - min_distance <= thr {
            break;
        }
        new_lo += 1;
        k += 1;
    }
    let bottom_limit = alignment_k.max(new_lo);
    let mut new_hi = hi;
    let mut k = hi;
    while k > bottom_limit {
        if d(k) - min_distance <= thr {
            break;
        }
        new_hi -= 1;
        k -= 1;
    }
    m.lo = new_lo;
    m.hi = new_hi;
    h.steps_wait = h.steps_between_cutoffs;
}

fn sw_scores(m: &Wavefront, inp: &CutoffInput, out: &mut Vec<i32>) -> (i32, i32, i32) {
    let wf_match = inp.wf_match;
    let swg_match = if wf_match == 0 { 1 } else { -wf_match };
    out.clear();
    let (mut cmax, mut cmax_k, mut cmax_off) = (i32::MIN, 0, 0);
    for k in m.lo..=m.hi {
        let offset = m.get(k);
        if offset < 0 {
            // Upstream leaves the slot untouched; it is never read for such k.
            out.push(0);
            continue;
        }
        let v = offset - k;
        let hh = offset;
        let sw = super::penalties::swg_minus_wf(swg_match, v + hh, inp.score);
        let sw = if wf_match == 0 { sw } else { sw / 2 };
        out.push(sw);
        if cmax < sw {
            cmax = sw;
            cmax_k = k;
            cmax_off = offset;
        }
    }
    (cmax, cmax_k, cmax_off)
}

fn xdrop(h: &mut Heuristic, m: &mut Wavefront, inp: &CutoffInput, sw: &mut Vec<i32>) {
    if h.steps_wait > 0 {
        return;
    }
    let base_lo = m.lo;
    let (cmax, cmax_k, _) = sw_scores(m, inp, sw);
    let sw_at = |k: i32| sw[(k - base_lo) as usize];
    if h.max_sw_score_k != DIAGONAL_NULL {
        // The differences wrap as 2.3.3's int arithmetic does.
        let max_sw = h.max_sw_score;
        let mut k = m.lo;
        while k <= m.hi {
            if m.get(k) >= 0 && max_sw.wrapping_sub(sw_at(k)) < h.xdrop {
                break;
            }
            k += 1;
        }
        m.lo = k;
        let mut k = m.hi;
        while k >= m.lo {
            if m.get(k) >= 0 && max_sw.wrapping_sub(sw_at(k)) < h.xdrop {
                break;
            }
            k -= 1;
        }
        m.hi = k;
        if cmax > h.max_sw_score {
            h.max_sw_score = cmax;
            h.max_sw_score_k = cmax_k;
        }
    } else {
        h.max_sw_score = cmax;
        h.max_sw_score_k = cmax_k;
    }
    h.steps_wait = h.steps_between_cutoffs;
}

fn zdrop(h: &mut Heuristic, m: &mut Wavefront, inp: &CutoffInput, sw: &mut Vec<i32>) {
    if h.steps_wait > 0 {
        return;
    }
    let (cmax, cmax_k, cmax_off) = sw_scores(m, inp, sw);
    let gap_e = if inp.gap_extension1 > 0 {
        inp.gap_extension1
    } else {
        1
    };
    if h.max_sw_score_k != DIAGONAL_NULL {
        if cmax > h.max_sw_score {
            h.max_sw_score = cmax;
            h.max_sw_score_k = cmax_k;
            h.max_sw_score_offset = cmax_off;
        } else {
            let (k1, o1) = (h.max_sw_score_k, h.max_sw_score_offset);
            let diff_h = (cmax_off - o1).abs();
            let diff_v = ((cmax_off - cmax_k) - (o1 - k1)).abs();
            let gap_score = (diff_h - diff_v).abs() * gap_e;
            // Wraps as 2.3.3's int arithmetic does for a z-drop near INT_MAX
            // and for scores far apart.
            if h.max_sw_score.wrapping_sub(cmax) > h.zdrop.wrapping_add(gap_score) {
                m.lo = m.hi + 1;
                return;
            }
        }
    } else {
        h.max_sw_score = cmax;
        h.max_sw_score_k = cmax_k;
        h.max_sw_score_offset = cmax_off;
    }
    h.steps_wait = h.steps_between_cutoffs;
}

fn banded_adaptive(h: &mut Heuristic, m: &mut Wavefront, inp: &CutoffInput) {
    if h.steps_wait > 0 {
        return;
    }
    let (lo, hi) = (m.lo, m.hi);
    let wf_length = hi - lo + 1;
    if wf_length < 4 {
        return;
    }
    let (plen, tlen) = (inp.pattern_length, inp.text_length);
    let max_wf_length = h.max_k - h.min_k + 1;
    if wf_length > max_wf_length {
        let leeway = (wf_length - max_wf_length) / 2;
        let quarter = wf_length / 4;
        let dist = |k: i32| distance_end2end(m.get(k), k, plen, tlen);
        let d0 = dist(lo);
        let d1 = dist(lo + quarter);
        let d2 = dist(lo + 2 * quarter);
        let d3 = dist(hi);
        let mut new_lo = lo;
        if d0 > d3 {
            new_lo += leeway;
        }
        if d1 > d2 {
            new_lo += leeway;
        }
        m.lo = new_lo.max(lo);
        m.hi = (new_lo + max_wf_length - 1).min(hi);
    }
    h.steps_wait = h.steps_between_cutoffs;
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wfa::penalties::MAX_PENALTY;
    use crate::wfa::{AffinePenalties, Aligner, AlignerAttributes, Penalties};

    /// X-drop and z-drop score each diagonal in upstream's `int` arithmetic:
    /// with the largest accepted match score on long sequences it wraps, as
    /// upstream's does, instead of panicking in a checked build.
    #[test]
    fn drops_with_the_largest_match_score_do_not_panic() {
        let p = b"ACGTTGCA".repeat(20);
        let mut t = p.clone();
        t[100] = b'G';
        for heuristic in [Heuristic::xdrop(100, 1), Heuristic::zdrop(100, 1)] {
            let attributes = AlignerAttributes {
                penalties: Penalties::GapAffine(AffinePenalties {
                    match_score: -(MAX_PENALTY as i32),
                    mismatch: 4,
                    gap_opening: 6,
                    gap_extension: 2,
                }),
                heuristic,
                ..AlignerAttributes::default()
            };
            let mut aligner = Aligner::new(&attributes).unwrap();
            let _ = aligner.align(&p, &t);
        }
    }
}
