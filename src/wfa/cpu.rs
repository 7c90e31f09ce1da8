//! Unidirectional WFA driver (`wavefront_unialign.c`, `wavefront_compute.c`,
//! `wavefront_extend.c`): extend, check termination, cut off, compute the next score.

mod backtrace;
mod bialign;
mod compute;
mod extend;
mod piggyback;
mod step;
pub(super) mod wavefront;

pub use self::extend::MatchFn;
use self::extend::PaddedSeqs;
use self::wavefront::{Component, Components};
use super::heuristic::{self, CutoffInput, Heuristic};
use super::penalties::{DistanceMetric, WfPenalties};
use super::{
    AlignStatus, AlignerAttributes, AlignmentForm, AlignmentScope, AlignmentSpan, Cigar,
    MemoryMode, WfaError,
};

/// Initial CIGAR capacity of a full-alignment aligner: 2 * (1000 + 1000).
const CIGAR_INIT_FULL: i32 = 4000;
const CIGAR_INIT_SCORE: i32 = 10;

enum Step {
    Continue,
    Done,
}

/// Outcome of extending one wavefront (upstream's extend functions, before the
/// unidirectional driver acts on it).
#[derive(Clone, Copy, PartialEq, Eq)]
pub(super) enum Ext {
    Continue,
    Unfeasible,
    /// `WF_STATUS_END_REACHED`; the end cell is in `Core::end`.
    End,
}

pub(crate) struct Core {
    pub pen: WfPenalties,
    pub scope: AlignmentScope,
    pub form: AlignmentForm,
    pub memory_mode: MemoryMode,
    pub heuristic: Heuristic,
    pub max_alignment_score: i32,
    pub status: AlignStatus,
    pub cigar: Cigar,
    comps: Components,
    seqs: PaddedSeqs,
    plen: i32,
    tlen: i32,
    num_null_steps: i32,
    /// Score at which the score limit paused the alignment (for `resume`).
    paused_at: Option<i32>,
    /// (score, k, offset) where the alignment ended.
    end: (i32, i32, i32),
    /// Upstream's high-memory table size; it only ever grows (starts at 1000 x 1000).
    num_wavefronts: i64,
    exhausted: bool,
    nulls: Vec<i32>,
    victims: [Vec<i32>; 4],
    scratch: Vec<i32>,
    /// Matrices the alignment starts and ends in (BiWFA halves may use gap ones).
    component_begin: Component,
    component_end: Component,
    /// A client's match function replacing the byte comparison.
    pub match_fn: Option<std::sync::Arc<MatchFn>>,
    /// BiWFA's forward, reverse and base-case aligners (memory mode ultralow).
    bi: Option<Box<bialign::BiAligner>>,
    /// Set when this aligner, as a BiWFA search direction, reached the far end.
    reached_end: bool,
    /// Set when a static band left an edit/indel M-wavefront empty with a
    /// gap between its ends (see `cutoff`).
    band_emptied: bool,
    /// The last score whose wavefronts held a cell inside the matrix
    /// (ends-free with a negative match score, see `dead`).
    last_live: i32,
    /// `system.max_memory_abort` and `system.probe_interval_global`.
    pub max_memory_abort: u64,
    pub probe_interval: i32,
    /// Med and low memory: wavefronts kept in a ring, the backtrace's decisions
    /// recorded as the alignment goes (see `piggyback`).
    piggyback: bool,
    decisions: piggyback::Decisions,
}

impl Core {
    pub fn new(attr: &AlignerAttributes) -> Result<Core, WfaError> {
        let pen = WfPenalties::from_client(&attr.penalties)?;
        let score_only = attr.scope == AlignmentScope::ComputeScore;
        let bi = if attr.memory_mode == MemoryMode::Ultralow {
            Some(Box::new(bialign::BiAligner::new(attr)?))
        } else {
            None
        };
        Ok(Core {
            pen,
            scope: attr.scope,
            form: attr.form,
            memory_mode: attr.memory_mode,
            heuristic: Heuristic::from_attributes(&attr.heuristic),
            max_alignment_score: attr.max_alignment_score,
            status: AlignStatus::Successful,
            cigar: Cigar::new(if score_only {
                CIGAR_INIT_SCORE
            } else {
                CIGAR_INIT_FULL
            }),
            comps: Components::default(),
            seqs: PaddedSeqs::default(),
            plen: 0,
            tlen: 0,
            num_null_steps: 0,
            paused_at: None,
            end: (-1, 0, 0),
            num_wavefronts: pen.num_wavefronts(1000, 1000),
            exhausted: false,
            nulls: Vec::new(),
            victims: Default::default(),
            scratch: Vec::new(),
            component_begin: Component::M,
            component_end: Component::M,
            match_fn: None,
            bi,
            reached_end: false,
            band_emptied: false,
            last_live: 0,
            max_memory_abort: u64::MAX,
            probe_interval: 3000,
            piggyback: false,
            decisions: piggyback::Decisions::default(),
        })
    }

