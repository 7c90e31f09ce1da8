//! `WfaRunner`: one GPU's share of the WFA scheduler. Packs a batch's pairs,
//! launches `seqshim_wfa_align` once per arena-sized chunk and turns what
//! comes back into the CPU path's `PairResult`s.
//!
//! Device memory is one arena reserved when the runner starts. A launch uses
//! it as: parameters, the pair counter, descriptors, packed sequences and
//! result slots (what crosses the bus), then one slice per worker for its
//! wavefront ring, score table and backtrace codes.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use super::plan::{self, PARAMS_BYTES, Params};
use super::replay;
use crate::engine::device::{Arena, Arg, DeviceError, Gpu, Kernel, KernelSource};
use crate::engine::scheduler::BatchRunner;
use crate::wfa::job::{PairResult, WfaJob, align_on_cpu};
use crate::wfa::penalties::WfPenalties;
use crate::wfa::{AlignStatus, AlignerAttributes};

pub const SOURCE: KernelSource = KernelSource {
    name: "wfa",
    code: include_str!("../../../kernels/wfa.cu"),
    options: &[],
};

/// Bytes of `WfaPair` in kernels/wfa.cu.
const DESC_BYTES: usize = 40;
/// Bytes of a result slot before its path tags.
const RESULT_HEADER: usize = 32;
/// Where the descriptors start (parameters and counter come first).
const DESCS_AT: usize = 128;
const COUNTER_AT: usize = PARAMS_BYTES;
/// Largest arena. Only its I/O part (at most a quarter: descriptors,
/// packed pairs, results) is mirrored in pinned host memory, up to
/// `MAX_HOST`; the workers' wavefront memory stays on the device.
const MAX_ARENA: usize = 16 << 30;
/// A device batch of `DEVICE_BATCH_BASES` needs about 60 MiB of I/O with
/// CIGAR for 150 bp pairs and up to about 180 MiB for the shortest (a
/// quarter of a byte per base packed, a byte per base of CIGAR path, about
/// 160 bytes per pair); what does not fit is cut into several launches.
/// Pinning host memory is slow (it is part of the first batch's wait), so
/// the mirror is no larger than that.
const MAX_HOST: usize = 256 << 20;
/// Room in the host mirror beyond a chunk's I/O bytes (parameters,
/// descriptor table alignment, result padding).
const HOST_SLACK: usize = 64 << 10;
const MIN_ARENA: usize = 256 << 20;
/// Share of free device memory the arenas of a GPU may take together.
const MEM_FRAC: f64 = 0.5;
/// Runners per GPU, each on its own stream and arena.
const LANES: usize = crate::engine::device::STREAMS;
/// Largest ring kept in shared memory. Rings of up to 40 KiB fit the
/// default limit, but a large ring there costs occupancy while a ring in
/// global memory mostly stays in L1/L2, so only small rings (short pairs
/// with small penalties) go there. The best limit has not been measured in
/// a recorded run; `SEQSHIM_WFA_SHARED_RING` overrides it for that.
const SHARED_RING_MAX: usize = 12 << 10;
/// Dynamic shared memory a block may ask for without opting in (48 KiB):
/// the ring's spans and a ring there together stay within it, whatever
/// `SEQSHIM_WFA_SHARED_RING` says.
const DYNAMIC_SHARED_LIMIT: usize = 48 << 10;
/// Worker memory beyond its ring that a launch gives each worker at least.
const MIN_WORKER_EXTRA: usize = 64 << 10;
/// Fewest workers a launch for pairs that ran out of memory is worth.
const MIN_RETRY_WORKERS: usize = 16;

/// What all runners have done, for reports and tests.
#[derive(Debug, Default)]
pub struct Counters {
    /// Pairs the kernel finished.
    pub on_gpu: AtomicU64,
    /// Pairs the kernel gave back (score past its memory, unfeasible, ...).
    pub rescued: AtomicU64,
    /// Pairs of GPU jobs aligned on the CPU because the kernel does not take
    /// them (a configuration or length it does not take, or bytes other
    /// than ACGT: such a pair is launched with the others, as its bytes are
    /// checked while packing, and its result is not read).
    pub routed_to_cpu: AtomicU64,
    /// Finished pairs whose walk did not replay (aligned on the CPU; a kernel
    /// bug if ever non-zero).
    pub replay_failures: AtomicU64,
    pub launches: AtomicU64,
}

