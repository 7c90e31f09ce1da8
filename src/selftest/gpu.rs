//! The selftest on a GPU: pack every job's values into one arena, launch one
//! kernel over all of them, unpack per job.

use std::sync::Arc;

use super::{ROUNDS, SelftestJob};
use crate::engine::device::{Arena, Arg, DeviceError, Gpu, Kernel, KernelSource};
use crate::engine::scheduler::BatchRunner;

pub const SOURCE: KernelSource = KernelSource {
    name: "selftest",
    code: include_str!("../../kernels/selftest.cu"),
    options: &[],
};

pub struct SelftestRunner {
    gpu: Arc<Gpu>,
    kernel: Kernel,
    arena: Arena,
}

impl SelftestRunner {
    pub fn new(gpu: Arc<Gpu>) -> Result<Self, DeviceError> {
        let kernel = gpu.kernel(&SOURCE, "seqshim_selftest")?;
        let arena = gpu.arena(0);
        Ok(SelftestRunner { gpu, kernel, arena })
    }

    fn run(&mut self, jobs: &[SelftestJob]) -> Result<Vec<Option<Vec<u32>>>, DeviceError> {
        let count: usize = jobs.iter().map(|j| j.values.len()).sum();
        if count == 0 {
            return Ok(jobs.iter().map(|_| Some(Vec::new())).collect());
        }
        if count > u32::MAX as usize / 2 {
            // Too big for one launch: the CPU takes it.
            return Ok(jobs.iter().map(|_| None).collect());
        }
        let bytes = count * 4;
        self.arena.reserve(2 * bytes)?;
        let staging = self.arena.staging()?;
        let mut at = 0;
        for job in jobs {
            for &v in &job.values {
                staging[at..at + 4].copy_from_slice(&v.to_le_bytes());
                at += 4;
            }
        }
        self.arena.upload(0..bytes)?;
        let block = 256u32;
        let grid = count.div_ceil(block as usize).min(65_535) as u32;
        self.arena.launch(
            &self.kernel,
            grid,
            block,
            0,
            &[
                Arg::Offset(0),
                Arg::Offset(bytes),
                Arg::U32(count as u32),
                Arg::U32(ROUNDS),
            ],
        )?;
        self.arena.download(bytes..2 * bytes)?;
        self.arena.synchronize()?;
        let staging = self.arena.staging()?;
        let mut at = bytes;
        Ok(jobs
            .iter()
            .map(|job| {
                let out: Vec<u32> = staging[at..at + job.values.len() * 4]
                    .chunks_exact(4)
                    .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
                    .collect();
                at += job.values.len() * 4;
                Some(out)
            })
            .collect())
    }
}

impl BatchRunner<SelftestJob> for SelftestRunner {
    fn label(&self) -> String {
        let info = self.gpu.info();
        format!("GPU {} ({})", info.ordinal, info.name)
    }

    fn capacity(&self) -> usize {
        4_096
    }

    fn run_batch(&mut self, jobs: &[SelftestJob]) -> Result<Vec<Option<Vec<u32>>>, String> {
        self.run(jobs).map_err(|e| e.to_string())
    }
}
