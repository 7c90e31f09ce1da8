//! `WfaRunner`: one GPU's share of the WFA scheduler. Packs a batch's pairs,
//! launches `seqshim_wfa_align` once per arena-sized chunk and turns what
//! comes back into the CPU path's `PairResult`s.
//!
//! Device memory is one arena per runner, empty when the runner starts and
//! grown to what a launch needs, within the runner's share of the process's
//! budget on the GPU (`engine::device::budget`). A launch uses it as:
//! parameters, the pair counter, descriptors, packed sequences and result
//! slots (what crosses the bus), then one slice per worker for its
//! wavefront ring, score table and backtrace codes. When the memory is not
//! there (another process took it), a chunk is cut until it fits, and what
//! fits nowhere is aligned on the CPU.

use std::sync::Arc;
use std::sync::atomic::{AtomicU64, AtomicUsize, Ordering};

use super::plan::{self, PARAMS_BYTES, Params};
use super::replay;
use crate::engine::device::{self, Arena, Arg, DeviceError, DeviceRepr, Gpu, Kernel};
use crate::engine::scheduler::BatchRunner;
use crate::wfa::job::{PairResult, WfaJob, align_on_cpu};
use crate::wfa::penalties::WfPenalties;
use crate::wfa::{AlignStatus, AlignerAttributes, Operations};

/// The kernel file, `kernels/wfa.cu`, as the family declares it.
const KERNEL: &str = <crate::wfa::job::Wfa as crate::engine::family::Family>::KERNEL;

device::device_struct! {
    /// One pair's descriptor: host twin of `struct WfaPair` in
    /// kernels/wfa.cu, whose `static_assert`s pin the same offsets.
    struct WfaPair (40 bytes) {
        /// Byte offset of the packed pattern (`u32` words, 16 bases each,
        /// plus one spare).
        pattern: u64 = 0,
        /// Byte offset of the packed text.
        text: u64 = 8,
        /// Byte offset of the result slot (`i32[8]`).
        result: u64 = 16,
        plen: i32 = 24,
        tlen: i32 = 28,
        /// Give up at this score.
        max_score: i32 = 32,
        /// Most path tags the pair may take in the path area.
        path_cap: i32 = 36,
    }
}

/// Bytes of a `WfaPair`.
const DESC_BYTES: usize = WfaPair::SIZE;
/// Bytes of a result slot (`i32[8]`; its path tags are in the path area).
const RESULT_HEADER: usize = 32;
/// Where the descriptors start (parameters and counters come first).
const DESCS_AT: usize = 128;
/// The kernel's three counters (`u32`): the next pair, the path area's
/// bytes taken, the runs area's words taken.
const COUNTER_AT: usize = PARAMS_BYTES;
const PATH_USED_AT: usize = COUNTER_AT + 4;
const RUNS_USED_AT: usize = COUNTER_AT + 8;
/// Largest arena. Only its I/O part (at most a quarter: descriptors,
/// packed pairs, results) is mirrored in pinned host memory, up to
/// `MAX_HOST`; the workers' wavefront memory stays on the device.
const MAX_ARENA: usize = 16 << 30;
/// Smallest share of the budget worth a runner of its own: a smaller
/// budget gets fewer runners.
const LANE_SHARE: usize = 256 << 20;
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
/// Smallest share a runner starts with (it launches a few short pairs at a
/// time in that).
const MIN_ARENA: usize = 32 << 20;
/// Runners per GPU, each on its own stream and arena. Six measured faster
/// than three or four on an H200 with 16 host cores (1 kbp 2 % with CIGAR:
/// 17.1 ms a 100,000-pair run against 19.6 and 17.7, BENCHMARKS.md): each
/// runner reads its results on its own thread, and more of them keep the
/// GPU fed while others do. `SEQSHIM_WFA_LANES` overrides it for
/// measurements.
const LANES: usize = 6;
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
/// Worker memory beyond its ring and score table a launch asks for, per
/// base of its longest pair, until pairs come back short of memory (then
/// four times as much, up to [`MAX_EXTRA_PER_BASE`]). 128 gives 10 kbp
/// pairs 2.5 MB each, about what 10 % divergence needs (5 to 6 M codes of
/// half a byte), and short pairs the 64 KiB floor.
const EXTRA_PER_BASE: usize = 128;
const MAX_EXTRA_PER_BASE: usize = 4096;
/// Parts a launch of at least two GPU-fulls of pairs goes in;
/// `SEQSHIM_WFA_PARTS` overrides it for measurements.
const PARTS: usize = 2;
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
    /// Finished pairs whose walk the host replayed (the kernel's runs area
    /// had no room for it, or the runner asked the host to).
    pub replayed_on_host: AtomicU64,
}

pub static COUNTERS: Counters = Counters {
    on_gpu: AtomicU64::new(0),
    rescued: AtomicU64::new(0),
    routed_to_cpu: AtomicU64::new(0),
    replay_failures: AtomicU64::new(0),
    launches: AtomicU64::new(0),
    replayed_on_host: AtomicU64::new(0),
};

