//! Default-mode spectrum: exact counts of canonical 2-bit packed k-mers
//! (k <= 32); memory grows with the number of distinct k-mers only.

use std::collections::{HashMap, HashSet};
use std::hash::{BuildHasherDefault, Hasher};
use std::sync::{Arc, OnceLock};

use super::parallel::for_each_chunk_mut;

/// Reads whose k-mers are binned per parallel work item.
const READS_PER_CHUNK: usize = 8_192;
/// Chunks binned (in parallel) before the shards take their codes: bounds
/// the binned codes held at once (8 bytes a window).
const CHUNKS_PER_BLOCK: usize = 16;
/// Calls with at most this many reads count on the caller's thread.
const SERIAL_READS: usize = 256;
/// Shards of the count table, each updated by one thread at a time, so
/// that counting is parallel without locks and a table never doubles all
/// at once.
const SHARDS: usize = 64;

/// The shard of a code: a multiplicative hash's top bits, independent of
/// the bits the shard's own table uses.
#[inline]
fn shard_of(code: u64) -> usize {
    (code.wrapping_mul(0xD6E8_FEB8_6659_FD93) >> (64 - SHARDS.trailing_zeros())) as usize
}

/// A cheap, well-mixing hasher for packed k-mers (splitmix64 finaliser).
#[derive(Default, Clone, Copy)]
pub struct KmerHasher(u64);

impl Hasher for KmerHasher {
    fn finish(&self) -> u64 {
        let mut z = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    fn write(&mut self, bytes: &[u8]) {
        for &b in bytes {
            self.0 = (self.0 << 8) ^ u64::from(b);
        }
    }
    fn write_u64(&mut self, x: u64) {
        self.0 = x;
    }
}

type KmerBuild = BuildHasherDefault<KmerHasher>;

/// 2-bit code of a base (A=0, C=1, G=2, T=3; either case), `None` otherwise.
#[inline]
pub fn base_code(b: u8) -> Option<u64> {
    match b {
        b'A' | b'a' => Some(0),
        b'C' | b'c' => Some(1),
        b'G' | b'g' => Some(2),
        b'T' | b't' => Some(3),
        _ => None,
    }
}

/// Forward and reverse-complement codes of a k-mer made only of A/C/G/T.
#[inline]
pub fn encode(kmer: &[u8]) -> Option<(u64, u64)> {
    let (mut fwd, mut rc) = (0u64, 0u64);
    for (i, &b) in kmer.iter().enumerate() {
        let c = base_code(b)?;
        fwd = (fwd << 2) | c;
        rc |= (3 - c) << (2 * i);
    }
    Some((fwd, rc))
}

/// Calls `visit(canonical_code)` for every window of `seq` without a non-ACGT
/// base. Palindromes yield one code per occurrence.
pub fn for_each_canonical(seq: &[u8], k: usize, mut visit: impl FnMut(u64)) {
    let mask = if k == 32 {
        u64::MAX
    } else {
        (1u64 << (2 * k)) - 1
    };
    let (mut fwd, mut rc, mut valid) = (0u64, 0u64, 0usize);
    for &b in seq {
        match base_code(b) {
            Some(c) => {
                fwd = ((fwd << 2) | c) & mask;
                rc = (rc >> 2) | ((3 - c) << (2 * (k - 1)));
                valid += 1;
                if valid >= k {
                    visit(fwd.min(rc));
                }
            }
            None => valid = 0,
        }
    }
}

/// Exact canonical k-mer counts being accumulated.
#[derive(Clone, Debug)]
pub struct KmerCounter {
    k: usize,
    /// Code -> count, split by [`shard_of`].
    shards: Vec<HashMap<u64, u32, KmerBuild>>,
}

impl KmerCounter {
    pub fn new(k: usize) -> Self {
        KmerCounter {
            k,
            shards: vec![HashMap::default(); SHARDS],
        }
    }

