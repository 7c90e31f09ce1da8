//! POA windows on a GPU (`kernels/poa.cu`): one block per window builds
//! the window's graph read by read (DP, traceback, fusion, all on the
//! device, following the CPU path operation for operation) and returns the
//! final graph, which the host turns into MSA rows and a consensus with the
//! CPU path's own code. So a window's result is the CPU path's, bit for bit.
//!
//! Device memory is reserved once when the runner starts, sized from what
//! the process's device-memory budget has left (a fifth of it per lane, at
//! most [`MAX_LANE`]) and reused by every batch, in two lanes on two
//! streams: while the GPU works on one launch the host packs the next into
//! the other lane. Windows the kernel does not take
//! ([`kernel_takes`]) never reach the runner; a window whose graph outgrows
//! its node budget on the device comes back as `None` and the CPU reruns it.

mod layout;

use std::sync::Arc;

use super::{ConsensusRule, WindowJob, WindowResult};
use crate::engine::device::{self, Arena, Arg, DeviceError, Gpu, Kernel};
use crate::engine::scheduler::{BatchRunner, InjectedFailures};
use layout::{Layout, Prepared};
pub(crate) use layout::{MAX_LEN, MAX_READS};

/// The kernel file, `kernels/poa.cu`.
const KERNEL: &str = <super::Poa as crate::engine::family::Family>::KERNEL;
/// Largest lane. A 32-read window of 255 bases takes about 2 MiB on the
/// device, a CONSENT 500-base window about 10 MiB: a 4 GiB lane holds a
/// launch of about 400 of those, and the lanes take what an 80 GB GPU's
/// default share gives them anyway (a fifth each of a quarter).
const MAX_LANE: usize = 4 << 30;
/// Smallest lane worth a runner.
const MIN_LANE: usize = 64 << 20;
/// Share of a lane mirrored in pinned host memory: codes up and final
/// graphs down are 1-7 % of a window's device bytes.
const HOST_SHARE: usize = 8;
/// Most windows of one launch.
const MAX_LAUNCH_WINDOWS: usize = 32_768;

/// Whether the kernel takes `job`: the column-majority consensus (the
/// heaviest bundle runs on the CPU), at most [`MAX_READS`] non-empty reads
/// of at most [`MAX_LEN`] bytes, the matrix and gap states within the
/// kernel's tables, and a window that needs aligning at all.
pub fn kernel_takes(job: &WindowJob) -> bool {
    let c = &*job.config;
    if c.consensus != ConsensusRule::ColumnMajority || !layout::config_fits(c) {
        return false;
    }
    let (mut nonempty, mut longest) = (0usize, 0usize);
    for r in &job.reads {
        nonempty += usize::from(!r.is_empty());
        longest = longest.max(r.len());
    }
    // A graph window's reads are codes, every one of them used.
    if c.want_graph && nonempty != job.reads.len() {
        return false;
    }
    nonempty.min(c.max_seqs) <= MAX_READS
        && nonempty > 0
        && longest <= MAX_LEN
        && !job.needs_no_alignment()
}

/// Runs POA windows on one GPU.
pub struct WindowRunner {
    gpu: Arc<Gpu>,
    kernel: Kernel,
    lanes: [Arena; 2],
    launches: u64,
    failures: InjectedFailures,
}

impl WindowRunner {
    /// Loads (compiling or reading from the cache) the kernel and reserves
    /// the two lanes.
    pub fn new(gpu: Arc<Gpu>) -> Result<Self, DeviceError> {
        let source = device::kernel_source(KERNEL)?;
        let kernel = gpu.kernel(source, "seqshim_poa_windows")?;
        let lanes = device::lanes::reserve_two(
            &gpu,
            "POA",
            device::lanes::LaneSizes {
                most: MAX_LANE,
                least: MIN_LANE,
                host_share: HOST_SHARE,
            },
        )?;
        Ok(WindowRunner {
            gpu,
            kernel,
            lanes,
            launches: 0,
            failures: InjectedFailures::default(),
        })
    }

