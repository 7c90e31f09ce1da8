//! Default-mode correction of one read (spec §9.3): v1's voting, tie and
//! threshold rules on the read's own length, exact solidity, rounds capped,
//! saturating pairwise votes with a real success test, and discarded reads
//! returned as they came in.

use super::ReadStatus;
use super::kmer_counts::{SolidSet, base_code, encode};
use super::params::Params;
use super::votes::{BASE_LETTERS, VoteTable, base_index, next_base};

/// Result of correcting one read in default mode.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadOutcome {
    pub status: ReadStatus,
    /// Bases removed from the start by trimming (0 unless `Trimmed`).
    pub trim_start: u32,
    /// The round cap ended correction (the read then took the trim path).
    pub capped: bool,
}

#[derive(Clone, Copy, PartialEq, Eq)]
enum Search {
    Single,
    Pair,
}

struct Corrector<'a, S: SolidSet> {
    solid: &'a S,
    params: &'a Params,
    k: usize,
    votes: VoteTable,
    tuple_solid: Vec<bool>,
}

impl<S: SolidSet> Corrector<'_, S> {
    fn is_solid(&self, seq: &[u8], p: usize) -> bool {
        p + self.k <= seq.len()
            && encode(&seq[p..p + self.k]).is_some_and(|(f, r)| self.solid.contains_codes(f, r))
    }

    fn all_solid(&self, seq: &[u8]) -> bool {
        (0..=seq.len() - self.k).all(|p| self.is_solid(seq, p))
    }

    /// Votes over tuples `start..=len-k`; mutations are applied to the packed
    /// codes (XOR of the changed base), not to the bytes.
    fn cast_votes(&mut self, seq: &[u8], start: usize, search: Search) {
        let (k, len) = (self.k, seq.len());
        self.votes.reset(len);
        self.tuple_solid.clear();
        self.tuple_solid.resize(len, false);
        for p in start..=len - k {
            let (fwd, rc) = encode(&seq[p..p + k]).expect("read was checked to be ACGT");
            if self.solid.contains_codes(fwd, rc) {
                self.tuple_solid[p] = true;
                continue;
            }
            let single_span = if search == Search::Single { k } else { k - 1 };
            for vp in 0..single_span {
                let orig = seq[p + vp];
                let mut alt = next_base(orig);
                for _ in 0..3 {
                    let d = base_code(orig).unwrap() ^ base_code(alt).unwrap();
                    let (f1, r1) = (fwd ^ (d << (2 * (k - 1 - vp))), rc ^ (d << (2 * vp)));
                    if search == Search::Single {
                        if self.solid.contains_codes(f1, r1) {
                            self.votes.add_wrapping(p + vp, base_index(alt));
                        }
                    } else {
                        if self.solid.contains_codes(f1, r1) {
                            self.votes.add_saturating(p + vp, base_index(alt));
                        }
                        for m in vp + 1..k {
                            let orig2 = seq[p + m];
                            let mut alt2 = next_base(orig2);
                            for _ in 0..3 {
                                let d2 = base_code(orig2).unwrap() ^ base_code(alt2).unwrap();
                                let f2 = f1 ^ (d2 << (2 * (k - 1 - m)));
                                let r2 = r1 ^ (d2 << (2 * m));
                                if self.solid.contains_codes(f2, r2) {
                                    self.votes.add_saturating(p + vp, base_index(alt));
                                    self.votes.add_saturating(p + m, base_index(alt2));
                                }
                                alt2 = next_base(alt2);
                            }
                        }
                    }
                    alt = next_base(alt);
                }
            }
        }
    }

    /// One voting kernel until success, no usable vote, a fix at position 0,
    /// or the round cap. Returns (success, rounds, capped).
    fn solidify(&mut self, seq: &mut [u8], search: Search) -> (bool, u32, bool) {
        let limit = self.params.round_limit(seq.len());
        let mut fix_pos = 0usize;
        let mut rounds = 0u32;
        loop {
            if rounds >= limit {
                return (false, rounds, true);
            }
            self.cast_votes(seq, fix_pos, search);
            rounds += 1;
            let tuples = seq.len() - self.k + 1;
            if self.tuple_solid[..tuples].iter().all(|&s| s) {
                return (true, rounds, false);
            }
            fix_pos = 0;
            let min_votes = self.params.min_votes;
            match search {
                Search::Single => {
                    if let Some(fix) = self.votes.choose_single(seq.len(), min_votes) {
                        seq[fix.pos] = BASE_LETTERS[fix.base];
                        fix_pos = fix.pos;
                        if self.all_solid(seq) {
                            return (true, rounds, false);
                        }
                    }
                }
                Search::Pair => {
                    if let Some(fixes) = self.votes.choose_pair(seq.len(), min_votes) {
                        for fix in fixes {
                            seq[fix.pos] = BASE_LETTERS[fix.base];
                            fix_pos = fix.pos;
                        }
                        if self.all_solid(seq) {
                            return (true, rounds, false);
                        }
                    }
                }
            }
            if fix_pos == 0 {
                return (false, rounds, false);
            }
        }
    }

    /// v1's trim on the read's own length; tuples past the end are not solid.
    /// Returns the kept range.
    fn trim_range(&self, seq: &[u8]) -> Option<(usize, usize)> {
        let (k, len) = (self.k, seq.len());
        let tuples = len - k + 1;
        let start = (0..tuples)
            .find(|&p| self.is_solid(seq, p))
            .unwrap_or(tuples);
        let first_bad = (start + 1..tuples)
            .find(|&p| !self.is_solid(seq, p))
            .unwrap_or(tuples.max(start + 1));
        let end = first_bad + k - 1;
        let max_trim = usize::from(self.params.max_trim);
        let ok = start <= max_trim
            && len.saturating_sub(end) <= max_trim
            && end <= len
            && (start..end + 1 - k).all(|p| self.is_solid(seq, p));
        ok.then_some((start, end))
    }
}