    /// Counts all windows of `reads`: chunks of reads bin their codes by
    /// shard in parallel, then the shards take their bins in parallel (in
    /// chunk order, though counts do not depend on it), so the result does
    /// not depend on the thread count.
    pub fn add(&mut self, reads: &[&[u8]]) {
        let k = self.k;
        if reads.len() <= SERIAL_READS {
            // A few reads (the spectrum API fed read by read): no pool round trips.
            for read in reads {
                for_each_canonical(read, k, |code| {
                    let n = self.shards[shard_of(code)].entry(code).or_insert(0);
                    *n = n.saturating_add(1);
                });
            }
            return;
        }
        for block in reads.chunks(READS_PER_CHUNK * CHUNKS_PER_BLOCK) {
            let mut binned: Vec<Vec<Vec<u64>>> =
                vec![Vec::new(); block.len().div_ceil(READS_PER_CHUNK)];
            for_each_chunk_mut(&mut binned, 1, |i, slot| {
                let bins = &mut slot[0];
                *bins = vec![Vec::new(); SHARDS];
                let end = ((i + 1) * READS_PER_CHUNK).min(block.len());
                for read in &block[i * READS_PER_CHUNK..end] {
                    for_each_canonical(read, k, |code| bins[shard_of(code)].push(code));
                }
            });
            for_each_chunk_mut(&mut self.shards, 1, |shard, slot| {
                let counts = &mut slot[0];
                for bins in &binned {
                    for &code in &bins[shard] {
                        let n = counts.entry(code).or_insert(0);
                        *n = n.saturating_add(1);
                    }
                }
            });
        }
    }

    #[cfg(test)]
    pub fn distinct(&self) -> usize {
        self.shards.iter().map(HashMap::len).sum()
    }

    /// Keeps the k-mers counted at least `min_mult` times.
    pub fn into_solid(self, min_mult: u32) -> SolidKmers {
        let codes: HashSet<u64, KmerBuild> = self
            .shards
            .into_iter()
            .flatten()
            .filter(|&(_, n)| n >= min_mult)
            .map(|(c, _)| c)
            .collect();
        SolidKmers {
            list: Vec::new(),
            set: OnceLock::from(codes),
            probe_table: OnceLock::new(),
        }
    }
}

/// A set of solid canonical k-mers, asked by forward and reverse-complement
/// codes: the spectrum's own hash set, or the GPU's probe table (the same
/// members, so the CPU and GPU paths agree).
pub trait SolidSet: Sync {
    fn contains_codes(&self, fwd: u64, rc: u64) -> bool;
}

impl SolidSet for SolidKmers {
    #[inline]
    fn contains_codes(&self, fwd: u64, rc: u64) -> bool {
        self.lookup().contains_codes(fwd, rc)
    }
}

/// The hash set itself, so that a hot loop takes it once from
/// [`SolidKmers::lookup`] instead of checking for it on every probe.
impl SolidSet for HashSet<u64, KmerBuild> {
    #[inline]
    fn contains_codes(&self, fwd: u64, rc: u64) -> bool {
        self.contains(&fwd.min(rc))
    }
}

/// The finalised default-mode spectrum: the set of solid canonical k-mers.
#[derive(Clone, Debug)]
pub struct SolidKmers {
    /// A GPU's count: the distinct solid codes as a list (empty when the
    /// spectrum was counted into `set` on the CPU).
    list: Vec<u64>,
    /// The codes as a hash set, for the CPU path's lookups: the CPU count's
    /// own, or built from `list` on first lookup (a GPU run whose reads all
    /// go to the kernel never needs it).
    set: OnceLock<HashSet<u64, KmerBuild>>,
    /// The GPU's copy, built on first use (see `gpu::table`).
    probe_table: OnceLock<Arc<super::gpu::ProbeTable>>,
}

impl SolidKmers {
    /// The set of these distinct codes (a GPU's count).
    pub fn from_codes(codes: Vec<u64>) -> SolidKmers {
        SolidKmers {
            list: codes,
            set: OnceLock::new(),
            probe_table: OnceLock::new(),
        }
    }

    /// The codes as a hash set (built from a GPU's list on first use).
    pub(crate) fn lookup(&self) -> &HashSet<u64, KmerBuild> {
        self.set.get_or_init(|| self.list.iter().copied().collect())
    }

    /// The solid codes, in no particular order.
    pub fn codes(&self) -> impl Iterator<Item = u64> + '_ {
        let counted_on_cpu = self.list.is_empty().then(|| self.set.get()).flatten();
        self.list
            .iter()
            .chain(counted_on_cpu.into_iter().flatten())
            .copied()
    }

