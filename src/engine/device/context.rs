//! Opening a GPU (context, streams, the facts reported about it) and the
//! error type of the device layer, with `shielded`, which turns cudarc's
//! panics (missing library, missing symbol) into errors.

use std::collections::HashMap;
use std::fmt;
use std::sync::Mutex;

use cudarc::driver::CudaContext;
use once_cell::sync::OnceCell;

use super::{Gpu, GpuInfo, STREAMS, budget};
use crate::engine::config::{self, GpuWait};

/// Oldest architecture the kernels are written for (Volta).
const MIN_COMPUTE_CAPABILITY: (i32, i32) = (7, 0);

/// Anything that went wrong on the CUDA side, as text for logs and
/// `seqshim_backend_info`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct DeviceError(pub String);

impl fmt::Display for DeviceError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(&self.0)
    }
}

impl std::error::Error for DeviceError {}

impl DeviceError {
    /// Whether the driver refused because it is shutting down: the process
    /// is exiting while a start-up runs, nothing a user needs to act on.
    pub fn driver_shutting_down(&self) -> bool {
        self.0.contains("CUDA_ERROR_DEINITIALIZED")
    }
}

pub(super) fn err(context: &str, detail: impl fmt::Debug) -> DeviceError {
    DeviceError(format!("{context}: {detail:?}"))
}

/// Runs a closure that calls into cudarc, turning its panics (missing
/// library, missing symbol) into errors.
pub(super) fn shielded<T>(
    context: &str,
    f: impl FnOnce() -> Result<T, DeviceError>,
) -> Result<T, DeviceError> {
    match crate::engine::panic::expecting(f) {
        Ok(result) => result,
        Err(payload) => Err(DeviceError(format!(
            "{context}: {}",
            crate::engine::panic::panic_message(&*payload)
        ))),
    }
}

/// [`GpuInfo`]'s multiprocessors and threads per multiprocessor when the
/// driver does not say (an H100's).
const FALLBACK_MULTIPROCESSORS: usize = 132;
const FALLBACK_THREADS_PER_MULTIPROCESSOR: usize = 2048;

impl Gpu {
    pub(super) fn open(ordinal: usize) -> Result<Gpu, DeviceError> {
        super::faults::check(super::faults::Op::Open)?;
        shielded("opening the GPU", || {
            let ctx = CudaContext::new(ordinal).map_err(|e| err("context creation failed", e))?;
            if config::get().gpu_wait == GpuWait::Block {
                // With one context the driver spins its waiting threads on a
                // core; a synchronous caller needs that core more than an
                // executor needs a wake-up a few microseconds sooner.
                if let Err(e) =
                    ctx.set_flags(cudarc::driver::sys::CUctx_flags::CU_CTX_SCHED_BLOCKING_SYNC)
                {
                    crate::log_debug!("GPU {ordinal}: waits keep spinning ({e:?})");
                }
            }
            let name = ctx.name().unwrap_or_else(|_| "unknown GPU".to_string());
            let compute_capability = ctx
                .compute_capability()
                .map_err(|e| err("compute capability query failed", e))?;
            if compute_capability < MIN_COMPUTE_CAPABILITY {
                return Err(DeviceError(format!(
                    "{name} is sm_{}{}; seqshim needs sm_70 or newer",
                    compute_capability.0, compute_capability.1
                )));
            }
            let total_memory = ctx.total_mem().unwrap_or(0);
            // The cap is fixed when the GPU is opened: a default share taken
            // from free memory now, before this process allocates anything.
            let free = ctx.mem_get_info().map_or(total_memory, |(free, _)| free);
            let cap = budget::cap_for(config::get().gpu_memory, free, total_memory);
            use cudarc::driver::sys::CUdevice_attribute as Attr;
            let (multiprocessors, threads) = match (
                ctx.attribute(Attr::CU_DEVICE_ATTRIBUTE_MULTIPROCESSOR_COUNT),
                ctx.attribute(Attr::CU_DEVICE_ATTRIBUTE_MAX_THREADS_PER_MULTIPROCESSOR),
            ) {
                (Ok(sms), Ok(threads)) if sms > 0 && threads > 0 => {
                    (sms as usize, threads as usize)
                }
                _ => (
                    FALLBACK_MULTIPROCESSORS,
                    FALLBACK_THREADS_PER_MULTIPROCESSOR,
                ),
            };
            let streams = (0..STREAMS)
                .map(|_| {
                    ctx.new_stream()
                        .map_err(|e| err("stream creation failed", e))
                })
                .collect::<Result<Vec<_>, _>>()?;
            Ok(Gpu {
                info: GpuInfo {
                    ordinal,
                    name,
                    compute_capability,
                    total_memory,
                    multiprocessors,
                    resident_threads: multiprocessors * threads,
                },
                ctx,
                streams,
                modules: Mutex::new(HashMap::new()),
                ledger: budget::Ledger::new(cap),
                clock: OnceCell::new(),
            })
        })
    }
}
