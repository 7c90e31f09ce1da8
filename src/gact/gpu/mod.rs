//! GACT tiles on a GPU, in kernels from `kernels/gact.cu`: the fill (one
//! warp per tile, two cells per operation in 16-bit halves where the tile's
//! values provably fit, direction codes at 4 bits a cell in device memory)
//! and the traceback (one thread per tile). Both follow the CPU path
//! operation for operation, so every tile's score, maximum cell and states
//! are the CPU's. Only base codes go up and only states come back.
//!
//! Device memory is reserved once when the runner starts, sized from what
//! the process's device-memory budget has left (a fifth of it per lane, at
//! most [`MAX_LANE`]) and reused by every batch. It is split into two lanes on two streams: a batch larger
//! than one lane runs as several launches, and while the GPU works on one
//! lane the host packs the next launch into the other. Tiles the kernel does
//! not take (`TileJob::gpu_eligible`) never reach the runner; a tile the
//! kernel did not finish goes back to the CPU.

mod layout;
mod timing;

use std::sync::Arc;
use std::time::Instant;

use super::{GactError, TileJob, TileResult};
use crate::engine::device::{self, Arena, Arg, DeviceError, Gpu, Kernel};
use crate::engine::scheduler::{BatchRunner, InjectedFailures};
use layout::{Layout, tile_bytes};
pub use timing::BatchTiming;
use timing::{LaunchMarks, Timeline};

/// The kernel file, `kernels/gact.cu`.
const KERNEL: &str = <super::GactTiles as crate::engine::family::Family>::KERNEL;
/// Warps (tiles) per block of the fill: `GACT_WARPS_PER_BLOCK`.
const FILL_WARPS: u32 = 4;
/// Threads per block of the traceback, one tile each: one warp, so that a
/// launch's walks (latency-bound, a dependent load per state) spread over
/// every multiprocessor.
const TRACE_BLOCK: u32 = 32;
/// Largest lane: large enough to keep a GPU busy for milliseconds (about
/// 20,000 tiles of 320 x 320), small enough that a big batch spans several
/// launches to overlap packing with the kernels.
const MAX_LANE: usize = 2 << 30;
/// Most tiles of one launch: about four waves of a large GPU, so that the
/// host packs and unpacks launches while the GPU runs others instead of
/// waiting for one large launch at the start and the end of a batch.
const MAX_LAUNCH_TILES: usize = 8192;
/// Smallest lane worth a runner.
const MIN_LANE: usize = 64 << 20;
/// Share of a lane mirrored in pinned host memory: inputs and results are
/// about 1.5% of a 320 x 320 tile's bytes, up to half for one-row tiles.
const HOST_SHARE: usize = 8;

type TileOutput = Result<TileResult, GactError>;

pub struct TileRunner {
    gpu: Arc<Gpu>,
    fill: Kernel,
    fill16: Kernel,
    trace: Kernel,
    lanes: [Arena; 2],
    launches: u64,
    failures: InjectedFailures,
    /// Collected while `run_timed` runs.
    timeline: Option<Timeline>,
}

/// A launch queued on a lane, and its events when timed.
struct InFlight {
    layout: Layout,
    marks: Option<LaunchMarks>,
}

impl TileRunner {
    /// Loads (compiling or reading from the cache) both kernels and
    /// reserves the two lanes.
    pub fn new(gpu: Arc<Gpu>) -> Result<Self, DeviceError> {
        let source = device::kernel_source(KERNEL)?;
        let fill = gpu.kernel(source, "seqshim_gact_fill")?;
        let fill16 = gpu.kernel(source, "seqshim_gact_fill16")?;
        let trace = gpu.kernel(source, "seqshim_gact_trace")?;
        let lanes = device::lanes::reserve_two(
            &gpu,
            "GACT",
            device::lanes::LaneSizes {
                most: MAX_LANE,
                least: MIN_LANE,
                host_share: HOST_SHARE,
            },
        )?;
        Ok(TileRunner {
            gpu,
            fill,
            fill16,
            trace,
            lanes,
            launches: 0,
            failures: InjectedFailures::default(),
            timeline: None,
        })
    }

    /// Kernel launches so far (a batch larger than a lane takes several).
    pub fn launches(&self) -> u64 {
        self.launches
    }

