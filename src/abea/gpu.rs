//! ABEA on a GPU, in two kernels from `kernels/abea.cu`: the band fill (one
//! block per read, one thread per band offset) and the end-cell search,
//! backtrack and QC (one thread per read). Both follow `cpu.rs` operation for
//! operation, so the pairs are the CPU path's. Only the pairs come back to
//! the host; the bands' trace bytes stay on the device.
//!
//! Device memory is two lanes on two streams, sized like f5c's from
//! `mem_frac` and `avg_epk` ([`Sizing`]), of the process's device-memory
//! budget (`engine::device::budget`) rather than of all free memory. A lane
//! starts empty and grows to the largest launch it has run, then is reused
//! (f5c's lesson: per-batch allocation can cost more than the kernels). A
//! batch larger than one lane runs as several launches, and while the GPU
//! works on one lane the host packs the next launch into the other. A read
//! that alone does not fit goes back to the CPU, and so does a launch that
//! finds no device memory even when cut down (another process took it).

use std::collections::VecDeque;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, OnceLock};

use super::cpu::{self, Penalties, Shape};
use super::emission::KmerEmission;
use super::{ALN_BANDWIDTH, AlignJob, AlignedPair};
use crate::engine::device::{self, Arena, Arg, DeviceError, DeviceRepr, Gpu, Kernel};
use crate::engine::scheduler::BatchRunner;

/// The kernel file, `kernels/abea.cu` (compiled with `--fmad=false` and
/// IEEE division and square roots: see its `nvrtc-options` line).
const KERNEL: &str = <super::Abea as crate::engine::family::Family>::KERNEL;

device::device_struct! {
    /// One read's descriptor: host twin of `struct AbeaRead` in
    /// kernels/abea.cu, whose `static_assert`s pin the same offsets. The
    /// `u64`s are byte offsets into the launch image.
    struct AbeaRead (96 bytes) {
        /// `float[n_events]`.
        means: u64 = 0,
        /// `float[3 * n_kmers]`: gp_mean, gp_stdv, log_norm.
        kmers: u64 = 8,
        /// `u8[n_bands * ALN_BANDWIDTH]`.
        trace: u64 = 16,
        /// `int[n_bands]`.
        ll_event: u64 = 24,
        /// `float[n_events]`.
        last_col: u64 = 32,
        /// `int[2 * (n_events + n_kmers)]`, last pair first.
        pairs: u64 = 40,
        /// `int[2]`: pairs written, passed QC.
        status: u64 = 48,
        n_events: i32 = 56,
        n_kmers: i32 = 60,
        lp_step: f64 = 64,
        lp_stay: f64 = 72,
        lp_skip: f64 = 80,
        lp_trim: f64 = 88,
    }
}

/// Bytes of an `AbeaRead`.
const DESC_BYTES: usize = AbeaRead::SIZE;
/// Threads per block of the fill: the 100 band offsets in whole warps.
const FILL_BLOCK: u32 = 128;
/// Threads per block of the backtrack, one read each.
const BACKTRACK_BLOCK: u32 = 64;
/// Most read bases one lane holds: large enough to keep a GPU busy, small
/// enough that a big batch still spans several launches to overlap.
const LANE_BASES: f64 = 8.0e6;
/// Most pinned host memory per lane.
const MAX_LANE_HOST: usize = 512 << 20;
/// Smallest lane worth a runner: below this a GPU is not used for ABEA.
const MIN_LANE: usize = 32 << 20;
/// Room kept in each lane for the alignment padding of a launch image.
const LANE_SLACK: usize = 4096;

/// Largest `avg_epk` that means anything: reads with 15 or more events per
/// base are not aligned at all (f5c's skip rule); the batch API refuses more.
pub(crate) const MAX_AVG_EPK: f64 = 1000.0;

/// f5c's two knobs for its one-time device allocation.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct Sizing {
    /// Share of the process's device-memory budget the two lanes may grow
    /// to (f5c's `--cuda-mem-frac`, 0.9, is a share of free memory; the
    /// budget is itself a share of free memory, see `SEQSHIM_GPU_MEMORY`).
    pub mem_frac: f64,
    /// Expected events per base (f5c `--cuda-avg-epk`, 2.0): sets how much
    /// of a lane is inputs and results, mirrored in pinned host memory, and
    /// how much is device-only working space.
    pub avg_epk: f64,
}

impl Default for Sizing {
    fn default() -> Self {
        Sizing {
            mem_frac: 0.9,
            avg_epk: 2.0,
        }
    }
}

impl Sizing {
    /// Largest `(device, host)` bytes of one lane out of a budget of
    /// `budget` bytes.
    fn lane_bytes(&self, budget: usize) -> (usize, usize) {
        // Bytes per read base at `avg_epk` events per base (one k-mer per
        // base): the totals of `Placed`, scaled down from a 1 Mbase read.
        const BASES: usize = 1 << 20;
        let n_events = (self.avg_epk.clamp(0.0, MAX_AVG_EPK) * BASES as f64) as usize;
        let shape_bands = n_events + BASES + 2;
        let io = DESC_BYTES
            + Placed::input_bytes(n_events, BASES)
            + Placed::result_bytes(n_events, BASES);
        let total = io + Placed::work_bytes(n_events, shape_bands);
        let per_base = total as f64 / BASES as f64;
        let budget = budget as f64 * self.mem_frac / 2.0;
        let device = budget.min(LANE_BASES * per_base) as usize;
        // Reads above `avg_epk` carry more inputs per byte of lane: leave
        // the host side twice the expected share.
        let host = (device as f64 * (2.0 * io as f64 / total as f64).min(1.0)) as usize;
        (device, host.min(MAX_LANE_HOST))
    }
}