/// A snapshot of [`COUNTERS`]: (on GPU, rescued, routed to CPU, replay
/// failures, launches, replayed on the host).
pub fn counters() -> (u64, u64, u64, u64, u64, u64) {
    let l = |c: &AtomicU64| c.load(Ordering::Relaxed);
    (
        l(&COUNTERS.on_gpu),
        l(&COUNTERS.rescued),
        l(&COUNTERS.routed_to_cpu),
        l(&COUNTERS.replay_failures),
        l(&COUNTERS.launches),
        l(&COUNTERS.replayed_on_host),
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
    /// Most device memory the arena may grow to: this runner's share of
    /// the budget.
    max_arena: usize,
    /// Worker memory beyond ring and score table to ask for, per base of a
    /// launch's longest pair ([`EXTRA_PER_BASE`], learned upwards).
    extra_per_base: usize,
    /// Runs area bytes per pair the last launch used, with room to spare:
    /// that much is copied back with the results, the rest on demand.
    runs_bytes_per_pair: usize,
    /// Whether the kernel leaves the replay of its walks to the host (the
    /// fallback for walks its runs area has no room for; tests force it).
    host_replay: bool,
    /// Parts submitted and not yet waited for on this GPU, by all its
    /// runners: a launch that finds none starts with a small part.
    in_flight: Arc<AtomicUsize>,
}

/// A pair the kernel takes: its job, its place in the job, and its lengths
/// (read once per batch from the job's pairs).
#[derive(Clone, Copy)]
struct Taken {
    job: usize,
    slot: usize,
    plen: usize,
    tlen: usize,
}

impl Taken {
    fn bases(&self) -> usize {
        self.plen + self.tlen
    }
}

/// One pair of a launch: which job and pair, and where its bytes go.
struct Placed {
    job: usize,
    pair: usize,
    plen: usize,
    tlen: usize,
    pattern: usize,
    text: usize,
    /// Its result slot.
    result: usize,
    /// Most path tags it may take in the path area.
    path_cap: usize,
    max_score: i32,
    /// All upper-case ACGT (found while packing): the kernel's result for
    /// any other pair is not read.
    packable: bool,
}

impl WfaRunner {
    /// The runners of one GPU, each on its own stream, so that some pack
    /// and decode on the host while the others' kernels run. They share
    /// what the process's budget on the GPU has left; none allocates
    /// anything until its first batch.
    pub fn for_gpu(gpu: &Arc<Gpu>) -> Result<Vec<Self>, DeviceError> {
        let (lanes, bytes) = lanes_for(gpu.ledger().available());
        let mut runners = Vec::with_capacity(lanes);
        let in_flight = Arc::new(AtomicUsize::new(0));
        for lane in 0..lanes {
            match WfaRunner::new(gpu.clone(), lane, bytes) {
                Ok(mut runner) => {
                    runner.in_flight = in_flight.clone();
                    runners.push(runner)
                }
                Err(e) if lane == 0 => return Err(e),
                Err(e) => {
                    crate::log_warn!("WFA: GPU {} runs one stream only ({e})", gpu.info().ordinal)
                }
            }
        }
        crate::log_info!(
            "WFA: GPU {}: {lanes} streams, each growing its arena as batches need up to {} MiB",
            gpu.info().ordinal,
            bytes >> 20
        );
        Ok(runners)
    }

    /// A runner on stream `lane` whose arena may grow to about `bytes`
    /// (within the process's budget on the GPU). It allocates nothing
    /// until its first batch.
    pub fn new(gpu: Arc<Gpu>, lane: usize, bytes: usize) -> Result<Self, DeviceError> {
        let kernel = gpu.kernel(device::kernel_source(KERNEL)?, "seqshim_wfa_align")?;
        let max_arena = bytes.min(MAX_ARENA);
        if max_arena < MIN_ARENA {
            return Err(DeviceError(format!(
                "only {} MiB of device memory for a WFA stream (it needs {} MiB)",
                max_arena >> 20,
                MIN_ARENA >> 20
            )));
        }
        let mut arena = gpu.arena(lane);
        arena.set_limits(max_arena, (max_arena / 4).min(MAX_HOST) + HOST_SLACK);
        Ok(WfaRunner {
            gpu,
            kernel,
            arena,
            lane,
            max_arena,
            extra_per_base: EXTRA_PER_BASE,
            runs_bytes_per_pair: 256,
            host_replay: false,
            in_flight: Arc::new(AtomicUsize::new(0)),
        })
    }

    /// Grows the arena to `want` device bytes (at least `least`, at most the
    /// runner's share) with `host` of them mirrored, settling for less when
    /// the budget or the GPU has less: halves the part above `least` until
    /// it fits. An out-of-memory error when not even `least` can be had.
    fn make_room(&mut self, least: usize, want: usize, host: usize) -> Result<(), DeviceError> {
        let before = (self.arena.capacity(), self.arena.host_capacity());
        let mut want = want.min(self.max_arena).max(least);
        let outcome = loop {
            match self.arena.reserve_split(want, host) {
                Ok(()) => break Ok(()),
                Err(e) if e.is_out_of_memory() && want > least => {
                    crate::log_debug!("WFA arena of {want} bytes refused ({e}); asking for less");
                    want = least + (want - least) / 2;
                    if want - least < (1 << 20) {
                        want = least;
                    }
                }
                Err(e) => break Err(e),
            }
        };
        if (self.arena.capacity(), self.arena.host_capacity()) != before && outcome.is_ok() {
            crate::log_debug!(
                "WFA: GPU {} stream {}: arena grown to {} MiB ({} MiB pinned)",
                self.gpu.info().ordinal,
                self.lane,
                self.arena.capacity() >> 20,
                self.arena.host_capacity() >> 20,
            );
        }
        outcome
    }

    /// Device bytes the runner's arena holds now (it grows on demand, up to
    /// the share it was given).
    pub fn arena_bytes(&self) -> usize {
        self.arena.capacity()
    }

    /// Makes the kernel leave every walk's replay to the host, the path
    /// taken where its runs area has no room (for testing that path).
    pub fn replay_on_host(&mut self, yes: bool) {
        self.host_replay = yes;
    }

    fn run(&mut self, jobs: &[WfaJob]) -> Result<Vec<Option<Vec<PairResult>>>, DeviceError> {
        let started = std::time::Instant::now();
        crate::log_debug!(
            "wfa runner on stream {}: {} jobs, {} pairs",
            self.lane,
            jobs.len(),
            jobs.iter().map(|j| j.range.len()).sum::<usize>()
        );
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
        // Chunks are cut to what the runner's largest arena holds; the arena
        // grows to a chunk's needs when it is launched.
        let budget = (self.max_arena / 4).min(MAX_HOST);
        let mut on_cpu = 0;
        let mut checked = std::time::Duration::ZERO;
        for (attributes, members) in &groups {
            let group_started = std::time::Instant::now();
            // The pairs the kernel takes by their lengths (their bytes are
            // checked as they are packed), each pair's lengths read here
            // once; a configuration the kernel does not take has none.
            let config = Params::new(attributes)
                .ok()
                .zip(WfPenalties::from_client(&attributes.penalties).ok());
            let mut taken: Vec<Taken> = Vec::new();
            for &j in members {
                let job = &jobs[j];
                for (slot, pair) in job.range.clone().enumerate() {
                    let (plen, tlen) = job.pairs.lengths(pair);
                    if config.is_some_and(|(params, _)| params.takes_lengths(plen, tlen)) {
                        taken.push(Taken {
                            job: j,
                            slot,
                            plen,
                            tlen,
                        });
                    } else {
                        on_cpu += 1;
                    }
                }
            }
            let Some((params, pen)) = config else {
                continue;
            };
            // Similar lengths share a launch (its block size and ring width
            // follow its longest pair): sorted by length, cut where the block
            // size changes, then by the I/O budget.
            let block = |t: &Taken| Self::default_block(t.bases());
            if let Some(first) = taken.first()
                && taken.iter().any(|t| block(t) != block(first))
            {
                taken.sort_unstable_by_key(Taken::bases);
            }
            checked += group_started.elapsed();
            for same_block in taken.chunk_by(|a, b| block(a) == block(b)) {
                let io = same_block.iter().map(|t| Self::io_bytes(t.bases()));
                for (range, _) in crate::wfa::batch::chunks(io, usize::MAX, budget as u64) {
                    self.launch_fitting(params, &pen, jobs, &same_block[range], &mut results)?;
                }
            }
        }
        let launched = started.elapsed();
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
        let rescued: Vec<((usize, usize), PairResult)> = if missing.is_empty() {
            Vec::new()
        } else {
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
            })
        };
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
            launched.saturating_sub(checked).as_secs_f64() * 1e3,
            (started.elapsed() - launched).as_secs_f64() * 1e3
        );
        Ok(results)
    }

    /// Bytes a pair of `bases` bases (pattern and text) takes in the I/O
    /// part, at most: its descriptor, packed sequences, result slot, path
    /// tags, runs and alignment padding.
    fn io_bytes(bases: usize) -> usize {
        DESC_BYTES
            + 4 * (plan::packed_words(bases) + 2)
            + align16(RESULT_HEADER + bases + 16)
            + align16(bases + 16)
            + 64
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

    /// Launches a chunk, cut into pieces that find device memory: a piece
    /// that finds none is halved, and what not even one pair's launch finds
    /// memory for is left to the CPU path (with one log line per process).
    fn launch_fitting(
        &mut self,
        params: Params,
        pen: &WfPenalties,
        jobs: &[WfaJob],
        chunk: &[Taken],
        results: &mut [Vec<Option<PairResult>>],
    ) -> Result<(), DeviceError> {
        let mut rest = chunk;
        let mut take = chunk.len();
        while !rest.is_empty() {
            let piece = &rest[..take.min(rest.len())];
            match self.launch_all(params, pen, jobs, piece, results) {
                Ok(()) => rest = &rest[piece.len()..],
                Err(e) if e.is_out_of_memory() => {
                    device::budget::note_out_of_memory(
                        "WFA",
                        "a launch found no device memory",
                        &e,
                    );
                    if piece.len() == 1 {
                        // The rest is aligned on the CPU with the pairs the
                        // kernel gave back.
                        break;
                    }
                    take = piece.len() / 2;
                }
                Err(e) => return Err(e),
            }
        }
        Ok(())
    }

    /// Launches a chunk; pairs that ran out of their worker's memory go
    /// again with a quarter of the workers (four times the memory each)
    /// before the CPU path gets them.
    fn launch_all(
        &mut self,
        params: Params,
        pen: &WfPenalties,
        jobs: &[WfaJob],
        chunk: &[Taken],
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
            if !short.is_empty() {
                // Later launches ask for more worker memory up front.
                self.extra_per_base = (self.extra_per_base * 4).min(MAX_EXTRA_PER_BASE);
            }
            pending = short;
            max_workers = workers / 4;
        }
        Ok(())
    }

    /// Aligns one chunk of pairs of one configuration with at most
    /// `max_workers` workers. Returns the pairs that ran out of worker
    /// memory and the number of workers used.
    ///
    /// A chunk that fills the GPU at least twice over goes in parts
    /// ([`PARTS`]), pipelined on this runner's stream: the next part is
    /// packed while the one before runs, and that one is decoded while the
    /// next runs. In one piece, a launch kept the GPU idle while it packed
    /// and decoded, and the two runners a GPU then had fell into step (both
    /// packing, then both on the GPU, then both decoding). Three, four and
    /// six parts measured level with two on an H200 (BENCHMARKS.md). On an
    /// idle GPU a small part goes first (see below).
    fn launch(
        &mut self,
        params: Params,
        pen: &WfPenalties,
        jobs: &[WfaJob],
        chunk: &[Taken],
        results: &mut [Vec<Option<PairResult>>],
        max_workers: usize,
    ) -> Result<(Vec<Taken>, usize), DeviceError> {
        let began = std::time::Instant::now();
        let full = params.full != 0;
        let max_bases = chunk.iter().map(Taken::bases).max().unwrap_or(0);
        // Workers: as many as the GPU keeps resident (more would only wait
        // for a free multiprocessor, with less memory each).
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
        let n_parts = if max_workers == usize::MAX && chunk.len() >= 2 * resident {
            tuning("SEQSHIM_WFA_PARTS").unwrap_or(PARTS).clamp(1, 64)
        } else {
            1
        };
        // On an idle GPU (a run's start), a first part of a quarter of a
        // GPU-full, packed sooner, starts the kernels while the rest is
        // packed: the runners of a GPU all start together, and their first
        // full parts took 2-3.5 ms to pack side by side (with it, the first
        // kernel of a 1 kbp run started about 2.5 ms sooner on an H200).
        let lead = if n_parts > 1 && self.in_flight.load(Ordering::Acquire) == 0 {
            (resident / 4).max(1)
        } else {
            0
        };
        let (first, rest) = chunk.split_at(lead.min(chunk.len()));
        let pieces = Some(first)
            .filter(|f| !f.is_empty())
            .into_iter()
            .chain(rest.chunks(rest.len().div_ceil(n_parts).max(1)));
        let mut parts = Vec::with_capacity(n_parts + 1);
        let mut io_at = 0;
        for pairs in pieces {
            let part = Part::lay_out(jobs, pairs, io_at, full, pen, !self.host_replay);
            io_at = part.end;
            parts.push(part);
        }
        let results_end = io_at;
        let parts_count = parts.len();
        let max_score = parts.iter().map(|p| p.max_score).max().unwrap_or(1);
        let largest = parts.iter().map(|p| p.placed.len()).max().unwrap_or(1);
        let workers = largest.min(resident).min(max_workers).max(1);
        let ring_global = if ring_in_shared { 0 } else { ring_bytes };
        // As many workers as the arena gives a ring and some score table
        // and codes each (a pair short of codes goes again with fewer).
        let least = (ring_global + MIN_WORKER_EXTRA).next_multiple_of(256);
        // The arena grows to give every worker its ring, a score table for
        // the pairs' bound and codes for the learned bytes per base; a
        // retry (fewer workers) shares what the first try had. At the least
        // it holds the I/O and one worker.
        let want_stride = if full {
            ring_global
                + 16 * (max_score as usize + 1).min(1 << 20)
                + MIN_WORKER_EXTRA.max(self.extra_per_base * max_bases)
        } else {
            least
        };
        let want = if max_workers == usize::MAX {
            results_end + workers * want_stride.next_multiple_of(256)
        } else {
            0
        };
        self.make_room(results_end + least + 256, want, results_end)?;
        let capacity = self.arena.capacity();
        if results_end >= capacity || results_end > self.arena.host_capacity() {
            return Err(DeviceError("WFA chunk exceeds the arena".into()));
        }
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
        let shape = Shape {
            workers,
            block,
            shared_bytes,
            workers_at: results_end,
            stride,
            ring_bytes,
            ring_in_shared,
            max_scores,
            code_budget,
        };
        let laid_out = began.elapsed();
        let mut short = Vec::new();
        let mut previous: Option<(Part, Submitted)> = None;
        for mut part in parts {
            let submitted = self.submit(&params, jobs, &mut part, &shape)?;
            if let Some((part, submitted)) = previous.take() {
                short.extend(self.finish(&params, pen, jobs, &part, submitted, results)?);
            }
            previous = Some((part, submitted));
        }
        if let Some((part, submitted)) = previous {
            short.extend(self.finish(&params, pen, jobs, &part, submitted, results)?);
        }
        crate::log_debug!(
            "wfa launch: {} pairs in {} part(s), {workers} workers of {block} threads: layout {:.1} ms, all {:.1} ms",
            chunk.len(),
            parts_count,
            laid_out.as_secs_f64() * 1e3,
            began.elapsed().as_secs_f64() * 1e3,
        );
        Ok((short, workers))
    }

    /// Packs a part into its staging range (waiting only for copies still
    /// using that range), then queues its upload, kernel and copies back.
    fn submit(
        &mut self,
        params: &Params,
        jobs: &[WfaJob],
        part: &mut Part,
        shape: &Shape,
    ) -> Result<Submitted, DeviceError> {
        let started = std::time::Instant::now();
        let io_at = part.io_at;
        let inputs_end = part.inputs_end;
        let staging = self.arena.staging_part(io_at..inputs_end)?;
        let (head, after_descs) = staging.split_at_mut(DESCS_AT + DESC_BYTES * part.placed.len());
        head[..PARAMS_BYTES].copy_from_slice(&params.to_le_bytes());
        head[COUNTER_AT..RUNS_USED_AT + 4].fill(0);
        let descs = &mut head[DESCS_AT..];
        // One disjoint slice of the inputs per pair: its packed pattern and
        // text.
        let descs_end = io_at + DESCS_AT + DESC_BYTES * part.placed.len();
        let first_input = part.placed.first().map_or(inputs_end, |p| p.pattern);
        let mut rest = &mut after_descs[first_input - descs_end..];
        let mut inputs: Vec<&mut [u8]> = Vec::with_capacity(part.placed.len());
        for (i, p) in part.placed.iter().enumerate() {
            let end = part
                .placed
                .get(i + 1)
                .map_or(inputs_end, |next| next.pattern);
            let (mine, after) = std::mem::take(&mut rest).split_at_mut(end - p.pattern);
            inputs.push(mine);
            rest = after;
        }
        crate::engine::cpu::install_for_devices(|| {
            use rayon::prelude::*;
            part.placed
                .par_iter_mut()
                .zip(descs.par_chunks_exact_mut(DESC_BYTES))
                .zip(inputs.par_iter_mut())
                .for_each(|((p, desc), input)| {
                    let j = &jobs[p.job];
                    let (pattern, text) = input.split_at_mut(p.text - p.pattern);
                    let pattern_ok = plan::pack_le(j.pairs.pattern(p.pair), pattern);
                    p.packable = plan::pack_le(j.pairs.text(p.pair), text) && pattern_ok;
                    WfaPair {
                        pattern: p.pattern as u64,
                        text: p.text as u64,
                        result: p.result as u64,
                        plen: p.plen as i32,
                        tlen: p.tlen as i32,
                        // A pair that is not packable: its result is not
                        // read, and the kernel gives it up after score 0
                        // instead of aligning its codes.
                        max_score: if p.packable { p.max_score } else { 1 },
                        path_cap: p.path_cap as i32,
                    }
                    .write_to(desc);
                });
        });
        let packed = started.elapsed();
        let mut marks = Vec::new();
        self.mark(&mut marks);
        self.arena.upload(io_at..inputs_end)?;
        self.mark(&mut marks);
        let n = u32::try_from(part.placed.len())
            .map_err(|_| DeviceError("too many pairs for one launch".into()))?;
        self.arena.launch(
            &self.kernel,
            shape.workers as u32,
            shape.block,
            shape.shared_bytes as u32,
            &[
                Arg::Offset(0),
                Arg::Offset(io_at),
                Arg::Offset(io_at + COUNTER_AT),
                Arg::Offset(io_at + DESCS_AT),
                Arg::U32(n),
                Arg::Offset(shape.workers_at),
                Arg::U64(shape.stride as u64),
                Arg::U64(shape.ring_bytes as u64),
                Arg::I32(i32::from(shape.ring_in_shared)),
                Arg::I32(shape.max_scores as i32),
                Arg::U64(shape.code_budget as u64),
                Arg::Offset(part.paths.at),
                Arg::U64(part.paths.bytes as u64),
                Arg::Offset(part.runs.at),
                Arg::U64((part.runs.bytes / 4) as u64),
            ],
        )?;
        COUNTERS.launches.fetch_add(1, Ordering::Relaxed);
        self.mark(&mut marks);
        self.arena
            .download(io_at + COUNTER_AT..io_at + RUNS_USED_AT + 4)?;
        self.arena.download(part.inputs_end..part.results_end)?;
        // The runs the kernel is expected to write (the last launch's bytes
        // per pair, with room to spare), in the same round trip; the rest,
        // if any, is fetched once the count is known.
        let guess = (self.runs_bytes_per_pair * part.placed.len()).min(part.runs.bytes);
        if guess > 0 {
            self.arena.download(part.runs.at..part.runs.at + guess)?;
        }
        self.mark(&mut marks);
        let fence = self.arena.fence()?;
        Ok(Submitted {
            _in_flight: InFlight::count(&self.in_flight),
            started,
            packed,
            guess,
            fence,
            marks,
        })
    }

    /// Waits for a submitted part and stores its results; returns its pairs
    /// that ran out of worker memory.
    fn finish(
        &mut self,
        params: &Params,
        pen: &WfPenalties,
        jobs: &[WfaJob],
        part: &Part,
        submitted: Submitted,
        results: &mut [Vec<Option<PairResult>>],
    ) -> Result<Vec<Taken>, DeviceError> {
        let waited = std::time::Instant::now();
        self.arena.wait(submitted.fence)?;
        let full = params.full != 0;
        let (paths_used, runs_used) = if full {
            let counters = self.arena.staging_part(part.io_at..part.io_at + DESCS_AT)?;
            (
                (i32_at(counters, PATH_USED_AT) as u32 as usize).min(part.paths.bytes),
                (4 * (i32_at(counters, RUNS_USED_AT) as u32 as usize)).min(part.runs.bytes),
            )
        } else {
            (0, 0)
        };
        // The rest of the runs, and the path tags if any walk is left to the
        // host: one more round trip.
        let mut more = false;
        if runs_used > submitted.guess {
            self.arena
                .download(part.runs.at + submitted.guess..part.runs.at + runs_used)?;
            more = true;
        }
        let left_to_host = full && self.any_left_to_host(part)?;
        if left_to_host {
            self.arena
                .download(part.paths.at..part.paths.at + paths_used)?;
            more = true;
        }
        if more {
            let fence = self.arena.fence()?;
            self.arena.wait(fence)?;
        }
        if full && !part.placed.is_empty() {
            let per_pair = runs_used / part.placed.len();
            self.runs_bytes_per_pair = per_pair + per_pair / 4 + 16;
        }
        let device = waited.elapsed();
        let decoding = std::time::Instant::now();
        let staging: &[u8] = self.arena.staging_part(part.io_at..part.end)?;
        let base = part.io_at;
        let runs = &staging[part.runs.at - base..part.runs.at - base + runs_used];
        let areas = Copied {
            paths: &staging[part.paths.at - base..part.paths.at - base + paths_used],
            // The part's pairs share one copy of the runs.
            runs: runs
                .chunks_exact(4)
                .map(|b| u32::from_le_bytes([b[0], b[1], b[2], b[3]]))
                .collect(),
        };
        let copied = decoding.elapsed();
        let mut short = Vec::new();
        let (mut on_gpu, mut rescued, mut routed) = (0, 0, 0);
        let mut store = |p: &Placed, r: Decoded| {
            let slot = p.pair - jobs[p.job].range.start;
            match r {
                Decoded::Done(r) => {
                    on_gpu += 1;
                    results[p.job][slot] = Some(r);
                }
                Decoded::GivenUp => rescued += 1,
                Decoded::ShortOfMemory => short.push(Taken {
                    job: p.job,
                    slot,
                    plen: p.plen,
                    tlen: p.tlen,
                }),
                Decoded::NotPackable => routed += 1,
            }
        };
        if left_to_host {
            // Walks to replay: on the pool.
            let decoded: Vec<Decoded> = crate::engine::cpu::install_for_devices(|| {
                use rayon::prelude::*;
                part.placed
                    .par_iter()
                    .map(|p| decode(staging, base, &areas, p, params, pen))
                    .collect()
            });
            for (p, r) in part.placed.iter().zip(decoded) {
                store(p, r);
            }
        } else {
            // A few loads and sums a pair, straight into its place: the
            // runner's thread does it, leaving the pool to pack other parts.
            for p in &part.placed {
                store(p, decode(staging, base, &areas, p, params, pen));
            }
        }
        COUNTERS.on_gpu.fetch_add(on_gpu, Ordering::Relaxed);
        COUNTERS.rescued.fetch_add(rescued, Ordering::Relaxed);
        COUNTERS.routed_to_cpu.fetch_add(routed, Ordering::Relaxed);
        self.log_marks(&submitted.marks);
        crate::log_debug!(
            "wfa part: {} pairs: pack {:.1} ms, then {:.1} ms until it was waited for, wait {:.1} ms, decode {:.1} ms (runs copied in {:.2})",
            part.placed.len(),
            submitted.packed.as_secs_f64() * 1e3,
            (waited - submitted.started - submitted.packed).as_secs_f64() * 1e3,
            device.as_secs_f64() * 1e3,
            decoding.elapsed().as_secs_f64() * 1e3,
            copied.as_secs_f64() * 1e3
        );
        Ok(short)
    }
    /// For the debug timeline (`SEQSHIM_LOG=debug` only): a mark after the
    /// work queued so far. Best effort: a mark that cannot be made leaves
    /// the part's timeline unlogged, not its work failed.
    fn mark(&mut self, marks: &mut Vec<crate::engine::device::Mark>) {
        if crate::engine::log::enabled(crate::engine::config::LogLevel::Debug)
            && let Ok(mark) = self.arena.mark()
        {
            marks.push(mark);
        }
    }

    /// For the debug timeline: when the GPU ran a part's upload, kernel and
    /// copies back, on the debug lines' clock.
    fn log_marks(&self, marks: &[crate::engine::device::Mark]) {
        let at: Vec<String> = marks
            .iter()
            .map(|m| match self.arena.mark_time(m) {
                Some(at) => format!("{:.2}", crate::engine::log::debug_ms(at)),
                None => "?".into(),
            })
            .collect();
        if let [upload, kernel, kernel_end, back] = &at[..] {
            crate::log_debug!(
                "wfa part on stream {}: upload from {upload} ms, kernel {kernel}-{kernel_end} ms, copies back until {back} ms",
                self.lane
            );
        }
    }

    /// Whether a pair of the part finished with its walk not replayed by
    /// the kernel (its results are in the staging buffer).
    fn any_left_to_host(&mut self, part: &Part) -> Result<bool, DeviceError> {
        let staging = self.arena.staging_part(part.inputs_end..part.results_end)?;
        Ok(part.placed.iter().any(|p| {
            let r = p.result - part.inputs_end;
            i32_at(staging, r) == 1 && i32_at(staging, r + 28) < 0
        }))
    }
}

