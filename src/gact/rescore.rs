//! Rescoring of a finished extension (spec §4.3).

use super::scoring::Params;

/// Scores the gapped strings column by column. A column with `-` in either
/// string is a gap column: the first of a run scores `gap_open`, the rest
/// `gap_extend`, so an I run directly followed by a D run counts as one gap.
/// Like upstream, a literal `-` byte in an input sequence is therefore scored
/// as a gap. The sum wraps on `i32` overflow, as upstream's `int` does in
/// practice (only reachable with extreme scores on very long alignments).
pub(super) fn rescore(aligned_ref: &[u8], aligned_query: &[u8], params: &Params) -> i32 {
    let mut total = 0i32;
    let mut gap_open_next = true;
    for (&r, &q) in aligned_ref.iter().zip(aligned_query) {
        if r == b'-' || q == b'-' {
            let gap = if gap_open_next {
                params.gap_open
            } else {
                params.gap_extend
            };
            total = total.wrapping_add(gap);
            gap_open_next = false;
        } else {
            total = total.wrapping_add(params.pair_score(q, r));
            gap_open_next = true;
        }
    }
    total
}