pub static COUNTERS: Counters = Counters {
    on_gpu: AtomicU64::new(0),
    rescued: AtomicU64::new(0),
    routed_to_cpu: AtomicU64::new(0),
    replay_failures: AtomicU64::new(0),
    launches: AtomicU64::new(0),
};

/// A snapshot of [`COUNTERS`]: (on GPU, rescued, routed to CPU, replay failures, launches).
pub fn counters() -> (u64, u64, u64, u64, u64) {
    let l = |c: &AtomicU64| c.load(Ordering::Relaxed);
    (
        l(&COUNTERS.on_gpu),
        l(&COUNTERS.rescued),
        l(&COUNTERS.routed_to_cpu),
        l(&COUNTERS.replay_failures),
        l(&COUNTERS.launches),
    )
}

fn align16(n: usize) -> usize {
    n.next_multiple_of(16)
}

pub struct WfaRunner {
    gpu: Arc<Gpu>,
    kernel: Kernel,
    arena: Arena,
    lane: usize,
}

/// One pair of a launch: which job and pair, and where its bytes go.
struct Placed {
    job: usize,
    pair: usize,
    plen: usize,
    tlen: usize,
    pattern: usize,
    text: usize,
    result: usize,
    path_cap: usize,
    max_score: i32,
    /// All upper-case ACGT (found while packing): the kernel's result for
    /// any other pair is not read.
    packable: bool,
}

impl WfaRunner {
    /// The runners of one GPU: one per stream, so that one packs and decodes
    /// on the host while the other's kernel runs. A stream whose arena
    /// cannot be had is left out; an error only when none starts.
    pub fn for_gpu(gpu: &Arc<Gpu>) -> Result<Vec<Self>, DeviceError> {
        let (free, _) = gpu.memory()?;
        let (lanes, bytes) = lanes_for((free as f64 * MEM_FRAC) as usize);
        let mut runners = Vec::with_capacity(lanes);
        for lane in 0..lanes {
            match WfaRunner::new(gpu.clone(), lane, bytes) {
                Ok(runner) => runners.push(runner),
                Err(e) if lane == 0 => return Err(e),
                Err(e) => {
                    crate::log_warn!("WFA: GPU {} runs one stream only ({e})", gpu.info().ordinal)
                }
            }
        }
        Ok(runners)
    }

    /// A runner on stream `lane` with an arena of about `bytes`.
    pub fn new(gpu: Arc<Gpu>, lane: usize, bytes: usize) -> Result<Self, DeviceError> {
        let started = std::time::Instant::now();
        let kernel = gpu.kernel(&SOURCE, "seqshim_wfa_align")?;
        let kernel_ready = started.elapsed();
        let mut arena = gpu.arena(lane);
        let mut bytes = bytes.min(MAX_ARENA);
        if bytes < MIN_ARENA {
            return Err(DeviceError(format!(
                "only {} MiB of device memory for a WFA stream (it needs {} MiB)",
                bytes >> 20,
                MIN_ARENA >> 20
            )));
        }
        loop {
            let host = (bytes / 4).min(MAX_HOST) + HOST_SLACK;
            match arena.reserve_split(bytes, host) {
                Ok(()) => break,
                Err(e) if bytes > MIN_ARENA => {
                    crate::log_debug!("WFA arena of {bytes} bytes refused ({e}); halving");
                    bytes /= 2;
                }
                Err(e) => return Err(e),
            }
        }
        crate::log_info!(
            "WFA: GPU {} stream {lane}: arena of {} MiB ({} MiB pinned) in {} ms, kernel in {} ms",
            gpu.info().ordinal,
            arena.capacity() >> 20,
            arena.host_capacity() >> 20,
            (started.elapsed() - kernel_ready).as_millis(),
            kernel_ready.as_millis(),
        );
        Ok(WfaRunner {
            gpu,
            kernel,
            arena,
            lane,
        })
    }

