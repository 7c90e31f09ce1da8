//! exact-v1 spectrum: the host counting filter (spec §4.3) and the GPU Bloom
//! table built from its solid list (spec §4.4).

use super::error::EcError;
use super::hash::{self, NUM_HASH};
use super::parallel::for_each_chunk_mut;

/// Counting levels 0..=5: a window seen for the 6th time becomes solid, whatever
/// `min_mult` says (v1 hard-codes the level chain; `min_mult` is only a stride).
const TOP_LEVEL: u32 = 5;
/// Bits per solid entry in the GPU table (v1's `BLOOM_SIZE` bytes).
const BLOOM_BYTES_PER_TUPLE: u32 = 8;
/// v1 shrinks the counting filter for very large inputs.
const SMALL_INPUT_READS: u64 = 6_000_000;
/// Reads hashed per parallel block before the serial, order-dependent update.
const READS_PER_BLOCK: usize = 16_384;
/// How many windows ahead of the serial update their filter bytes are
/// prefetched. The update is one window at a time (v1's result depends on the
/// order) and its eight bytes are random in an array of hundreds of MB:
/// prefetching later windows' lines lets those cache misses overlap instead of
/// queueing. (Plain loads ahead did not help: a missing load blocks retirement.)
const LOOKAHEAD_WINDOWS: usize = 12;

/// Copies `src` like C `strncpy(dst, src, dst.len())`: bytes up to the first
/// NUL, then NUL padding.
pub fn strncpy_into(dst: &mut [u8], src: &[u8]) {
    let mut ended = false;
    for (i, d) in dst.iter_mut().enumerate() {
        let b = if ended {
            0
        } else {
            src.get(i).copied().unwrap_or(0)
        };
        ended |= b == 0;
        *d = b;
    }
}

/// v1's `MakeRC`: reverse, complementing A/C/G/T (either case), other bytes kept.
pub fn reverse_complement_v1(seq: &[u8], out: &mut [u8]) {
    for (o, &b) in out.iter_mut().zip(seq.iter().rev()) {
        *o = match b {
            b'A' => b'T',
            b'T' => b'A',
            b'C' => b'G',
            b'G' => b'C',
            b'a' => b't',
            b't' => b'a',
            b'c' => b'g',
            b'g' => b'c',
            other => other,
        };
    }
}

/// The host-side counting filter of v1 plus its solid list, in list order.
#[derive(Clone, Debug)]
pub struct CountingFilterV1 {
    read_len: usize,
    k: usize,
    min_mult: u32,
    /// `F * min_mult` bytes plus the spare byte that v1 would overrun.
    bits: Vec<u8>,
    /// Modulus of the hashes: `F * 8 mod 2^32`.
    hash_modulus: u32,
    expected_reads: u64,
    added_reads: u64,
    /// Solid entries as C strings (cut at their first NUL), concatenated.
    entry_bytes: Vec<u8>,
    entry_ends: Vec<usize>,
    /// The last window counted: v1's tuple buffer before the Bloom build.
    last_window: Vec<u8>,
}

impl CountingFilterV1 {
    /// Sizes the filter for exactly `n_reads` reads as v1 does (spec §4.3).
    pub fn new(read_len: usize, k: usize, min_mult: u32, n_reads: u64) -> Result<Self, EcError> {
        let windows = (read_len - k + 1) as u64;
        let per_window = if n_reads < SMALL_INPUT_READS { 4 } else { 1 };
        let f = n_reads * windows * per_window;
        let total = f * u64::from(min_mult);
        if total >= 1 << 32 {
            return Err(EcError::Domain(format!(
                "counting array of {total} bytes (N*(L-k+1)*B*minMult must stay below 2^32)"
            )));
        }
        let hash_modulus = (f as u32).wrapping_mul(8);
        if n_reads > 0 && hash_modulus == 0 {
            return Err(EcError::Domain(
                "counting filter modulus F*8 wraps to 0".into(),
            ));
        }
        let mut bits = Vec::new();
        bits.try_reserve_exact(total as usize + 1)
            .map_err(|_| EcError::OutOfMemory(format!("counting array of {} bytes", total + 1)))?;
        bits.resize(total as usize + 1, 0);
        Ok(CountingFilterV1 {
            read_len,
            k,
            min_mult,
            bits,
            hash_modulus,
            expected_reads: n_reads,
            added_reads: 0,
            entry_bytes: Vec::new(),
            entry_ends: Vec::new(),
            last_window: vec![0; k],
        })
    }

    pub fn num_solid(&self) -> usize {
        self.entry_ends.len()
    }

    /// Solid entries in list order (C strings, possibly shorter than k).
    pub fn entries(&self) -> impl Iterator<Item = &[u8]> {
        let starts = std::iter::once(0).chain(self.entry_ends.iter().copied());
        starts
            .zip(self.entry_ends.iter())
            .map(|(s, &e)| &self.entry_bytes[s..e])
    }