    /// Kernel launches so far.
    pub fn launches(&self) -> u64 {
        self.launches
    }

    /// Makes the next `batches` batches fail as a failing device would, so
    /// that tests can watch their windows rerun on the CPU.
    pub fn inject_failures(&mut self, batches: u32) {
        self.failures.set(batches);
    }

    fn rooms(&self) -> (usize, usize) {
        // Room for the 128-byte alignment of the image's parts.
        device::lanes::rooms(&self.lanes, 1024)
    }

    /// Runs the windows in launches that fit a lane, alternating lanes so
    /// that packing one overlaps the GPU on the other.
    pub fn run(&mut self, jobs: &[WindowJob]) -> Result<Vec<Option<WindowResult>>, DeviceError> {
        let (device_room, host_room) = self.rooms();
        let prepared = prepare(jobs);
        let mut results = answered_here(jobs, &prepared);
        let chunks = plan_launches(&prepared, device_room, host_room);
        let mut in_flight: [Option<Layout>; 2] = [None, None];
        for (i, (block, chunk)) in chunks.iter().enumerate() {
            let lane = i % 2;
            if let Some(layout) = in_flight[lane].take() {
                layout.unpack(self.lanes[lane].staging()?, jobs, &prepared, &mut results);
            }
            let layout = Layout::new(jobs, &prepared, chunk, *block);
            self.launch(lane, &prepared, &layout)?;
            in_flight[lane] = Some(layout);
        }
        for lane in [chunks.len() % 2, (chunks.len() + 1) % 2] {
            if let Some(layout) = in_flight[lane].take() {
                layout.unpack(self.lanes[lane].staging()?, jobs, &prepared, &mut results);
            }
        }
        Ok(results)
    }

    /// Packs one launch into `lane` and queues its copies and the kernel;
    /// returns without waiting for them.
    fn launch(
        &mut self,
        lane: usize,
        prepared: &[Option<Prepared>],
        layout: &Layout,
    ) -> Result<(), DeviceError> {
        let arena = &mut self.lanes[lane];
        if layout.end > arena.capacity() || layout.results_end > arena.host_capacity() {
            return Err(DeviceError(format!(
                "POA launch of {} bytes ({} mirrored) exceeds its lane",
                layout.end, layout.results_end
            )));
        }
        let windows = u32::try_from(layout.windows())
            .map_err(|_| DeviceError("too many windows for one launch".into()))?;
        let descs = u32::try_from(layout.descs_at)
            .map_err(|_| DeviceError("POA descriptors beyond 4 GiB".into()))?;
        layout.pack(arena.staging()?, prepared);
        arena.upload(0..layout.inputs_end)?;
        arena.launch(
            &self.kernel,
            windows,
            layout.block,
            0,
            &[Arg::Offset(0), Arg::U32(descs), Arg::U32(windows)],
        )?;
        arena.download(layout.inputs_end..layout.results_end)?;
        self.launches += 1;
        crate::log_debug!(
            "POA: {}: launch of {} windows, blocks of {} threads, at most {} cells",
            crate::engine::family::gpu_label(&self.gpu),
            windows,
            layout.block,
            layout.cells(prepared)
        );
        Ok(())
    }
}

/// Every window made ready for the kernel, on the host pool.
fn prepare(jobs: &[WindowJob]) -> Vec<Option<Prepared>> {
    crate::engine::cpu::install_for_devices(|| {
        use rayon::prelude::*;
        jobs.par_iter()
            .with_min_len(64)
            .map(|j| kernel_takes(j).then(|| Prepared::of(j)).flatten())
            .collect()
    })
}

/// The results of windows that use no read: the CPU path answers them at
/// once (they never need the kernel).
fn answered_here(jobs: &[WindowJob], prepared: &[Option<Prepared>]) -> Vec<Option<WindowResult>> {
    jobs.iter()
        .zip(prepared)
        .map(|(j, p)| {
            (p.is_none() && kernel_takes(j) && Prepared::of(j).is_none()).then(|| j.compute())
        })
        .collect()
}

