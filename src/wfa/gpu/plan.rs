//! What the kernel needs to know about an aligner configuration, and which
//! configurations and pairs it may take at all.

use crate::wfa::heuristic::Heuristic;
use crate::wfa::penalties::{DistanceMetric, WfPenalties};
use crate::wfa::{AlignerAttributes, AlignmentScope, AlignmentSpan, MemoryMode};

/// Metric codes shared with kernels/wfa.cu.
pub const METRIC_INDEL: i32 = 0;
pub const METRIC_EDIT: i32 = 1;
pub const METRIC_LINEAR: i32 = 2;
pub const METRIC_AFFINE: i32 = 3;

/// Largest score scope the kernel keeps metadata for (its ring of wavefronts).
pub const MAX_SCOPE: i32 = 64;

/// Path tags the kernel's backtrace walk emits, one per X/I/D operation,
/// from the end of the alignment towards its start.
pub const TAG_X: u8 = 1;
pub const TAG_I_OPEN: u8 = 2;
pub const TAG_I_EXT: u8 = 3;
pub const TAG_D_OPEN: u8 = 4;
pub const TAG_D_EXT: u8 = 5;

/// Kernel parameters of one configuration (host twin of `WfaParams` in
/// kernels/wfa.cu: 16 little-endian `i32`s).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Params {
    pub metric: i32,
    pub mismatch: i32,
    /// Gap opening as the recurrences read it: `o + e` for gap-affine, the
    /// indel penalty for gap-linear, 1 for edit and indel.
    pub open: i32,
    /// Gap extension (gap-affine only).
    pub extension: i32,
    /// `max_score_scope`: how many scores back a wavefront is read.
    pub scope: i32,
    pub ends_free: i32,
    pub pattern_begin_free: i32,
    pub text_begin_free: i32,
    pub pattern_end_free: i32,
    pub text_end_free: i32,
    /// Whether score 0 spans the begin-free diagonals (ends-free, match score 0).
    pub wide_start: i32,
    pub wfadaptive: i32,
    pub min_wavefront_length: i32,
    pub max_distance_threshold: i32,
    pub steps_between_cutoffs: i32,
    pub full: i32,
}

pub const PARAMS_BYTES: usize = 16 * 4;

impl Params {
    /// The kernel's view of `attributes`, or why the kernel cannot reproduce
    /// the CPU path for them (see the module documentation of `wfa::gpu`).
    pub fn new(attributes: &AlignerAttributes) -> Result<Params, &'static str> {
        let pen = WfPenalties::from_client(&attributes.penalties)
            .map_err(|_| "penalties the CPU path rejects")?;
        let (metric, open, extension) = match pen.metric {
            DistanceMetric::Indel => (METRIC_INDEL, pen.gap_opening1, 0),
            DistanceMetric::Edit => (METRIC_EDIT, pen.gap_opening1, 0),
            DistanceMetric::GapLinear => (METRIC_LINEAR, pen.gap_opening1, 0),
            DistanceMetric::GapAffine => (
                METRIC_AFFINE,
                pen.gap_opening1 + pen.gap_extension1,
                pen.gap_extension1,
            ),
            DistanceMetric::GapAffine2p => return Err("gap-affine-2p"),
        };
        if attributes.memory_mode == MemoryMode::Ultralow {
            return Err("ultralow memory (BiWFA)");
        }
        if attributes.max_alignment_score != i32::MAX {
            return Err("a finite max_alignment_score");
        }
        let heuristic = Heuristic::from_attributes(&attributes.heuristic);
        if heuristic.strategy != Heuristic::NONE && heuristic.strategy != Heuristic::WFADAPTIVE {
            return Err("a heuristic other than none and wf-adaptive");
        }
        let form = &attributes.form;
        let ends_free = form.span == AlignmentSpan::EndsFree;
        if ends_free && pen.match_score != 0 {
            return Err("ends-free with a negative match score");
        }
        let scope = pen.max_score_scope();
        if scope > MAX_SCOPE {
            return Err("penalties larger than the kernel's wavefront ring");
        }
        let begin_free = form.pattern_begin_free.min(form.text_begin_free);
        if begin_free < 0 || form.pattern_end_free < 0 || form.text_end_free < 0 {
            return Err("negative ends-free lengths");
        }
        Ok(Params {
            metric,
            mismatch: pen.mismatch,
            open,
            extension,
            scope,
            ends_free: i32::from(ends_free),
            pattern_begin_free: form.pattern_begin_free,
            text_begin_free: form.text_begin_free,
            pattern_end_free: form.pattern_end_free,
            text_end_free: form.text_end_free,
            // Begin-free lengths widen wavefront 0 only under an ends-free
            // span (stale ones under end-to-end do not count, as on the CPU).
            wide_start: i32::from(pen.match_score == 0 && ends_free),
            wfadaptive: i32::from(heuristic.strategy == Heuristic::WFADAPTIVE),
            min_wavefront_length: heuristic.min_wavefront_length,
            max_distance_threshold: heuristic.max_distance_threshold,
            steps_between_cutoffs: heuristic.steps_between_cutoffs,
            full: i32::from(attributes.scope == AlignmentScope::ComputeAlignment),
        })
    }

    pub fn to_le_bytes(self) -> [u8; PARAMS_BYTES] {
        let fields = [
            self.metric,
            self.mismatch,
            self.open,
            self.extension,
            self.scope,
            self.ends_free,
            self.pattern_begin_free,
            self.text_begin_free,
            self.pattern_end_free,
            self.text_end_free,
            self.wide_start,
            self.wfadaptive,
            self.min_wavefront_length,
            self.max_distance_threshold,
            self.steps_between_cutoffs,
            self.full,
        ];
        let mut out = [0u8; PARAMS_BYTES];
        for (dst, v) in out.chunks_exact_mut(4).zip(fields) {
            dst.copy_from_slice(&v.to_le_bytes());
        }
        out
    }

    /// Whether a pair of these lengths is one the kernel reproduces: the
    /// ends-free lengths must lie inside the sequences (longer ones are a
    /// configuration error upstream, reported by the CPU path; stale
    /// begin-free ones of an end-to-end span, which neither path reads any
    /// more, are still held to the same bound, so such pairs keep their old
    /// placement).
    pub fn takes_lengths(&self, pattern_len: usize, text_len: usize) -> bool {
        let (p, t) = (pattern_len as i64, text_len as i64);
        let ends_fit = self.ends_free == 0
            || (i64::from(self.pattern_end_free) <= p && i64::from(self.text_end_free) <= t);
        i64::from(self.pattern_begin_free) <= p
            && i64::from(self.text_begin_free) <= t
            && ends_fit
            && p + t <= MAX_DEVICE_PAIR_BASES as i64
    }

    /// Score at which the kernel gives a pair up (the CPU path then aligns
    /// it). Below upstream's high-memory wavefront table size the CPU path
    /// never runs out of wavefronts, so stopping there keeps results equal.
    pub fn score_bound(pen: &WfPenalties, pattern_len: usize, text_len: usize) -> i32 {
        let n = pen.num_wavefronts(pattern_len as i32, text_len as i32);
        n.clamp(1, i64::from(i32::MAX / 4)) as i32
    }
}