    /// The read as v1 counts it: L bytes, cut at the first NUL and NUL-padded.
    fn padded_read(&self, read: &[u8], out: &mut [u8]) {
        strncpy_into(out, &read[..read.len().min(self.read_len)]);
    }

    /// The `w`-th counted window of a padded read: forward windows first, then
    /// the windows of its reverse complement; each cut at its first NUL.
    fn window(&self, padded: &[u8], rc: &[u8], w: usize, out: &mut [u8]) {
        let per_strand = self.read_len - self.k + 1;
        let (src, j) = if w < per_strand {
            (padded, w)
        } else {
            (rc, w - per_strand)
        };
        strncpy_into(out, &src[j..j + self.k]);
    }

    /// Counts the reads in order. Hashing runs in parallel; the filter update is
    /// serial because v1's result depends on the order of insertions.
    pub fn add(&mut self, reads: &[&[u8]]) -> Result<(), EcError> {
        if self.added_reads + reads.len() as u64 > self.expected_reads {
            return Err(EcError::State(format!(
                "more reads added than the {} announced",
                self.expected_reads
            )));
        }
        if let Some(r) = reads.iter().find(|r| r.len() > self.read_len) {
            return Err(EcError::Domain(format!(
                "read of {} bytes is longer than read_len {}",
                r.len(),
                self.read_len
            )));
        }
        let windows_per_read = 2 * (self.read_len - self.k + 1);
        let mut hashes: Vec<[u32; NUM_HASH]> = Vec::new();
        for block in reads.chunks(READS_PER_BLOCK) {
            hashes.clear();
            hashes.resize(block.len() * windows_per_read, [0; NUM_HASH]);
            let this = &*self;
            for_each_chunk_mut(&mut hashes, windows_per_read, |i, out| {
                let (mut padded, mut rc) = (vec![0; this.read_len], vec![0; this.read_len]);
                this.padded_read(block[i], &mut padded);
                reverse_complement_v1(&padded, &mut rc);
                let mut window = vec![0; this.k];
                for (w, slot) in out.iter_mut().enumerate() {
                    this.window(&padded, &rc, w, &mut window);
                    *slot = hash::all(&window).map(|h| h % this.hash_modulus);
                }
            });
            for (i, read) in block.iter().enumerate() {
                let first = i * windows_per_read;
                self.count_read(read, &hashes, first..first + windows_per_read);
            }
        }
        self.added_reads += reads.len() as u64;
        Ok(())
    }

    /// Asks for the lines holding a window's levels (all six levels of one
    /// hash sit in adjacent bits) before the serial update reaches it.
    #[inline]
    fn prefetch(&self, hashes: &[u32; NUM_HASH]) {
        for &h in hashes {
            prefetch_index::prefetch_index(&self.bits, self.level_position(h, 0));
        }
    }

    /// Counts the windows `windows` of `block_hashes`, which belong to `read`.
    fn count_read(
        &mut self,
        read: &[u8],
        block_hashes: &[[u32; NUM_HASH]],
        windows: std::ops::Range<usize>,
    ) {
        let mut padded = vec![0; self.read_len];
        self.padded_read(read, &mut padded);
        let mut rc = vec![0; self.read_len];
        reverse_complement_v1(&padded, &mut rc);
        let first = windows.start;
        let read_hashes = &block_hashes[windows];
        for (w, h) in read_hashes.iter().enumerate() {
            if let Some(ahead) = block_hashes.get(first + w + LOOKAHEAD_WINDOWS) {
                self.prefetch(ahead);
            }
            // First level found (from the top) decides; 5 means "already listed".
            let present = self.levels_present(h);
            let found = (0..=TOP_LEVEL).rev().find(|&lv| present & (1 << lv) != 0);
            match found {
                Some(TOP_LEVEL) => {}
                Some(lv) => {
                    if lv + 1 == TOP_LEVEL {
                        let mut window = vec![0; self.k];
                        self.window(&padded, &rc, w, &mut window);
                        let cut = window.iter().position(|&b| b == 0).unwrap_or(self.k);
                        self.entry_bytes.extend_from_slice(&window[..cut]);
                        self.entry_ends.push(self.entry_bytes.len());
                    }
                    self.set_level(h, lv + 1);
                }
                None => self.set_level(h, 0),
            }
        }
        // The tuple buffer ends up holding the last reverse-complement window.
        let last = read_hashes.len() - 1;
        let mut window = vec![0; self.k];
        self.window(&padded, &rc, last, &mut window);
        self.last_window = window;
    }

    #[inline]
    fn level_position(&self, h: u32, level: u32) -> usize {
        (h.wrapping_mul(self.min_mult).wrapping_add(level) >> 3) as usize
    }