    fn check(&self, plen: i32, tlen: i32) -> Result<(), WfaError> {
        let unit = matches!(
            self.pen.metric,
            DistanceMetric::Edit | DistanceMetric::Indel
        );
        super::checks::configuration(
            self.memory_mode == MemoryMode::Ultralow,
            &self.form,
            self.heuristic.strategy,
            unit,
        )?;
        super::checks::ends_free(&self.form, plen.into(), tlen.into())
    }

    pub fn align(&mut self, pattern: &[u8], text: &[u8]) -> Result<AlignStatus, WfaError> {
        let (plen, tlen) = (pattern.len() as i32, text.len() as i32);
        self.check(plen, tlen)?;
        if self.inverted_static_band() {
            // No diagonal lies in the band. 2.3.3 finds gap-linear and
            // gap-affine alignments unfeasible at once; with edit or indel
            // it crashes. Both get the unfeasible outcome here.
            self.prepare(pattern, text, false);
            self.cigar.clear();
            self.status = AlignStatus::Unfeasible;
            return Ok(self.status);
        }
        if self.bi.is_some() {
            self.bialign(pattern, text)
        } else {
            self.unialign(pattern, text)
        }
    }

    /// Ends an alignment whose wavefronts could not be allocated: their
    /// memory goes back, and the outcome is upstream's out-of-memory one.
    pub(crate) fn out_of_memory(&mut self) {
        self.comps = Components::default();
        self.nulls = Vec::new();
        self.victims = Default::default();
        self.scratch = Vec::new();
        self.decisions = piggyback::Decisions::default();
        self.cigar.clear();
        self.status = AlignStatus::Oom;
        self.paused_at = None;
    }

    /// A static band with `min_k > max_k` and a unit metric (see `align`).
    fn inverted_static_band(&self) -> bool {
        let h = &self.heuristic;
        h.strategy & Heuristic::BANDED_STATIC != 0
            && h.min_k > h.max_k
            && matches!(
                self.pen.metric,
                DistanceMetric::Edit | DistanceMetric::Indel
            )
    }

    /// Forgets how large earlier pairs made the wavefront table, as a
    /// freshly made aligner: whether a pair runs out of wavefronts then
    /// depends on that pair alone (the batch API's contract), not on what
    /// the thread aligned before.
    pub(crate) fn forget_table_growth(&mut self) {
        self.num_wavefronts = self.pen.num_wavefronts(1000, 1000);
    }

    /// The score at which high-memory alignment runs out of wavefronts.
    /// 2.3.3 checks its table for gap-linear and gap-affine only; edit and
    /// indel write past it and align on, so here they are bounded by the
    /// pair alone: no path through the matrix costs more than
    /// `plen + tlen`, so a larger score means the end is out of reach.
    pub(super) fn wavefront_limit(&self) -> i64 {
        match self.pen.metric {
            DistanceMetric::Edit | DistanceMetric::Indel => {
                i64::from(self.plen) + i64::from(self.tlen) + 1
            }
            _ => self.num_wavefronts,
        }
    }

    /// Resets the per-alignment state for `pattern`/`text` (`wavefront_unialign_resize`);
    /// `reverse` loads both reversed, as BiWFA's backward aligner does.
    fn prepare(&mut self, pattern: &[u8], text: &[u8], reverse: bool) {
        let (plen, tlen) = (pattern.len() as i32, text.len() as i32);
        self.plen = plen;
        self.tlen = tlen;
        if self.match_fn.is_none() {
            self.seqs.load(pattern, text, reverse);
        }
        self.status = AlignStatus::Successful;
        self.heuristic.clear_state();
        let score_only = self.scope == AlignmentScope::ComputeScore;
        // Score-only, med and low keep a ring of wavefronts; med and low also
        // record the backtrace's decisions (`piggyback`).
        self.piggyback =
            !score_only && matches!(self.memory_mode, MemoryMode::Med | MemoryMode::Low);
        self.comps
            .clear(score_only || self.piggyback, self.pen.max_score_scope());
        if self.piggyback {
            self.decisions.clear(self.pen.metric);
        }
        if !score_only {
            self.cigar.resize(2 * (plen + tlen));
        }
        self.num_wavefronts = self.num_wavefronts.max(self.pen.num_wavefronts(plen, tlen));
        self.exhausted = false;
        self.paused_at = None;
        self.num_null_steps = 0;
        self.band_emptied = false;
        self.last_live = 0;
    }