    fn run(&mut self, jobs: &[WfaJob]) -> Result<Vec<Option<Vec<PairResult>>>, DeviceError> {
        let started = std::time::Instant::now();
        let mut results: Vec<Vec<Option<PairResult>>> =
            jobs.iter().map(|j| vec![None; j.range.len()]).collect();
        // Jobs of one configuration share launches.
        let mut groups: Vec<(AlignerAttributes, Vec<usize>)> = Vec::new();
        for (i, job) in jobs.iter().enumerate() {
            match groups.iter_mut().find(|(a, _)| *a == job.attributes) {
                Some((_, members)) => members.push(i),
                None => groups.push((job.attributes, vec![i])),
            }
        }
        // Which pairs the kernel takes by their lengths (their bytes are
        // checked as they are packed).
        let takes: Vec<Vec<bool>> = jobs
            .iter()
            .map(|job| {
                let params = Params::new(&job.attributes).ok();
                job.range
                    .clone()
                    .map(|pair| {
                        let (plen, tlen) = job.pairs.lengths(pair);
                        params.is_some_and(|params| params.takes_lengths(plen, tlen))
                    })
                    .collect()
            })
            .collect();
        let checked = started.elapsed();
        let budget =
            (self.arena.capacity() / 4).min(self.arena.host_capacity().saturating_sub(HOST_SLACK));
        for (attributes, members) in &groups {
            // A configuration the kernel does not take has no pairs here
            // (they were all routed to the CPU by `takes`).
            let (Ok(params), Ok(pen)) = (
                Params::new(attributes),
                WfPenalties::from_client(&attributes.penalties),
            ) else {
                continue;
            };
            // Similar lengths share a launch (its block size and ring width
            // follow its longest pair): sorted by length, cut where the block
            // size changes, then by the I/O budget.
            let mut taken: Vec<(usize, usize, usize)> = Vec::new();
            for &j in members {
                let job = &jobs[j];
                for (slot, pair) in job.range.clone().enumerate() {
                    if takes[j][slot] {
                        let (plen, tlen) = job.pairs.lengths(pair);
                        taken.push((j, slot, plen + tlen));
                    }
                }
            }
            let block = Self::default_block;
            if let Some(&(_, _, first)) = taken.first()
                && taken
                    .iter()
                    .any(|&(_, _, bases)| block(bases) != block(first))
            {
                taken.sort_unstable_by_key(|&(_, _, bases)| bases);
            }
            for same_block in taken.chunk_by(|a, b| block(a.2) == block(b.2)) {
                let io = same_block
                    .iter()
                    .map(|&(_, _, bases)| Self::io_bytes(bases));
                for range in crate::wfa::batch::chunks(io, usize::MAX, budget as u64) {
                    let chunk: Vec<(usize, usize)> = same_block[range]
                        .iter()
                        .map(|&(j, slot, _)| (j, slot))
                        .collect();
                    self.launch_all(params, &pen, jobs, &chunk, &mut results)?;
                }
            }
        }
        let launched = started.elapsed();
        let on_cpu = takes.iter().flatten().filter(|&&t| !t).count();
        COUNTERS
            .routed_to_cpu
            .fetch_add(on_cpu as u64, Ordering::Relaxed);
        // Everything the kernel did not finish: the CPU path, on its pool.
        let mut missing: Vec<(usize, usize)> = Vec::new();
        for (j, r) in results.iter().enumerate() {
            for (slot, x) in r.iter().enumerate() {
                if x.is_none() {
                    missing.push((j, slot));
                }
            }
        }
        let rescued: Vec<((usize, usize), PairResult)> =
            crate::engine::cpu::install_for_devices(|| {
                use rayon::prelude::*;
                missing
                    .par_iter()
                    .map(|&(j, slot)| {
                        let job = &jobs[j];
                        let pair = job.range.start + slot;
                        (
                            (j, slot),
                            align_on_cpu(
                                &job.attributes,
                                job.pairs.pattern(pair),
                                job.pairs.text(pair),
                            ),
                        )
                    })
                    .collect()
            });
        for ((j, slot), r) in rescued {
            results[j][slot] = Some(r);
        }
        let results = results
            .into_iter()
            .map(|r| r.into_iter().collect::<Option<Vec<_>>>())
            .collect();
        crate::log_debug!(
            "wfa runner: {} jobs: checks {:.1} ms, launches {:.1} ms, rest {:.1} ms",
            jobs.len(),
            checked.as_secs_f64() * 1e3,
            (launched - checked).as_secs_f64() * 1e3,
            (started.elapsed() - launched).as_secs_f64() * 1e3
        );
        Ok(results)
    }