    /// Bit `lv` set iff level `lv` is present (all eight bits set). All
    /// levels are tested at once, without early exit, so the eight random
    /// memory accesses are independent and overlap.
    fn levels_present(&self, hashes: &[u32; NUM_HASH]) -> u32 {
        hashes.iter().fold((1 << (TOP_LEVEL + 1)) - 1, |acc, &h| {
            let mut mask = 0;
            for lv in 0..=TOP_LEVEL {
                let pos = h.wrapping_mul(self.min_mult).wrapping_add(lv);
                if self.bits[self.level_position(h, lv)] & (1 << (pos & 7)) != 0 {
                    mask |= 1 << lv;
                }
            }
            acc & mask
        })
    }

    fn set_level(&mut self, hashes: &[u32; NUM_HASH], level: u32) {
        for &h in hashes {
            let pos = h.wrapping_mul(self.min_mult).wrapping_add(level);
            let byte = self.level_position(h, level);
            self.bits[byte] |= 1 << (pos & 7);
        }
    }

    /// Builds the GPU Bloom table from the solid list (spec §4.4), including
    /// the stale bytes that v1's reused tuple buffer contributes to entries
    /// shorter than k.
    pub fn build_bloom(&self) -> Result<BloomTableV1, EcError> {
        let num_tuples = self.num_solid();
        let num_tuples = i32::try_from(num_tuples).map_err(|_| {
            EcError::Domain(format!("{num_tuples} solid strings overflow v1's int"))
        })?;
        let table_size = (num_tuples as u32).wrapping_mul(BLOOM_BYTES_PER_TUPLE);
        let modulus = table_size.wrapping_mul(8);
        let mut bytes = vec![0u8; table_size as usize];
        let mut buffer = self.last_window.clone();
        for entry in self.entries() {
            buffer[..entry.len()].copy_from_slice(entry);
            if entry.len() < self.k {
                buffer[entry.len()] = 0;
            }
            for h in hash::all(&buffer) {
                let bit = h % modulus;
                bytes[(bit / 8) as usize] |= 1 << (bit % 8);
            }
        }
        Ok(BloomTableV1 {
            bytes,
            num_tuples,
            k: self.k,
        })
    }
}

/// The GPU Bloom table of v1 and its query (`lstspct_FindTuple`).
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BloomTableV1 {
    bytes: Vec<u8>,
    num_tuples: i32,
    k: usize,
}

impl BloomTableV1 {
    /// Wraps table bytes handed in from outside (e.g. `runTest`). The modulus
    /// comes from `num_tuples`; bytes past the slice read as 0.
    pub fn from_bytes(bytes: Vec<u8>, num_tuples: i32, k: usize) -> Self {
        BloomTableV1 {
            bytes,
            num_tuples,
            k,
        }
    }

    pub fn bytes(&self) -> &[u8] {
        &self.bytes
    }

    pub fn num_tuples(&self) -> i32 {
        self.num_tuples
    }

    /// `numTuples * 64 mod 2^32`, the bit modulus the kernel uses.
    pub fn modulus(&self) -> u32 {
        (self.num_tuples as u32).wrapping_mul(64)
    }

    #[inline]
    fn bit_set(&self, bit: u32) -> bool {
        self.bytes
            .get((bit / 8) as usize)
            .is_some_and(|b| b & (1 << (bit % 8)) != 0)
    }

    /// Like [`Self::contains`] for a key without NUL bytes whose RS hash (the
    /// first probe) the caller already knows — the voting loop derives it
    /// incrementally, which skips most of the hashing for negative queries.
    /// Callers guarantee `key.len() == k` and a non-zero modulus.
    #[inline]
    pub(crate) fn contains_with_rs(&self, key: &[u8], rs_hash: u32) -> bool {
        let modulus = self.modulus();
        self.bit_set(rs_hash % modulus)
            && hash::ALL[1..]
                .iter()
                .all(|h| self.bit_set(h(key) % modulus))
    }

    /// Whether the k bytes of `key` pass all eight probes. As in the kernel the
    /// key is first copied `strncpy`-style, so bytes after a NUL count as NUL.
    /// Keys shorter than k, and tables with modulus 0 (undefined in v1),
    /// answer false.
    pub fn contains(&self, key: &[u8]) -> bool {
        let modulus = self.modulus();
        if key.len() < self.k || modulus == 0 {
            return false;
        }
        let key = &key[..self.k];
        if key.contains(&0) {
            let mut copy = vec![0; self.k];
            strncpy_into(&mut copy, key);
            return hash::ALL.iter().all(|h| self.bit_set(h(&copy) % modulus));
        }
        hash::ALL.iter().all(|h| self.bit_set(h(key) % modulus))
    }
}
