//! The aligner's C fields as the algorithm's types, what seqshim keeps per
//! aligner, and results written back in 2.3.3's layout: shared by the CPU
//! path (`aligner`) and the transparent GPU path (`transparent`), which
//! otherwise would import each other.

use std::ffi::c_int;

use super::cigar;
use super::types::*;
use crate::wfa::{AlignmentScope, Heuristic, MemoryMode, Penalties};

/// What we keep per aligner, behind `wavefront_slab`.
pub(super) struct State {
    pub(super) aligner: crate::wfa::Aligner,
    /// What `aligner` was built with; a client that edits the C struct's
    /// scope or memory mode gets a rebuilt one.
    pub(super) built: (AlignmentScope, MemoryMode),
    pub(super) penalties: Penalties,
    /// Our copies of the last sequences, for `wavefront_align_resume` and for
    /// the aligner's `pattern`/`text` fields.
    pub(super) pattern: Vec<u8>,
    pub(super) text: Vec<u8>,
}

pub(super) fn scope_of(scope: c_int) -> AlignmentScope {
    if scope == COMPUTE_SCORE {
        AlignmentScope::ComputeScore
    } else {
        AlignmentScope::ComputeAlignment
    }
}

/// The algorithm's memory mode (ultralow is BiWFA).
pub(super) fn mode_of(mode: c_int) -> MemoryMode {
    match mode {
        MEMORY_MED => MemoryMode::Med,
        MEMORY_LOW => MemoryMode::Low,
        MEMORY_ULTRALOW => MemoryMode::Ultralow,
        _ => MemoryMode::High,
    }
}

pub(super) fn heuristic_of(h: &wavefront_heuristic_t) -> Heuristic {
    let mut out = Heuristic::none();
    out.strategy = h.strategy;
    out.steps_between_cutoffs = h.steps_between_cutoffs;
    out.min_k = h.min_k;
    out.max_k = h.max_k;
    out.min_wavefront_length = h.min_wavefront_length;
    out.max_distance_threshold = h.max_distance_threshold;
    out.xdrop = h.xdrop;
    out.zdrop = h.zdrop;
    out.steps_wait = h.steps_wait;
    out.max_sw_score = h.max_sw_score;
    out.max_sw_score_offset = h.max_sw_score_offset;
    out.max_sw_score_k = h.max_sw_score_k;
    out
}

pub(super) fn heuristic_to_c(h: &Heuristic) -> wavefront_heuristic_t {
    wavefront_heuristic_t {
        strategy: h.strategy,
        steps_between_cutoffs: h.steps_between_cutoffs,
        min_k: h.min_k,
        max_k: h.max_k,
        min_wavefront_length: h.min_wavefront_length,
        max_distance_threshold: h.max_distance_threshold,
        xdrop: h.xdrop,
        zdrop: h.zdrop,
        steps_wait: h.steps_wait,
        max_sw_score: h.max_sw_score,
        max_sw_score_offset: h.max_sw_score_offset,
        max_sw_score_k: h.max_sw_score_k,
    }
}

/// Copies an alignment's CIGAR into the client's `cigar_t` where the CPU
/// aligner keeps it: a buffer of at least `max_operations`, high memory
/// backtracing into its end (from `begin_offset`), the other modes (and
/// BiWFA) filling it from the start.
pub(super) fn write_cigar(
    w: &mut wavefront_aligner_t,
    max_operations: c_int,
    begin_offset: c_int,
    ops: &[u8],
    score: c_int,
) {
    // SAFETY: the aligner's cigar is valid and ours.
    let c = unsafe { &mut *w.cigar };
    if max_operations > c.max_operations {
        // SAFETY: as above.
        unsafe { cigar::resize(c, max_operations) };
    }
    let begin = if w.memory_mode == MEMORY_HIGH {
        begin_offset
    } else {
        0
    };
    let end = begin + ops.len() as c_int;
    if end >= c.max_operations && !ops.is_empty() {
        // SAFETY: as above.
        unsafe { cigar::resize(c, end + 1) };
    }
    // SAFETY: [begin, end] lies inside the buffer after the resizes above.
    unsafe {
        std::ptr::copy_nonoverlapping(
            ops.as_ptr(),
            c.operations.add(begin as usize) as *mut u8,
            ops.len(),
        );
        if end < c.max_operations {
            *c.operations.add(end as usize) = 0;
        }
    }
    c.begin_offset = begin;
    c.end_offset = end;
    c.score = score;
}

/// Marks a refused alignment: status -1 and an empty CIGAR.
pub(super) fn refuse(w: &mut wavefront_aligner_t) -> c_int {
    w.align_status.status = WF_STATUS_UNFEASIBLE;
    // SAFETY: the aligner's cigar is valid.
    unsafe { cigar::cigar_clear(w.cigar) };
    WF_STATUS_UNFEASIBLE
}