    /// Bytes a pair of `bases` bases (pattern and text) takes in the I/O
    /// part, at most: its descriptor, packed sequences, result slot and
    /// alignment padding.
    fn io_bytes(bases: usize) -> usize {
        DESC_BYTES + 4 * (plan::packed_words(bases) + 2) + align16(RESULT_HEADER + bases + 16) + 64
    }

    /// Threads per worker: a power of two from 32 to 256 (the kernel's
    /// launch bound).
    fn block_size(max_bases: usize) -> u32 {
        if let Some(b) = tuning("SEQSHIM_WFA_BLOCK") {
            return (b as u32).clamp(32, 256).next_power_of_two();
        }
        Self::default_block(max_bases)
    }

    /// Measured on an H200 (BENCHMARKS.md, heuristic none, 2-10 %
    /// divergence): one warp per worker is fastest up to 1 kbp pairs (kernel
    /// time under `ncu`: 1.1-1.3x over 64 threads at 2-5 %, 2 % slower at 10
    /// %; with the extension fused into the compute step, 32 and 64 were
    /// level); 10 kbp pairs want 256 (batch API: 1.06-1.10x over 128 at 5-10
    /// %, 0.95x at 2 %; 5 kbp pairs 1.09x at 5 %; 32 is about 4x slower).
    /// Sizes in between take the nearer choice; they were not measured.
    fn default_block(bases: usize) -> u32 {
        match bases {
            0..=2500 => 32,
            2501..=6000 => 64,
            _ => 256,
        }
    }

    /// Launches a chunk; pairs that ran out of their worker's memory go
    /// again with a quarter of the workers (four times the memory each)
    /// before the CPU path gets them.
    fn launch_all(
        &mut self,
        params: Params,
        pen: &WfPenalties,
        jobs: &[WfaJob],
        chunk: &[(usize, usize)],
        results: &mut [Vec<Option<PairResult>>],
    ) -> Result<(), DeviceError> {
        let mut pending = chunk.to_vec();
        let mut max_workers = usize::MAX;
        while !pending.is_empty() {
            let (short, workers) =
                self.launch(params, pen, jobs, &pending, results, max_workers)?;
            if workers <= MIN_RETRY_WORKERS {
                COUNTERS
                    .rescued
                    .fetch_add(short.len() as u64, Ordering::Relaxed);
                break;
            }
            pending = short;
            max_workers = workers / 4;
        }
        Ok(())
    }