    fn unialign(&mut self, pattern: &[u8], text: &[u8]) -> Result<AlignStatus, WfaError> {
        self.unialign_components(pattern, text, Component::M, Component::M)
    }

    /// `wavefront_unialign_init` + `wavefront_unialign`, between the given matrices.
    fn unialign_components(
        &mut self,
        pattern: &[u8],
        text: &[u8],
        begin: Component,
        end: Component,
    ) -> Result<AlignStatus, WfaError> {
        self.prepare(pattern, text, false);
        self.component_begin = begin;
        self.component_end = end;
        self.init_wavefronts();
        self.run_from(0)
    }

    /// Leaves the history an alignment of a `plen` x `tlen` pair done elsewhere
    /// (on a device) would have left here: the CIGAR buffer and the wavefront
    /// table only ever grow, and the next CIGAR's offsets depend on them.
    /// `score` is the client score the alignment reported; a score-only
    /// alignment that did not finish leaves the previous one, as here.
    pub(crate) fn absorb(&mut self, plen: i32, tlen: i32, status: AlignStatus, score: i32) {
        if self.scope != AlignmentScope::ComputeScore {
            self.cigar.resize(2 * (plen + tlen));
            self.cigar.score = score;
        } else if status == AlignStatus::Successful {
            self.cigar.clear();
            self.cigar.score = score;
        }
        self.num_wavefronts = self.num_wavefronts.max(self.pen.num_wavefronts(plen, tlen));
        self.heuristic.clear_state();
        self.status = status;
        self.paused_at = None;
    }

    /// `wavefront_align_resume`: continues an alignment paused by the score limit.
    pub fn resume(&mut self) -> Result<AlignStatus, WfaError> {
        match self.paused_at {
            Some(score)
                if self.status == AlignStatus::MaxScoreReached
                    && self.memory_mode != MemoryMode::Ultralow =>
            {
                self.num_null_steps = 0;
                self.run_from(score)
            }
            _ => Err(WfaError::NotResumable),
        }
    }

    /// Main loop from `score`, whose wavefronts are computed but not yet extended.
    fn run_from(&mut self, mut score: i32) -> Result<AlignStatus, WfaError> {
        self.paused_at = None;
        loop {
            if let Step::Done = self.extend(score) {
                return Ok(self.status);
            }
            score += 1;
            self.compute(score);
            if self.exhausted {
                return Err(WfaError::WavefrontsExhausted);
            }
            if self.edit_stuck(score) {
                self.paused_at = Some(score);
                return self.fast_forward_stuck();
            }
            if self.dead(score) {
                return self.fast_forward_dead(score);
            }
            if score >= self.max_alignment_score {
                self.cigar.score = self.max_alignment_score;
                self.status = AlignStatus::MaxScoreReached;
                self.paused_at = Some(score);
                return Ok(self.status);
            }
            if self.memory_exceeded(score) {
                self.status = AlignStatus::Oom;
                return Ok(self.status);
            }
        }
    }

    /// `wavefront_unialign_reached_limits`' memory probe: every `probe_interval`
    /// scores, the aligner's memory against `max_memory_abort`. Upstream measures its
    /// slab allocator; we measure the wavefront buffers we hold (see `memory_used`).
    fn memory_exceeded(&self, score: i32) -> bool {
        self.max_memory_abort != u64::MAX
            && self.probe_interval > 0
            && score % self.probe_interval == 0
            && self.memory_used() > self.max_memory_abort
    }

