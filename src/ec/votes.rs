//! Vote table and fix selection shared by both modes (spec §5.3, §5.5).
//!
//! Bases are indexed in v1's order G=0, A=1, C=2, T=3, and ties are resolved
//! by scanning positions ascending, then G, A, C, T.

/// v1's `nuc_char`: base index to letter.
pub const BASE_LETTERS: [u8; 4] = *b"GACT";

/// Index of an upper-case base in `BASE_LETTERS` (only called on A/C/G/T).
#[inline]
pub fn base_index(base: u8) -> usize {
    match base {
        b'G' => 0,
        b'A' => 1,
        b'C' => 2,
        _ => 3,
    }
}

/// v1's mutation cycle `nextNuc`: G→A→C→T→G.
#[inline]
pub fn next_base(base: u8) -> u8 {
    match base {
        b'G' => b'A',
        b'A' => b'C',
        b'C' => b'T',
        _ => b'G',
    }
}

/// One `u8` counter per (position, base). v1 lets counters wrap; default
/// mode's pairwise kernel saturates them instead.
#[derive(Clone, Debug, Default)]
pub struct VoteTable {
    votes: Vec<[u8; 4]>,
}

/// A single edit chosen by the vote: write `BASE_LETTERS[base]` at `pos`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fix {
    pub pos: usize,
    pub base: usize,
}

impl VoteTable {
    pub fn reset(&mut self, len: usize) {
        self.votes.clear();
        self.votes.resize(len, [0; 4]);
    }

    #[inline]
    pub fn add_wrapping(&mut self, pos: usize, base: usize) {
        let v = &mut self.votes[pos][base];
        *v = v.wrapping_add(1);
    }

    #[inline]
    pub fn add_saturating(&mut self, pos: usize, base: usize) {
        let v = &mut self.votes[pos][base];
        *v = v.saturating_add(1);
    }

    /// Maximum vote, whether any vote is strictly above `min_votes`, and the
    /// first two (position, base) pairs holding the maximum, plus their count.
    /// Only positions below `len` take part.
    fn summary(&self, len: usize, min_votes: i16) -> (bool, [Option<Fix>; 2], usize) {
        let cells = || {
            self.votes[..len]
                .iter()
                .enumerate()
                .flat_map(|(p, row)| row.iter().enumerate().map(move |(b, &v)| (p, b, v)))
        };
        let mut max = 0u8;
        let mut above = false;
        for (_, _, v) in cells() {
            above |= i16::from(v) > min_votes;
            max = max.max(v);
        }
        let mut first_two = [None, None];
        let mut ties = 0usize;
        for (pos, base, v) in cells() {
            if v == max {
                if ties < 2 {
                    first_two[ties] = Some(Fix { pos, base });
                }
                ties += 1;
            }
        }
        (above, first_two, ties)
    }

    /// Single-substitution choice (`fix_errors1`): some vote must exceed
    /// `min_votes`, and the leftmost maximum must be the only maximum at its
    /// position.
    pub fn choose_single(&self, len: usize, min_votes: i16) -> Option<Fix> {
        let (above, [first, second], ties) = self.summary(len, min_votes);
        let first = first?;
        let unique_at_pos = ties == 1 || second.is_some_and(|s| s.pos != first.pos);
        (above && unique_at_pos).then_some(first)
    }

    /// Pairwise choice (`fix_errors2`): the first two maxima, with no tie test;
    /// a unique maximum is returned twice (v1's second-maximum search leaves
    /// it in the second slot).
    pub fn choose_pair(&self, len: usize, min_votes: i16) -> Option<[Fix; 2]> {
        let (above, [first, second], _) = self.summary(len, min_votes);
        let first = first?;
        above.then(|| [first, second.unwrap_or(first)])
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn single_needs_strict_threshold_and_unique_position() {
        let mut t = VoteTable::default();
        t.reset(4);
        for _ in 0..2 {
            t.add_wrapping(1, 2);
        }
        assert_eq!(t.choose_single(4, 2), None, "2 votes are not > 2");
        t.add_wrapping(1, 2);
        assert_eq!(t.choose_single(4, 2), Some(Fix { pos: 1, base: 2 }));
        for _ in 0..3 {
            t.add_wrapping(1, 3);
        }
        assert_eq!(t.choose_single(4, 2), None, "tie at the same position");
        for _ in 0..3 {
            t.add_wrapping(3, 0);
        }
        // Ties now at (1,C),(1,T),(3,G): first two share a position -> no fix.
        assert_eq!(t.choose_single(4, 2), None);
        assert_eq!(
            t.choose_pair(4, 2),
            Some([Fix { pos: 1, base: 2 }, Fix { pos: 1, base: 3 }])
        );
    }
}
