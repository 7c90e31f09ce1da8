//! Computing the wavefronts of the next score (`wavefront_compute*.c`): input
//! selection, output ranges, NULL padding, kernels, ends-free injection and trimming.

use super::Core;
use super::compute::{self, Affine2pOut, Dims, GapInputs};
use super::wavefront::{OFFSET_NULL, Wavefront};
use crate::wfa::penalties::DistanceMetric;
use crate::wfa::{AlignmentScope, AlignmentSpan, MemoryMode};

impl Core {
    /// Upstream checks its fixed-size table before allocating a computed wavefront
    /// (edit does not check and overflows; we stop there too).
    fn table_full(&mut self, score: i32) -> bool {
        let high = self.scope == AlignmentScope::ComputeAlignment
            && matches!(self.memory_mode, MemoryMode::High | MemoryMode::Ultralow);
        if high && score as i64 >= self.wavefront_limit() {
            self.exhausted = true;
        }
        self.exhausted
    }

    /// With a negative match score, begin-free cells cannot all live in wavefront 0:
    /// cell (0,h) costs `-match * h` internally, so it is injected at that score.
    fn endsfree_k(&self, score: i32) -> Option<i32> {
        let m = self.pen.match_score;
        if m == 0 || self.form.span != AlignmentSpan::EndsFree || score % (-m) != 0 {
            None
        } else {
            Some(score / (-m))
        }
    }

    /// M-wavefront of a score whose inputs are all null (`allocate_output_null`).
    fn null_step_m(&mut self, out: usize, score: i32) {
        let Some(ek) = self.endsfree_k(score) else {
            self.comps.m[out].present = false;
            return;
        };
        let text_free = self.form.text_begin_free >= ek;
        let pattern_free = self.form.pattern_begin_free >= ek;
        let (lo, hi) = match (pattern_free, text_free) {
            (true, true) => (-ek, ek),
            (false, true) => (ek, ek),
            (true, false) => (-ek, -ek),
            (false, false) => (0, 0),
        };
        let margin = self.margin();
        let mut injected = self.piggyback.then_some(&mut self.decisions.injected);
        let w = &mut self.comps.m[out];
        w.reset(lo, hi, margin);
        for k in lo..=hi {
            w.set(k, OFFSET_NULL);
        }
        // Upstream leaves some cells of this wavefront uninitialised (its
        // `wf_elements_init_*` stay 0, so the cells between diagonal 0 and a one-sided
        // injection are read as whatever memory held); NULL is the intended value.
        if text_free {
            w.set(ek, ek);
            note_injected(&mut injected, ek);
        }
        if pattern_free {
            w.set(-ek, 0);
            note_injected(&mut injected, -ek);
        }
        if text_free || pattern_free {
            self.last_live = score;
        }
    }

    /// Adds the begin-free cells of this score to a computed M-wavefront
    /// (`wavefront_compute_endsfree_init`).
    fn endsfree_init(&mut self, out: usize, score: i32) {
        let Some(ek) = self.endsfree_k(score) else {
            return;
        };
        let (tbf, pbf) = (self.form.text_begin_free, self.form.pattern_begin_free);
        let mut injected = self.piggyback.then_some(&mut self.decisions.injected);
        let w = &mut self.comps.m[out];
        if tbf >= ek {
            if w.hi >= ek {
                // Cells below `lo` are outside the wavefront, so the write is moot there.
                if w.lo <= ek && w.get(ek) <= ek {
                    w.set(ek, ek);
                    note_injected(&mut injected, ek);
                }
            } else {
                w.ensure_capacity(w.hi + 1, ek);
                for k in w.hi + 1..ek {
                    w.set(k, OFFSET_NULL);
                }
                w.set(ek, ek);
                w.hi = ek;
                note_injected(&mut injected, ek);
            }
        }
        if pbf >= ek {
            let k0 = -ek;
            if w.lo <= k0 {
                if k0 <= w.hi && w.get(k0) <= 0 {
                    w.set(k0, 0);
                    note_injected(&mut injected, k0);
                }
            } else {
                w.ensure_capacity(k0, w.lo - 1);
                w.set(k0, 0);
                for k in k0 + 1..w.lo {
                    w.set(k, OFFSET_NULL);
                }
                w.lo = k0;
                note_injected(&mut injected, k0);
            }
        }
    }

