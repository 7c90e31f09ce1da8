//! The CUDA layer: probing for a usable driver, NVRTC and devices; compiling
//! kernel sources with an on-disk cache; device memory arenas with pinned
//! staging that are reused across batches; kernel launches.
//!
//! Everything CUDA goes through cudarc with dynamic loading, so this module is
//! where a machine without CUDA is discovered. cudarc panics when a library or
//! symbol is missing, so every first contact happens inside `catch_unwind`,
//! and any failure turns into a `DeviceError` and, upstream of us, the CPU.
//!
//! The module is split by job: `probe` finds the driver, NVRTC and the GPUs;
//! `context` opens a GPU and turns cudarc's failures into `DeviceError`s;
//! `nvrtc` compiles kernels and keeps the on-disk cache; `arena` holds device
//! memory, staging, fences and launches. This file is the public face.

use std::collections::HashMap;
use std::sync::{Arc, Mutex};
use std::time::Instant;

use cudarc::driver::{CudaContext, CudaFunction, CudaModule, CudaStream};
use once_cell::sync::OnceCell;

use super::config::{self, Backend};

mod arena;
mod context;
mod nvrtc;
mod probe;

pub use arena::{Arena, Arg, Fence, Mark};
pub use context::DeviceError;
use context::{err, shielded};
pub use nvrtc::{compile, compile_check, kernel_counters, nvrtc_version};
pub use probe::nvrtc_present;

/// A CUDA C kernel source embedded in the library.
#[derive(Clone, Copy, Debug)]
pub struct KernelSource {
    /// Short name, used in logs and cache file names (e.g. `selftest`).
    pub name: &'static str,
    pub code: &'static str,
    /// Extra NVRTC options, e.g. `--fmad=false` for kernels that must match
    /// the CPU's floating-point results bit for bit.
    pub options: &'static [&'static str],
}

/// What the probe found: the GPUs we will use, or why we use none.
pub enum Availability {
    Gpus(Vec<Arc<Gpu>>),
    CpuOnly { reason: String },
}

/// Facts about one GPU, for reports.
#[derive(Clone, Debug)]
pub struct GpuInfo {
    pub ordinal: usize,
    pub name: String,
    pub compute_capability: (i32, i32),
    pub total_memory: usize,
    /// Streaming multiprocessors.
    pub multiprocessors: usize,
    /// Threads the GPU keeps resident at once (multiprocessors times
    /// threads per multiprocessor), a bound for when a kernel's own
    /// occupancy ([`Kernel::resident_blocks`]) is unknown.
    pub resident_threads: usize,
}

/// Streams per GPU. A family keeps an arena on each of several streams, so
/// that one's copies and host work overlap another's kernel: WFA runs a
/// runner on each of several (see `wfa::gpu::runner`); ABEA and the
/// selftest use the first two.
pub(crate) const STREAMS: usize = 6;

/// One GPU with its context, its streams and the modules loaded on it.
pub struct Gpu {
    info: GpuInfo,
    ctx: Arc<CudaContext>,
    /// [`STREAMS`] of them.
    streams: Vec<Arc<CudaStream>>,
    modules: Mutex<HashMap<&'static str, Arc<CudaModule>>>,
    /// A timing event and the host instant it completed at: the zero of
    /// this GPU's [`Mark`]s (made on the first mark).
    clock: OnceCell<(cudarc::driver::CudaEvent, Instant)>,
}

/// A kernel function ready to launch on one GPU.
#[derive(Clone)]
pub struct Kernel {
    function: CudaFunction,
    name: String,
    ctx: Arc<CudaContext>,
}

impl Kernel {
    /// How many blocks of `block` threads, each with `shared_bytes` of
    /// dynamic shared memory, one multiprocessor keeps resident (the
    /// driver's occupancy query: registers, shared memory and the kernel's
    /// launch bounds all count). `None` when the driver does not say.
    pub fn resident_blocks(&self, block: u32, shared_bytes: usize) -> Option<usize> {
        shielded("occupancy query", || {
            self.ctx
                .bind_to_thread()
                .map_err(|e| err("binding the context failed", e))?;
            self.function
                .occupancy_max_active_blocks_per_multiprocessor(block, shared_bytes, None)
                .map_err(|e| err("cuOccupancyMaxActiveBlocksPerMultiprocessor failed", e))
        })
        .ok()
        .filter(|&n| n > 0)
        .map(|n| n as usize)
    }
}

static AVAILABILITY: OnceCell<Availability> = OnceCell::new();

/// Probes once per process and returns what was found.
pub fn availability() -> &'static Availability {
    AVAILABILITY.get_or_init(|| {
        let config = config::get();
        let started = std::time::Instant::now();
        let found = if config.backend == Backend::Cpu {
            Availability::CpuOnly {
                reason: "SEQSHIM_BACKEND=cpu".to_string(),
            }
        } else {
            match probe::probe(config.devices.as_deref()) {
                Ok(gpus) => Availability::Gpus(gpus),
                Err(e) => Availability::CpuOnly { reason: e.0 },
            }
        };
        match (&found, config.backend) {
            (Availability::Gpus(gpus), _) => {
                for gpu in gpus {
                    let i = &gpu.info;
                    crate::log_info!(
                        "using GPU {} ({}, sm_{}{}; driver and contexts ready in {} ms)",
                        i.ordinal,
                        i.name,
                        i.compute_capability.0,
                        i.compute_capability.1,
                        started.elapsed().as_millis()
                    );
                }
            }
            (Availability::CpuOnly { reason }, Backend::Cuda) => {
                crate::log_warn!("SEQSHIM_BACKEND=cuda but no usable GPU ({reason}); using the CPU")
            }
            (Availability::CpuOnly { reason }, _) => {
                crate::log_info!("using the CPU: {reason}")
            }
        }
        found
    })
}

/// The GPUs in use (empty on the CPU path).
pub fn gpus() -> &'static [Arc<Gpu>] {
    match availability() {
        Availability::Gpus(gpus) => gpus,
        Availability::CpuOnly { .. } => &[],
    }
}

impl Gpu {
    pub fn info(&self) -> &GpuInfo {
        &self.info
    }

    /// Free and total device memory in bytes.
    pub fn memory(&self) -> Result<(usize, usize), DeviceError> {
        shielded("memory query", || {
            self.ctx
                .mem_get_info()
                .map_err(|e| err("cuMemGetInfo failed", e))
        })
    }
}