    /// Makes the next `batches` batches fail as a failing device would, so
    /// that tests can watch their tiles rerun on the CPU.
    pub fn inject_failures(&mut self, batches: u32) {
        self.failures.set(batches);
    }

    fn rooms(&self) -> (usize, usize) {
        // Room for the 128-byte alignment of the image's parts.
        device::lanes::rooms(&self.lanes, 1024)
    }

    /// `run`, also saying where the time went: host packing, waiting and
    /// decoding, and the GPU's copies and kernels (events around each: for
    /// benchmarks, not for production batches).
    pub fn run_timed(
        &mut self,
        jobs: &[TileJob],
    ) -> Result<(Vec<Option<TileOutput>>, BatchTiming), DeviceError> {
        self.timeline = Some(Timeline::default());
        let started = Instant::now();
        let outcome = self.run(jobs);
        let wall = started.elapsed();
        let timeline = self.timeline.take().unwrap_or_default();
        let results = outcome?;
        let cells = jobs
            .iter()
            .zip(&results)
            .filter(|(_, r)| r.is_some())
            .map(|(j, _)| (j.ref_.len() * j.query.len()) as u64)
            .sum();
        Ok((results, timeline.summary(wall, cells)))
    }

    /// Splits the batch into launches that fit a lane and runs them,
    /// alternating lanes so that packing one overlaps the GPU on the other.
    /// The next launch is planned and laid out on a thread of its own while
    /// this one's lane is drained and packed: done in line, that sequential
    /// work (tens of nanoseconds a tile) was the largest part of the host's
    /// time once the kernels got faster than the host.
    pub fn run(&mut self, jobs: &[TileJob]) -> Result<Vec<Option<TileOutput>>, DeviceError> {
        let (device_room, host_room) = self.rooms();
        let mut results: Vec<Option<TileOutput>> = jobs.iter().map(|_| None).collect();
        let mut plan = LaunchPlan::new(jobs, device_room, host_room);
        let mut next = plan.next().map(|chunk| Layout::new(jobs, &chunk));
        let mut in_flight: [Option<InFlight>; 2] = [None, None];
        let mut launches = 0;
        while let Some(layout) = next.take() {
            let lane = launches % 2;
            let (marks, planned) = std::thread::scope(|scope| {
                let planner = std::thread::Builder::new()
                    .name("seqshim-gact-plan".into())
                    .spawn_scoped(scope, || plan.next().map(|chunk| Layout::new(jobs, &chunk)))
                    .ok();
                let previous = in_flight[lane].take();
                let marks = self.turn(lane, previous, &layout, jobs, &mut results);
                // Time spent waiting for the planner counts as packing.
                let joining = Instant::now();
                let planned = planner.map(|planner| planner.join());
                if let Some(timeline) = &mut self.timeline {
                    timeline.pack += joining.elapsed();
                }
                (marks, planned)
            });
            next = match planned {
                Some(Ok(next)) => next,
                Some(Err(panic)) => std::panic::resume_unwind(panic),
                // No thread to spare: planned here, after the turn.
                None => plan.next().map(|chunk| Layout::new(jobs, &chunk)),
            };
            in_flight[lane] = Some(InFlight {
                layout,
                marks: marks?,
            });
            launches += 1;
        }
        for lane in [launches % 2, (launches + 1) % 2] {
            if let Some(launch) = in_flight[lane].take() {
                self.finish(lane, launch, &mut results)?;
            }
        }
        Ok(results)
    }

    /// Waits for a lane's launch and decodes its results.
    fn finish(
        &mut self,
        lane: usize,
        launch: InFlight,
        results: &mut [Option<TileOutput>],
    ) -> Result<(), DeviceError> {
        let waiting = Instant::now();
        let staging = self.lanes[lane].staging()?;
        let waited = waiting.elapsed();
        let decoding = Instant::now();
        let l = &launch.layout;
        let decoded = l.decode(&staging[l.outs_at..l.results_end]);
        l.place(decoded, results);
        if let Some(timeline) = &mut self.timeline {
            timeline.wait += waited;
            timeline.unpack += decoding.elapsed();
            if let Some(marks) = &launch.marks {
                timeline.add_launch(&self.lanes[lane], marks);
            }
        }
        Ok(())
    }

