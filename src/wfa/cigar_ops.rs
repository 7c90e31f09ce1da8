//! What WFA2-lib 2.3.3 computes from a CIGAR's operations (`'M' 'X' 'I'
//! 'D'` bytes): scores under each metric, the check that a CIGAR aligns two
//! sequences, ordering, and the run-length text. The `cigar_*` exports in
//! `ffi::wfa2` only view the caller's `cigar_t` and print upstream's
//! messages; the arithmetic is here.

use super::{Affine2pPenalties, AffinePenalties, LinearPenalties};

/// An operation byte other than `M`, `X`, `I`, `D`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct UnknownOp(pub u8);

/// `M` operations (`cigar_get_matches`).
pub fn matches(ops: &[u8]) -> usize {
    ops.iter().filter(|&&op| op == b'M').count()
}

/// `cigar_add_mismatches`' walk: every `M` whose bases differ becomes `X`,
/// until the operations or either sequence run out. Returns the operations
/// walked and the bases of each sequence consumed (the caller pads the
/// rest), or the first unknown operation (2.3.3 exits there; the bytes
/// before it are already marked).
pub fn mark_mismatches(
    ops: &mut [u8],
    pattern: &[u8],
    text: &[u8],
) -> Result<(usize, usize, usize), UnknownOp> {
    let (mut p, mut t) = (0, 0);
    for (walked, op) in ops.iter_mut().enumerate() {
        if p >= pattern.len() || t >= text.len() {
            return Ok((walked, p, t));
        }
        match *op {
            b'M' => {
                if pattern[p] != text[t] {
                    *op = b'X';
                }
                p += 1;
                t += 1;
            }
            b'I' => t += 1,
            b'D' => p += 1,
            other => return Err(UnknownOp(other)),
        }
    }
    Ok((ops.len(), p, t))
}

/// Edit distance: one per `X`, `I`, `D`.
pub fn score_edit(ops: &[u8]) -> Result<i32, UnknownOp> {
    ops.iter().try_fold(0i32, |score, &op| match op {
        b'M' => Ok(score),
        b'X' | b'I' | b'D' => Ok(score + 1),
        _ => Err(UnknownOp(op)),
    })
}

/// Gap-linear score, penalties subtracted per operation (upstream wraps).
pub fn score_gap_linear(ops: &[u8], pen: &LinearPenalties) -> Result<i32, UnknownOp> {
    ops.iter().try_fold(0i32, |score, &op| {
        let cost = match op {
            b'M' => pen.match_score,
            b'X' => pen.mismatch,
            b'I' | b'D' => pen.indel,
            _ => return Err(UnknownOp(op)),
        };
        Ok(score.wrapping_sub(cost))
    })
}

/// Gap-affine score: a gap opens wherever its operation differs from the
/// one before.
pub fn score_gap_affine(ops: &[u8], pen: &AffinePenalties) -> Result<i32, UnknownOp> {
    let mut score = 0i32;
    let mut last = 0u8;
    for &op in ops {
        let cost = match op {
            b'M' => pen.match_score,
            b'X' => pen.mismatch,
            b'I' | b'D' => pen.gap_extension + if last == op { 0 } else { pen.gap_opening },
            _ => return Err(UnknownOp(op)),
        };
        score = score.wrapping_sub(cost);
        last = op;
    }
    Ok(score)
}

/// Gap-affine-2p score over runs of equal operations, each gap run costing
/// the cheaper of the two gap models. An empty CIGAR is an error: 2.3.3
/// scores the terminating NUL as an operation there.
pub fn score_gap_affine2p(ops: &[u8], pen: &Affine2pPenalties) -> Result<i32, UnknownOp> {
    if ops.is_empty() {
        return Err(UnknownOp(0));
    }
    ops.chunk_by(|a, b| a == b).try_fold(0i32, |score, run| {
        let len = run.len() as i32;
        let cost = match run[0] {
            b'M' => pen.match_score.wrapping_mul(len),
            b'X' => pen.mismatch.wrapping_mul(len),
            b'I' | b'D' => {
                let one = pen.gap_opening1 + pen.gap_extension1.wrapping_mul(len);
                let two = pen.gap_opening2 + pen.gap_extension2.wrapping_mul(len);
                one.min(two)
            }
            op => return Err(UnknownOp(op)),
        };
        Ok(score.wrapping_sub(cost))
    })
}

/// `cigar_cmp`: by length first, then by the first differing byte, compared
/// as C's signed `char` (x86-64).
pub fn compare(a: &[u8], b: &[u8]) -> i32 {
    if a.len() != b.len() {
        return a.len() as i32 - b.len() as i32;
    }
    a.iter()
        .zip(b)
        .find(|(x, y)| x != y)
        .map_or(0, |(&x, &y)| x as i8 as i32 - y as i8 as i32)
}

/// How many bases of each sequence (pattern, text) [`check_alignment`]
/// reads: up to the last `M` or `X` before the CIGAR ends or meets an
/// unknown operation (`I` and `D` move along without reading).
pub fn extents(ops: &[u8]) -> (usize, usize) {
    let (mut p, mut t) = (0, 0);
    let (mut p_read, mut t_read) = (0, 0);
    for &op in ops {
        match op {
            b'M' | b'X' => {
                p += 1;
                t += 1;
                (p_read, t_read) = (p, t);
            }
            b'I' => t += 1,
            b'D' => p += 1,
            _ => break,
        }
    }
    (p_read, t_read)
}