static SIZING: OnceLock<Sizing> = OnceLock::new();

/// Sets how the runners size device memory. Only the first call before the
/// runners start counts, as f5c sizes once per process; returns the sizing
/// in force.
pub fn set_sizing(sizing: Sizing) -> Sizing {
    let chosen = *SIZING.get_or_init(|| sizing);
    if chosen != sizing {
        crate::log_debug!(
            "ABEA device memory is sized once per process (mem_frac {}, avg_epk {}); \
             later values are not applied",
            chosen.mem_frac,
            chosen.avg_epk
        );
    }
    chosen
}

/// Half the smallest lane a runner may grow to, device and host side, so
/// that routing sends the devices only reads every one of them can hold next
/// to others (GPUs with smaller budgets get smaller lanes). Without runners
/// no read is routed to a device anyway.
static READ_LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);
static READ_IO_LIMIT: AtomicUsize = AtomicUsize::new(usize::MAX);

/// Whether a read is one the GPU path takes at all: inputs the CPU path
/// accepts, and small enough for the lanes the runners may grow to.
pub fn fits_a_device(job: &AlignJob) -> bool {
    // The runners are created with the scheduler; make sure they exist
    // before reading the limits they set.
    let _ = super::scheduler();
    let limit = READ_LIMIT.load(Ordering::Relaxed);
    let io_limit = READ_IO_LIMIT.load(Ordering::Relaxed);
    AbeaRunner::placement(job).is_some_and(|(shape, bytes)| {
        bytes <= limit && Placed::io_bytes(job.means.len(), &shape) <= io_limit
    })
}

fn align16(n: usize) -> usize {
    n.next_multiple_of(16)
}

/// Where one read's arrays sit in the arena.
struct Placed {
    job: usize,
    shape: Shape,
    n_events: usize,
    penalties: Penalties,
    kmer_emission: Vec<KmerEmission>,
    // Inputs (uploaded).
    means: usize,
    kmers: usize,
    // Results (downloaded).
    status: usize,
    pairs: usize,
    // Working arrays (device only).
    ll_event: usize,
    last_col: usize,
    trace: usize,
}

impl Placed {
    /// Most pairs a backtrack can emit: each step leaves an event or a k-mer.
    fn max_pairs(n_events: usize, n_kmers: usize) -> usize {
        n_events + n_kmers
    }

    fn input_bytes(n_events: usize, n_kmers: usize) -> usize {
        align16(4 * n_events) + align16(12 * n_kmers)
    }

    fn result_bytes(n_events: usize, n_kmers: usize) -> usize {
        16 + align16(8 * Self::max_pairs(n_events, n_kmers))
    }

    fn work_bytes(n_events: usize, n_bands: usize) -> usize {
        align16(4 * n_bands) + align16(4 * n_events) + align16(ALN_BANDWIDTH * n_bands)
    }

    /// Bytes that cross the bus: descriptor, inputs and results.
    fn io_bytes(n_events: usize, shape: &Shape) -> usize {
        DESC_BYTES
            + Self::input_bytes(n_events, shape.n_kmers)
            + Self::result_bytes(n_events, shape.n_kmers)
    }

    fn total_bytes(n_events: usize, shape: &Shape) -> usize {
        Self::io_bytes(n_events, shape) + Self::work_bytes(n_events, shape.n_bands)
    }
}

pub struct AbeaRunner {
    gpu: Arc<Gpu>,
    fill: Kernel,
    backtrack: Kernel,
    lanes: [Arena; 2],
    /// Largest device and host bytes of a lane (what [`Sizing`] gives).
    lane_device: usize,
    lane_host: usize,
    launches: u64,
}

impl AbeaRunner {
    /// Compiles (or loads from the cache) the kernels and sizes the two
    /// lanes from what the process's budget on the GPU has left; they
    /// allocate as launches need.
    pub fn new(gpu: Arc<Gpu>) -> Result<Self, DeviceError> {
        let source = device::kernel_source(KERNEL)?;
        let fill = gpu.kernel(source, "seqshim_abea_fill")?;
        let backtrack = gpu.kernel(source, "seqshim_abea_backtrack")?;
        let sizing = *SIZING.get_or_init(Sizing::default);
        let budget = gpu.ledger().available();
        let (lane_device, lane_host) = sizing.lane_bytes(budget);
        if lane_device < MIN_LANE {
            return Err(DeviceError(format!(
                "only {} MiB of this process's device-memory budget left for ABEA",
                budget >> 20
            )));
        }
        let mut lanes = [gpu.arena(0), gpu.arena(1)];
        for lane in &mut lanes {
            lane.set_limits(lane_device, lane_host);
        }
        READ_LIMIT.fetch_min(lane_device / 2, Ordering::Relaxed);
        READ_IO_LIMIT.fetch_min(lane_host / 2, Ordering::Relaxed);
        crate::log_info!(
            "ABEA: GPU {}: 2 lanes growing to at most {} MiB ({} MiB pinned) each, as launches need \
             (mem_frac {} of a {} MiB budget, avg_epk {})",
            gpu.info().ordinal,
            lane_device >> 20,
            lane_host >> 20,
            sizing.mem_frac,
            budget >> 20,
            sizing.avg_epk
        );
        Ok(AbeaRunner {
            gpu,
            fill,
            backtrack,
            lanes,
            lane_device,
            lane_host,
            launches: 0,
        })
    }