    /// One turn of a lane: waits for its previous launch, decodes that
    /// launch's results and packs `layout` into the lane, then queues the
    /// new launch's copies and kernels without waiting for them; returns
    /// the launch's events when `run_timed` asked for them. Decoding and
    /// packing run at once when their bytes are apart (the next launch's
    /// inputs end before the previous one's results start: launches of one
    /// shape), so the timeline's packing and decoding may overlap.
    fn turn(
        &mut self,
        lane: usize,
        previous: Option<InFlight>,
        layout: &Layout,
        jobs: &[TileJob],
        results: &mut [Option<TileOutput>],
    ) -> Result<Option<LaunchMarks>, DeviceError> {
        let arena = &self.lanes[lane];
        if layout.end > arena.capacity() || layout.results_end > arena.host_capacity() {
            return Err(DeviceError(format!(
                "GACT launch of {} bytes ({} mirrored) exceeds its lane",
                layout.end, layout.results_end
            )));
        }
        let Some(previous) = previous else {
            let packing = Instant::now();
            layout.pack(self.lanes[lane].staging()?, jobs);
            let packed = packing.elapsed();
            return self.enqueue(lane, jobs, layout, packed);
        };
        let waiting = Instant::now();
        let staging = self.lanes[lane].staging()?;
        let waited = waiting.elapsed();
        let old = &previous.layout;
        let timed = |f: &mut dyn FnMut()| {
            let t = Instant::now();
            f();
            t.elapsed()
        };
        let mut decoded = Vec::new();
        let (decode_time, pack_time) = if layout.inputs_end <= old.outs_at {
            let (head, tail) = staging.split_at_mut(old.outs_at);
            let tail = &tail[..old.results_end - old.outs_at];
            crate::engine::cpu::install_for_devices(|| {
                rayon::join(
                    || timed(&mut || decoded = old.decode(tail)),
                    || timed(&mut || layout.pack(head, jobs)),
                )
            })
        } else {
            let decode_time = timed(&mut || {
                decoded = old.decode(&staging[old.outs_at..old.results_end]);
            });
            (decode_time, timed(&mut || layout.pack(staging, jobs)))
        };
        let placing = Instant::now();
        old.place(decoded, results);
        if let Some(timeline) = &mut self.timeline {
            timeline.wait += waited;
            timeline.unpack += decode_time + placing.elapsed();
            if let Some(marks) = &previous.marks {
                timeline.add_launch(&self.lanes[lane], marks);
            }
        }
        self.enqueue(lane, jobs, layout, pack_time)
    }

    /// Queues the copies and kernels of `layout`, already packed into
    /// `lane` (in `packed`); counts that and the queueing as packing.
    fn enqueue(
        &mut self,
        lane: usize,
        jobs: &[TileJob],
        layout: &Layout,
        packed: std::time::Duration,
    ) -> Result<Option<LaunchMarks>, DeviceError> {
        let queueing = Instant::now();
        let mut marks = self.timeline.as_ref().map(|_| LaunchMarks::new());
        let arena = &mut self.lanes[lane];
        let offset = |at: usize| {
            u32::try_from(at).map_err(|_| DeviceError("GACT image beyond 4 GiB".into()))
        };
        let tiles = u32::try_from(layout.tiles())
            .map_err(|_| DeviceError("too many tiles for one launch".into()))?;
        let mut mark = |arena: &mut Arena| match &mut marks {
            Some(marks) => marks.mark(arena),
            None => Ok(()),
        };
        mark(arena)?;
        arena.upload(0..layout.inputs_end)?;
        mark(arena)?;
        // Each fill skips the other's tiles; one with none is not launched.
        let fills = [
            (&self.fill16, layout.narrow_tiles > 0),
            (&self.fill, layout.narrow_tiles < layout.tiles()),
        ];
        for (fill, any) in fills {
            if any {
                arena.launch(
                    fill,
                    tiles.div_ceil(FILL_WARPS),
                    32 * FILL_WARPS,
                    0,
                    &[
                        Arg::Offset(0),
                        Arg::U32(offset(layout.params_at)?),
                        Arg::U32(offset(layout.descs_at)?),
                        Arg::U32(offset(layout.outs_at)?),
                        Arg::U32(tiles),
                    ],
                )?;
            }
        }
        mark(arena)?;
        arena.launch(
            &self.trace,
            tiles.div_ceil(TRACE_BLOCK),
            TRACE_BLOCK,
            0,
            &[
                Arg::Offset(0),
                Arg::U32(offset(layout.descs_at)?),
                Arg::U32(offset(layout.outs_at)?),
                Arg::U32(tiles),
            ],
        )?;
        mark(arena)?;
        arena.download(layout.inputs_end..layout.results_end)?;
        mark(arena)?;
        self.launches += 1;
        if let Some(timeline) = &mut self.timeline {
            timeline.pack += packed + queueing.elapsed();
        }
        crate::log_debug!(
            "GACT: {}: launch of {} tiles, {} cells",
            crate::engine::family::gpu_label(&self.gpu),
            tiles,
            layout.cells(jobs)
        );
        Ok(marks)
    }
}