    pub(super) fn compute(&mut self, score: i32) {
        match self.pen.metric {
            DistanceMetric::Indel | DistanceMetric::Edit => self.compute_edit(score),
            DistanceMetric::GapLinear => self.compute_linear(score),
            DistanceMetric::GapAffine | DistanceMetric::GapAffine2p => self.compute_affine(score),
        }
    }

    fn dims(&self, lo: i32) -> Dims {
        Dims {
            lo,
            plen: self.plen as u32,
            tlen: self.tlen as u32,
        }
    }

    fn ensure_nulls(&mut self, n: usize) {
        if self.nulls.len() < n {
            self.nulls.resize(n, OFFSET_NULL);
        }
    }

    fn compute_edit(&mut self, score: i32) {
        if self.table_full(score) {
            return;
        }
        let prev_slot = self.comps.slot(score - 1).expect("score >= 1");
        let out = self.comps.output_slot(score);
        let (plo, phi) = (self.comps.m[prev_slot].lo, self.comps.m[prev_slot].hi);
        let (lo, hi) = (plo - 1, phi + 1);
        if lo > hi + 1 {
            // An empty wavefront (an adaptive band inverted by its
            // caller) has only empty successors; the stuck check ends the
            // alignment.
            let w = &mut self.comps.m[out];
            w.reset(0, -1, 0);
            self.num_null_steps = i32::MAX;
            return;
        }
        let margin = self.margin();
        let dims = self.dims(lo);
        let mut out_offs = {
            let w = &mut self.comps.m[out];
            w.reset(lo, hi, margin);
            std::mem::take(&mut w.offs)
        };
        let base = self.comps.m[out].base;
        {
            let prev = self.comps.m[prev_slot].padded(lo - 1, hi + 1);
            let n = (hi - lo + 1) as usize;
            let dst = &mut out_offs[(lo - base) as usize..][..n];
            if self.pen.metric == DistanceMetric::Indel {
                compute::indel(&dims, prev, dst);
            } else {
                compute::edit(&dims, prev, dst);
            }
        }
        let w = &mut self.comps.m[out];
        w.offs = out_offs;
        trim_ends(w, self.plen, self.tlen);
        if w.lo > w.hi {
            self.num_null_steps = i32::MAX;
        }
        if self.form.span == AlignmentSpan::EndToEnd && self.pen.metric == DistanceMetric::Edit {
            edit_exact_prune(w, self.plen, self.tlen);
        }
    }

    fn compute_linear(&mut self, score: i32) {
        let c = &self.comps;
        let misms = c.live(&c.m, score - self.pen.mismatch);
        let open = c.live(&c.m, score - self.pen.gap_opening1);
        let out = self.comps.output_slot(score);
        if misms.is_none() && open.is_none() {
            self.num_null_steps += 1;
            self.null_step_m(out, score);
            return;
        }
        self.num_null_steps = 0;
        if self.table_full(score) {
            return;
        }
        let mut lim = Limits::new(range_of(&self.comps.m, misms));
        lim.add(range_of(&self.comps.m, open), -1, 1);
        let (lo, hi) = (lim.lo, lim.hi);
        let n = (hi - lo + 1) as usize;
        self.ensure_nulls(n + 2);
        let margin = self.margin();
        let dims = self.dims(lo);
        let (mut out_offs, base) = take_output(&mut self.comps.m, out, lo, hi, margin);
        pad(&mut self.comps.m, misms, lo, hi);
        pad(&mut self.comps.m, open, lo - 1, hi + 1);
        {
            let nulls = &self.nulls[..];
            let mm = view(&self.comps.m, misms, lo, hi, nulls);
            let mo = view(&self.comps.m, open, lo - 1, hi + 1, nulls);
            let dst = &mut out_offs[(lo - base) as usize..][..n];
            compute::linear(&dims, mm, mo, dst);
        }
        self.comps.m[out].offs = out_offs;
        self.endsfree_init(out, score);
        trim_ends(&mut self.comps.m[out], self.plen, self.tlen);
        if self.comps.m[out].lo <= self.comps.m[out].hi {
            self.last_live = score;
        }
    }