    /// Kernel launches so far (a batch larger than the arena takes several).
    pub fn launches(&self) -> u64 {
        self.launches
    }

    /// The read's band shape and arena bytes, computed once per read.
    fn placement(job: &AlignJob) -> Option<(Shape, usize)> {
        let shape = Shape::new(
            job.sequence.len(),
            job.means.len(),
            job.models.len(),
            job.kmer_size,
        )?;
        let bytes = Placed::total_bytes(job.means.len(), &shape);
        Some((shape, bytes))
    }

    /// Splits the batch into launches that fit a lane and runs them,
    /// alternating lanes so that packing one overlaps the GPU on the other.
    /// A launch that finds no device memory is cut in half and retried;
    /// when not even one read finds any, the rest of the batch is left to
    /// the CPU.
    fn run(&mut self, jobs: &[AlignJob]) -> Result<Vec<Option<Vec<AlignedPair>>>, DeviceError> {
        let device_room = self.lane_device.saturating_sub(LANE_SLACK);
        let host_room = self.lane_host.saturating_sub(LANE_SLACK);
        let mut results: Vec<Option<Vec<AlignedPair>>> = jobs.iter().map(|_| None).collect();
        let mut chunks: VecDeque<_> = plan_launches(jobs, device_room, host_room).into();
        let mut in_flight: [Option<Layout>; 2] = [None, None];
        let mut launched = 0;
        while let Some(mut chunk) = chunks.pop_front() {
            let lane = launched % 2;
            if let Some(layout) = in_flight[lane].take() {
                layout.unpack(self.lanes[lane].staging()?, &mut results);
            }
            // The host's share (emission tables) is computed while the
            // other lane's launch runs.
            let layout = Layout::new(jobs, &chunk);
            match self.launch(lane, jobs, &layout) {
                Ok(()) => {
                    in_flight[lane] = Some(layout);
                    launched += 1;
                }
                Err(e) if e.is_out_of_memory() => {
                    device::budget::note_out_of_memory(
                        "ABEA",
                        "a launch found no device memory",
                        &e,
                    );
                    if chunk.len() == 1 {
                        chunks.clear();
                    } else {
                        let second = chunk.split_off(chunk.len() / 2);
                        chunks.push_front(second);
                        chunks.push_front(chunk);
                    }
                }
                Err(e) => return Err(e),
            }
        }
        for lane in [launched % 2, (launched + 1) % 2] {
            if let Some(layout) = in_flight[lane].take() {
                layout.unpack(self.lanes[lane].staging()?, &mut results);
            }
        }
        Ok(results)
    }

    /// Grows `lane` to hold the launch if need be, packs the launch into it
    /// and queues its copies and kernels; returns without waiting for them.
    fn launch(
        &mut self,
        lane: usize,
        jobs: &[AlignJob],
        layout: &Layout,
    ) -> Result<(), DeviceError> {
        let arena = &mut self.lanes[lane];
        let before = arena.capacity();
        arena.reserve_split(layout.end, layout.results_end)?;
        if arena.capacity() != before {
            crate::log_debug!(
                "ABEA: GPU {} lane {lane} grown to {} MiB ({} MiB pinned)",
                self.gpu.info().ordinal,
                arena.capacity() >> 20,
                arena.host_capacity() >> 20
            );
        }
        if layout.end > arena.capacity() || layout.results_end > arena.host_capacity() {
            return Err(DeviceError(format!(
                "ABEA launch of {} bytes ({} mirrored) exceeds its lane",
                layout.end, layout.results_end
            )));
        }
        layout.pack(arena.staging()?, jobs);
        arena.upload(0..layout.inputs_end)?;
        let reads = u32::try_from(layout.placed.len())
            .map_err(|_| DeviceError("too many reads for one launch".into()))?;
        arena.launch(
            &self.fill,
            reads,
            FILL_BLOCK,
            0,
            &[Arg::Offset(0), Arg::U32(reads)],
        )?;
        arena.launch(
            &self.backtrack,
            reads.div_ceil(BACKTRACK_BLOCK),
            BACKTRACK_BLOCK,
            0,
            &[Arg::Offset(0), Arg::U32(reads)],
        )?;
        arena.download(layout.inputs_end..layout.results_end)?;
        self.launches += 1;
        Ok(())
    }
}

/// Groups the reads that fit a lane into launches, in input order, each
/// within `device_room` bytes of which at most `host_room` cross the bus.
/// Reads that do not fit alone are left out (they go back to the CPU).
fn plan_launches(
    jobs: &[AlignJob],
    device_room: usize,
    host_room: usize,
) -> Vec<Vec<(usize, Shape)>> {
    let mut chunks: Vec<Vec<(usize, Shape)>> = Vec::new();
    let mut chunk: Vec<(usize, Shape)> = Vec::new();
    let (mut chunk_bytes, mut chunk_io) = (0, 0);
    for (index, job) in jobs.iter().enumerate() {
        let Some((shape, bytes)) = AbeaRunner::placement(job) else {
            continue;
        };
        let io = Placed::io_bytes(job.means.len(), &shape);
        if bytes > device_room || io > host_room {
            continue;
        }
        if chunk_bytes + bytes > device_room || chunk_io + io > host_room {
            chunks.push(std::mem::take(&mut chunk));
            (chunk_bytes, chunk_io) = (0, 0);
        }
        chunk.push((index, shape));
        chunk_bytes += bytes;
        chunk_io += io;
    }
    if !chunk.is_empty() {
        chunks.push(chunk);
    }
    chunks
}