    /// Packs, launches and unpacks one chunk of pairs of one configuration
    /// with at most `max_workers` workers. Returns the pairs that ran out of
    /// worker memory and the number of workers used.
    fn launch(
        &mut self,
        params: Params,
        pen: &WfPenalties,
        jobs: &[WfaJob],
        chunk: &[(usize, usize)],
        results: &mut [Vec<Option<PairResult>>],
        max_workers: usize,
    ) -> Result<(Vec<(usize, usize)>, usize), DeviceError> {
        let began = std::time::Instant::now();
        let full = params.full != 0;
        // Layout of the I/O part.
        let mut placed = Vec::with_capacity(chunk.len());
        let mut at = align16(DESCS_AT + DESC_BYTES * chunk.len());
        let mut max_bases = 0;
        let mut max_score = 1;
        for &(job, slot) in chunk {
            let j = &jobs[job];
            let pair = j.range.start + slot;
            let (plen, tlen) = j.pairs.lengths(pair);
            let pattern = at;
            let text = pattern + align16(4 * plan::packed_words(plen));
            at = text + align16(4 * plan::packed_words(tlen));
            max_bases = max_bases.max(plen + tlen);
            let bound = Params::score_bound(pen, plen, tlen);
            max_score = max_score.max(bound);
            placed.push(Placed {
                job,
                pair,
                plen,
                tlen,
                pattern,
                text,
                result: 0,
                path_cap: if full { plen + tlen + 16 } else { 0 },
                max_score: bound,
                packable: true,
            });
        }
        let inputs_end = at;
        for p in &mut placed {
            p.result = at;
            at += align16(RESULT_HEADER + p.path_cap);
        }
        let results_end = align16(at).next_multiple_of(256);
        // Workers and their slices: as many as the GPU keeps resident (more
        // would only wait for a free multiprocessor, with less memory each).
        let block = Self::block_size(max_bases);
        let width = max_bases + 4;
        let ring_bytes = align16(params.scope as usize * 3 * width * 4);
        let spans = spans_bytes(params.scope);
        let ring_in_shared = ring_bytes
            <= tuning("SEQSHIM_WFA_SHARED_RING").unwrap_or(SHARED_RING_MAX)
            && spans + ring_bytes <= DYNAMIC_SHARED_LIMIT;
        let shared_bytes = spans + if ring_in_shared { ring_bytes } else { 0 };
        let info = self.gpu.info();
        let resident = match self.kernel.resident_blocks(block, shared_bytes) {
            Some(per_multiprocessor) => per_multiprocessor * info.multiprocessors,
            None => info.resident_threads / block as usize,
        };
        let workers = chunk.len().min(resident).min(max_workers).max(1);
        let capacity = self.arena.capacity();
        if results_end >= capacity || results_end > self.arena.host_capacity() {
            return Err(DeviceError("WFA chunk exceeds the arena".into()));
        }
        let ring_global = if ring_in_shared { 0 } else { ring_bytes };
        // As many workers as the arena gives a ring and some score table
        // and codes each (a pair short of codes goes again with fewer).
        let least = (ring_global + MIN_WORKER_EXTRA).next_multiple_of(256);
        let workers = workers.min((capacity - results_end) / least).max(1);
        let stride = ((capacity - results_end) / workers) & !255;
        let (max_scores, code_budget) = if full {
            let rest = stride.saturating_sub(ring_global);
            let max_scores = (max_score as usize + 1).min(rest / 16 / 8).max(1);
            // Two 4-bit cells per byte.
            (max_scores, rest.saturating_sub(16 * max_scores) / 4 * 8)
        } else {
            (1, 0)
        };
        if stride < ring_global + 16 * max_scores {
            return Err(DeviceError(format!(
                "WFA workers need {} bytes each, the arena leaves {stride}",
                ring_global + 16 * max_scores
            )));
        }
        // Pack straight into the staging buffer, one disjoint slice per pair
        // (descriptor, then its packed pattern and text), on the host pool.
        let started = std::time::Instant::now();
        let staging = &mut self.arena.staging()?[..inputs_end];
        staging[..PARAMS_BYTES].copy_from_slice(&params.to_le_bytes());
        staging[COUNTER_AT..COUNTER_AT + 4].copy_from_slice(&0u32.to_le_bytes());
        let descs_end = DESCS_AT + DESC_BYTES * placed.len();
        let (descs, after_descs) = staging[DESCS_AT..].split_at_mut(descs_end - DESCS_AT);
        let first_input = placed.first().map_or(inputs_end, |p| p.pattern);
        let mut rest = &mut after_descs[first_input - descs_end..];
        let mut inputs: Vec<&mut [u8]> = Vec::with_capacity(placed.len());
        for (i, p) in placed.iter().enumerate() {
            let end = placed.get(i + 1).map_or(inputs_end, |next| next.pattern);
            let (mine, after) = std::mem::take(&mut rest).split_at_mut(end - p.pattern);
            inputs.push(mine);
            rest = after;
        }
        crate::engine::cpu::install_for_devices(|| {
            use rayon::prelude::*;
            placed
                .par_iter_mut()
                .zip(descs.par_chunks_exact_mut(DESC_BYTES))
                .zip(inputs.par_iter_mut())
                .for_each(|((p, desc), input)| {
                    desc[0..8].copy_from_slice(&(p.pattern as u64).to_le_bytes());
                    desc[8..16].copy_from_slice(&(p.text as u64).to_le_bytes());
                    desc[16..24].copy_from_slice(&(p.result as u64).to_le_bytes());
                    desc[24..28].copy_from_slice(&(p.plen as i32).to_le_bytes());
                    desc[28..32].copy_from_slice(&(p.tlen as i32).to_le_bytes());
                    desc[32..36].copy_from_slice(&p.max_score.to_le_bytes());
                    desc[36..40].copy_from_slice(&(p.path_cap as i32).to_le_bytes());
                    let j = &jobs[p.job];
                    let (pattern, text) = input.split_at_mut(p.text - p.pattern);
                    let pattern_ok = plan::pack_le(j.pairs.pattern(p.pair), pattern);
                    p.packable = plan::pack_le(j.pairs.text(p.pair), text) && pattern_ok;
                    if !p.packable {
                        // Its result is not read: the kernel gives it up
                        // after score 0 instead of aligning its codes.
                        desc[32..36].copy_from_slice(&1i32.to_le_bytes());
                    }
                });
        });
        let packed_at = started.elapsed();
        self.arena.upload(0..inputs_end)?;
        let n = u32::try_from(placed.len())
            .map_err(|_| DeviceError("too many pairs for one launch".into()))?;
        self.arena.launch(
            &self.kernel,
            workers as u32,
            block,
            shared_bytes as u32,
            &[
                Arg::Offset(0),
                Arg::Offset(0),
                Arg::Offset(COUNTER_AT),
                Arg::Offset(DESCS_AT),
                Arg::U32(n),
                Arg::Offset(results_end),
                Arg::U64(stride as u64),
                Arg::U64(ring_bytes as u64),
                Arg::I32(i32::from(ring_in_shared)),
                Arg::I32(max_scores as i32),
                Arg::U64(code_budget as u64),
            ],
        )?;
        COUNTERS.launches.fetch_add(1, Ordering::Relaxed);
        let results_start = placed.first().map_or(inputs_end, |p| p.result);
        self.arena.download(results_start..at)?;
        self.arena.synchronize()?;
        let device_at = started.elapsed();
        let staging = self.arena.staging()?;
        let staging: &[u8] = staging;
        let decoded: Vec<Decoded> = crate::engine::cpu::install_for_devices(|| {
            use rayon::prelude::*;
            placed
                .par_iter()
                .map(|p| decode(staging, p, &params, pen))
                .collect()
        });
        crate::log_debug!(
            "wfa launch: {} pairs, {workers} workers of {block} threads: layout {:.1} ms, pack {:.1} ms, device {:.1} ms, decode {:.1} ms",
            placed.len(),
            (started - began).as_secs_f64() * 1e3,
            packed_at.as_secs_f64() * 1e3,
            (device_at - packed_at).as_secs_f64() * 1e3,
            (started.elapsed() - device_at).as_secs_f64() * 1e3
        );
        let mut short = Vec::new();
        for (p, r) in placed.iter().zip(decoded) {
            let slot = p.pair - jobs[p.job].range.start;
            match r {
                Decoded::Done(r) => {
                    COUNTERS.on_gpu.fetch_add(1, Ordering::Relaxed);
                    results[p.job][slot] = Some(r);
                }
                Decoded::GivenUp => {
                    COUNTERS.rescued.fetch_add(1, Ordering::Relaxed);
                }
                Decoded::ShortOfMemory => short.push((p.job, slot)),
                Decoded::NotPackable => {
                    COUNTERS.routed_to_cpu.fetch_add(1, Ordering::Relaxed);
                }
            }
        }
        Ok((short, workers))
    }
}

