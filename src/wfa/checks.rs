//! The configuration checks upstream makes before aligning (2.3.3 exits on a
//! failure; seqshim reports the error instead). One copy, shared by the CPU
//! aligner, the batch API and the `wavefront_align` export.

use super::{AlignmentForm, AlignmentSpan, Heuristic, WfaError};

/// Checks that do not depend on the pair: BiWFA (`bidirectional`) takes no
/// ends-free lengths, and the drop heuristics take no unit metric
/// (`unit_metric`: edit or indel).
pub fn configuration(
    bidirectional: bool,
    form: &AlignmentForm,
    heuristic_strategy: u32,
    unit_metric: bool,
) -> Result<(), WfaError> {
    let any_free = form.pattern_begin_free > 0
        || form.pattern_end_free > 0
        || form.text_begin_free > 0
        || form.text_end_free > 0;
    if bidirectional && any_free {
        return Err(WfaError::BiwfaEndsFree);
    }
    let drops = heuristic_strategy & (Heuristic::XDROP | Heuristic::ZDROP) != 0;
    if drops && unit_metric {
        return Err(WfaError::DropWithEditOrIndel);
    }
    Ok(())
}

/// An ends-free alignment's lengths must lie inside the sequences.
pub fn ends_free(form: &AlignmentForm, pattern_len: i64, text_len: i64) -> Result<(), WfaError> {
    let too_large = |free: i32, len: i64| i64::from(free) > len;
    if form.span == AlignmentSpan::EndsFree
        && (too_large(form.pattern_begin_free, pattern_len)
            || too_large(form.pattern_end_free, pattern_len)
            || too_large(form.text_begin_free, text_len)
            || too_large(form.text_end_free, text_len))
    {
        return Err(WfaError::EndsFreeTooLarge);
    }
    Ok(())
}