/// A launch's shape, shared by its parts: workers and their memory.
struct Shape {
    workers: usize,
    block: u32,
    shared_bytes: usize,
    /// Where the workers' slices start (after every part's I/O).
    workers_at: usize,
    stride: usize,
    ring_bytes: usize,
    ring_in_shared: bool,
    max_scores: usize,
    code_budget: usize,
}

/// One part of a launch and its place in the arena's I/O area: its own
/// parameters, counters and descriptors at `io_at`, then packed inputs,
/// result slots, path area and runs area, up to `end`.
struct Part {
    placed: Vec<Placed>,
    io_at: usize,
    /// The result slots follow the inputs, up to `results_end`.
    inputs_end: usize,
    results_end: usize,
    paths: Area,
    runs: Area,
    end: usize,
    max_score: i32,
}

impl Part {
    fn lay_out(
        jobs: &[WfaJob],
        pairs: &[Taken],
        io_at: usize,
        full: bool,
        pen: &WfPenalties,
        replay_on_device: bool,
    ) -> Part {
        let mut placed = Vec::with_capacity(pairs.len());
        let mut at = align16(io_at + DESCS_AT + DESC_BYTES * pairs.len());
        let mut max_score = 1;
        for &Taken {
            job,
            slot,
            plen,
            tlen,
        } in pairs
        {
            let pair = jobs[job].range.start + slot;
            let pattern = at;
            let text = pattern + align16(4 * plan::packed_words(plen));
            at = text + align16(4 * plan::packed_words(tlen));
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
            at += RESULT_HEADER;
        }
        // The path area holds every pair's longest walk (the kernel takes
        // less: what the pair's score allows), so it never runs out.
        let paths = Area {
            at: align16(at),
            bytes: placed.iter().map(|p| p.path_cap).sum(),
        };
        // The runs area is as large as the path area. A walk of n tags takes
        // up to 4 (2n + 5) bytes of runs, but walks come far shorter than
        // their room (a few dozen tags for 1 kbp pairs at 2 %, against
        // 2,016); a walk that finds no room left is replayed on the host.
        let runs = Area {
            at: align16(paths.at + paths.bytes),
            bytes: if replay_on_device {
                paths.bytes / 4 * 4
            } else {
                0
            },
        };
        Part {
            placed,
            io_at,
            inputs_end,
            results_end: at,
            end: align16(runs.at + runs.bytes).next_multiple_of(256),
            paths,
            runs,
            max_score,
        }
    }
}