/// The arena image of one launch: descriptors, every read's inputs, every
/// read's results, then the device-only working arrays, so that one upload
/// and one download cover what crosses the bus.
struct Layout {
    placed: Vec<Placed>,
    inputs_end: usize,
    results_end: usize,
    end: usize,
}

impl Layout {
    fn new(jobs: &[AlignJob], chunk: &[(usize, Shape)]) -> Layout {
        // The emission parameters are the host's share of the packing; the
        // device host pool computes them for all reads at once, so reads on
        // the CPU pool do not hold them up.
        let emissions: Vec<Vec<KmerEmission>> = crate::engine::cpu::install_for_devices(|| {
            use rayon::prelude::*;
            chunk
                .par_iter()
                .map_init(Vec::new, |ranks, &(job, _)| {
                    let j = &jobs[job];
                    let mut out = Vec::new();
                    cpu::fill_kmer_emission(
                        &j.sequence,
                        &j.models,
                        j.kmer_size,
                        &j.scaling,
                        ranks,
                        &mut out,
                    );
                    out
                })
                .collect()
        });
        let mut placed = Vec::with_capacity(chunk.len());
        let mut at = align16(DESC_BYTES * chunk.len());
        for (&(job, shape), kmer_emission) in chunk.iter().zip(emissions) {
            let n_events = jobs[job].means.len();
            let means = at;
            let kmers = means + align16(4 * n_events);
            at = kmers + align16(12 * shape.n_kmers);
            placed.push(Placed {
                job,
                shape,
                n_events,
                penalties: Penalties::new(n_events, shape.n_kmers),
                kmer_emission,
                means,
                kmers,
                status: 0,
                pairs: 0,
                ll_event: 0,
                last_col: 0,
                trace: 0,
            });
        }
        let inputs_end = at;
        for p in &mut placed {
            p.status = at;
            p.pairs = p.status + 16;
            at = p.pairs + align16(8 * Placed::max_pairs(p.n_events, p.shape.n_kmers));
        }
        let results_end = at;
        for p in &mut placed {
            p.ll_event = at;
            p.last_col = p.ll_event + align16(4 * p.shape.n_bands);
            p.trace = p.last_col + align16(4 * p.n_events);
            at = p.trace + align16(ALN_BANDWIDTH * p.shape.n_bands);
        }
        Layout {
            placed,
            inputs_end,
            results_end,
            end: at,
        }
    }

    /// Writes descriptors and inputs (little-endian, as the GPU reads them).
    fn pack(&self, staging: &mut [u8], jobs: &[AlignJob]) {
        for (i, p) in self.placed.iter().enumerate() {
            let pen = &p.penalties;
            let desc = AbeaRead {
                means: p.means as u64,
                kmers: p.kmers as u64,
                trace: p.trace as u64,
                ll_event: p.ll_event as u64,
                last_col: p.last_col as u64,
                pairs: p.pairs as u64,
                status: p.status as u64,
                n_events: p.n_events as i32,
                n_kmers: p.shape.n_kmers as i32,
                lp_step: pen.lp_step,
                lp_stay: pen.lp_stay,
                lp_skip: pen.lp_skip,
                lp_trim: pen.lp_trim,
            };
            desc.write_to(&mut staging[i * DESC_BYTES..(i + 1) * DESC_BYTES]);
            let means = &mut staging[p.means..p.means + 4 * p.n_events];
            for (dst, mean) in means.chunks_exact_mut(4).zip(&jobs[p.job].means) {
                dst.copy_from_slice(&mean.to_le_bytes());
            }
            let kmers = &mut staging[p.kmers..p.kmers + 12 * p.shape.n_kmers];
            for (dst, k) in kmers.chunks_exact_mut(12).zip(&p.kmer_emission) {
                dst[0..4].copy_from_slice(&k.gp_mean.to_le_bytes());
                dst[4..8].copy_from_slice(&k.gp_stdv.to_le_bytes());
                dst[8..12].copy_from_slice(&k.log_norm.to_le_bytes());
            }
        }
    }

    /// Reads each read's count, QC verdict and pairs (written last-first).
    fn unpack(&self, staging: &[u8], results: &mut [Option<Vec<AlignedPair>>]) {
        let int_at = |at: usize| {
            i32::from_le_bytes([
                staging[at],
                staging[at + 1],
                staging[at + 2],
                staging[at + 3],
            ])
        };
        for p in &self.placed {
            let n = usize::try_from(int_at(p.status)).unwrap_or(0);
            let passed = int_at(p.status + 4) == 1;
            let n = n.min(Placed::max_pairs(p.n_events, p.shape.n_kmers));
            let pairs = if passed {
                (0..n)
                    .rev()
                    .map(|i| AlignedPair {
                        ref_pos: int_at(p.pairs + 8 * i),
                        read_pos: int_at(p.pairs + 8 * i + 4),
                    })
                    .collect()
            } else {
                Vec::new()
            };
            results[p.job] = Some(pairs);
        }
    }
}

impl BatchRunner<AlignJob> for AbeaRunner {
    fn label(&self) -> String {
        crate::engine::family::gpu_label(&self.gpu)
    }

