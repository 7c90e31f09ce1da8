//! The selftest on a GPU. A batch is split over two arenas on two streams:
//! while the GPU copies and computes the first half, the CPU packs the
//! second, which is the overlap every family's runner should have.

use std::sync::Arc;

use super::{ROUNDS, SelftestJob};
use crate::engine::device::{self, Arena, Arg, DeviceError, Gpu, Kernel};
use crate::engine::scheduler::BatchRunner;

/// The kernel file, `kernels/selftest.cu`, as the family declares it.
const KERNEL: &str = <super::Selftest as crate::engine::family::Family>::KERNEL;

const THREADS_PER_BLOCK: u32 = 256;

pub struct SelftestRunner {
    gpu: Arc<Gpu>,
    kernel: Kernel,
    lanes: [Arena; 2],
}

impl SelftestRunner {
    pub fn new(gpu: Arc<Gpu>) -> Result<Self, DeviceError> {
        let kernel = gpu.kernel(device::kernel_source(KERNEL)?, "seqshim_selftest")?;
        let lanes = [gpu.arena(0), gpu.arena(1)];
        Ok(SelftestRunner { gpu, kernel, lanes })
    }

    /// Packs `jobs` into `arena` and queues upload, kernel and download.
    /// Returns the number of values queued.
    fn queue(
        kernel: &Kernel,
        arena: &mut Arena,
        jobs: &[SelftestJob],
    ) -> Result<usize, DeviceError> {
        let count: usize = jobs.iter().map(|j| j.values.len()).sum();
        if count == 0 {
            return Ok(0);
        }
        let bytes = count * 4;
        arena.reserve(2 * bytes)?;
        let staging = arena.staging()?;
        for (slot, value) in staging[..bytes]
            .chunks_exact_mut(4)
            .zip(jobs.iter().flat_map(|j| j.values.iter()))
        {
            slot.copy_from_slice(&value.to_le_bytes());
        }
        arena.upload(0..bytes)?;
        let grid = count.div_ceil(THREADS_PER_BLOCK as usize).min(65_535) as u32;
        arena.launch(
            kernel,
            grid,
            THREADS_PER_BLOCK,
            0,
            &[
                Arg::Offset(0),
                Arg::Offset(bytes),
                Arg::U32(count as u32),
                Arg::U32(ROUNDS),
            ],
        )?;
        arena.download(bytes..2 * bytes)?;
        Ok(count)
    }

    /// Waits for `arena` and splits its output back into per-job results.
    fn collect(
        arena: &mut Arena,
        jobs: &[SelftestJob],
        count: usize,
    ) -> Result<Vec<Option<Vec<u32>>>, DeviceError> {
        if count == 0 {
            return Ok(jobs.iter().map(|_| Some(Vec::new())).collect());
        }
        let staging = arena.staging()?;
        let mut words = staging[count * 4..count * 8]
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]));
        Ok(jobs
            .iter()
            .map(|job| Some(words.by_ref().take(job.values.len()).collect()))
            .collect())
    }

    fn run(&mut self, jobs: &[SelftestJob]) -> Result<Vec<Option<Vec<u32>>>, DeviceError> {
        let total: usize = jobs.iter().map(|j| j.values.len()).sum();
        if total > u32::MAX as usize / 8 {
            // Too big for one launch: the CPU takes it.
            return Ok(jobs.iter().map(|_| None).collect());
        }
        let (first, second) = jobs.split_at(jobs.len() / 2);
        let [lane0, lane1] = &mut self.lanes;
        let n0 = Self::queue(&self.kernel, lane0, first)?;
        let n1 = Self::queue(&self.kernel, lane1, second)?;
        let mut results = Self::collect(lane0, first, n0)?;
        results.extend(Self::collect(lane1, second, n1)?);
        Ok(results)
    }
}

impl BatchRunner<SelftestJob> for SelftestRunner {
    fn label(&self) -> String {
        crate::engine::family::gpu_label(&self.gpu)
    }

    fn capacity(&self) -> usize {
        4_096
    }

    fn run_batch(&mut self, jobs: &[SelftestJob]) -> Result<Vec<Option<Vec<u32>>>, String> {
        self.run(jobs).map_err(|e| e.to_string())
    }
}