/// A part whose work is queued on the stream.
struct Submitted {
    started: std::time::Instant,
    packed: std::time::Duration,
    /// Bytes of the path area already being copied back.
    guess: usize,
    fence: crate::engine::device::Fence,
    /// For the debug timeline: the GPU's time before the upload, before
    /// the kernel, after it and after the copies back (empty otherwise).
    marks: Vec<crate::engine::device::Mark>,
    _in_flight: InFlight,
}

/// Counts a submitted part in its GPU's parts in flight until it is
/// dropped (finished, or abandoned on an error).
struct InFlight(Arc<AtomicUsize>);

impl InFlight {
    fn count(parts: &Arc<AtomicUsize>) -> Self {
        parts.fetch_add(1, Ordering::AcqRel);
        InFlight(parts.clone())
    }
}

impl Drop for InFlight {
    fn drop(&mut self) {
        self.0.fetch_sub(1, Ordering::AcqRel);
    }
}

/// How many runners a GPU gets, and the largest arena of each, out of
/// `budget` bytes: [`LANES`] (or `SEQSHIM_WFA_LANES`, up to one per
/// stream), fewer when the budget split that way would leave each less
/// than [`LANE_SHARE`].
fn lanes_for(budget: usize) -> (usize, usize) {
    let want = tuning("SEQSHIM_WFA_LANES")
        .unwrap_or(LANES)
        .clamp(1, crate::engine::device::STREAMS);
    let lanes = want.min(budget / LANE_SHARE).max(1);
    (lanes, (budget / lanes).min(MAX_ARENA))
}

