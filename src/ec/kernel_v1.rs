//! exact-v1 kernels on v1's record array (spec §5): `fix_errors1`,
//! `fix_errors2`, `TrimSequence`, the grid's extra passes over record 0 (Q8)
//! and the `-search 2` pack/scatter with `strncpy` semantics (Q10).
//!
//! A record is `L + 2` bytes: L bases, the flag byte at L, the signed length
//! byte at L+1. All index arithmetic is signed like v1's `int`s.

use std::sync::atomic::{AtomicU64, Ordering};

use super::bloom_v1::{BloomTableV1, strncpy_into};
use super::hash;
use super::parallel::for_each_chunk_mut;
use super::votes::{BASE_LETTERS, VoteTable, base_index, next_base};

/// Threads in v1's `<<<256,256>>>` grid: reads per round of a launch.
const GRID_THREADS: u64 = 256 * 256;
/// Records per parallel work item.
const RECORDS_PER_CHUNK: usize = 256;

pub const FLAG_FIXED: u8 = b'F';
pub const FLAG_DISCARD: u8 = b'D';

/// The kernel parameters (v1's `Param` plus the watchdog).
#[derive(Clone, Copy, Debug)]
pub struct KernelConfig {
    pub read_len: usize,
    pub k: usize,
    pub min_votes: i16,
    pub max_trim: i16,
    pub do_trim: bool,
    pub max_mods: i16,
    pub num_search: i16,
    pub round_limit: u32,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Kernel {
    SingleSubstitution,
    PairSubstitution,
}

/// What a run over a record array reports besides the edited bytes.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct RunReport {
    /// Records handed to `fix_errors2` (0 unless `num_search == 2`).
    pub kernel2_reads: u64,
    /// Reads stopped by the round watchdog (v1 would not terminate).
    pub watchdog_hits: u64,
    /// Per record: total bytes trimmed from the start by accepted trims.
    pub trim_start: Vec<u32>,
}

struct Scratch {
    votes: VoteTable,
    solid: Vec<bool>,
    /// Per-offset weights of the incremental RS hash (see `hash::rs_weights`).
    rs_weights: Vec<u32>,
}

impl Scratch {
    fn new(k: usize) -> Self {
        Scratch {
            votes: VoteTable::default(),
            solid: Vec::new(),
            rs_weights: hash::rs_weights(k),
        }
    }
}

#[inline]
fn tuple_solid(rec: &[u8], p: i32, cfg: &KernelConfig, bloom: &BloomTableV1) -> bool {
    bloom.contains(&rec[p as usize..p as usize + cfg.k])
}

/// `PrepareSequence`: upper-case the L bases (ASCII only) and stop at the first
/// byte that is not A/C/G/T; that byte is upper-cased too.
fn prepare(rec: &mut [u8], read_len: usize) -> bool {
    for b in &mut rec[..read_len] {
        b.make_ascii_uppercase();
        if !matches!(*b, b'A' | b'C' | b'G' | b'T') {
            return false;
        }
    }
    true
}

/// `CheckSolid`: every tuple of the compile-time length L is solid (Q4).
fn check_solid_full_length(rec: &[u8], cfg: &KernelConfig, bloom: &BloomTableV1) -> bool {
    (0..=(cfg.read_len - cfg.k) as i32).all(|p| tuple_solid(rec, p, cfg, bloom))
}

/// Casts one round of votes over tuples `start..=len-k`, marking solid ones.
fn cast_votes(
    rec: &mut [u8],
    start: i32,
    len: i32,
    kernel: Kernel,
    cfg: &KernelConfig,
    bloom: &BloomTableV1,
    scratch: &mut Scratch,
) {
    let k = cfg.k as i32;
    let votes = &mut scratch.votes;
    votes.reset(cfg.read_len);
    scratch.solid.clear();
    scratch.solid.resize(cfg.read_len, false);
    // Prepare guaranteed A/C/G/T in the first L bytes, so tuples here have no
    // NUL and the RS probe can be updated per substitution instead of rehashed.
    let weights = &scratch.rs_weights;
    let ku = cfg.k;
    for p in start..len - k + 1 {
        let pu = p as usize;
        let base_rs = hash::rs(&rec[pu..pu + ku]);
        if bloom.contains_with_rs(&rec[pu..pu + ku], base_rs) {
            scratch.solid[pu] = true;
            continue;
        }
        let single_span = match kernel {
            Kernel::SingleSubstitution => ku,
            Kernel::PairSubstitution => ku - 1,
        };
        for vp in 0..single_span {
            let at = pu + vp;
            let original = rec[at];
            let mut alt = next_base(original);
            for _ in 0..3 {
                rec[at] = alt;
                let rs1 = hash::rs_substitute(base_rs, weights[vp], original, alt);
                if bloom.contains_with_rs(&rec[pu..pu + ku], rs1) {
                    votes.add_wrapping(at, base_index(alt));
                }
                if kernel == Kernel::PairSubstitution {
                    for (m, &weight_m) in weights.iter().enumerate().take(ku).skip(vp + 1) {
                        let at2 = pu + m;
                        let original2 = rec[at2];
                        let mut alt2 = next_base(original2);
                        for _ in 0..3 {
                            rec[at2] = alt2;
                            let rs2 = hash::rs_substitute(rs1, weight_m, original2, alt2);
                            if bloom.contains_with_rs(&rec[pu..pu + ku], rs2) {
                                votes.add_wrapping(at, base_index(alt));
                                votes.add_wrapping(at2, base_index(alt2));
                            }
                            alt2 = next_base(alt2);
                        }
                        rec[at2] = original2;
                    }
                }
                alt = next_base(alt);
            }
            rec[at] = original;
        }
    }
}