/// Groups the tiles into launches, in input order, each within
/// `device_room` bytes of which at most `host_room` cross the bus. A tile
/// that does not fit alone is left out (it goes back to the CPU). One
/// launch at a time: planning a large batch whole before its first launch
/// left the GPU idle for as long (tens of nanoseconds a tile).
struct LaunchPlan<'a> {
    jobs: &'a [TileJob],
    next: usize,
    device_room: usize,
    host_room: usize,
}

impl<'a> LaunchPlan<'a> {
    fn new(jobs: &'a [TileJob], device_room: usize, host_room: usize) -> Self {
        LaunchPlan {
            jobs,
            next: 0,
            device_room,
            host_room,
        }
    }
}

impl Iterator for LaunchPlan<'_> {
    /// Indices into the jobs.
    type Item = Vec<usize>;

    fn next(&mut self) -> Option<Vec<usize>> {
        let mut chunk = Vec::new();
        let (mut bytes, mut io) = (0usize, 0usize);
        while let Some(job) = self.jobs.get(self.next) {
            if job.kernel_takes() {
                let (job_io, job_bytes) = tile_bytes(job);
                if job_bytes <= self.device_room && job_io <= self.host_room {
                    if bytes + job_bytes > self.device_room
                        || io + job_io > self.host_room
                        || chunk.len() == MAX_LAUNCH_TILES
                    {
                        // Full: this tile opens the next launch.
                        break;
                    }
                    chunk.push(self.next);
                    bytes += job_bytes;
                    io += job_io;
                }
            }
            self.next += 1;
        }
        (!chunk.is_empty()).then_some(chunk)
    }
}

impl BatchRunner<TileJob> for TileRunner {
    fn label(&self) -> String {
        crate::engine::family::gpu_label(&self.gpu)
    }

    fn capacity(&self) -> usize {
        1 << 20
    }

    /// About two launches' worth of cells (a 320 x 320 tile takes 0.9 bytes
    /// a cell), so that a large submission is spread over every GPU.
    fn max_batch_cost(&self) -> u64 {
        2 * self.rooms().0 as u64
    }

    fn min_batch_cost(&self) -> u64 {
        self.rooms().0 as u64 / 4
    }

    fn run_batch(&mut self, jobs: &[TileJob]) -> Result<Vec<Option<TileOutput>>, String> {
        self.failures.take("GACT")?;
        self.run(jobs).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::gact::{Params, TileOptions};

    fn job(m: usize, n: usize) -> TileJob {
        TileJob {
            ref_: vec![b'A'; m],
            query: vec![b'C'; n],
            params: Params::darwin_default(),
            opts: TileOptions {
                ref_pos: m as i32,
                query_pos: n as i32,
                reverse: false,
                first: true,
                early_terminate: 200,
            },
        }
    }

    #[test]
    fn launches_hold_every_tile_that_fits_once_and_in_order() {
        let jobs: Vec<TileJob> = (0..50)
            .map(|k| job(1 + 10 * k, 511 - 10 * k))
            .chain([job(0, 5), job(600, 5)])
            .collect();
        let largest = jobs
            .iter()
            .filter(|j| j.kernel_takes())
            .map(|j| tile_bytes(j).1)
            .max()
            .unwrap();
        let chunks: Vec<Vec<usize>> = LaunchPlan::new(&jobs, 3 * largest, usize::MAX).collect();
        assert!(chunks.len() > 1);
        let order: Vec<usize> = chunks.iter().flatten().copied().collect();
        assert_eq!(order, (0..50).collect::<Vec<_>>());
    }
}