    /// The solid codes as the GPU's open-addressing table, built once.
    pub fn probe_table(&self) -> Arc<super::gpu::ProbeTable> {
        self.probe_table
            .get_or_init(|| {
                let started = std::time::Instant::now();
                // A GPU's list is read in place (30 M codes are 240 MB); a
                // CPU count's set is listed first.
                let table = if self.list.is_empty() {
                    super::gpu::ProbeTable::new(&self.codes().collect::<Vec<_>>())
                } else {
                    super::gpu::ProbeTable::new(&self.list)
                };
                crate::log_debug!(
                    "EC: probe table of {} codes built in {:?}",
                    self.len(),
                    started.elapsed()
                );
                Arc::new(table)
            })
            .clone()
    }

    pub fn len(&self) -> usize {
        if self.list.is_empty() {
            self.set.get().map_or(0, HashSet::len)
        } else {
            self.list.len()
        }
    }

    /// Whether `kmer` (k bytes) is solid; false if it has a non-ACGT byte.
    pub fn contains(&self, kmer: &[u8]) -> bool {
        encode(kmer).is_some_and(|(f, r)| self.contains_codes(f, r))
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn canonical_counts_merge_strands_and_skip_n() {
        let mut c = KmerCounter::new(3);
        c.add(&[b"ACGNAAA", b"TTT"]);
        // ACG (its own RC is CGT), AAA twice (AAA + TTT).
        let solid = c.clone().into_solid(2);
        assert!(solid.contains(b"AAA") && solid.contains(b"TTT"));
        assert!(!solid.contains(b"ACG"));
        assert_eq!(c.distinct(), 2);
        let one = c.into_solid(1);
        assert!(one.contains(b"CGT"));
    }

    /// A GPU's list of codes answers like the CPU's set: members, count,
    /// and the codes listed.
    #[test]
    fn a_list_of_codes_answers_like_the_set() {
        let mut c = KmerCounter::new(4);
        c.add(&[b"ACGTTGCAAGGTAC", b"TTTTACGGA", b"ACGTTGCA"]);
        let set = c.into_solid(1);
        let list = SolidKmers::from_codes(set.codes().collect());
        assert_eq!(list.len(), set.len());
        let mut a: Vec<u64> = set.codes().collect();
        let mut b: Vec<u64> = list.codes().collect();
        a.sort_unstable();
        b.sort_unstable();
        assert_eq!(a, b);
        for kmer in [
            b"ACGT", b"TTTT", b"AAAA", b"CCGT", b"GCAA", b"GTAC", b"ACGN",
        ] {
            assert_eq!(list.contains(kmer), set.contains(kmer), "{kmer:?}");
        }
        assert!(list.contains(b"AAAA") && !list.contains(b"CCCC"));
        assert_eq!(SolidKmers::from_codes(Vec::new()).codes().count(), 0);
    }

    /// The sharded, blocked count equals a plain count of every window, for
    /// every threshold, with reads added in several calls.
    #[test]
    fn sharded_counts_equal_a_plain_count() {
        let mut x = 3u64;
        let mut next = || {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            x >> 33
        };
        let genome: Vec<u8> = (0..500)
            .map(|_| b"ACGTN"[(next() % 41 / 10) as usize])
            .collect();
        let reads: Vec<Vec<u8>> = (0..40_000)
            .map(|_| {
                let at = next() as usize % (genome.len() - 40);
                let mut r = genome[at..at + 20 + next() as usize % 20].to_vec();
                let p = next() as usize % r.len();
                r[p] = b"ACGT"[next() as usize % 4];
                r
            })
            .collect();
        let views: Vec<&[u8]> = reads.iter().map(Vec::as_slice).collect();
        for k in [5, 11, 32] {
            let mut plain: HashMap<u64, u32> = HashMap::new();
            for r in &views {
                for_each_canonical(r, k, |c| *plain.entry(c).or_insert(0) += 1);
            }
            let mut counter = KmerCounter::new(k);
            let (a, b) = views.split_at(12_345);
            counter.add(a);
            for few in b[..1000].chunks(7) {
                counter.add(few);
            }
            counter.add(&b[1000..]);
            assert_eq!(counter.distinct(), plain.len());
            for min_mult in [1, 2, 6, 50] {
                let solid = counter.clone().into_solid(min_mult);
                let want: HashSet<u64> = plain
                    .iter()
                    .filter(|&(_, &n)| n >= min_mult)
                    .map(|(&c, _)| c)
                    .collect();
                let got: HashSet<u64> = solid.codes().collect();
                assert_eq!(got, want, "k {k}, min_mult {min_mult}");
            }
        }
    }
}
