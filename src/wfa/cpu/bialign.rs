//! BiWFA, memory mode ultralow (`wavefront_bialign.c`, `wavefront_bialigner.c`).
//!
//! A forward and a reverse score-only aligner grow towards each other until their
//! wavefronts overlap; the best overlap (the breakpoint) splits the pair in two halves
//! that are aligned recursively. Halves whose score is small, and pairs of at most
//! 100 bases, go to a unidirectional high-memory aligner. Every tie rule, bound and
//! fallback below is upstream's, because each of them picks the CIGAR.

use super::wavefront::{Component, Components, Wavefront};
use super::{Core, Ext};
use crate::wfa::penalties::DistanceMetric;
use crate::wfa::{
    AlignStatus, AlignerAttributes, AlignmentForm, AlignmentScope, AlignmentSpan, MemoryMode,
    WfaError,
};

/// Halves with a breakpoint score up to this go to the unidirectional aligner.
const FALLBACK_MIN_SCORE: i32 = 250;
/// Pairs no longer than this are aligned unidirectionally from the start.
const FALLBACK_MIN_LENGTH: usize = 100;

/// The three subsidiary aligners of `wavefront_bialigner_new`.
pub(crate) struct BiAligner {
    forward: Core,
    reverse: Core,
    base: Core,
}

impl BiAligner {
    /// `wavefront_bialigner_get_size`: the three aligners together.
    pub fn memory_used(&self) -> u64 {
        self.forward.memory_used() + self.reverse.memory_used() + self.base.memory_used()
    }

    pub fn new(attr: &AlignerAttributes) -> Result<BiAligner, WfaError> {
        // Upstream starts from the default attributes and copies penalties, heuristic
        // and system limits; the form stays end-to-end.
        let sub = AlignerAttributes {
            scope: AlignmentScope::ComputeScore,
            memory_mode: MemoryMode::High,
            form: AlignmentForm::END_TO_END,
            ..*attr
        };
        Ok(BiAligner {
            forward: Core::new(&sub)?,
            reverse: Core::new(&sub)?,
            base: Core::new(&AlignerAttributes {
                scope: AlignmentScope::ComputeAlignment,
                ..sub
            })?,
        })
    }
}

/// `wf_bialign_breakpoint_t`.
#[derive(Clone, Copy, Debug)]
struct Breakpoint {
    score: i32,
    score_forward: i32,
    score_reverse: i32,
    k_forward: i32,
    offset_forward: i32,
    component: Component,
}

impl Breakpoint {
    fn none() -> Breakpoint {
        Breakpoint {
            score: i32::MAX,
            score_forward: 0,
            score_reverse: 0,
            k_forward: 0,
            offset_forward: 0,
            component: Component::M,
        }
    }
}

/// What the breakpoint search ended with (its `int` status upstream).
#[derive(Clone, Copy, PartialEq, Eq)]
enum Search {
    Found,
    MaxScore,
    Unfeasible,
    /// One direction reached the other end on its own.
    EndReached,
}

/// `WAVEFRONT_K_INVERSE`: the same diagonal seen from the other end.
#[inline]
fn k_inverse(k: i32, plen: i32, tlen: i32) -> i32 {
    tlen - plen - k
}

