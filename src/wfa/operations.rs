//! A pair's CIGAR operations: upstream's letters (`M`, `X`, `I`, `D`, one per
//! operation), or runs of one letter (`count << 2 | code`, codes indexing
//! [`RUN_LETTERS`]) as the GPU kernel returns them.
//!
//! Runs take about a sixth of the memory of letters for a 1 kbp pair, and
//! writing a thousand letters a pair into fresh memory was the largest host
//! cost of a GPU batch with CIGARs after packing the inputs. The pairs of
//! one GPU launch share one buffer of runs, as the kernel wrote them (each
//! pair's last run first), so that reading a launch's results allocates
//! nothing per pair (a result keeps its launch's buffer, about 120 bytes a
//! 1 kbp pair, alive). The letters of runs are made when first asked for
//! ([`Operations::letters`], which the C API's pointer into the batch needs)
//! and kept; a SAM-style string is made from the runs directly.

use std::ops::Range;
use std::sync::{Arc, OnceLock};

/// The letter of each run code.
pub const RUN_LETTERS: [u8; 4] = *b"MXID";

/// The valid CIGAR operations of one pair; empty for score-only.
#[derive(Clone, Debug)]
pub struct Operations(Form);

#[derive(Clone, Debug)]
enum Form {
    Letters(Vec<u8>),
    Runs {
        /// Runs of this pair and others; this pair's are `shared[start..end]`,
        /// its last run first.
        shared: Arc<[u32]>,
        start: u32,
        end: u32,
        /// Operations in all runs.
        len: usize,
        letters: OnceLock<Vec<u8>>,
    },
}

impl Default for Operations {
    fn default() -> Self {
        Operations(Form::Letters(Vec::new()))
    }
}

impl Operations {
    /// Operations given one letter each.
    pub fn from_letters(letters: Vec<u8>) -> Self {
        Operations(Form::Letters(letters))
    }

    /// Operations given as the runs `shared[range]`, last run first (the
    /// kernel's order); `None` if the range is outside `shared` or they add
    /// up to more than `most` operations.
    pub fn from_shared_runs(shared: &Arc<[u32]>, range: Range<usize>, most: usize) -> Option<Self> {
        let runs = shared.get(range.clone())?;
        let len = runs.iter().try_fold(0usize, |sum, &run| {
            Some(sum + (run >> 2) as usize).filter(|&s| s <= most)
        })?;
        Some(Operations(Form::Runs {
            shared: shared.clone(),
            start: u32::try_from(range.start).ok()?,
            end: u32::try_from(range.end).ok()?,
            len,
            letters: OnceLock::new(),
        }))
    }

    /// Number of operations.
    pub fn len(&self) -> usize {
        match &self.0 {
            Form::Letters(letters) => letters.len(),
            Form::Runs { len, .. } => *len,
        }
    }

    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }

    /// The runs in order, first run first (none for letters).
    fn runs_in_order(&self) -> impl Iterator<Item = (u8, usize)> + '_ {
        let runs: &[u32] = match &self.0 {
            Form::Letters(_) => &[],
            Form::Runs {
                shared, start, end, ..
            } => &shared[*start as usize..*end as usize],
        };
        runs.iter()
            .rev()
            .map(|&run| (RUN_LETTERS[(run & 3) as usize], (run >> 2) as usize))
    }

    /// One letter per operation, made from the runs on first use.
    pub fn letters(&self) -> &[u8] {
        match &self.0 {
            Form::Letters(letters) => letters,
            Form::Runs { len, letters, .. } => letters.get_or_init(|| {
                let mut out = Vec::with_capacity(*len);
                for (letter, count) in self.runs_in_order() {
                    out.extend(std::iter::repeat_n(letter, count));
                }
                out
            }),
        }
    }

    /// Maximal runs of one letter, in order: (letter, count), count > 0.
    pub fn runs(&self) -> impl Iterator<Item = (u8, usize)> + '_ {
        // One of the two is empty.
        let letters: &[u8] = match &self.0 {
            Form::Letters(letters) => letters,
            Form::Runs { .. } => &[],
        };
        let pieces = letters.iter().map(|&l| (l, 1)).chain(self.runs_in_order());
        Merged {
            pieces: pieces.filter(|&(_, n)| n > 0),
            held: None,
        }
    }

    /// The SAM-style run-length string (`3M1X2I1D`; WFA2's letters kept).
    pub fn sam(&self) -> String {
        let mut out = String::new();
        for (letter, count) in self.runs() {
            out.push_str(&count.to_string());
            out.push(letter as char);
        }
        out
    }
}

