//! The selftest: a tiny job family that runs through the same path as the
//! real ones (scheduler, kernel compile and cache, arena upload, launch,
//! download) with a result the CPU can check exactly. `seqshim_selftest()`
//! and `make demo` run it; it is also the template a new family copies.

mod cpu;
mod gpu;

use std::sync::Arc;

use crate::engine::device::{DeviceError, Gpu};
use crate::engine::family::{self, Family};
use crate::engine::scheduler::{self, BatchRunner};

/// Mixing rounds applied to each value.
const ROUNDS: u32 = 16;

/// A block of values to mix.
pub struct SelftestJob {
    pub values: Vec<u32>,
}

impl scheduler::Job for SelftestJob {
    type Output = Vec<u32>;
    fn run_cpu(&self) -> Vec<u32> {
        cpu::mix_all(&self.values, ROUNDS)
    }
}

/// What one selftest run did.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Report {
    /// Values checked.
    pub values: usize,
    /// Values whose result differed from the CPU reference (0 on success).
    pub mismatches: usize,
    /// Batches a GPU ran during this selftest (0 on the CPU path).
    pub gpu_batches: u64,
    /// Jobs that had to be rerun on the CPU after a GPU problem.
    pub rescued: u64,
    /// GPU labels the scheduler had available.
    pub devices: Vec<String>,
}

impl Report {
    pub fn passed(&self) -> bool {
        self.mismatches == 0
            && (self.devices.is_empty() || (self.gpu_batches > 0 && self.rescued == 0))
    }
}

/// The selftest as a family of the engine.
pub struct Selftest;

impl Family for Selftest {
    const NAME: &'static str = "selftest";
    const KERNEL: &'static str = "selftest";
    type Job = SelftestJob;

    fn runners(gpu: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<SelftestJob>>>, DeviceError> {
        Ok(vec![Box::new(gpu::SelftestRunner::new(gpu.clone())?)])
    }
}

/// Runs `jobs` blocks of `per_job` pseudo-random values through the scheduler
/// and compares every result with the CPU reference.
pub fn run(jobs: usize, per_job: usize) -> Report {
    let scheduler = family::scheduler::<Selftest>();
    let before = scheduler.stats();
    let inputs: Vec<Vec<u32>> = (0..jobs)
        .map(|j| cpu::input_block(j as u32, per_job))
        .collect();
    let results = scheduler.run_all(
        inputs
            .iter()
            .map(|values| SelftestJob {
                values: values.clone(),
            })
            .collect(),
    );
    let after = scheduler.stats();
    let mut mismatches = 0;
    for (values, result) in inputs.iter().zip(results) {
        let expected = cpu::mix_all(values, ROUNDS);
        match result {
            Ok(got) if got.len() == expected.len() => {
                mismatches += got.iter().zip(&expected).filter(|(a, b)| a != b).count();
            }
            _ => mismatches += expected.len(),
        }
    }
    Report {
        values: jobs * per_job,
        mismatches,
        gpu_batches: after.batches - before.batches,
        rescued: after.rescued_jobs - before.rescued_jobs,
        devices: scheduler.devices().to_vec(),
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn selftest_passes_on_this_machine() {
        let report = super::run(8, 1_000);
        assert_eq!(report.values, 8_000);
        assert!(report.passed(), "{report:?}");
    }
}