    fn capacity(&self) -> usize {
        // f5c's default batch is 512 reads; more per launch keeps a large GPU
        // busy, and the arena limit splits launches anyway.
        4_096
    }

    fn run_batch(&mut self, jobs: &[AlignJob]) -> Result<Vec<Option<Vec<AlignedPair>>>, String> {
        self.run(jobs).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::abea::{Model, Scalings, kmer};

    #[test]
    fn lanes_follow_mem_frac_and_avg_epk() {
        let budget = 100usize << 30;
        let default = Sizing::default();
        let (device, host) = default.lane_bytes(budget);
        assert!(device <= (budget as f64 * 0.9 / 2.0) as usize);
        assert!(host < device / 2, "inputs and results are a small share");
        let small = Sizing {
            mem_frac: 0.001,
            ..default
        };
        assert!(small.lane_bytes(budget).0 <= (budget as f64 * 0.001 / 2.0) as usize + 1);
        let busy = Sizing {
            avg_epk: 6.0,
            ..default
        };
        // With room to spare a lane holds the same number of bases, so more
        // events per base make it larger.
        let (d6, h6) = busy.lane_bytes(budget);
        assert!(d6 > 2 * device && h6 >= host && h6 <= MAX_LANE_HOST);
    }

    #[test]
    fn launches_hold_every_read_that_fits_once_and_in_order() {
        let jobs = jobs();
        let sizes: Vec<Option<(usize, usize)>> = jobs
            .iter()
            .map(|j| {
                AbeaRunner::placement(j)
                    .map(|(shape, bytes)| (bytes, Placed::io_bytes(j.means.len(), &shape)))
            })
            .collect();
        let fit: Vec<usize> = (0..jobs.len()).filter(|&i| sizes[i].is_some()).collect();
        let size = |i: usize| sizes[i].unwrap();
        let largest = fit.iter().map(|&i| size(i).0).max().unwrap();
        let device_room = largest * 3;
        let host_room = fit.iter().map(|&i| size(i).1).max().unwrap() * 2;
        let chunks = plan_launches(&jobs, device_room, host_room);
        assert!(chunks.len() > 1);
        let order: Vec<usize> = chunks.iter().flatten().map(|c| c.0).collect();
        assert_eq!(order, fit);
        for chunk in &chunks {
            let bytes: usize = chunk.iter().map(|c| size(c.0).0).sum();
            let io: usize = chunk.iter().map(|c| size(c.0).1).sum();
            assert!(bytes <= device_room && io <= host_room);
        }
        // A lane too small for the largest read leaves it to the CPU.
        let chunks = plan_launches(&jobs, largest - 1, usize::MAX);
        let placed: usize = chunks.iter().map(Vec::len).sum();
        assert!(placed < fit.len());
        assert!(chunks.iter().flatten().all(|c| size(c.0).0 < largest));
    }

    #[test]
    fn descriptor_matches_the_kernel_struct() {
        // 7 offsets, 2 counts, 4 penalties: the CUDA struct has no padding
        // (its size and offsets are also asserted on both sides).
        assert_eq!(DESC_BYTES, 7 * 8 + 2 * 4 + 4 * 8);
        let source = device::kernel_source(KERNEL).expect("abea.cu is registered");
        assert!(source.code.contains("struct AbeaRead"));
        assert!(source.code.contains("static_assert(sizeof(AbeaRead) == 96"));
        for option in [
            "--fmad=false",
            "--ftz=false",
            "--prec-div=true",
            "--prec-sqrt=true",
        ] {
            assert!(source.options.contains(&option), "abea.cu lacks {option}");
        }
    }

    fn i32_at(buf: &[u8], at: usize) -> i32 {
        i32::from_le_bytes(buf[at..at + 4].try_into().unwrap())
    }
    fn f32_at(buf: &[u8], at: usize) -> f32 {
        f32::from_le_bytes(buf[at..at + 4].try_into().unwrap())
    }

    /// `seqshim_abea_fill` in kernels/abea.cu transcribed statement by
    /// statement, reading its
    /// descriptors and writing its outputs in the arena image, one "thread"
    /// after the other (equivalent: within a band no thread reads what
    /// another writes). Lets the packing, the kernel's logic and the
    /// unpacking be checked against the CPU path on a machine with no GPU.
    fn emulate_kernel(buf: &mut [u8], n_reads: usize) {
        const W: usize = ALN_BANDWIDTH;
        let neg_inf = f32::NEG_INFINITY;
        for r in 0..n_reads {
            let rd: AbeaRead = device::read_struct(&buf[r * DESC_BYTES..]);
            let means = rd.means as usize;
            let kmers = rd.kmers as usize;
            let trace = rd.trace as usize;
            let ll_event = rd.ll_event as usize;
            let last_col = rd.last_col as usize;
            let n_ev = rd.n_events;
            let n_km = rd.n_kmers;
            let lp_step = rd.lp_step;
            let lp_stay = rd.lp_stay;
            let lp_skip = rd.lp_skip;
            let lp_trim = rd.lp_trim;
            let n_bands = n_ev + 1 + n_km + 1;
            let mut band = [[neg_inf; W]; 3];
            for o in 0..W {
                band[0][o] = if o == 50 { 0.0 } else { neg_inf };
                band[1][o] = if o == 50 { lp_trim as f32 } else { neg_inf };
                buf[trace + o] = 0;
                buf[trace + W + o] = if o == 50 { 1 } else { 0 };
            }
            buf[ll_event..ll_event + 4].copy_from_slice(&49i32.to_le_bytes());
            buf[ll_event + 4..ll_event + 8].copy_from_slice(&50i32.to_le_bytes());
            let (mut ll_e1, mut ll_k1, mut ll_k2) = (50i32, -51i32, -51i32);
            let (mut slot2, mut slot1, mut slot) = (0usize, 1usize, 2usize);
            let at = |band: &[f32; W], o: i32| {
                if (0..W as i32).contains(&o) {
                    band[o as usize]
                } else {
                    neg_inf
                }
            };
            for b in 2..n_bands {
                let prev2 = band[slot2];
                let prev = band[slot1];
                let (lower_left, upper_right) = (prev[0], prev[W - 1]);
                let right = if lower_left == neg_inf && upper_right == neg_inf {
                    b % 2 == 1
                } else {
                    lower_left < upper_right
                };
                let ll_e = if right { ll_e1 } else { ll_e1 + 1 };
                let ll_k = if right { ll_k1 + 1 } else { ll_k1 };
                for o in 0..W as i32 {
                    let e = ll_e - o;
                    let k = ll_k + o;
                    let mut score = neg_inf;
                    let mut from = 0u8;
                    if k == -1 {
                        if e >= 0 && e < n_ev {
                            score = (lp_trim * f64::from(e + 1)) as f32;
                            from = 1;
                        }
                    } else if e >= 0 && e < n_ev && k >= 0 && k < n_km {
                        let km = kmers + 12 * k as usize;
                        let (gp_mean, gp_stdv, log_norm) =
                            (f32_at(buf, km), f32_at(buf, km + 4), f32_at(buf, km + 8));
                        let a = (f32_at(buf, means + 4 * e as usize) - gp_mean) / gp_stdv;
                        let lp_emission = log_norm + (-0.5f32 * a) * a;
                        let up = at(&prev, ll_e1 - (e - 1));
                        let left = at(&prev, (k - 1) - ll_k1);
                        let diag = at(&prev2, (k - 1) - ll_k2);
                        let em = f64::from(lp_emission);
                        let score_d = ((f64::from(diag) + lp_step) + em) as f32;
                        let score_u = ((f64::from(up) + lp_stay) + em) as f32;
                        let score_l = (f64::from(left) + lp_skip) as f32;
                        score = score_d;
                        from = 0;
                        if score_u > score {
                            score = score_u;
                        }
                        if score == score_u {
                            from = 1;
                        }
                        if score_l > score {
                            score = score_l;
                        }
                        if score == score_l {
                            from = 2;
                        }
                        if k == n_km - 1 {
                            let lc = last_col + 4 * e as usize;
                            buf[lc..lc + 4].copy_from_slice(&score.to_le_bytes());
                        }
                    }
                    band[slot][o as usize] = score;
                    buf[trace + b as usize * W + o as usize] = from;
                }
                let lle = ll_event + 4 * b as usize;
                buf[lle..lle + 4].copy_from_slice(&ll_e.to_le_bytes());
                ll_k2 = ll_k1;
                ll_e1 = ll_e;
                ll_k1 = ll_k;
                let freed = slot2;
                slot2 = slot1;
                slot1 = slot;
                slot = freed;
            }
        }
    }

    /// `seqshim_abea_backtrack` transcribed the same way, one read at a time.
    fn emulate_backtrack(buf: &mut [u8], n_reads: usize) {
        for r in 0..n_reads {
            let rd: AbeaRead = device::read_struct(&buf[r * DESC_BYTES..]);
            let means = rd.means as usize;
            let kmers = rd.kmers as usize;
            let trace = rd.trace as usize;
            let ll_event = rd.ll_event as usize;
            let last_col = rd.last_col as usize;
            let pairs = rd.pairs as usize;
            let status = rd.status as usize;
            let n_ev = i64::from(rd.n_events);
            let n_km = i64::from(rd.n_kmers);
            let lp_trim = rd.lp_trim;
            let trace_len = (n_ev + 1 + n_km + 1) * ALN_BANDWIDTH as i64;
            let ll = |buf: &[u8], b: i64| i64::from(i32_at(buf, ll_event + 4 * b as usize));

            let mut max_score = f32::NEG_INFINITY;
            let (mut e_cur, mut k_cur) = (0i64, n_km - 1);
            for e in 0..n_ev {
                let b = e + n_km + 1;
                let o = ll(buf, b) - e;
                if (0..ALN_BANDWIDTH as i64).contains(&o) {
                    let trim = (n_ev - e) as f64 * lp_trim;
                    let s = (f64::from(f32_at(buf, last_col + 4 * e as usize)) + trim) as f32;
                    if s > max_score {
                        max_score = s;
                        e_cur = e;
                    }
                }
            }
            let (mut sum, mut count) = (0.0f64, 0.0f64);
            let (mut gap, mut max_gap) = (0i32, 0i32);
            let mut n = 0usize;
            let mut defined = true;
            while k_cur >= 0 && e_cur >= 0 {
                let at = pairs + 8 * n;
                buf[at..at + 4].copy_from_slice(&(k_cur as i32).to_le_bytes());
                buf[at + 4..at + 8].copy_from_slice(&(e_cur as i32).to_le_bytes());
                n += 1;
                let km = kmers + 12 * k_cur as usize;
                let (gp_mean, gp_stdv, log_norm) =
                    (f32_at(buf, km), f32_at(buf, km + 4), f32_at(buf, km + 8));
                let a = (f32_at(buf, means + 4 * e_cur as usize) - gp_mean) / gp_stdv;
                let lp_emission = log_norm + (-0.5f32 * a) * a;
                sum += f64::from(lp_emission);
                count += 1.0;
                let b = e_cur + k_cur + 2;
                let o = ll(buf, b) - e_cur;
                let flat = b * ALN_BANDWIDTH as i64 + o;
                if flat < 0 || flat >= trace_len {
                    defined = false;
                    break;
                }
                match buf[trace + flat as usize] {
                    0 => {
                        k_cur -= 1;
                        e_cur -= 1;
                        gap = 0;
                    }
                    1 => {
                        e_cur -= 1;
                        gap = 0;
                    }
                    _ => {
                        k_cur -= 1;
                        gap += 1;
                        max_gap = max_gap.max(gap);
                    }
                }
            }
            let mut passed = false;
            if defined && n > 0 {
                let spanned = i32_at(buf, pairs + 8 * (n - 1)) == 0
                    && i64::from(i32_at(buf, pairs)) == n_km - 1;
                let avg = sum / count;
                passed = !(avg < -5.0 || !spanned || max_gap > 50);
            }
            buf[status..status + 4].copy_from_slice(&(n as i32).to_le_bytes());
            buf[status + 4..status + 8].copy_from_slice(&i32::from(passed).to_le_bytes());
        }
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn unit(&mut self) -> f32 {
            (self.next() >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    /// Reads of every shape the kernel meets: model-drawn events with stays
    /// and skips, unrelated events, extreme event/k-mer ratios (all −∞
    /// bands, alternating walks), non-finite values, k = 5, 6, 9.
    fn jobs() -> Vec<AlignJob> {
        let mut rng = Rng(0xabea_0901);
        let mut jobs = Vec::new();
        for k in [5u32, 6, 9] {
            let models: Arc<[Model]> = (0..1usize << (2 * k))
                .map(|_| {
                    let sd = 0.8 + 2.5 * rng.unit();
                    Model {
                        level_mean: 60.0 + 70.0 * rng.unit(),
                        level_stdv: sd,
                        level_log_stdv: f64::from(sd).ln() as f32,
                    }
                })
                .collect();
            for case in 0..24 {
                let len = k as usize
                    + match case % 4 {
                        0 => (rng.next() % 8) as usize,
                        1 => 300 + (rng.next() % 900) as usize,
                        _ => (rng.next() % 400) as usize,
                    };
                let sequence: Vec<u8> = (0..len)
                    .map(|_| b"ACGT"[(rng.next() % 4) as usize])
                    .collect();
                let scaling = Scalings {
                    scale: 1.02,
                    shift: -1.5,
                    var: 1.0,
                    log_var: 0.0,
                };
                let mut means = Vec::new();
                match case % 6 {
                    0 => means.extend((0..1 + rng.next() % 700).map(|_| 50.0 + 90.0 * rng.unit())),
                    1 => means.extend((0..1 + rng.next() % 5).map(|_| 50.0 + 90.0 * rng.unit())),
                    _ => {
                        for i in 0..=len - k as usize {
                            let r = kmer::kmer_rank(&sequence[i..], k).unwrap() as usize;
                            let m = models[r];
                            // Case 9 skips 12 k-mers in a row (a gap QC
                            // accepts); cases 2 and 8 skip k-mers often.
                            let reps = if case % 12 == 9 && (len / 3..len / 3 + 12).contains(&i) {
                                0
                            } else if case % 12 == 2 || case % 12 == 8 {
                                [0, 0, 1, 1, 2, 3][(rng.next() % 6) as usize]
                            } else {
                                [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3][(rng.next() % 12) as usize]
                            };
                            for _ in 0..reps {
                                let noise = (rng.unit() - 0.5) * 3.0 * m.level_stdv;
                                means.push(scaling.scale * m.level_mean + scaling.shift + noise);
                            }
                        }
                    }
                }
                if case == 5 {
                    means.iter_mut().step_by(7).for_each(|m| *m = f32::NAN);
                }
                if case == 11 && !means.is_empty() {
                    means[0] = f32::INFINITY;
                }
                if means.is_empty() {
                    means.push(80.0);
                }
                jobs.push(AlignJob {
                    sequence,
                    means,
                    models: models.clone(),
                    kmer_size: k,
                    scaling,
                    gpu: true,
                });
            }
        }
        jobs
    }

    #[test]
    fn emulated_kernel_equals_the_cpu_path() {
        use crate::engine::scheduler::Job;
        let jobs = jobs();
        let results = emulate(&jobs);
        let (mut compared, mut aligned) = (0, 0);
        for (i, job) in jobs.iter().enumerate() {
            let Some(got) = &results[i] else { continue };
            assert_eq!(got, &job.run_cpu(), "job {i}");
            compared += 1;
            aligned += usize::from(!got.is_empty());
        }
        assert!(compared > 60, "{compared}");
        assert!(aligned >= 8, "only {aligned} of {compared} reads passed QC");
    }

    /// Runs `jobs` through the emulated kernels, as `run_chunk` would.
    fn emulate(jobs: &[AlignJob]) -> Vec<Option<Vec<AlignedPair>>> {
        let chunk: Vec<(usize, Shape)> = jobs
            .iter()
            .enumerate()
            .filter_map(|(i, j)| {
                Shape::new(j.sequence.len(), j.means.len(), j.models.len(), j.kmer_size)
                    .map(|s| (i, s))
            })
            .collect();
        let layout = Layout::new(jobs, &chunk);
        let mut buf = vec![0xa5u8; layout.end];
        layout.pack(&mut buf, jobs);
        emulate_kernel(&mut buf, layout.placed.len());
        emulate_backtrack(&mut buf, layout.placed.len());
        compare_fill_with_cpu(&buf, &layout, jobs);
        let mut results: Vec<Option<Vec<AlignedPair>>> = jobs.iter().map(|_| None).collect();
        layout.unpack(&buf, &mut results);
        results
    }

    /// Pairs rarely reveal a one-ulp difference, so the fill's outputs are
    /// compared directly: every trace byte, every band placement and the bits
    /// of every last-column score must equal the CPU fill's.
    fn compare_fill_with_cpu(buf: &[u8], layout: &Layout, jobs: &[AlignJob]) {
        let mut aligner = crate::abea::Aligner::new();
        for p in &layout.placed {
            let job = &jobs[p.job];
            aligner.align_means(
                &job.sequence,
                &job.means,
                &job.models,
                job.kmer_size,
                job.scaling,
            );
            let (trace, ll_event, last) = aligner.fill_outputs(p.n_events, p.shape.n_kmers);
            let n_bands = p.shape.n_bands;
            assert_eq!(
                &buf[p.trace..p.trace + ALN_BANDWIDTH * n_bands],
                &trace[..],
                "trace, job {}",
                p.job
            );
            let ll: Vec<i32> = (0..n_bands)
                .map(|b| i32_at(buf, p.ll_event + 4 * b))
                .collect();
            assert_eq!(ll, ll_event, "band placement, job {}", p.job);
            for (e, cpu) in last.iter().enumerate() {
                if let Some(cpu) = cpu {
                    let gpu = f32_at(buf, p.last_col + 4 * e);
                    let same = gpu.to_bits() == cpu.to_bits() || (gpu.is_nan() && cpu.is_nan());
                    assert!(
                        same,
                        "last column score, job {} event {e}: {gpu:e} vs {cpu:e}",
                        p.job
                    );
                }
            }
        }
    }

    /// The emulated kernels on real reads: f5c's expected pairs for the
    /// first records of the fixture (skips, saying so, when it is absent).
    #[test]
    fn emulated_kernels_reproduce_f5c_on_fixture_reads() {
        use std::io::{BufRead, BufReader};
        let base = std::env::var_os("SEQSHIM_DATA_DIR")
            .map(std::path::PathBuf::from)
            .unwrap_or_else(|| {
                std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/data")
            });
        let dir = base.join("abea/ecoli_2kb_r94");
        if !dir.join("expected.tsv.gz").is_file() {
            eprintln!("SKIP: ABEA fixture not found at {}", dir.display());
            return;
        }
        let lines = |name: &str| {
            let file = std::fs::File::open(dir.join(name)).expect("fixture file");
            let reader: Box<dyn std::io::Read> = if name.ends_with(".gz") {
                Box::new(flate2::read::MultiGzDecoder::new(file))
            } else {
                Box::new(file)
            };
            BufReader::new(reader)
                .lines()
                .skip(1)
                .map(|l| l.expect("line"))
        };
        let f = |s: &str| s.parse::<f32>().expect("float");
        let models: Arc<[Model]> = lines("model_r94_dna_6mer.tsv")
            .map(|l| {
                let c: Vec<&str> = l.split('\t').collect();
                Model {
                    level_mean: f(c[1]),
                    level_stdv: f(c[2]),
                    level_log_stdv: f(c[3]),
                }
            })
            .collect();
        const RECORDS: usize = 12;
        let mut jobs: Vec<AlignJob> = lines("reads.tsv.gz")
            .take(RECORDS)
            .map(|l| {
                let c: Vec<&str> = l.split('\t').collect();
                AlignJob {
                    sequence: c[5].as_bytes().to_vec(),
                    means: Vec::new(),
                    models: models.clone(),
                    kmer_size: 6,
                    scaling: Scalings {
                        scale: f(c[2]),
                        shift: f(c[3]),
                        var: 1.0,
                        log_var: 0.0,
                    },
                    gpu: true,
                }
            })
            .collect();
        let mut record = 0;
        let mut last_index = String::new();
        for l in lines("events.tsv.gz") {
            let c: Vec<&str> = l.split('\t').collect();
            if c[0] != last_index {
                if !last_index.is_empty() {
                    record += 1;
                }
                last_index = c[0].to_string();
            }
            if record == RECORDS {
                break;
            }
            jobs[record].means.push(f(c[3]));
        }
        let expected: Vec<Vec<AlignedPair>> = lines("expected.tsv.gz")
            .take(RECORDS)
            .map(|l| {
                let c: Vec<&str> = l.split('\t').collect();
                c[2].split(';')
                    .map(|p| {
                        let (a, b) = p.split_once(',').expect("pair");
                        AlignedPair {
                            ref_pos: a.parse().expect("int"),
                            read_pos: b.parse().expect("int"),
                        }
                    })
                    .collect()
            })
            .collect();
        let results = emulate(&jobs);
        for (i, (got, want)) in results.iter().zip(&expected).enumerate() {
            assert_eq!(got.as_ref(), Some(want), "record {i}");
        }
    }
}
