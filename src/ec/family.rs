//! EC as a family of the engine. One exact-v1 kernel launch (the whole
//! record array of a `runTest` call or a batch) is one job: v1's launch is
//! one grid over every record, and §5.2's extra passes over record 0 depend
//! on the launch size, so a launch cannot be split into smaller jobs. There
//! is no kernel yet, so every launch runs on the engine's CPU pool (its
//! parallel loops use the same pool through [`super::parallel`]).

use std::sync::{Arc, Mutex};

use crate::engine::device::{DeviceError, Gpu};
use crate::engine::family::{self, Family, Placement};
use crate::engine::scheduler::{BatchRunner, Job};

use super::bloom_v1::BloomTableV1;
use super::error::EcError;
use super::kernel_v1::{self, KernelConfig, RunReport};

/// One exact-v1 launch: the records (taken back by the caller), the kernel
/// settings and the Bloom table.
pub struct V1Launch {
    records: Mutex<Vec<u8>>,
    cfg: KernelConfig,
    bloom: Arc<BloomTableV1>,
}

impl Job for V1Launch {
    type Output = (Vec<u8>, RunReport);

    fn run_cpu(&self) -> Self::Output {
        let mut records =
            std::mem::take(&mut *self.records.lock().unwrap_or_else(|p| p.into_inner()));
        let report = kernel_v1::run(&mut records, &self.cfg, &self.bloom);
        (records, report)
    }

    /// Record bytes.
    fn cost(&self) -> u64 {
        self.records.lock().map_or(0, |r| r.len() as u64)
    }
}

/// CUDA-EC spectrum correction as a family of the engine (CPU pool only for
/// now).
pub struct Ec;

impl Family for Ec {
    const NAME: &'static str = "EC";
    const KERNEL: &'static str = "";
    type Job = V1Launch;

    fn runners(_: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<V1Launch>>>, DeviceError> {
        Ok(Vec::new())
    }
}

/// Runs one exact-v1 launch in place. With no device in use (there is no
/// EC kernel yet) the launch runs right here, on the caller's records and
/// table, its loops on the engine's pool; only a launch handed to a device
/// is copied into a job.
pub(crate) fn run_launch(
    records: &mut [u8],
    cfg: &KernelConfig,
    bloom: &BloomTableV1,
) -> Result<RunReport, EcError> {
    let placed = family::place::<Ec>(records.len() as u64, || {
        Some(V1Launch {
            records: Mutex::new(records.to_vec()),
            cfg: *cfg,
            bloom: Arc::new(bloom.clone()),
        })
    });
    let (out, report) = match placed {
        Placement::Here(_timer) => return Ok(kernel_v1::run(records, cfg, bloom)),
        Placement::Submitted(result) => {
            result.map_err(|e| EcError::State(format!("launch not run: {e}")))?
        }
    };
    if out.len() != records.len() {
        return Err(EcError::State(
            "launch returned a record array of another size".into(),
        ));
    }
    records.copy_from_slice(&out);
    Ok(report)
}