    fn compute_affine(&mut self, score: i32) {
        let p = self.pen;
        let two_piece = p.metric == DistanceMetric::GapAffine2p;
        let c = &self.comps;
        let misms = c.live(&c.m, score - p.mismatch);
        let open1 = c.live(&c.m, score - p.gap_opening1 - p.gap_extension1);
        let i1e = c.live(&c.i1, score - p.gap_extension1);
        let d1e = c.live(&c.d1, score - p.gap_extension1);
        let (open2, i2e, d2e) = if two_piece {
            (
                c.live(&c.m, score - p.gap_opening2 - p.gap_extension2),
                c.live(&c.i2, score - p.gap_extension2),
                c.live(&c.d2, score - p.gap_extension2),
            )
        } else {
            (None, None, None)
        };
        let out = self.comps.output_slot(score);
        let any = [misms, open1, i1e, d1e, open2, i2e, d2e]
            .iter()
            .any(|x| x.is_some());
        if !any {
            self.num_null_steps += 1;
            self.null_step_m(out, score);
            for comp in [
                &mut self.comps.i1,
                &mut self.comps.d1,
                &mut self.comps.i2,
                &mut self.comps.d2,
            ] {
                comp[out].present = false;
            }
            return;
        }
        self.num_null_steps = 0;
        if self.table_full(score) {
            return;
        }
        // Output range (`wavefront_compute_limits_input`); null inputs count as [1,-1].
        let mut lim = Limits::new(range_of(&self.comps.m, misms));
        lim.add(range_of(&self.comps.m, open1), -1, 1);
        lim.add(range_of(&self.comps.i1, i1e), 1, 1);
        lim.add(range_of(&self.comps.d1, d1e), -1, -1);
        if two_piece {
            lim.add(range_of(&self.comps.m, open2), -1, 1);
            lim.add(range_of(&self.comps.i2, i2e), 1, 1);
            lim.add(range_of(&self.comps.d2, d2e), -1, -1);
        }
        let (lo, hi) = (lim.lo, lim.hi);
        let n = (hi - lo + 1) as usize;
        self.ensure_nulls(n + 2);
        let margin = self.margin();
        let dims = self.dims(lo);
        // Gap outputs exist only when one of their sources does.
        let has_i1 = open1.is_some() || i1e.is_some();
        let has_d1 = open1.is_some() || d1e.is_some();
        let uses_piece2 = open2.is_some() || i2e.is_some() || d2e.is_some();
        let has_i2 = two_piece && (open2.is_some() || i2e.is_some());
        let has_d2 = two_piece && (open2.is_some() || d2e.is_some());

        let (mut om, mbase) = take_output(&mut self.comps.m, out, lo, hi, margin);
        let mut oi1 = take_gap(
            &mut self.comps.i1[out],
            has_i1,
            lo,
            hi,
            margin,
            &mut self.victims[0],
            n,
        );
        let mut od1 = take_gap(
            &mut self.comps.d1[out],
            has_d1,
            lo,
            hi,
            margin,
            &mut self.victims[1],
            n,
        );
        let mut oi2 = take_gap(
            &mut self.comps.i2[out],
            has_i2,
            lo,
            hi,
            margin,
            &mut self.victims[2],
            n,
        );
        let mut od2 = take_gap(
            &mut self.comps.d2[out],
            has_d2,
            lo,
            hi,
            margin,
            &mut self.victims[3],
            n,
        );
        if !two_piece {
            self.comps.i2[out].present = false;
            self.comps.d2[out].present = false;
        }

        pad(&mut self.comps.m, misms, lo, hi);
        pad(&mut self.comps.m, open1, lo - 1, hi + 1);
        pad(&mut self.comps.i1, i1e, lo - 1, hi - 1);
        pad(&mut self.comps.d1, d1e, lo + 1, hi + 1);
        pad(&mut self.comps.m, open2, lo - 1, hi + 1);
        pad(&mut self.comps.i2, i2e, lo - 1, hi - 1);
        pad(&mut self.comps.d2, d2e, lo + 1, hi + 1);
        {
            let nulls = &self.nulls[..];
            let cm = &self.comps;
            let mm = view(&cm.m, misms, lo, hi, nulls);
            let g1 = GapInputs {
                open: view(&cm.m, open1, lo - 1, hi + 1, nulls),
                i_ext: view(&cm.i1, i1e, lo - 1, hi - 1, nulls),
                d_ext: view(&cm.d1, d1e, lo + 1, hi + 1, nulls),
            };
            let dst_m = &mut om[(lo - mbase) as usize..][..n];
            if two_piece && uses_piece2 {
                let g2 = GapInputs {
                    open: view(&cm.m, open2, lo - 1, hi + 1, nulls),
                    i_ext: view(&cm.i2, i2e, lo - 1, hi - 1, nulls),
                    d_ext: view(&cm.d2, d2e, lo + 1, hi + 1, nulls),
                };
                compute::affine2p(
                    &dims,
                    mm,
                    &g1,
                    &g2,
                    Affine2pOut {
                        m: dst_m,
                        i1: oi1.slice(n),
                        d1: od1.slice(n),
                        i2: oi2.slice(n),
                        d2: od2.slice(n),
                    },
                );
            } else {
                compute::affine(&dims, mm, &g1, dst_m, oi1.slice(n), od1.slice(n));
            }
        }
        self.comps.m[out].offs = om;
        oi1.restore(&mut self.comps.i1[out], &mut self.victims[0]);
        od1.restore(&mut self.comps.d1[out], &mut self.victims[1]);
        oi2.restore(&mut self.comps.i2[out], &mut self.victims[2]);
        od2.restore(&mut self.comps.d2[out], &mut self.victims[3]);
        self.endsfree_init(out, score);
        let (plen, tlen) = (self.plen, self.tlen);
        trim_ends(&mut self.comps.m[out], plen, tlen);
        for comp in [
            &mut self.comps.i1,
            &mut self.comps.d1,
            &mut self.comps.i2,
            &mut self.comps.d2,
        ] {
            if comp[out].present {
                trim_ends(&mut comp[out], plen, tlen);
            }
        }
        let c = &self.comps;
        if [&c.m, &c.i1, &c.d1, &c.i2, &c.d2]
            .iter()
            .any(|v| v[out].present && v[out].lo <= v[out].hi)
        {
            self.last_live = score;
        }
    }
}