/// Groups the prepared windows into launches of one block size each
/// (small windows in small blocks), each within `device_room` bytes of
/// which at most `host_room` cross the bus. A window that does not fit
/// alone is left out (it goes back to the CPU).
fn plan_launches(
    prepared: &[Option<Prepared>],
    device_room: usize,
    host_room: usize,
) -> Vec<(u32, Vec<usize>)> {
    let mut order: Vec<(u32, usize)> = prepared
        .iter()
        .enumerate()
        .filter_map(|(k, p)| p.as_ref().map(|p| (p.block(), k)))
        .collect();
    order.sort_unstable();
    let mut chunks = Vec::new();
    let mut chunk = Vec::new();
    let mut block = 0;
    let (mut bytes, mut io) = (0usize, 0usize);
    for (b, k) in order {
        let (w_io, w_bytes) = prepared[k]
            .as_ref()
            .map(Prepared::bytes)
            .unwrap_or_default();
        if w_bytes > device_room || w_io > host_room {
            continue;
        }
        if !chunk.is_empty()
            && (b != block
                || bytes + w_bytes > device_room
                || io + w_io > host_room
                || chunk.len() == MAX_LAUNCH_WINDOWS)
        {
            chunks.push((block, std::mem::take(&mut chunk)));
            (bytes, io) = (0, 0);
        }
        block = b;
        chunk.push(k);
        bytes += w_bytes;
        io += w_io;
    }
    if !chunk.is_empty() {
        chunks.push((block, chunk));
    }
    chunks
}

/// One launch of a host-run kernel (see [`run_on_host`]).
pub struct HostLaunch<'a> {
    /// The launch image: the kernel's pointer argument is its start.
    pub image: &'a mut [u8],
    /// The kernel's scalar arguments: descriptors' offset, windows.
    pub descs_at: u32,
    pub windows: u32,
    /// Threads per block.
    pub block: u32,
}

/// Runs `jobs` as [`WindowRunner::run`] does, with every launch handed to
/// `launch` on a host image instead of a GPU: for tests that run the
/// kernel's own code compiled for the host. Windows the kernel does not
/// take are `None`, as are those it did not finish.
pub fn run_on_host(
    jobs: &[WindowJob],
    max_launch_bytes: usize,
    launch: &mut dyn FnMut(HostLaunch<'_>),
) -> Vec<Option<WindowResult>> {
    let prepared = prepare(jobs);
    let mut results = answered_here(jobs, &prepared);
    for (block, chunk) in plan_launches(&prepared, max_launch_bytes, max_launch_bytes) {
        let layout = Layout::new(jobs, &prepared, &chunk, block);
        let mut image = vec![0u8; layout.end];
        layout.pack(&mut image, &prepared);
        launch(HostLaunch {
            image: &mut image,
            descs_at: layout.descs_at as u32,
            windows: layout.windows() as u32,
            block,
        });
        layout.unpack(&image, jobs, &prepared, &mut results);
    }
    results
}

impl BatchRunner<WindowJob> for WindowRunner {
    fn label(&self) -> String {
        crate::engine::family::gpu_label(&self.gpu)
    }

    fn capacity(&self) -> usize {
        1 << 20
    }

    /// About two lanes' worth of window cost (reads x longest^2), so that a
    /// large submission is spread over every GPU.
    fn max_batch_cost(&self) -> u64 {
        2 * self.rooms().0 as u64
    }

    fn min_batch_cost(&self) -> u64 {
        self.rooms().0 as u64 / 8
    }

    fn run_batch(&mut self, jobs: &[WindowJob]) -> Result<Vec<Option<WindowResult>>, String> {
        self.failures.take("POA")?;
        self.run(jobs).map_err(|e| e.to_string())
    }
}