impl Core {
    /// `wavefront_bialign`: both scopes of memory mode ultralow.
    pub(super) fn bialign(&mut self, pattern: &[u8], text: &[u8]) -> Result<AlignStatus, WfaError> {
        self.status = AlignStatus::Successful;
        self.paused_at = None;
        let bi = self.bi.as_mut().expect("ultralow aligner");
        // Setters on the master reach the subsidiaries upstream; copying at each
        // alignment is the same, as they reset their per-alignment state anyway.
        for sub in [&mut bi.forward, &mut bi.reverse, &mut bi.base] {
            sub.heuristic = self.heuristic;
            sub.max_alignment_score = self.max_alignment_score;
            sub.match_fn = self.match_fn.clone();
            sub.max_memory_abort = self.max_memory_abort;
            sub.probe_interval = self.probe_interval;
        }
        let (plen, tlen) = (pattern.len(), text.len());
        if self.scope == AlignmentScope::ComputeScore {
            if self.match_fn.is_some() {
                // Upstream's breakpoint search extends by comparing bytes of sequences
                // it does not have with a match function, and crashes.
                return Err(WfaError::Unsupported(
                    "BiWFA score-only with a custom match function",
                ));
            }
            return self.bialign_score(pattern, text);
        }
        self.cigar.resize(2 * (plen + tlen) as i32);
        let short = plen.max(tlen) <= FALLBACK_MIN_LENGTH;
        if self.match_fn.is_some() && !short && plen > 0 && tlen > 0 {
            return Err(WfaError::Unsupported(
                "BiWFA of more than 100 bases with a custom match function",
            ));
        }
        let form = self.form;
        self.bialign_alignment(
            pattern,
            text,
            form,
            Component::M,
            Component::M,
            if short { 0 } else { i32::MAX },
            0,
        )?;
        Ok(self.status)
    }

    /// `wavefront_bialign_compute_score`: the breakpoint's score is the score.
    fn bialign_score(&mut self, pattern: &[u8], text: &[u8]) -> Result<AlignStatus, WfaError> {
        let form = self.form;
        let bi = self.bi.as_mut().expect("ultralow aligner");
        let (search, mut bp) =
            find_breakpoint(bi, pattern, text, &form, Component::M, Component::M);
        match search {
            // The CIGAR keeps whatever the previous alignment left there.
            Search::MaxScore => {
                self.status = AlignStatus::MaxScoreReached;
                return Ok(self.status);
            }
            Search::Unfeasible => {
                self.status = AlignStatus::Unfeasible;
                return Ok(self.status);
            }
            Search::EndReached => bp.score = end_reached_score(bi),
            Search::Found => {}
        }
        self.cigar.clear();
        self.cigar.score =
            self.pen
                .classic_score(pattern.len() as i32, text.len() as i32, bp.score);
        self.status = AlignStatus::Successful;
        Ok(self.status)
    }

    /// `wavefront_bialign_alignment`: one level of the recursion, appending the CIGAR
    /// of `pattern` x `text` (sub-sequences of the pair) to `self.cigar`.
    #[allow(clippy::too_many_arguments)]
    fn bialign_alignment(
        &mut self,
        pattern: &[u8],
        text: &[u8],
        form: AlignmentForm,
        begin: Component,
        end: Component,
        score_remaining: i32,
        level: i32,
    ) -> Result<(), WfaError> {
        let (plen, tlen) = (pattern.len() as i32, text.len() as i32);
        if tlen == 0 {
            self.append_run(b'D', plen);
            return Ok(());
        }
        if plen == 0 {
            self.append_run(b'I', tlen);
            return Ok(());
        }
        if score_remaining <= FALLBACK_MIN_SCORE {
            return self.bialign_base(pattern, text, form, begin, end, level);
        }
        let bi = self.bi.as_mut().expect("ultralow aligner");
        let (search, bp) = find_breakpoint(bi, pattern, text, &form, begin, end);
        match search {
            Search::Found => {}
            Search::MaxScore => {
                self.status = AlignStatus::MaxScoreReached;
                return Ok(());
            }
            Search::Unfeasible => {
                self.status = AlignStatus::Unfeasible;
                return Ok(());
            }
            Search::EndReached => {
                if end_reached_score(bi) <= FALLBACK_MIN_SCORE {
                    return self.bialign_base(pattern, text, form, begin, end, level);
                }
                self.status = AlignStatus::Unfeasible;
                return Ok(());
            }
        }
        let bp_h = bp.offset_forward;
        let bp_v = bp.offset_forward - bp.k_forward;
        // Halves inherit only their own side's free ends (always none here: BiWFA
        // refuses ends-free), and so are end-to-end.
        let half = |pbf: i32, pef: i32, tbf: i32, tef: i32| AlignmentForm {
            span: if form.pattern_begin_free > 0 || form.text_begin_free > 0 {
                AlignmentSpan::EndsFree
            } else {
                AlignmentSpan::EndToEnd
            },
            pattern_begin_free: pbf,
            pattern_end_free: pef,
            text_begin_free: tbf,
            text_end_free: tef,
        };
        let form_0 = half(form.pattern_begin_free, 0, form.text_begin_free, 0);
        self.bialign_alignment(
            &pattern[..bp_v as usize],
            &text[..bp_h as usize],
            form_0,
            begin,
            bp.component,
            bp.score_forward,
            level + 1,
        )?;
        if self.status != AlignStatus::Successful {
            return Ok(());
        }
        let form_1 = half(0, form.pattern_end_free, 0, form.text_end_free);
        self.bialign_alignment(
            &pattern[bp_v as usize..],
            &text[bp_h as usize..],
            form_1,
            bp.component,
            end,
            bp.score_reverse,
            level + 1,
        )?;
        if self.status != AlignStatus::Successful {
            return Ok(());
        }
        self.cigar.score = self.pen.classic_score(plen, tlen, bp.score);
        Ok(())
    }