/// Output buffer of a gap component: either the stored wavefront's vector or a scratch
/// vector whose values are only used to derive M (upstream's "victim" wavefront).
struct GapOut {
    buf: Vec<i32>,
    start: usize,
    stored: bool,
}

impl GapOut {
    fn slice(&mut self, n: usize) -> &mut [i32] {
        &mut self.buf[self.start..self.start + n]
    }

    fn restore(self, w: &mut Wavefront, victim: &mut Vec<i32>) {
        if self.stored {
            w.offs = self.buf;
        } else {
            *victim = self.buf;
        }
    }
}

fn take_gap(
    w: &mut Wavefront,
    stored: bool,
    lo: i32,
    hi: i32,
    margin: i32,
    victim: &mut Vec<i32>,
    n: usize,
) -> GapOut {
    if stored {
        w.reset(lo, hi, margin);
        let start = (lo - w.base) as usize;
        GapOut {
            buf: std::mem::take(&mut w.offs),
            start,
            stored: true,
        }
    } else {
        w.present = false;
        let mut buf = std::mem::take(victim);
        if buf.len() < n {
            buf.resize(n, 0);
        }
        GapOut {
            buf,
            start: 0,
            stored: false,
        }
    }
}

fn take_output(
    comp: &mut [Wavefront],
    out: usize,
    lo: i32,
    hi: i32,
    margin: i32,
) -> (Vec<i32>, i32) {
    let w = &mut comp[out];
    w.reset(lo, hi, margin);
    (std::mem::take(&mut w.offs), w.base)
}