/// A launch-shape override for measurements (block size, largest ring kept
/// in shared memory, parts of a launch); unset in normal use.
fn tuning(name: &str) -> Option<usize> {
    crate::engine::config::get().setting(name)
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

/// Where a part's path or runs area is in the arena, and its size.
struct Area {
    at: usize,
    bytes: usize,
}

/// What the kernel used of a part's path and runs areas, as copied back
/// (the path area only when a walk is left to the host).
struct Copied<'a> {
    paths: &'a [u8],
    runs: Arc<[u32]>,
}

/// One pair's result slot. `staging` is the part's I/O range, which starts
/// at arena offset `base`.
fn decode(
    staging: &[u8],
    base: usize,
    areas: &Copied<'_>,
    p: &Placed,
    params: &Params,
    pen: &WfPenalties,
) -> Decoded {
    if !p.packable {
        return Decoded::NotPackable;
    }
    let r = p.result - base;
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
    let most = p.plen + p.tlen;
    let runs = usize::try_from(i32_at(staging, r + 28)).ok().and_then(|n| {
        let at = usize::try_from(i32_at(staging, r + 24)).ok()?;
        Some(at..at.checked_add(n)?)
    });
    let operations = if params.full == 0 {
        Operations::default()
    } else if let Some(runs) = runs {
        // Kept as the kernel wrote them, last run first.
        match Operations::from_shared_runs(&areas.runs, runs, most) {
            Some(ops) => ops,
            None => {
                COUNTERS.replay_failures.fetch_add(1, Ordering::Relaxed);
                return Decoded::GivenUp;
            }
        }
    } else {
        COUNTERS.replayed_on_host.fetch_add(1, Ordering::Relaxed);
        let n = usize::try_from(i32_at(staging, r + 16)).unwrap_or(usize::MAX);
        let at = usize::try_from(i32_at(staging, r + 20)).unwrap_or(usize::MAX);
        let Some(path) = at
            .checked_add(n)
            .filter(|_| n <= p.path_cap)
            .and_then(|end| areas.paths.get(at..end))
        else {
            COUNTERS.replay_failures.fetch_add(1, Ordering::Relaxed);
            return Decoded::GivenUp;
        };
        // The packed copy the kernel read, still in the staging buffer.
        let (pattern, text) = (p.pattern - base, p.text - base);
        let pair = replay::PackedPair {
            pattern: &staging[pattern..text],
            pattern_len: plen,
            text: &staging[text..text + 4 * plan::packed_words(p.tlen)],
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
    };
    Decoded::Done(PairResult {
        outcome: Ok(AlignStatus::Successful),
        score: pen.classic_score(plen, tlen, score),
        operations,
    })
}

impl BatchRunner<WfaJob> for WfaRunner {
    fn label(&self) -> String {
        format!(
            "{} stream {}",
            crate::engine::family::gpu_label(&self.gpu),
            self.lane
        )
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

    /// A GPU with room for fewer arenas than runners gets as many as fit,
    /// one at least, with all of the budget.
    #[test]
    fn a_small_budget_gives_fewer_runners_with_all_of_it() {
        assert_eq!(lanes_for(LANE_SHARE * LANES), (LANES, LANE_SHARE));
        assert_eq!(
            lanes_for(LANE_SHARE * LANES - 1),
            (LANES - 1, (LANE_SHARE * LANES - 1) / (LANES - 1))
        );
        assert_eq!(lanes_for(LANE_SHARE * 2 - 1), (1, LANE_SHARE * 2 - 1));
        assert_eq!(lanes_for(LANE_SHARE - 1), (1, LANE_SHARE - 1));
        assert_eq!(lanes_for(usize::MAX / 2), (LANES, MAX_ARENA));
    }
}