    /// Bytes of wavefront storage this aligner holds (it keeps its buffers across
    /// alignments, as upstream's slab does).
    pub fn memory_used(&self) -> u64 {
        let c = &self.comps;
        let cells: usize = [&c.m, &c.i1, &c.d1, &c.i2, &c.d2]
            .iter()
            .flat_map(|v| v.iter())
            .map(|w| w.offs.capacity())
            .sum::<usize>()
            + self.victims.iter().map(Vec::capacity).sum::<usize>()
            + self.nulls.capacity();
        let bi = self.bi.as_ref().map_or(0, |b| b.memory_used());
        (cells * std::mem::size_of::<i32>()) as u64 + bi + self.decisions.bytes()
    }

    /// An empty edit/indel wavefront only ever produces empty successors (upstream
    /// keeps computing them and never declares the alignment unfeasible).
    pub(super) fn edit_stuck(&self, score: i32) -> bool {
        if !matches!(
            self.pen.metric,
            DistanceMetric::Edit | DistanceMetric::Indel
        ) {
            return false;
        }
        let s = self.comps.slot(score).expect("score >= 0");
        self.comps.m[s].lo > self.comps.m[s].hi
    }

    /// Jumps to the limit upstream would eventually hit while spinning on empty
    /// wavefronts: its wavefront table (high memory) or `max_alignment_score`.
    fn fast_forward_stuck(&mut self) -> Result<AlignStatus, WfaError> {
        let high = self.scope == AlignmentScope::ComputeAlignment
            && matches!(self.memory_mode, MemoryMode::High | MemoryMode::Ultralow);
        if high && self.wavefront_limit() <= self.max_alignment_score as i64 {
            return Err(WfaError::WavefrontsExhausted);
        }
        self.cigar.score = self.max_alignment_score;
        self.status = AlignStatus::MaxScoreReached;
        Ok(self.status)
    }

    /// Ends-free with a negative match score: no wavefront of the last
    /// `scope` scores holds a cell inside the matrix, and no begin-free
    /// cell is left to inject, so no later wavefront can hold one either.
    /// 2.3.3 never detects this: every `-match` scores it makes a
    /// wavefront of one cell it does not initialise (ours is NULL), which
    /// resets its count of null steps, so it computes on forever (negative
    /// `pattern_end_free` and `text_end_free` together, or a drop heuristic
    /// that cut every cell), and in seqshim the wavefront memory of med and
    /// low modes grew with it.
    fn dead(&self, score: i32) -> bool {
        let m = self.pen.match_score;
        if m >= 0 || self.form.span != AlignmentSpan::EndsFree {
            return false;
        }
        let last_injection = self
            .form
            .pattern_begin_free
            .max(self.form.text_begin_free)
            .max(0);
        i64::from(score) - i64::from(self.last_live) > i64::from(self.comps.scope)
            && score / (-m) >= last_injection
    }

    /// Where a dead alignment (see `dead`) ends: the limit 2.3.3 would
    /// eventually hit while computing on, where it has one (its wavefront
    /// table in high memory, or a finite `max_alignment_score`); otherwise
    /// it is unfeasible, as the same alignment with a zero match score is.
    fn fast_forward_dead(&mut self, score: i32) -> Result<AlignStatus, WfaError> {
        let high = self.scope == AlignmentScope::ComputeAlignment
            && matches!(self.memory_mode, MemoryMode::High | MemoryMode::Ultralow);
        if high && self.wavefront_limit() <= self.max_alignment_score as i64 {
            return Err(WfaError::WavefrontsExhausted);
        }
        if self.max_alignment_score != i32::MAX {
            self.cigar.score = self.max_alignment_score;
            self.status = AlignStatus::MaxScoreReached;
            self.paused_at = Some(score);
            return Ok(self.status);
        }
        self.status = AlignStatus::Unfeasible;
        Ok(self.status)
    }

    /// Spare diagonals a wavefront gets on each side, so that later scores
    /// reading past its ends rarely move it (`ensure_capacity` moves it
    /// when they do). The score scope, but at most 64: with penalties in
    /// the thousands the scope would make every wavefront of a score-only
    /// ring that many cells wide, gigabytes for a 1.5 kbp pair.
    fn margin(&self) -> i32 {
        (self.comps.scope + 1).min(64)
    }