/// How many runners a GPU gets, and the arena of each, out of `budget`
/// bytes: one per stream, or a single one with all of it when the budget
/// split that way would leave each less than the least arena.
fn lanes_for(budget: usize) -> (usize, usize) {
    let lanes = if budget / LANES >= MIN_ARENA {
        LANES
    } else {
        1
    };
    (lanes, (budget / lanes).min(MAX_ARENA))
}

/// A launch-shape override for measurements (block size, largest ring kept
/// in shared memory); unset in normal use.
fn tuning(name: &str) -> Option<usize> {
    std::env::var(name).ok()?.parse().ok()
}

/// Dynamic shared memory the kernel's spans take ahead of a ring there:
/// present, lo and hi of each of the `scope` wavefronts' three components,
/// rounded up to 16 bytes.
fn spans_bytes(scope: i32) -> usize {
    align16(9 * scope as usize * 4)
}

fn i32_at(buf: &[u8], at: usize) -> i32 {
    i32::from_le_bytes([buf[at], buf[at + 1], buf[at + 2], buf[at + 3]])
}

enum Decoded {
    Done(PairResult),
    /// For the CPU path (unfeasible there, or past the score bound).
    GivenUp,
    /// Worth another launch with more memory per worker.
    ShortOfMemory,
    /// A byte other than upper-case ACGT: for the CPU path.
    NotPackable,
}