/// Longest pair (pattern plus text) a device takes; longer ones stay on the
/// CPU, whose memory grows with the score instead of being preallocated.
pub const MAX_DEVICE_PAIR_BASES: usize = 65_536;

/// Whether the kernel compares these bytes as the CPU path does: it packs
/// 2 bits per base, so only upper-case `A`, `C`, `G`, `T` qualify. (The
/// runner learns this from [`pack_le`]; the tests check one against the
/// other.)
#[cfg(test)]
pub fn packable(seq: &[u8]) -> bool {
    seq.iter().all(|b| matches!(b, b'A' | b'C' | b'G' | b'T'))
}

/// 2-bit code of an upper-case base (bits 1-2 of its ASCII code).
#[cfg(test)]
pub fn base_code(b: u8) -> u32 {
    u32::from((b >> 1) & 3)
}

/// Packs `seq` 16 bases per `u32`, as [`pack_le`] does, into words (for
/// the model of the kernel in the tests).
#[cfg(test)]
pub fn pack_into(seq: &[u8], out: &mut Vec<u32>) {
    out.clear();
    out.extend(seq.chunks(16).map(|bases| pack16(bases).0));
    out.push(0);
}

/// Packs `seq` 16 bases per little-endian `u32`, first base in the low bits,
/// plus one zero word so that a 16-base read at any position stays inside
/// the buffer: `out` must hold `4 * packed_words(seq.len())` bytes, all of
/// which it writes. Returns whether `seq` is all upper-case `A`, `C`, `G`,
/// `T`: the host checks each pair's bytes here, while they are in cache,
/// and nowhere else.
pub fn pack_le(seq: &[u8], out: &mut [u8]) -> bool {
    let words = packed_words(seq.len());
    let out = &mut out[..4 * words];
    // Whole words byte by byte: four bases to a byte, the first in the low
    // bits, so each output byte depends on four input bytes only. Written
    // as plain lane-wise arithmetic, the loop (and the check below) is
    // vectorised by the compiler: on one core, 0.21 µs per 1 kbp pair
    // against 0.67 µs packing 16 bases at a time through 64-bit shifts.
    let whole = seq.len() / 16 * 16;
    let (head, tail) = seq.split_at(whole);
    for (dst, bases) in out[..whole / 4].iter_mut().zip(head.chunks_exact(4)) {
        let codes =
            (u32::from_le_bytes([bases[0], bases[1], bases[2], bases[3]]) >> 1) & 0x0303_0303;
        *dst = (codes | codes >> 6 | codes >> 12 | codes >> 18) as u8;
    }
    let mut acgt = all_acgt(head);
    let rest = &mut out[whole / 4..];
    if !tail.is_empty() {
        let (word, ok) = pack16(tail);
        rest[..4].copy_from_slice(&word.to_le_bytes());
        acgt &= ok;
    }
    let used = 4 * tail.len().div_ceil(16);
    rest[used..].fill(0);
    acgt
}