    fn init_wavefronts(&mut self) {
        if self.component_begin != Component::M {
            // A BiWFA half starting inside a gap: only that component's origin.
            let margin = self.margin();
            let s = self.comps.output_slot(0);
            for c in [
                Component::M,
                Component::I1,
                Component::I2,
                Component::D1,
                Component::D2,
            ] {
                self.comps.of_mut(c)[s].present = false;
            }
            let w = &mut self.comps.of_mut(self.component_begin)[s];
            w.reset(0, 0, margin);
            w.set(0, 0);
            return;
        }
        let f = self.form;
        // A negative begin-free length frees nothing. 2.3.3 makes the
        // first wavefront's range from it as given, which inverts the range
        // and leaves later wavefronts reading cells it never wrote (edit and
        // indel crash; with one side 0 and the other negative, gap-linear
        // and gap-affine align as with 0, which is what happens here).
        //
        // Begin-free lengths left from an earlier ends-free setting do not
        // count under an end-to-end span. 2.3.3 still widens wavefront 0 to
        // them (spec §4.3) without writing its other cells, so it extends
        // uninitialised memory, and lengths near 2^28 make it allocate
        // gigabytes and crash; here the alignment is plain end to end, as
        // on an aligner that never had them (wavefront 0 is diagonal 0).
        let ends_free = f.span == AlignmentSpan::EndsFree && self.pen.match_score == 0;
        let (lo, hi) = if ends_free {
            (-f.pattern_begin_free.max(0), f.text_begin_free.max(0))
        } else {
            (0, 0)
        };
        let margin = self.margin();
        let s = self.comps.output_slot(0);
        let m = &mut self.comps.m[s];
        m.reset(lo, hi, margin);
        m.set(0, 0);
        if ends_free {
            for h in 1..=f.text_begin_free {
                m.set(h, h);
            }
            for v in 1..=f.pattern_begin_free {
                m.set(-v, 0);
            }
        }
        for comp in [
            &mut self.comps.i1,
            &mut self.comps.d1,
            &mut self.comps.i2,
            &mut self.comps.d2,
        ] {
            comp[s].present = false;
        }
    }

    // ---------------------------------------------------------------- extension

    fn extend(&mut self, score: i32) -> Step {
        let ext = self.extend_wf(score, false).0;
        if self.piggyback && ext != Ext::Unfeasible {
            self.decisions.record(&self.comps, &self.pen, score);
        }
        match ext {
            Ext::Continue if self.band_emptied => {
                self.status = AlignStatus::Unfeasible;
                Step::Done
            }
            Ext::Continue => Step::Continue,
            Ext::Unfeasible => {
                self.status = AlignStatus::Unfeasible;
                Step::Done
            }
            Ext::End => {
                self.terminate(score);
                Step::Done
            }
        }
    }

    /// Extends the M-wavefront of `score`, checks for the end and applies the
    /// heuristic cut-off (`wavefront_extend_*`). With `want_max`, also returns the
    /// largest antidiagonal reached (`wavefront_extend_end2end_max`).
    pub(super) fn extend_wf(&mut self, score: i32, want_max: bool) -> (Ext, i32) {
        let s = self.comps.slot(score).expect("score >= 0");
        if s >= self.comps.used || !self.comps.m[s].present {
            if self.num_null_steps > self.comps.scope {
                return (Ext::Unfeasible, 0);
            }
            return (Ext::Continue, 0);
        }
        let (plen, tlen) = (self.plen, self.tlen);
        let ends_free = self.form.span == AlignmentSpan::EndsFree;
        let mut max_ak = 0;
        let m = &mut self.comps.m[s];
        let end = if let Some(f) = &self.match_fn {
            let free = ends_free.then_some((
                plen,
                tlen,
                self.form.pattern_end_free,
                self.form.text_end_free,
            ));
            let end = extend::extend_custom(&**f, m, free);
            if ends_free {
                end
            } else {
                self.end2end_reached(s)
            }
        } else if !ends_free {
            if want_max {
                max_ak = extend::extend_all_max(&self.seqs, m);
            } else {
                extend::extend_all(&self.seqs, m);
            }
            self.end2end_reached(s)
        } else {
            extend::extend_endsfree(
                &self.seqs,
                m,
                plen,
                tlen,
                self.form.pattern_end_free,
                self.form.text_end_free,
            )
        };
        if let Some((k, offset)) = end {
            self.end = (score, k, offset);
            return (Ext::End, 0);
        }
        if self.heuristic.strategy != Heuristic::NONE {
            self.cutoff(score, s);
        }
        (Ext::Continue, max_ak)
    }