    /// `wavefront_bialign_base`: a unidirectional high-memory alignment between the
    /// given matrices, its CIGAR appended.
    fn bialign_base(
        &mut self,
        pattern: &[u8],
        text: &[u8],
        form: AlignmentForm,
        begin: Component,
        end: Component,
        level: i32,
    ) -> Result<(), WfaError> {
        let base = &mut self.bi.as_mut().expect("ultralow aligner").base;
        base.form = form;
        self.status = base.unialign_components(pattern, text, begin, end)?;
        let ops = base.cigar.operations();
        let at = self.cigar.end_offset as usize;
        self.cigar.ops[at..at + ops.len()].copy_from_slice(ops);
        self.cigar.end_offset += ops.len() as i32;
        if level == 0 {
            self.cigar.score = base.cigar.score;
        }
        Ok(())
    }

    /// `cigar_append_deletion` / `cigar_append_insertion`.
    fn append_run(&mut self, op: u8, n: i32) {
        let at = self.cigar.end_offset as usize;
        self.cigar.ops[at..at + n as usize].fill(op);
        self.cigar.end_offset += n;
    }
}

/// Score at which the direction that reached the end got there.
fn end_reached_score(bi: &BiAligner) -> i32 {
    if bi.forward.reached_end {
        bi.forward.end.0
    } else {
        bi.reverse.end.0
    }
}

/// `wavefront_bialign_find_breakpoint_init`.
fn init_search(
    bi: &mut BiAligner,
    pattern: &[u8],
    text: &[u8],
    form: &AlignmentForm,
    begin: Component,
    end: Component,
) {
    let span = |a: i32, b: i32| {
        if a > 0 || b > 0 {
            AlignmentSpan::EndsFree
        } else {
            AlignmentSpan::EndToEnd
        }
    };
    let forward_form = AlignmentForm {
        span: span(form.pattern_begin_free, form.text_begin_free),
        pattern_begin_free: form.pattern_begin_free,
        pattern_end_free: 0,
        text_begin_free: form.text_begin_free,
        text_end_free: 0,
    };
    let reverse_form = AlignmentForm {
        span: span(form.pattern_end_free, form.text_end_free),
        pattern_begin_free: form.pattern_end_free,
        pattern_end_free: 0,
        text_begin_free: form.text_end_free,
        text_end_free: 0,
    };
    for (core, reverse, f, (b, e)) in [
        (&mut bi.forward, false, forward_form, (begin, end)),
        (&mut bi.reverse, true, reverse_form, (end, begin)),
    ] {
        core.prepare(pattern, text, reverse);
        core.reached_end = false;
        core.form = f;
        core.component_begin = b;
        core.component_end = e;
        core.init_wavefronts();
    }
}

/// One extension step of a search direction; `Some` ends the search.
fn step(core: &mut Core, score: i32, want_max: bool, max_ak: &mut i32) -> Option<Search> {
    let (ext, ak) = core.extend_wf(score, want_max);
    *max_ak = ak;
    match ext {
        Ext::Continue => None,
        Ext::Unfeasible => Some(Search::Unfeasible),
        Ext::End => {
            core.reached_end = true;
            Some(Search::EndReached)
        }
    }
}