/// One pair's result slot.
fn decode(staging: &[u8], p: &Placed, params: &Params, pen: &WfPenalties) -> Decoded {
    if !p.packable {
        return Decoded::NotPackable;
    }
    let r = p.result;
    match i32_at(staging, r) {
        1 => {}
        2 => return Decoded::ShortOfMemory,
        _ => return Decoded::GivenUp,
    }
    let (score, k, offset) = (
        i32_at(staging, r + 4),
        i32_at(staging, r + 8),
        i32_at(staging, r + 12),
    );
    let (plen, tlen) = (p.plen as i32, p.tlen as i32);
    let operations = if params.full != 0 {
        let n = usize::try_from(i32_at(staging, r + 16))
            .unwrap_or(0)
            .min(p.path_cap);
        let path = &staging[r + RESULT_HEADER..r + RESULT_HEADER + n];
        // The packed copy the kernel read, still in the staging buffer.
        let pair = replay::PackedPair {
            pattern: &staging[p.pattern..p.text],
            pattern_len: plen,
            text: &staging[p.text..p.text + 4 * plan::packed_words(p.tlen)],
            text_len: tlen,
        };
        let ops = replay::operations(params, &pair, score, k, offset, path);
        match ops {
            Some(ops) => ops,
            None => {
                COUNTERS.replay_failures.fetch_add(1, Ordering::Relaxed);
                return Decoded::GivenUp;
            }
        }
    } else {
        Vec::new()
    };
    Decoded::Done(PairResult {
        outcome: Ok(AlignStatus::Successful),
        score: pen.classic_score(plen, tlen, score),
        operations,
    })
}

impl BatchRunner<WfaJob> for WfaRunner {
    fn label(&self) -> String {
        let info = self.gpu.info();
        format!("GPU {} ({}) stream {}", info.ordinal, info.name, self.lane)
    }

    fn capacity(&self) -> usize {
        65_536
    }

    fn max_batch_cost(&self) -> u64 {
        super::super::job::device_batch_bases()
    }

    /// A quarter of a full batch (8 Mbases: 4,000 pairs of 1 kbp, near the
    /// 4,224 workers the occupancy query gave for them on an H200). Smaller
    /// tail batches each waited for their slowest pair (10 kbp at 10 %:
    /// seven launches of 832 down to 13 pairs, about 40 ms each at the
    /// least, took 0.4 s of a 1.4 s run).
    fn min_batch_cost(&self) -> u64 {
        super::super::job::device_batch_bases() / 4
    }

    fn run_batch(&mut self, jobs: &[WfaJob]) -> Result<Vec<Option<Vec<PairResult>>>, String> {
        self.run(jobs).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A GPU with room for one arena but not two still gets one runner.
    #[test]
    fn a_small_budget_gives_one_runner_with_all_of_it() {
        assert_eq!(lanes_for(MIN_ARENA * LANES), (LANES, MIN_ARENA));
        assert_eq!(lanes_for(MIN_ARENA * LANES - 1), (1, MIN_ARENA * LANES - 1));
        assert_eq!(lanes_for(MIN_ARENA - 1), (1, MIN_ARENA - 1));
        assert_eq!(lanes_for(usize::MAX / 2), (LANES, MAX_ARENA));
    }
}