/// Whether every byte is upper-case `A`, `C`, `G` or `T`, without an early
/// exit (which would keep the compiler from vectorising the loop).
fn all_acgt(seq: &[u8]) -> bool {
    let others = seq.iter().fold(0u8, |acc, &b| {
        acc | u8::from((b != b'A') & (b != b'C') & (b != b'G') & (b != b'T'))
    });
    others == 0
}

/// Up to 16 bases as one word, first base in the low bits, and whether they
/// are all upper-case `A`, `C`, `G`, `T`. The missing bases of a short chunk
/// are taken as `A`, whose code is the zero padding.
#[inline]
fn pack16(bases: &[u8]) -> (u32, bool) {
    let mut chunk = [b'A'; 16];
    chunk[..bases.len()].copy_from_slice(bases);
    let lo = u64::from_le_bytes(chunk[..8].try_into().expect("8 bytes"));
    let hi = u64::from_le_bytes(chunk[8..].try_into().expect("8 bytes"));
    (gather8(lo) | (gather8(hi) << 16), acgt8(lo) && acgt8(hi))
}

/// Whether eight bytes are all `A`, `C`, `G` or `T`. Bits 1 and 2 of a byte
/// are its code (A 0, C 1, T 2, G 3); the letter of that code is rebuilt in
/// each byte lane as `A + 2·bit1 + 0x13·bit2 − 0x0f·bit1·bit2` (no lane
/// carries or borrows), and a byte is a base exactly when it equals the
/// letter of its own code.
#[inline]
fn acgt8(bytes: u64) -> bool {
    const ONES: u64 = 0x0101_0101_0101_0101;
    let bit1 = (bytes >> 1) & ONES;
    let bit2 = (bytes >> 2) & ONES;
    let letters = (u64::from(b'A') * ONES + 2 * bit1 + 0x13 * bit2) - 0x0f * (bit1 & bit2);
    letters == bytes
}

/// The 2-bit codes of eight bases (one per byte) side by side in 16 bits,
/// by halving the spacing of the fields three times.
#[inline]
fn gather8(bytes: u64) -> u32 {
    let mut x = (bytes >> 1) & 0x0303_0303_0303_0303;
    x = (x | (x >> 6)) & 0x000f_000f_000f_000f;
    x = (x | (x >> 12)) & 0x0000_00ff_0000_00ff;
    x = (x | (x >> 24)) & 0xffff;
    x as u32
}

/// Words [`pack_le`] writes for `n` bases.
pub fn packed_words(n: usize) -> usize {
    n.div_ceil(16) + 1
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packing_puts_each_base_code_in_its_two_bits() {
        // Several whole words and every length of a partial last one.
        let bases: Vec<u8> = b"ACGTTGCAACGGTACCGATTAGCA".repeat(3);
        for len in 0..=bases.len() {
            let seq = &bases[..len];
            let mut words = Vec::new();
            pack_into(seq, &mut words);
            assert_eq!(words.len(), packed_words(len));
            for (i, &b) in seq.iter().enumerate() {
                assert_eq!(
                    (words[i / 16] >> (2 * (i % 16))) & 3,
                    base_code(b),
                    "base {i}"
                );
            }
            let used = len.div_ceil(16) * 16;
            for i in len..used {
                assert_eq!((words[i / 16] >> (2 * (i % 16))) & 3, 0, "padding {i}");
            }
            assert_eq!(*words.last().unwrap(), 0);
            let mut bytes = vec![0xaa; 4 * words.len()];
            assert!(pack_le(seq, &mut bytes));
            let from_bytes: Vec<u32> = bytes
                .chunks_exact(4)
                .map(|w| u32::from_le_bytes(w.try_into().unwrap()))
                .collect();
            assert_eq!(from_bytes, words);
        }
    }

    /// Every byte value at every position of a chunk, short chunks too: the
    /// packer's check agrees with the byte-by-byte one.
    #[test]
    fn packing_reports_exactly_the_sequences_of_upper_case_acgt() {
        let mut base = b"ACGTTGCAACGGTACCGATTA".repeat(3);
        let mut out = vec![0u8; 4 * packed_words(base.len())];
        assert!(pack_le(&base, &mut out));
        for at in [0, 7, 8, 15, 16, 20, 33, 47, 48, 62] {
            for byte in 0..=255u8 {
                let saved = base[at];
                base[at] = byte;
                for len in [at + 1, base.len()] {
                    let seq = &base[..len];
                    let mut out = vec![0u8; 4 * packed_words(len)];
                    assert_eq!(
                        pack_le(seq, &mut out),
                        packable(seq),
                        "byte {byte} at {at}, {len} bases"
                    );
                }
                base[at] = saved;
            }
        }
        assert!(pack_le(b"", &mut [0u8; 4]));
    }
}