/// Why a CIGAR does not align two sequences (`cigar_check_alignment`).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlignmentProblem {
    /// An `M` (`matching: true`) or `X` whose bases say otherwise.
    Wrong {
        matching: bool,
        p: usize,
        t: usize,
        pattern_base: u8,
        text_base: u8,
    },
    Unknown(UnknownOp),
    /// The CIGAR consumed `aligned` of the pattern's `length` bases.
    PatternLength {
        aligned: usize,
        length: i32,
    },
    /// The CIGAR consumed `aligned` of the text's `length` bases.
    TextLength {
        aligned: usize,
        length: i32,
    },
}

/// Checks that every `M` matches, every `X` mismatches, and both sequences
/// are consumed exactly. `pattern` and `text` must hold at least
/// [`extents`] bases; the lengths are the ones the caller claims.
pub fn check_alignment(
    ops: &[u8],
    pattern: &[u8],
    pattern_length: i32,
    text: &[u8],
    text_length: i32,
) -> Result<(), AlignmentProblem> {
    let (mut p, mut t) = (0usize, 0usize);
    for &op in ops {
        match op {
            b'M' | b'X' => {
                let (pattern_base, text_base) = (pattern[p], text[t]);
                let matching = op == b'M';
                if (pattern_base == text_base) != matching {
                    return Err(AlignmentProblem::Wrong {
                        matching,
                        p,
                        t,
                        pattern_base,
                        text_base,
                    });
                }
                p += 1;
                t += 1;
            }
            b'I' => t += 1,
            b'D' => p += 1,
            _ => return Err(AlignmentProblem::Unknown(UnknownOp(op))),
        }
    }
    if i64::try_from(p).ok() != Some(i64::from(pattern_length)) {
        return Err(AlignmentProblem::PatternLength {
            aligned: p,
            length: pattern_length,
        });
    }
    if i64::try_from(t).ok() != Some(i64::from(text_length)) {
        return Err(AlignmentProblem::TextLength {
            aligned: t,
            length: text_length,
        });
    }
    Ok(())
}

/// Run-length text of the CIGAR ("3M1X4M1D..."), without `M` runs unless
/// `print_matches`.
pub fn run_length_text(ops: &[u8], print_matches: bool) -> Vec<u8> {
    let mut out = Vec::new();
    for run in ops.chunk_by(|a, b| a == b) {
        if print_matches || run[0] != b'M' {
            out.extend_from_slice(run.len().to_string().as_bytes());
            out.push(run[0]);
        }
    }
    out
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_follow_each_metric() {
        let ops = b"MMXIIDM";
        assert_eq!(score_edit(ops), Ok(4));
        let linear = LinearPenalties {
            match_score: 0,
            mismatch: 4,
            indel: 2,
        };
        assert_eq!(score_gap_linear(ops, &linear), Ok(-10));
        let affine = AffinePenalties {
            match_score: 0,
            mismatch: 4,
            gap_opening: 6,
            gap_extension: 2,
        };
        // X 4, II 6+2+2, D 6+2.
        assert_eq!(score_gap_affine(ops, &affine), Ok(-22));
        let two = Affine2pPenalties {
            match_score: 0,
            mismatch: 4,
            gap_opening1: 6,
            gap_extension1: 2,
            gap_opening2: 24,
            gap_extension2: 1,
        };
        assert_eq!(score_gap_affine2p(ops, &two), Ok(-22));
        assert_eq!(score_gap_affine2p(b"", &two), Err(UnknownOp(0)));
        assert_eq!(score_edit(b"MZ"), Err(UnknownOp(b'Z')));
        assert_eq!(matches(ops), 3);
        let mut marked = *b"MMDMM";
        assert_eq!(
            mark_mismatches(&mut marked, b"ACGTA", b"AGTT"),
            Ok((5, 5, 4))
        );
        assert_eq!(&marked, b"MXDMX");
        assert_eq!(
            mark_mismatches(&mut b"MQ".to_vec(), b"AA", b"AA"),
            Err(UnknownOp(b'Q'))
        );
        assert_eq!(
            mark_mismatches(&mut b"MMM".to_vec(), b"A", b"AAA"),
            Ok((1, 1, 1))
        );
    }

    #[test]
    fn check_alignment_finds_the_first_problem() {
        assert_eq!(check_alignment(b"MXD", b"ACG", 3, b"AT", 2), Ok(()));
        assert!(matches!(
            check_alignment(b"MM", b"AC", 2, b"AG", 2),
            Err(AlignmentProblem::Wrong {
                matching: true,
                p: 1,
                ..
            })
        ));
        assert_eq!(
            check_alignment(b"M", b"AC", 2, b"A", 1),
            Err(AlignmentProblem::PatternLength {
                aligned: 1,
                length: 2
            })
        );
        assert_eq!(extents(b"MXDIIQM"), (2, 2));
        assert_eq!(extents(b"DMI"), (2, 1));
        assert_eq!(run_length_text(b"MMXDD", false), b"1X2D");
        assert_eq!(compare(b"MM", b"MX"), b'M' as i32 - b'X' as i32);
        assert_eq!(compare(b"M", b"MM"), -1);
    }
}
