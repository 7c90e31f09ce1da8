//! k-mer ranking with f5c's conventions.
//!
//! The rank is the lexicographic index of a k-mer over the alphabet `ACGT`,
//! first base in the most significant two bits, so a pore model array can be
//! indexed by it directly.

/// Largest k for which a rank still fits in `u32` (4^16 − 1 == `u32::MAX`).
pub const MAX_RANKABLE_K: u32 = 16;

/// Rank of one base: A→0, C→1, G→2, T→3.
///
/// Every other byte (lowercase letters, `N`, `U`, NUL, …) ranks as 0 like
/// `A`. f5c does the same after printing a warning to stderr; a library has
/// no business writing to stderr, so the warning is not reproduced.
#[inline]
pub fn base_rank(base: u8) -> u32 {
    match base {
        b'C' => 1,
        b'G' => 2,
        b'T' => 3,
        _ => 0,
    }
}

/// Rank of the k-mer formed by the first `k` bytes of `kmer`.
///
/// Returns `None` when `kmer` is shorter than `k` or `k` exceeds
/// [`MAX_RANKABLE_K`] (f5c would read past the string or shift out of range).
#[inline]
pub fn kmer_rank(kmer: &[u8], k: u32) -> Option<u32> {
    if k > MAX_RANKABLE_K || kmer.len() < k as usize {
        return None;
    }
    // The per-base terms occupy disjoint bit pairs, so summing them (as f5c
    // does) and or-ing them are the same thing.
    Some(
        kmer[..k as usize]
            .iter()
            .fold(0u32, |r, &b| (r << 2) | base_rank(b)),
    )
}

/// Number of k-mers in a sequence of `sequence_len` bases, or `None` when the
/// sequence is shorter than `k` (f5c's unsigned arithmetic wraps there).
#[inline]
pub fn n_kmers(sequence_len: usize, k: u32) -> Option<usize> {
    (sequence_len + 1).checked_sub(k as usize)
}

/// Fills `ranks` with the rank of every k-mer of `sequence`, in order.
///
/// Uses a rolling update; the result equals [`kmer_rank`] at every position.
/// Returns `false` (and leaves `ranks` empty) when there is no k-mer or k is
/// out of range.
pub fn fill_kmer_ranks(sequence: &[u8], k: u32, ranks: &mut Vec<u32>) -> bool {
    ranks.clear();
    let Some(n) = n_kmers(sequence.len(), k) else {
        return false;
    };
    if k > MAX_RANKABLE_K {
        return false;
    }
    if n == 0 {
        return true;
    }
    ranks.reserve(n);
    // k == 16 needs all 32 bits; a shifted-out mask would overflow, so widen.
    let mask: u64 = (1u64 << (2 * k)) - 1;
    let mut r: u64 = 0;
    for &b in &sequence[..k as usize] {
        r = ((r << 2) | u64::from(base_rank(b))) & mask;
    }
    ranks.push(r as u32);
    for &b in &sequence[k as usize..k as usize + n - 1] {
        r = ((r << 2) | u64::from(base_rank(b))) & mask;
        ranks.push(r as u32);
    }
    true
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn ranks_match_lexicographic_order() {
        assert_eq!(kmer_rank(b"AAAAAA", 6), Some(0));
        assert_eq!(kmer_rank(b"AAAAAC", 6), Some(1));
        assert_eq!(kmer_rank(b"CAAAAA", 6), Some(1024));
        assert_eq!(kmer_rank(b"TTTTTT", 6), Some(4095));
        assert_eq!(kmer_rank(b"TTTTTTTTT", 9), Some(262_143));
        assert_eq!(kmer_rank(b"TTTTT", 5), Some(1023));
    }

    #[test]
    fn non_acgt_ranks_as_a() {
        assert_eq!(kmer_rank(b"NNNNNN", 6), kmer_rank(b"AAAAAA", 6));
        assert_eq!(kmer_rank(b"acgtAC", 6), kmer_rank(b"AAAAAC", 6));
        assert_eq!(kmer_rank(b"CUGACG", 6), kmer_rank(b"CAGACG", 6));
    }

    #[test]
    fn rolling_equals_direct() {
        let seq = b"ACGTTGCANNacgtGGCCTTAAGCTAGCTAGGATCCAT";
        for k in [1u32, 5, 6, 9, 16] {
            let mut v = Vec::new();
            assert!(fill_kmer_ranks(seq, k, &mut v));
            assert_eq!(v.len(), seq.len() + 1 - k as usize);
            for (i, &r) in v.iter().enumerate() {
                assert_eq!(Some(r), kmer_rank(&seq[i..], k), "k={k} i={i}");
            }
        }
    }

    #[test]
    fn short_sequences() {
        let mut v = vec![7];
        assert!(!fill_kmer_ranks(b"ACGT", 6, &mut v));
        assert!(v.is_empty());
        assert!(fill_kmer_ranks(b"ACGTA", 6, &mut v));
        assert!(v.is_empty());
        assert_eq!(kmer_rank(b"ACG", 6), None);
        assert_eq!(n_kmers(5, 6), Some(0));
        assert_eq!(n_kmers(4, 6), None);
    }
}