/// What correcting a read decided, before it is applied: computed by
/// [`judge`] here or by the GPU kernel, applied by [`finish`].
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Verdict {
    pub success: bool,
    /// Rounds of the last voting kernel that ran.
    pub rounds: u32,
    pub capped: bool,
    /// The kept range when trimming was tried (not successful, trimming on)
    /// and accepted.
    pub trim: Option<(usize, usize)>,
}

/// The outcome of a read that never reaches the voting: a non-ACGT byte
/// (discarded as it came) or fewer than k bases (unchanged).
pub fn outcome_without_voting(seq: &[u8], k: usize) -> Option<ReadOutcome> {
    let unchanged = ReadOutcome {
        status: ReadStatus::Unchanged,
        trim_start: 0,
        capped: false,
    };
    if !seq.iter().all(|&b| base_code(b).is_some()) {
        return Some(ReadOutcome {
            status: ReadStatus::Discarded,
            ..unchanged
        });
    }
    (seq.len() < k).then_some(unchanged)
}

/// Votes and fixes `work` (upper-case ACGT, at least k bases) in place and
/// decides the trim, as the GPU kernel does.
pub fn judge<S: SolidSet>(work: &mut [u8], solid: &S, params: &Params) -> Verdict {
    let mut c = Corrector {
        solid,
        params,
        k: params.k,
        votes: VoteTable::default(),
        tuple_solid: Vec::new(),
    };
    let (mut success, mut rounds, mut capped) = c.solidify(work, Search::Single);
    if !success && params.num_search == 2 {
        let (s2, r2, c2) = c.solidify(work, Search::Pair);
        (success, rounds, capped) = (s2, r2, capped || c2);
    }
    let trim = if !success && params.do_trim {
        c.trim_range(work)
    } else {
        None
    };
    Verdict {
        success,
        rounds,
        capped,
        trim,
    }
}

/// Applies a verdict: `work` is the judged copy of `seq`; `seq` (and
/// `qual` alongside) become the corrected or trimmed read.
pub fn finish(
    seq: &mut Vec<u8>,
    qual: Option<&mut Vec<u8>>,
    work: &[u8],
    verdict: &Verdict,
    params: &Params,
) -> ReadOutcome {
    let unchanged = ReadOutcome {
        status: ReadStatus::Unchanged,
        trim_start: 0,
        capped: verdict.capped,
    };
    let discarded = ReadOutcome {
        status: ReadStatus::Discarded,
        ..unchanged
    };
    if verdict.success {
        if i64::from(verdict.rounds) > i64::from(params.max_mods) {
            return discarded;
        }
    } else {
        if !params.do_trim {
            return discarded;
        }
        let Some((start, end)) = verdict.trim else {
            return discarded;
        };
        if (start, end) != (0, work.len()) {
            *seq = work[start..end].to_vec();
            if let Some(q) = qual {
                *q = q[start..end.min(q.len())].to_vec();
            }
            return ReadOutcome {
                status: ReadStatus::Trimmed,
                trim_start: start as u32,
                ..unchanged
            };
        }
    }
    if work.eq_ignore_ascii_case(seq) {
        return unchanged;
    }
    *seq = work.to_vec();
    ReadOutcome {
        status: ReadStatus::Fixed,
        ..unchanged
    }
}

/// Corrects `seq` (and slices `qual` alongside) in place.
pub fn correct_read<S: SolidSet>(
    seq: &mut Vec<u8>,
    qual: Option<&mut Vec<u8>>,
    solid: &S,
    params: &Params,
) -> ReadOutcome {
    if let Some(outcome) = outcome_without_voting(seq, params.k) {
        return outcome;
    }
    let mut work = seq.to_ascii_uppercase();
    let verdict = judge(&mut work, solid, params);
    finish(seq, qual, &work, &verdict, params)
}