    /// End-to-end termination: the end cell reached in the end component.
    fn end2end_reached(&self, s: usize) -> Option<(i32, i32)> {
        let (plen, tlen) = (self.plen, self.tlen);
        let k_end = tlen - plen;
        let w = &self.comps.of(self.component_end)[s];
        if w.present && w.lo <= k_end && k_end <= w.hi && w.get(k_end) >= tlen {
            Some((k_end, tlen))
        } else {
            None
        }
    }

    fn cutoff(&mut self, score: i32, s: usize) {
        let m = &mut self.comps.m[s];
        if m.lo > m.hi {
            return;
        }
        let inp = CutoffInput {
            pattern_length: self.plen,
            text_length: self.tlen,
            score,
            wf_match: self.pen.match_score,
            gap_extension1: self.pen.gap_extension1,
        };
        heuristic::cutoff(&mut self.heuristic, m, &inp, &mut self.scratch);
        let (lo, hi) = (m.lo, m.hi);
        if lo > hi + 1
            && self.heuristic.strategy & Heuristic::BANDED_STATIC != 0
            && matches!(
                self.pen.metric,
                DistanceMetric::Edit | DistanceMetric::Indel
            )
        {
            // The band lies wholly beside the wavefront (e.g. band -55..-36
            // around diagonal 0): no later wavefront can reach it. 2.3.3
            // then writes outside the wavefront it computes from and
            // crashes; gap-linear and gap-affine, which it does not crash
            // on, end unfeasible, and so do edit and indel here. A band
            // just next to the wavefront (`lo == hi + 1`) leaves a gap
            // 2.3.3 spins on without crashing: that case stays with
            // `edit_stuck`, as 2.3.3 ends it.
            self.band_emptied = true;
        }
        if matches!(
            self.pen.metric,
            DistanceMetric::GapAffine | DistanceMetric::GapAffine2p
        ) {
            // Same-score gap wavefronts are clamped to the surviving M range.
            for comp in [
                &mut self.comps.i1,
                &mut self.comps.d1,
                &mut self.comps.i2,
                &mut self.comps.d2,
            ] {
                let w = &mut comp[s];
                if w.present {
                    w.lo = w.lo.max(lo);
                    w.hi = w.hi.min(hi);
                }
            }
        }
    }

    // ---------------------------------------------------------------- termination

    fn terminate(&mut self, score: i32) {
        let (plen, tlen) = (self.plen, self.tlen);
        let classic = self.pen.classic_score(plen, tlen, score);
        if self.scope == AlignmentScope::ComputeScore {
            self.cigar.clear();
        } else {
            let (end_score, k, offset) = self.end;
            let end = backtrace::EndCell {
                plen,
                tlen,
                matrix: self.component_end,
                score: end_score,
                k,
                offset,
            };
            let affine = matches!(
                self.pen.metric,
                DistanceMetric::GapAffine | DistanceMetric::GapAffine2p
            );
            if self.piggyback {
                self.piggyback_backtrace(&end, affine);
            } else if affine {
                backtrace::affine(&self.comps, &self.pen, end, &mut self.cigar);
            } else {
                backtrace::linear(&self.comps, &self.pen, end, &mut self.cigar);
            }
            if self.memory_mode != MemoryMode::High {
                // The piggy-back unpacker and BiWFA's cigar_append write from index 0.
                let (b, e) = (
                    self.cigar.begin_offset as usize,
                    self.cigar.end_offset as usize,
                );
                self.cigar.ops.copy_within(b..e, 0);
                self.cigar.begin_offset = 0;
                self.cigar.end_offset = (e - b) as i32;
            }
        }
        self.cigar.score = classic;
        self.status = AlignStatus::Successful;
    }

    /// The med/low backtrace: the high-memory walk over the recorded decisions.
    fn piggyback_backtrace(&mut self, end: &backtrace::EndCell, affine: bool) {
        let mut sources = Vec::new();
        let (seqs, f) = (&self.seqs, self.match_fn.as_deref());
        self.decisions.sources(
            &self.pen,
            end,
            |k, o| extend::extend_one(seqs, f, k, o),
            &mut sources,
        );
        let mut next = sources.iter().copied();
        let oracle = |_, _, _| next.next().unwrap_or(backtrace::NO_SOURCE);
        if affine {
            backtrace::affine_walk(oracle, &self.pen, *end, &mut self.cigar);
        } else {
            backtrace::linear_walk(oracle, &self.pen, *end, &mut self.cigar);
        }
    }
}