/// `TrimSequence` (spec §5.4). Returns the start offset when accepted.
/// The length byte is rewritten in every case.
fn trim_sequence(rec: &mut [u8], cfg: &KernelConfig, bloom: &BloomTableV1) -> Option<u32> {
    let k = cfg.k as i32;
    let len = rec[cfg.read_len + 1] as i8 as i32;
    let last_tuple = len - k; // tuples 0..=last_tuple lie inside the read
    let mut start = 0;
    while start <= last_tuple && !tuple_solid(rec, start, cfg, bloom) {
        start += 1;
    }
    let mut first_bad = start + 1;
    while first_bad <= last_tuple && tuple_solid(rec, first_bad, cfg, bloom) {
        first_bad += 1;
    }
    let end = first_bad + k - 1; // exclusive end of the kept bases
    let max_trim = i32::from(cfg.max_trim);
    let accepted = start <= max_trim
        && len - end <= max_trim
        && (start..end - k + 1).all(|p| tuple_solid(rec, p, cfg, bloom));
    let mut new_len = len;
    if accepted {
        // v1 moves one byte more than it keeps.
        let moved = (end - start + 1) as usize;
        rec.copy_within(start as usize..start as usize + moved, 0);
        new_len = end - start;
    }
    rec[cfg.read_len + 1] = new_len as u8;
    accepted.then_some(start as u32)
}

/// Outcome of one pass of a kernel over one record.
#[derive(Clone, Copy, Default)]
struct PassOutcome {
    watchdog: bool,
    trim_start: u32,
}

/// One kernel thread's work on one record.
fn process_record(
    rec: &mut [u8],
    kernel: Kernel,
    cfg: &KernelConfig,
    bloom: &BloomTableV1,
    scratch: &mut Scratch,
) -> PassOutcome {
    let mut outcome = PassOutcome::default();
    let len = rec[cfg.read_len + 1] as i8 as i32;
    let discard = if !prepare(rec, cfg.read_len) {
        true
    } else {
        let mut fix_pos: i32 = -1;
        let mut rounds: u32 = 0;
        let mut success = false;
        loop {
            if rounds >= cfg.round_limit {
                outcome.watchdog = true;
                break;
            }
            let start = fix_pos.max(0);
            cast_votes(rec, start, len, kernel, cfg, bloom, scratch);
            rounds += 1;
            fix_pos = 0;
            let tuples = (len - cfg.k as i32 + 1).max(0) as usize;
            if scratch.solid[..tuples.min(cfg.read_len)].iter().all(|&s| s) {
                success = true;
                break;
            }
            let vote_len = len.max(0) as usize;
            match kernel {
                Kernel::SingleSubstitution => {
                    if let Some(fix) = scratch.votes.choose_single(vote_len, cfg.min_votes) {
                        rec[fix.pos] = BASE_LETTERS[fix.base];
                        fix_pos = fix.pos as i32;
                        if check_solid_full_length(rec, cfg, bloom) {
                            success = true;
                            break;
                        }
                        // A failed fix is kept (Q5).
                    }
                }
                Kernel::PairSubstitution => {
                    if let Some(fixes) = scratch.votes.choose_pair(vote_len, cfg.min_votes) {
                        for fix in fixes {
                            rec[fix.pos] = BASE_LETTERS[fix.base];
                            fix_pos = fix.pos as i32;
                        }
                        // v1 overwrites the CheckSolid result with failure (Q9).
                    }
                }
            }
            if fix_pos <= 0 {
                break;
            }
        }
        if outcome.watchdog {
            true
        } else if success {
            i64::from(rounds) > i64::from(cfg.max_mods)
        } else if kernel == Kernel::SingleSubstitution && cfg.num_search == 2 {
            true // kernel 1 leaves trimming to kernel 2
        } else if cfg.do_trim {
            match trim_sequence(rec, cfg, bloom) {
                Some(s) => {
                    outcome.trim_start = s;
                    false
                }
                None => true,
            }
        } else {
            true
        }
    };
    rec[cfg.read_len] = if discard { FLAG_DISCARD } else { FLAG_FIXED };
    outcome
}