/// Forward/reverse computations stuck on empty edit wavefronts never meet; upstream
/// spins until the score limit, so the search stops there at once.
fn both_stuck(bi: &BiAligner, score_forward: i32, score_reverse: i32) -> bool {
    bi.forward.edit_stuck(score_forward) && bi.reverse.edit_stuck(score_reverse)
}

/// `wavefront_bialign_find_breakpoint`.
fn find_breakpoint(
    bi: &mut BiAligner,
    pattern: &[u8],
    text: &[u8],
    form: &AlignmentForm,
    begin: Component,
    end: Component,
) -> (Search, Breakpoint) {
    init_search(bi, pattern, text, form, begin, end);
    let (plen, tlen) = (pattern.len() as i32, text.len() as i32);
    let max_alignment_score = bi.forward.max_alignment_score;
    let max_antidiagonal = plen + tlen - 1;
    let mut bp = Breakpoint::none();
    let (mut score_forward, mut score_reverse) = (0, 0);
    let (mut forward_max_ak, mut reverse_max_ak, mut max_ak) = (0, 0, 0);
    if let Some(s) = step(&mut bi.forward, 0, true, &mut forward_max_ak) {
        return (s, bp);
    }
    if let Some(s) = step(&mut bi.reverse, 0, true, &mut reverse_max_ak) {
        return (s, bp);
    }
    // Upstream reads this flag uninitialised when the first extensions already
    // nearly meet; either value gave its results on every such pair we tried.
    let mut last_forward = false;
    // Grow both sides, alternating, until they are about to collide.
    loop {
        if forward_max_ak + reverse_max_ak >= max_antidiagonal {
            break;
        }
        score_forward += 1;
        bi.forward.compute(score_forward);
        if let Some(s) = step(&mut bi.forward, score_forward, true, &mut max_ak) {
            return (s, bp);
        }
        forward_max_ak = forward_max_ak.max(max_ak);
        last_forward = true;
        if forward_max_ak + reverse_max_ak >= max_antidiagonal {
            break;
        }
        score_reverse += 1;
        bi.reverse.compute(score_reverse);
        if let Some(s) = step(&mut bi.reverse, score_reverse, true, &mut max_ak) {
            return (s, bp);
        }
        reverse_max_ak = reverse_max_ak.max(max_ak);
        last_forward = false;
        if score_reverse + score_forward >= max_alignment_score
            || both_stuck(bi, score_forward, score_reverse)
        {
            return (Search::MaxScore, bp);
        }
    }
    // Keep advancing, looking for overlaps, until no better breakpoint is possible.
    let scope = bi.forward.comps.scope;
    let gap_opening = match bi.forward.pen.metric {
        DistanceMetric::GapAffine => bi.forward.pen.gap_opening1,
        DistanceMetric::GapAffine2p => bi.forward.pen.gap_opening1.max(bi.forward.pen.gap_opening2),
        _ => 0,
    };
    let mut unused = 0;
    loop {
        if last_forward {
            let min_score_reverse = (score_reverse - (scope - 1)).max(0);
            if score_forward + min_score_reverse - gap_opening >= bp.score {
                break;
            }
            overlap(
                &bi.forward,
                &bi.reverse,
                score_forward,
                score_reverse,
                true,
                &mut bp,
            );
            score_reverse += 1;
            bi.reverse.compute(score_reverse);
            if let Some(s) = step(&mut bi.reverse, score_reverse, false, &mut unused) {
                return (s, bp);
            }
        }
        let min_score_forward = (score_forward - (scope - 1)).max(0);
        if min_score_forward + score_reverse - gap_opening >= bp.score {
            break;
        }
        overlap(
            &bi.reverse,
            &bi.forward,
            score_reverse,
            score_forward,
            false,
            &mut bp,
        );
        score_forward += 1;
        bi.forward.compute(score_forward);
        if let Some(s) = step(&mut bi.forward, score_forward, false, &mut unused) {
            return (s, bp);
        }
        if score_reverse + score_forward >= max_alignment_score
            || both_stuck(bi, score_forward, score_reverse)
        {
            return (Search::MaxScore, bp);
        }
        last_forward = true;
    }
    (Search::Found, bp)
}