/// Equal when they stand for the same letters, whatever their form.
impl PartialEq for Operations {
    fn eq(&self, other: &Self) -> bool {
        self.len() == other.len() && self.runs().eq(other.runs())
    }
}

impl Eq for Operations {}

/// Joins neighbouring pieces of one letter.
struct Merged<I> {
    pieces: I,
    held: Option<(u8, usize)>,
}

impl<I: Iterator<Item = (u8, usize)>> Iterator for Merged<I> {
    type Item = (u8, usize);

    fn next(&mut self) -> Option<(u8, usize)> {
        let mut run = self.held.take().or_else(|| self.pieces.next())?;
        for piece in self.pieces.by_ref() {
            if piece.0 == run.0 {
                run.1 += piece.1;
            } else {
                self.held = Some(piece);
                break;
            }
        }
        Some(run)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn run(count: u32, code: u32) -> u32 {
        count << 2 | code
    }

    /// Operations of runs listed in order (stored last first, as the
    /// kernel writes them).
    fn in_order(mut runs: Vec<u32>, most: usize) -> Option<Operations> {
        runs.reverse();
        let n = runs.len();
        Operations::from_shared_runs(&Arc::from(runs), 0..n, most)
    }

    #[test]
    fn runs_and_letters_agree() {
        // Two X runs side by side, as the kernel writes one per mismatch.
        let runs = vec![
            run(3, 0),
            run(1, 1),
            run(1, 1),
            run(2, 2),
            run(1, 3),
            run(0, 0),
        ];
        let ops = in_order(runs, 8).expect("8 operations fit");
        assert_eq!(ops.len(), 8);
        assert_eq!(ops.letters(), b"MMMXXIID");
        assert_eq!(ops.sam(), "3M2X2I1D");
        let same = Operations::from_letters(b"MMMXXIID".to_vec());
        assert_eq!(same.sam(), "3M2X2I1D");
        assert_eq!(ops, same);
        assert_ne!(ops, Operations::from_letters(b"MMMXXIIM".to_vec()));
        assert_ne!(ops, Operations::from_letters(b"MMMXXII".to_vec()));
    }

    #[test]
    fn too_many_operations_are_refused() {
        assert!(in_order(vec![run(5, 0), run(3, 1)], 7).is_none());
        assert!(in_order(vec![u32::MAX], 100).is_none());
        let none = in_order(Vec::new(), 0).expect("nothing fits");
        assert!(none.is_empty());
        assert_eq!(none.letters(), b"");
        assert_eq!(none.sam(), "");
        assert_eq!(none, Operations::default());
    }

    #[test]
    fn pairs_share_one_buffer_of_runs_last_first() {
        // Two pairs' runs as the kernel leaves them: each pair's last first.
        let shared: Arc<[u32]> = Arc::from(vec![run(1, 3), run(2, 0), run(4, 1), run(1, 0)]);
        let first = Operations::from_shared_runs(&shared, 0..2, 3).expect("3 fit");
        assert_eq!(first.letters(), b"MMD");
        let second = Operations::from_shared_runs(&shared, 2..4, 5).expect("5 fit");
        assert_eq!(second.sam(), "1M4X");
        assert!(Operations::from_shared_runs(&shared, 2..4, 4).is_none());
        assert!(Operations::from_shared_runs(&shared, 3..5, 9).is_none());
    }
}