/// Every record once, in parallel on the engine's CPU pool, as the grid's
/// first round of threads does: `pair` selects `fix_errors2`. Adds each
/// record's trimmed start to `trim_start`; returns the watchdog hits.
pub(crate) fn process_records_cpu(
    records: &mut [u8],
    pair: bool,
    cfg: &KernelConfig,
    bloom: &BloomTableV1,
    trim_start: &mut [u32],
) -> u64 {
    let kernel = if pair {
        Kernel::PairSubstitution
    } else {
        Kernel::SingleSubstitution
    };
    let stride = cfg.read_len + 2;
    let watchdog = AtomicU64::new(0);
    let mut slots: Vec<(&mut [u8], &mut u32)> = records
        .chunks_mut(stride)
        .zip(trim_start.iter_mut())
        .collect();
    for_each_chunk_mut(&mut slots, RECORDS_PER_CHUNK, |_, chunk| {
        let mut scratch = Scratch::new(cfg.k);
        for (rec, trim) in chunk.iter_mut() {
            let out = process_record(rec, kernel, cfg, bloom, &mut scratch);
            **trim += out.trim_start;
            if out.watchdog {
                watchdog.fetch_add(1, Ordering::Relaxed);
            }
        }
    });
    watchdog.into_inner()
}

/// One kernel launch over `n` records: every record once, in parallel (on
/// a GPU or the CPU pool, see `family::process_records`), then the grid's
/// surplus threads re-process record 0 in sequence (Q8).
fn launch(
    records: &mut [u8],
    kernel: Kernel,
    cfg: &KernelConfig,
    bloom: &BloomTableV1,
    trim_start: &mut [u32],
) -> u64 {
    let stride = cfg.read_len + 2;
    let n = records.len() / stride;
    let pair = kernel == Kernel::PairSubstitution;
    let mut watchdog = super::family::process_records(records, pair, cfg, bloom, trim_start);
    let rounds = (n as u64).div_ceil(GRID_THREADS);
    let extra_passes = (GRID_THREADS * rounds).saturating_sub(1 + n as u64);
    if n > 0 {
        let mut scratch = Scratch::new(cfg.k);
        let rec0 = &mut records[..stride];
        for _ in 0..extra_passes {
            let before = rec0.to_vec();
            let out = process_record(rec0, kernel, cfg, bloom, &mut scratch);
            trim_start[0] += out.trim_start;
            watchdog += u64::from(out.watchdog);
            // The record function is deterministic: a pass that changes
            // nothing would repeat forever.
            if rec0 == before.as_slice() {
                break;
            }
        }
    }
    watchdog
}

/// `runTest` (spec §2): kernel 1 over all records, then for `num_search == 2`
/// pack the `'D'` records, run kernel 2 on them and scatter them back, both
/// copies with `strncpy` semantics.
pub fn run(records: &mut [u8], cfg: &KernelConfig, bloom: &BloomTableV1) -> RunReport {
    let stride = cfg.read_len + 2;
    let n = records.len() / stride;
    let mut report = RunReport {
        trim_start: vec![0; n],
        ..RunReport::default()
    };
    report.watchdog_hits = launch(
        records,
        Kernel::SingleSubstitution,
        cfg,
        bloom,
        &mut report.trim_start,
    );
    if cfg.num_search != 2 {
        return report;
    }
    let unfixed: Vec<usize> = (0..n)
        .filter(|&i| records[i * stride + cfg.read_len] == FLAG_DISCARD)
        .collect();
    let mut packed = vec![0u8; unfixed.len() * stride];
    for (slot, &i) in packed.chunks_mut(stride).zip(&unfixed) {
        strncpy_into(slot, &records[i * stride..(i + 1) * stride]);
    }
    let mut packed_trim = vec![0u32; unfixed.len()];
    report.watchdog_hits += launch(
        &mut packed,
        Kernel::PairSubstitution,
        cfg,
        bloom,
        &mut packed_trim,
    );
    for ((slot, &i), t) in packed.chunks(stride).zip(&unfixed).zip(&packed_trim) {
        strncpy_into(&mut records[i * stride..(i + 1) * stride], slot);
        report.trim_start[i] += t;
    }
    report.kernel2_reads = unfixed.len() as u64;
    report
}