fn range_of(comp: &[Wavefront], slot: Option<usize>) -> (i32, i32) {
    match slot {
        Some(s) => (comp[s].lo, comp[s].hi),
        None => (1, -1),
    }
}

fn pad(comp: &mut [Wavefront], slot: Option<usize>, from: i32, to: i32) {
    if let Some(s) = slot {
        comp[s].padded(from, to);
    }
}

/// Offsets of diagonals `[from, to]` of an input (already NULL-padded), or NULLs.
fn view<'a>(
    comp: &'a [Wavefront],
    slot: Option<usize>,
    from: i32,
    to: i32,
    nulls: &'a [i32],
) -> &'a [i32] {
    let len = (to - from + 1).max(0) as usize;
    match slot {
        Some(s) => {
            let w = &comp[s];
            &w.offs[(from - w.base) as usize..][..len]
        }
        None => &nulls[..len],
    }
}

struct Limits {
    lo: i32,
    hi: i32,
}

impl Limits {
    fn new((lo, hi): (i32, i32)) -> Limits {
        Limits { lo, hi }
    }

    fn add(&mut self, (lo, hi): (i32, i32), dlo: i32, dhi: i32) {
        self.lo = self.lo.min(lo + dlo);
        self.hi = self.hi.max(hi + dhi);
    }
}

/// `wavefront_compute_trim_ends`: drop end diagonals whose cell lies outside the matrix.
fn trim_ends(w: &mut Wavefront, plen: i32, tlen: i32) {
    let inside =
        |k: i32, o: i32| (o as u32) <= tlen as u32 && (o.wrapping_sub(k) as u32) <= plen as u32;
    let mut k = w.hi;
    while k >= w.lo {
        if inside(k, w.get(k)) {
            break;
        }
        k -= 1;
    }
    w.hi = k;
    let mut k = w.lo;
    while k <= w.hi {
        if inside(k, w.get(k)) {
            break;
        }
        k += 1;
    }
    w.lo = k;
}

/// `wavefront_compute_edit_exact_prune` (Heng Li's bound for very different lengths).
fn edit_exact_prune(w: &mut Wavefront, plen: i32, tlen: i32) {
    let (lo, hi) = (w.lo, w.hi);
    if hi - lo + 1 < 1000 {
        return;
    }
    let best = |k: i32, o: i32| {
        let lv = plen - (o - k);
        let lh = tlen - o;
        if lv >= lh { lv - lh } else { lh - lv }
    };
    let worst = |k: i32, o: i32| (plen - (o - k)).max(tlen - o);
    let sample_k = lo + (hi - lo) / 2;
    let sample = w.get(sample_k);
    if sample < 0 {
        return;
    }
    let smax_sample = worst(sample_k, sample);
    let smin_lo = best(lo, w.get(lo));
    let smin_hi = best(hi, w.get(hi));
    if smin_lo <= smax_sample && smin_hi <= smax_sample {
        return;
    }
    let mut score_min_worst = i32::MAX;
    for k in lo..=hi {
        let o = w.get(k);
        if o < 0 {
            continue;
        }
        score_min_worst = score_min_worst.min(worst(k, o));
    }
    let mut lo_reduced = lo;
    for k in lo..=hi {
        if best(k, w.get(k)) <= score_min_worst {
            break;
        }
        lo_reduced += 1;
    }
    w.lo = lo_reduced;
    let mut hi_reduced = hi;
    let mut k = hi;
    while k > lo_reduced {
        if best(k, w.get(k)) <= score_min_worst {
            break;
        }
        hi_reduced -= 1;
        k -= 1;
    }
    w.hi = hi_reduced;
}

/// Notes a begin-free cell that was injected, not computed (med and low
/// memory only, `injected` is `None` otherwise): their backtrace keeps its
/// offset instead of rebuilding it.
fn note_injected(injected: &mut Option<&mut Vec<i32>>, k: i32) {
    if let Some(cells) = injected {
        cells.push(k);
    }
}