/// `wavefront_bialign_overlap`: checks the wavefronts of `score_0` on side 0 against
/// those of the last `max_score_scope` scores on side 1, gap components first.
fn overlap(
    side_0: &Core,
    side_1: &Core,
    score_0: i32,
    score_1: i32,
    forward: bool,
    bp: &mut Breakpoint,
) {
    let c0 = &side_0.comps;
    let c1 = &side_1.comps;
    let scope = c0.scope;
    let pen = &side_0.pen;
    let (plen, tlen) = (side_0.plen, side_0.tlen);
    if c0.stored(Component::M, score_0).is_none() {
        return;
    }
    let affine = matches!(
        pen.metric,
        DistanceMetric::GapAffine | DistanceMetric::GapAffine2p
    );
    let two_piece = pen.metric == DistanceMetric::GapAffine2p;
    let geo = Geometry {
        plen,
        tlen,
        forward,
    };
    for i in 0..scope {
        let score_i = score_1 - i;
        if score_i < 0 {
            break;
        }
        if two_piece {
            if score_0 + score_i - pen.gap_opening2 >= bp.score {
                continue;
            }
            for c in [Component::D2, Component::I2] {
                gaps(&geo, c0, c1, c, score_0, score_i, pen.gap_opening2, bp);
            }
        }
        if affine {
            if score_0 + score_i - pen.gap_opening1 >= bp.score {
                continue;
            }
            for c in [Component::D1, Component::I1] {
                gaps(&geo, c0, c1, c, score_0, score_i, pen.gap_opening1, bp);
            }
        }
        if score_0 + score_i >= bp.score {
            continue;
        }
        if let (Some(w0), Some(w1)) = (
            c0.stored(Component::M, score_0),
            c1.stored(Component::M, score_i),
        ) {
            meet(&geo, w0, w1, score_0, score_i, 0, Component::M, bp);
        }
    }
}

struct Geometry {
    plen: i32,
    tlen: i32,
    forward: bool,
}

#[allow(clippy::too_many_arguments)]
fn gaps(
    geo: &Geometry,
    c0: &Components,
    c1: &Components,
    c: Component,
    score_0: i32,
    score_1: i32,
    gap_open: i32,
    bp: &mut Breakpoint,
) {
    if let (Some(w0), Some(w1)) = (c0.stored(c, score_0), c1.stored(c, score_1)) {
        meet(geo, w0, w1, score_0, score_1, gap_open, c, bp);
    }
}

/// `wavefront_bialign_breakpoint_m2m` / `_indel2indel`: the first diagonal (ascending
/// k on side 0) where the two wavefronts cover the whole text and the combined score
/// beats the best so far. A gap met from both sides pays its opening once.
#[allow(clippy::too_many_arguments)]
fn meet(
    geo: &Geometry,
    w0: &Wavefront,
    w1: &Wavefront,
    score_0: i32,
    score_1: i32,
    gap_open: i32,
    component: Component,
    bp: &mut Breakpoint,
) {
    let (plen, tlen) = (geo.plen, geo.tlen);
    let (lo_0, hi_0) = (w0.lo, w0.hi);
    let lo_1 = k_inverse(w1.hi, plen, tlen);
    let hi_1 = k_inverse(w1.lo, plen, tlen);
    if hi_1 < lo_0 || hi_0 < lo_1 {
        return;
    }
    let score = score_0 + score_1 - gap_open;
    for k_0 in lo_0.max(lo_1)..=hi_0.min(hi_1) {
        let k_1 = k_inverse(k_0, plen, tlen);
        let offset_0 = w0.get(k_0);
        let offset_1 = w1.get(k_1);
        if offset_0.wrapping_add(offset_1) >= tlen && score < bp.score {
            let (score_forward, score_reverse, k_forward, offset_forward) = if geo.forward {
                (score_0, score_1, k_0, offset_0)
            } else {
                (score_1, score_0, k_1, offset_1)
            };
            *bp = Breakpoint {
                score,
                score_forward,
                score_reverse,
                k_forward,
                offset_forward,
                component,
            };
            return;
        }
    }
}
