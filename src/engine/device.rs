//! The CUDA layer: probing for a usable driver, NVRTC and devices; compiling
//! kernel sources with an on-disk cache; device memory arenas with pinned
//! staging that are reused across batches; kernel launches.
//!
//! Everything CUDA goes through cudarc with dynamic loading, so this module is
//! where a machine without CUDA is discovered. cudarc panics when a library or
//! symbol is missing, so every first contact happens inside `catch_unwind`,
//! and any failure turns into a `DeviceError` and, upstream of us, the CPU.

use std::collections::HashMap;
use std::ffi::{CStr, CString, c_char};
use std::fmt;
use std::panic::{AssertUnwindSafe, catch_unwind};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex};
use std::time::Instant;

use cudarc::driver::{CudaContext, CudaModule, CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cudarc::driver::{CudaFunction, PinnedHostSlice};
use cudarc::nvrtc::{Ptx, sys as nvrtc_sys};
use once_cell::sync::OnceCell;

use super::config::{self, Backend};

/// Oldest architecture the kernels are written for (Volta).
const MIN_COMPUTE_CAPABILITY: (i32, i32) = (7, 0);

/// Shared helpers every kernel may `#include "common.cuh"`.
const COMMON_HEADER: (&str, &str) = ("common.cuh", include_str!("../../kernels/common.cuh"));

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

fn err(context: &str, detail: impl fmt::Debug) -> DeviceError {
    DeviceError(format!("{context}: {detail:?}"))
}

/// Runs a closure that calls into cudarc, turning its panics (missing
/// library, missing symbol) into errors.
fn shielded<T>(
    context: &str,
    f: impl FnOnce() -> Result<T, DeviceError>,
) -> Result<T, DeviceError> {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(result) => result,
        Err(payload) => Err(DeviceError(format!(
            "{context}: {}",
            super::panic::panic_message(&*payload)
        ))),
    }
}

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

/// [`GpuInfo`]'s multiprocessors and threads per multiprocessor when the
/// driver does not say (an H100's).
const FALLBACK_MULTIPROCESSORS: usize = 132;
const FALLBACK_THREADS_PER_MULTIPROCESSOR: usize = 2048;

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
static COMPILED: AtomicUsize = AtomicUsize::new(0);
static CACHE_HITS: AtomicUsize = AtomicUsize::new(0);

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
            match probe(config.devices.as_deref()) {
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

/// Kernel compilations and cache hits so far in this process.
pub fn kernel_counters() -> (usize, usize) {
    (
        COMPILED.load(Ordering::Relaxed),
        CACHE_HITS.load(Ordering::Relaxed),
    )
}

/// Whether an NVRTC library can be loaded at all.
pub fn nvrtc_present() -> bool {
    // SAFETY: `is_culib_present` only tries `dlopen` on candidate file names
    // and closes what it opens; it touches no CUDA state.
    catch_unwind(|| unsafe { nvrtc_sys::is_culib_present() }).unwrap_or(false)
}

/// NVRTC's version as (major, minor).
pub fn nvrtc_version() -> Result<(i32, i32), DeviceError> {
    shielded("NVRTC version", || {
        let (mut major, mut minor) = (0, 0);
        // SAFETY: both pointers are valid for one write each; the library was
        // found by `nvrtc_present` or the call panics inside `shielded`.
        let status = unsafe { nvrtc_sys::nvrtcVersion(&mut major, &mut minor) };
        nvrtc_check(status, "nvrtcVersion")?;
        Ok((major, minor))
    })
}

fn probe(wanted: Option<&[usize]>) -> Result<Vec<Arc<Gpu>>, DeviceError> {
    // SAFETY: `is_culib_present` only tries `dlopen` on candidate names.
    let driver_present =
        catch_unwind(|| unsafe { cudarc::driver::sys::is_culib_present() }).unwrap_or(false);
    if !driver_present {
        return Err(DeviceError(
            "no CUDA driver library (libcuda.so.1) could be loaded".into(),
        ));
    }
    if !nvrtc_present() {
        return Err(DeviceError(
            "CUDA driver found but no NVRTC library (libnvrtc.so.13 or .12) to compile kernels"
                .into(),
        ));
    }
    let count = shielded("CUDA initialisation", || {
        CudaContext::device_count().map_err(|e| err("cuInit/cuDeviceGetCount failed", e))
    })?;
    if count <= 0 {
        return Err(DeviceError("the CUDA driver reports no GPU".into()));
    }
    let ordinals: Vec<usize> = match wanted {
        Some(list) => list.to_vec(),
        None => (0..count as usize).collect(),
    };
    let mut gpus = Vec::new();
    let mut skipped = Vec::new();
    for ordinal in ordinals {
        if ordinal >= count as usize {
            skipped.push(format!("GPU {ordinal}: not present ({count} visible)"));
            continue;
        }
        match Gpu::open(ordinal) {
            Ok(gpu) => gpus.push(Arc::new(gpu)),
            Err(e) => skipped.push(format!("GPU {ordinal}: {e}")),
        }
    }
    for line in &skipped {
        crate::log_warn!("not using {line}");
    }
    if gpus.is_empty() {
        return Err(DeviceError(format!(
            "no usable GPU ({})",
            skipped.join("; ")
        )));
    }
    Ok(gpus)
}

impl Gpu {
    fn open(ordinal: usize) -> Result<Gpu, DeviceError> {
        shielded("opening the GPU", || {
            let ctx = CudaContext::new(ordinal).map_err(|e| err("context creation failed", e))?;
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
                clock: OnceCell::new(),
            })
        })
    }

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

    /// Loads (compiling or reading from the cache on first use) `function`
    /// from `source` on this GPU.
    pub fn kernel(
        &self,
        source: &KernelSource,
        function_name: &str,
    ) -> Result<Kernel, DeviceError> {
        shielded("loading a kernel", || {
            let module = {
                let mut modules = self.modules.lock().unwrap_or_else(|p| p.into_inner());
                match modules.get(source.name) {
                    Some(m) => m.clone(),
                    None => {
                        let image = compile_cached(source, self.info.compute_capability)?;
                        let module = self
                            .ctx
                            .load_module(Ptx::from_binary(image))
                            .map_err(|e| err("cuModuleLoadData failed", e))?;
                        modules.insert(source.name, module.clone());
                        module
                    }
                }
            };
            let function = module
                .load_function(function_name)
                .map_err(|e| err(&format!("kernel function {function_name} not found"), e))?;
            Ok(Kernel {
                function,
                name: format!("{}::{function_name}", source.name),
                ctx: self.ctx.clone(),
            })
        })
    }

    /// A new arena on stream `lane` (below [`STREAMS`]; larger values wrap).
    pub fn arena(self: &Arc<Self>, lane: usize) -> Arena {
        Arena {
            gpu: self.clone(),
            stream: self.streams[lane % STREAMS].clone(),
            device: None,
            staging: None,
            base: 0,
            capacity: 0,
            host_capacity: 0,
            pending: false,
            in_flight: Vec::new(),
            fences: std::collections::VecDeque::new(),
            next_fence: 0,
        }
    }
}

// ---------------------------------------------------------------------------
// NVRTC compilation and the on-disk cache
// ---------------------------------------------------------------------------

fn nvrtc_check(status: nvrtc_sys::nvrtcResult, what: &str) -> Result<(), DeviceError> {
    if status == nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
        Ok(())
    } else {
        Err(DeviceError(format!("{what} failed: {status:?}")))
    }
}

/// 64-bit FNV-1a: stable across Rust versions, unlike `DefaultHasher`, so
/// cache keys survive a rebuild of the library.
fn fnv1a(parts: &[&[u8]]) -> u64 {
    let mut hash: u64 = 0xcbf2_9ce4_8422_2325;
    for part in parts {
        for &byte in part.iter().chain(std::iter::once(&0xffu8)) {
            hash ^= u64::from(byte);
            hash = hash.wrapping_mul(0x0000_0100_0000_01b3);
        }
    }
    hash
}

fn arch_option(compute_capability: (i32, i32)) -> String {
    format!(
        "--gpu-architecture=sm_{}{}",
        compute_capability.0, compute_capability.1
    )
}

/// All options a kernel is compiled with for `compute_capability`.
fn compile_options(source: &KernelSource, compute_capability: (i32, i32)) -> Vec<String> {
    let mut options = vec![
        arch_option(compute_capability),
        "--std=c++17".to_string(),
        "-default-device".to_string(),
        // Line tables, so that a profiler can name the source line of a
        // stall.
        "-lineinfo".to_string(),
    ];
    options.extend(source.options.iter().map(|s| s.to_string()));
    options
}

/// Compiles `source` to a CUBIN for `compute_capability`, reading and writing
/// the on-disk cache. The key covers the source, the shared header, the
/// options, the NVRTC version and the architecture, so any change recompiles.
fn compile_cached(
    source: &KernelSource,
    compute_capability: (i32, i32),
) -> Result<Vec<u8>, DeviceError> {
    let options = compile_options(source, compute_capability);
    let nvrtc = nvrtc_version()?;
    let version = format!("{}.{}", nvrtc.0, nvrtc.1);
    let joined = options.join(" ");
    let key = fnv1a(&[
        source.code.as_bytes(),
        COMMON_HEADER.1.as_bytes(),
        joined.as_bytes(),
        version.as_bytes(),
        env!("CARGO_PKG_VERSION").as_bytes(),
    ]);
    let file_name = format!(
        "{}-sm_{}{}-{key:016x}.cubin",
        source.name, compute_capability.0, compute_capability.1
    );
    let cache_dir = config::get().kernel_cache_dir();
    if let Some(dir) = &cache_dir {
        let path = dir.join(&file_name);
        if let Ok(image) = std::fs::read(&path) {
            if !image.is_empty() {
                CACHE_HITS.fetch_add(1, Ordering::Relaxed);
                crate::log_info!(
                    "kernel {}: loaded from cache {}",
                    source.name,
                    path.display()
                );
                return Ok(image);
            }
        }
    }
    let started = Instant::now();
    let image = compile(source.name, source.code, &options, true)?;
    COMPILED.fetch_add(1, Ordering::Relaxed);
    let elapsed_ms = started.elapsed().as_secs_f64() * 1e3;
    match &cache_dir {
        Some(dir) => match store(dir, &file_name, &image) {
            Ok(path) => crate::log_info!(
                "kernel {}: compiled by NVRTC {version} in {elapsed_ms:.0} ms, cached at {}",
                source.name,
                path.display()
            ),
            Err(e) => crate::log_info!(
                "kernel {}: compiled in {elapsed_ms:.0} ms; not cached ({e})",
                source.name
            ),
        },
        None => crate::log_info!(
            "kernel {}: compiled in {elapsed_ms:.0} ms; no cache folder",
            source.name
        ),
    }
    Ok(image)
}

/// Writes a cache entry atomically: concurrent processes either see the whole
/// file or none of it.
fn store(dir: &Path, file_name: &str, image: &[u8]) -> std::io::Result<PathBuf> {
    std::fs::create_dir_all(dir)?;
    let path = dir.join(file_name);
    let tmp = dir.join(format!(".{file_name}.{}.tmp", std::process::id()));
    std::fs::write(&tmp, image)?;
    std::fs::rename(&tmp, &path)?;
    Ok(path)
}

/// Compiles CUDA C with NVRTC. With `cubin` the result is machine code for the
/// architecture in `options`; otherwise PTX. Errors carry NVRTC's log.
pub fn compile(
    name: &str,
    code: &str,
    options: &[String],
    cubin: bool,
) -> Result<Vec<u8>, DeviceError> {
    shielded("NVRTC compile", || {
        let c_code =
            CString::new(code).map_err(|_| DeviceError("kernel source holds a NUL byte".into()))?;
        let c_name = CString::new(format!("{name}.cu")).unwrap_or_default();
        let header_name = CString::new(COMMON_HEADER.0).unwrap_or_default();
        let header_code = CString::new(COMMON_HEADER.1).unwrap_or_default();
        let header_names = [header_name.as_ptr()];
        let header_codes = [header_code.as_ptr()];
        let c_options: Vec<CString> = options
            .iter()
            .map(|o| CString::new(o.as_str()).unwrap_or_default())
            .collect();
        let option_ptrs: Vec<*const c_char> = c_options.iter().map(|o| o.as_ptr()).collect();

        let mut program: nvrtc_sys::nvrtcProgram = std::ptr::null_mut();
        // SAFETY: every pointer refers to a NUL-terminated string that outlives
        // the program (all are locals of this function), and the header
        // arrays both have exactly one element as declared.
        let status = unsafe {
            nvrtc_sys::nvrtcCreateProgram(
                &mut program,
                c_code.as_ptr(),
                c_name.as_ptr(),
                1,
                header_codes.as_ptr(),
                header_names.as_ptr(),
            )
        };
        nvrtc_check(status, "nvrtcCreateProgram")?;
        let outcome = (|| {
            // SAFETY: `program` was created above and is destroyed only after
            // this closure; the option pointers are valid C strings.
            let status = unsafe {
                nvrtc_sys::nvrtcCompileProgram(
                    program,
                    option_ptrs.len() as i32,
                    option_ptrs.as_ptr(),
                )
            };
            if status != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS {
                return Err(DeviceError(format!(
                    "NVRTC could not compile {name}.cu ({status:?}):\n{}",
                    program_log(program)
                )));
            }
            let mut size = 0usize;
            let mut image;
            if cubin {
                // SAFETY: `program` compiled successfully; `size` is a valid
                // out-pointer and `image` has exactly `size` bytes.
                unsafe {
                    nvrtc_check(
                        nvrtc_sys::nvrtcGetCUBINSize(program, &mut size),
                        "nvrtcGetCUBINSize",
                    )?;
                    image = vec![0u8; size];
                    nvrtc_check(
                        nvrtc_sys::nvrtcGetCUBIN(program, image.as_mut_ptr().cast()),
                        "nvrtcGetCUBIN",
                    )?;
                }
            } else {
                // SAFETY: as above, for the PTX text.
                unsafe {
                    nvrtc_check(
                        nvrtc_sys::nvrtcGetPTXSize(program, &mut size),
                        "nvrtcGetPTXSize",
                    )?;
                    image = vec![0u8; size];
                    nvrtc_check(
                        nvrtc_sys::nvrtcGetPTX(program, image.as_mut_ptr().cast()),
                        "nvrtcGetPTX",
                    )?;
                }
            }
            if image.is_empty() {
                return Err(DeviceError(format!("NVRTC produced no code for {name}.cu")));
            }
            Ok(image)
        })();
        // SAFETY: `program` is a live program created above, destroyed once.
        unsafe {
            nvrtc_sys::nvrtcDestroyProgram(&mut program);
        }
        outcome
    })
}

fn program_log(program: nvrtc_sys::nvrtcProgram) -> String {
    let mut size = 0usize;
    // SAFETY: `program` is live (see caller); `size` is a valid out-pointer
    // and the buffer has exactly `size` bytes.
    unsafe {
        if nvrtc_sys::nvrtcGetProgramLogSize(program, &mut size)
            != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS
            || size == 0
        {
            return String::new();
        }
        let mut log = vec![0u8; size];
        if nvrtc_sys::nvrtcGetProgramLog(program, log.as_mut_ptr().cast())
            != nvrtc_sys::nvrtcResult::NVRTC_SUCCESS
        {
            return String::new();
        }
        CStr::from_bytes_until_nul(&log)
            .map(|s| s.to_string_lossy().into_owned())
            .unwrap_or_default()
    }
}

/// Compiles `source` for `compute_capability` without touching a device or
/// the cache; used by the CI check that every kernel builds.
pub fn compile_check(
    source: &KernelSource,
    compute_capability: (i32, i32),
) -> Result<usize, DeviceError> {
    let options = compile_options(source, compute_capability);
    compile(source.name, source.code, &options, true).map(|image| image.len())
}

// ---------------------------------------------------------------------------
// Arenas: device memory + pinned staging, allocated once and reused
// ---------------------------------------------------------------------------

/// A device buffer and a pinned host buffer, bound to one stream. The host
/// buffer mirrors the start of the device buffer; it may be shorter, because
/// families keep their device-only working arrays at the end of a launch's
/// image and never copy them. Grows (never shrinks) to the largest batch
/// seen, so steady-state batches allocate nothing.
///
/// Uploads, launches and downloads are queued on the arena's stream and
/// return at once; `staging()` and `synchronize()` wait for them. A family
/// with two arenas (one per lane) can therefore pack the next batch on the
/// CPU while the GPU copies and computes the current one.
pub struct Arena {
    gpu: Arc<Gpu>,
    stream: Arc<CudaStream>,
    device: Option<CudaSlice<u8>>,
    staging: Option<PinnedHostSlice<u8>>,
    /// Device address of `device`, cached so queued work needs no borrow.
    base: u64,
    capacity: usize,
    /// Length of `staging`: uploads and downloads stay below it.
    host_capacity: usize,
    /// Work queued on the stream that may still touch either buffer.
    pending: bool,
    /// Host ranges that queued copies may still read or write, each with
    /// the fence recorded after it (`None`: none yet).
    in_flight: Vec<(std::ops::Range<usize>, Option<u64>)>,
    /// Fences recorded and not yet waited for, oldest first.
    fences: std::collections::VecDeque<(u64, cudarc::driver::CudaEvent)>,
    next_fence: u64,
}

/// A point in an arena's stream: everything queued before it. See
/// [`Arena::fence`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Fence(u64);

/// A timing event on an arena's stream, for the debug timeline: when the
/// GPU reached it, read with [`Arena::mark_time`] once it has passed.
pub struct Mark(cudarc::driver::CudaEvent);

/// One kernel parameter.
#[derive(Clone, Copy, Debug)]
pub enum Arg {
    /// A byte offset into the arena, passed as a device pointer.
    Offset(usize),
    U32(u32),
    I32(i32),
    U64(u64),
    F32(f32),
    F64(f64),
}

impl Arena {
    pub fn capacity(&self) -> usize {
        self.capacity
    }

    /// Bytes of the pinned host buffer (a prefix of the device buffer).
    pub fn host_capacity(&self) -> usize {
        self.host_capacity
    }

    /// Makes room for `bytes` on both sides, reallocating buffers that are
    /// smaller. Sizes grow by at least half again, to make regrowth rare.
    pub fn reserve(&mut self, bytes: usize) -> Result<(), DeviceError> {
        self.reserve_split(bytes, bytes)
    }

    /// Makes room for `device_bytes` on the device of which the first
    /// `host_bytes` (at most `device_bytes`) are mirrored in pinned host
    /// memory.
    pub fn reserve_split(
        &mut self,
        device_bytes: usize,
        host_bytes: usize,
    ) -> Result<(), DeviceError> {
        let host_bytes = host_bytes.min(device_bytes);
        if device_bytes <= self.capacity && host_bytes <= self.host_capacity {
            return Ok(());
        }
        self.synchronize()?;
        let grown = |want: usize, have: usize| {
            if want <= have {
                have
            } else {
                want.max(have + have / 2).next_multiple_of(1 << 16)
            }
        };
        let new_capacity = grown(device_bytes, self.capacity);
        let new_host = grown(host_bytes, self.host_capacity).min(new_capacity);
        shielded("arena allocation", || {
            // Free the old buffers first so a regrowth does not need twice
            // the memory.
            self.device = None;
            self.staging = None;
            self.capacity = 0;
            self.host_capacity = 0;
            self.base = 0;
            // SAFETY: the device buffer is written by uploads or kernels
            // before any read of the same bytes; nothing reads it uninitialised.
            let device = unsafe { self.stream.alloc::<u8>(new_capacity) }
                .map_err(|e| err(&format!("cuMemAlloc of {new_capacity} bytes failed"), e))?;
            // Plain (cached) page-locked memory: the host reads every result
            // back from this buffer, and CUDA documents CPU reads from the
            // write-combined kind (what `alloc_pinned` asks for) as very slow.
            // On an H200 host the WFA decode times stayed within the noise
            // between machines either way (BENCHMARKS.md).
            // SAFETY: pinned bytes are only exposed through `staging()`, which
            // hands out `u8`s; every bit pattern is a valid `u8`.
            let staging = unsafe { self.gpu.ctx.alloc_pinned_with_flags::<u8>(new_host, 0) }
                .map_err(|e| err(&format!("cuMemHostAlloc of {new_host} bytes failed"), e))?;
            let base = {
                use cudarc::driver::DevicePtr;
                let (ptr, _record) = device.device_ptr(&self.stream);
                ptr
            };
            self.device = Some(device);
            self.staging = Some(staging);
            self.base = base;
            self.capacity = new_capacity;
            self.host_capacity = new_host;
            Ok(())
        })
    }

    /// The pinned host buffer, `host_capacity()` bytes long, for packing inputs
    /// and reading outputs. Waits for queued work first, so what it shows is
    /// final and writing to it cannot race a copy in flight.
    pub fn staging(&mut self) -> Result<&mut [u8], DeviceError> {
        self.synchronize()?;
        match self.staging.as_mut() {
            Some(staging) => staging.as_mut_slice().map_err(|e| err("pinned buffer", e)),
            None => Ok(&mut []),
        }
    }

    /// Part of the pinned host buffer, waiting only for the queued copies
    /// that touch `range` (all queued work if one of them has no fence
    /// after it): a launch's inputs can be packed while the previous
    /// launch's kernel and copies, on other bytes, still run.
    pub fn staging_part(
        &mut self,
        range: std::ops::Range<usize>,
    ) -> Result<&mut [u8], DeviceError> {
        self.check_range(&range)?;
        let overlaps = |r: &std::ops::Range<usize>| r.start < range.end && range.start < r.end;
        let mut latest = None;
        for (r, fence) in &self.in_flight {
            if overlaps(r) {
                match fence {
                    None => {
                        latest = None;
                        self.synchronize()?;
                        break;
                    }
                    Some(f) => latest = latest.max(Some(*f)),
                }
            }
        }
        if let Some(f) = latest {
            self.wait(Fence(f))?;
        }
        let staging = self
            .staging
            .as_ref()
            .ok_or_else(|| DeviceError("arena used before reserve()".into()))?;
        let all = staging.as_slice().map_err(|e| err("pinned buffer", e))?;
        let start = all.as_ptr().cast_mut();
        // SAFETY: `range` lies inside the pinned buffer (`check_range`), no
        // queued copy reads or writes any of its bytes any more (waited for
        // above; copies queued later need `&mut self`, which the returned
        // borrow holds), and bytes of pinned memory are plain `u8`s.
        Ok(unsafe { std::slice::from_raw_parts_mut(start.add(range.start), range.len()) })
    }

    /// Records a fence after everything queued so far; [`Arena::wait`] on
    /// it waits for that work alone, not for what is queued later.
    pub fn fence(&mut self) -> Result<Fence, DeviceError> {
        let id = self.next_fence;
        let stream = self.stream.clone();
        let event = shielded("event record", || {
            stream
                .record_event(None)
                .map_err(|e| err("event record failed", e))
        })?;
        self.next_fence += 1;
        for (_, fence) in self.in_flight.iter_mut().filter(|(_, f)| f.is_none()) {
            *fence = Some(id);
        }
        self.fences.push_back((id, event));
        Ok(Fence(id))
    }

    /// Records a [`Mark`] after everything queued so far. Timing events
    /// cost more than fences: for `SEQSHIM_LOG=debug` timelines only. The
    /// GPU's first mark also sets its clock's zero, waiting for this
    /// stream once.
    pub fn mark(&mut self) -> Result<Mark, DeviceError> {
        let stream = self.stream.clone();
        let timed = || {
            stream
                .record_event(Some(cudarc::driver::sys::CUevent_flags::CU_EVENT_DEFAULT))
                .map_err(|e| err("event record failed", e))
        };
        self.gpu.clock.get_or_try_init(|| {
            shielded("clock event", || {
                let zero = timed()?;
                zero.synchronize()
                    .map_err(|e| err("event synchronize failed", e))?;
                Ok((zero, Instant::now()))
            })
        })?;
        Ok(Mark(shielded("event record", timed)?))
    }

    /// When the GPU reached `mark`, on the host's clock (to within the
    /// wake-up of one synchronize); waits for it. `None` if the driver
    /// cannot say.
    pub fn mark_time(&self, mark: &Mark) -> Option<Instant> {
        let (zero, at) = self.gpu.clock.get()?;
        let ms = shielded("event timing", || {
            zero.elapsed_ms(&mark.0)
                .map_err(|e| err("event timing failed", e))
        })
        .ok()?;
        let offset = std::time::Duration::from_secs_f64(f64::from(ms.abs()) / 1e3);
        if ms >= 0.0 {
            at.checked_add(offset)
        } else {
            at.checked_sub(offset)
        }
    }

    /// Waits for the work queued before `fence` (copies back into the
    /// staging buffer included).
    pub fn wait(&mut self, fence: Fence) -> Result<(), DeviceError> {
        while let Some((id, _)) = self.fences.front() {
            if *id > fence.0 {
                break;
            }
            let Some((id, event)) = self.fences.pop_front() else {
                break;
            };
            let outcome = shielded("event synchronize", || {
                event
                    .synchronize()
                    .map_err(|e| err("kernel or copy failed", e))
            });
            if let Err(e) = outcome {
                // The stream's work cannot be trusted past a failure.
                let _ = self.synchronize();
                return Err(e);
            }
            self.in_flight.retain(|(_, f)| f.is_none_or(|f| f > id));
        }
        Ok(())
    }

    fn check_range(&self, range: &std::ops::Range<usize>) -> Result<(), DeviceError> {
        if range.start > range.end || range.end > self.host_capacity || self.staging.is_none() {
            return Err(DeviceError(format!(
                "arena range {range:?} outside the host buffer of {} bytes",
                self.host_capacity
            )));
        }
        Ok(())
    }

    /// Pinned host memory for `range`, without waiting for queued work: only
    /// for queuing more copies, which the stream orders after that work.
    fn host_range(&self, range: &std::ops::Range<usize>) -> Result<(*mut u8, usize), DeviceError> {
        self.check_range(range)?;
        let staging = self
            .staging
            .as_ref()
            .ok_or_else(|| DeviceError("arena used before reserve()".into()))?;
        let all = staging.as_slice().map_err(|e| err("pinned buffer", e))?;
        let part = &all[range.clone()];
        Ok((part.as_ptr().cast_mut(), part.len()))
    }

    /// Queues a copy of `range` of the staging buffer to the same range on
    /// the device.
    pub fn upload(&mut self, range: std::ops::Range<usize>) -> Result<(), DeviceError> {
        let (host, len) = self.host_range(&range)?;
        let dst = self.base + range.start as u64;
        let stream = self.stream.cu_stream();
        shielded("upload", || {
            // SAFETY: `host..host+len` lies inside the pinned buffer and
            // `dst..dst+len` inside the device buffer (checked by
            // `host_range`); both live until the stream is synchronized,
            // which `staging`, `reserve`, `synchronize` and `Drop` ensure
            // before either can be touched or freed.
            unsafe {
                let src = std::slice::from_raw_parts(host.cast_const(), len);
                cudarc::driver::result::memcpy_htod_async(dst, src, stream)
            }
            .map_err(|e| err("host-to-device copy failed", e))
        })?;
        self.pending = true;
        self.in_flight.push((range, None));
        Ok(())
    }

    /// Queues a copy of `range` of device memory back into the staging
    /// buffer; read it through `staging()`, which waits for it.
    pub fn download(&mut self, range: std::ops::Range<usize>) -> Result<(), DeviceError> {
        let (host, len) = self.host_range(&range)?;
        let src = self.base + range.start as u64;
        let stream = self.stream.cu_stream();
        shielded("download", || {
            // SAFETY: as in `upload`; the host range is not handed out to
            // Rust code until the stream has been synchronized.
            unsafe {
                let dst = std::slice::from_raw_parts_mut(host, len);
                cudarc::driver::result::memcpy_dtoh_async(dst, src, stream)
            }
            .map_err(|e| err("device-to-host copy failed", e))
        })?;
        self.pending = true;
        self.in_flight.push((range, None));
        Ok(())
    }

    /// Queues `kernel` on this arena's stream. `Arg::Offset` parameters
    /// become device pointers into the arena and are bounds-checked here;
    /// what the kernel does with them is the kernel's contract.
    pub fn launch(
        &mut self,
        kernel: &Kernel,
        grid: u32,
        block: u32,
        shared_bytes: u32,
        args: &[Arg],
    ) -> Result<(), DeviceError> {
        if grid == 0 || block == 0 {
            return Err(DeviceError(format!("{}: empty launch", kernel.name)));
        }
        if self.device.is_none() {
            return Err(DeviceError("arena used before reserve()".into()));
        }
        // Materialise every pointer parameter with a stable address.
        let mut pointers: Vec<u64> = Vec::new();
        for arg in args {
            if let Arg::Offset(offset) = *arg {
                if offset > self.capacity {
                    return Err(DeviceError(format!(
                        "{}: offset {offset} outside arena",
                        kernel.name
                    )));
                }
                pointers.push(self.base + offset as u64);
            }
        }
        let stream = self.stream.clone();
        shielded("kernel launch", || {
            let mut builder = stream.launch_builder(&kernel.function);
            let mut next_pointer = pointers.iter();
            for arg in args {
                match arg {
                    Arg::Offset(_) => {
                        if let Some(p) = next_pointer.next() {
                            builder.arg(p);
                        }
                    }
                    Arg::U32(v) => {
                        builder.arg(v);
                    }
                    Arg::I32(v) => {
                        builder.arg(v);
                    }
                    Arg::U64(v) => {
                        builder.arg(v);
                    }
                    Arg::F32(v) => {
                        builder.arg(v);
                    }
                    Arg::F64(v) => {
                        builder.arg(v);
                    }
                }
            }
            let config = LaunchConfig {
                grid_dim: (grid, 1, 1),
                block_dim: (block, 1, 1),
                shared_mem_bytes: shared_bytes,
            };
            // SAFETY: the argument list is built from `args`, whose order and
            // types the calling family declares to match the kernel's C
            // signature; pointer arguments are inside this arena (checked
            // above) and the arena's buffers stay alive until the stream is
            // synchronized (see `upload`).
            unsafe { builder.launch(config) }
                .map_err(|e| err(&format!("launch of {} failed", kernel.name), e))?;
            Ok(())
        })?;
        self.pending = true;
        Ok(())
    }

    /// Waits for everything queued on this arena's stream.
    pub fn synchronize(&mut self) -> Result<(), DeviceError> {
        if !self.pending {
            return Ok(());
        }
        let outcome = shielded("stream synchronize", || {
            self.stream
                .synchronize()
                .map_err(|e| err("kernel or copy failed", e))
        });
        // Even on failure nothing further will run for this work.
        self.pending = false;
        self.in_flight.clear();
        self.fences.clear();
        outcome
    }
}

impl Drop for Arena {
    fn drop(&mut self) {
        // The buffers must outlive any copy or kernel still queued.
        let _ = self.synchronize();
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// On a GPU machine: asking for more device memory than exists is an
    /// error, not a crash, and the arena stays usable afterwards.
    #[test]
    fn out_of_device_memory_is_an_error() {
        let Some(gpu) = gpus().first() else {
            eprintln!(
                "SKIPPED: no GPU in use ({})",
                crate::engine::report::backend_report().trim()
            );
            return;
        };
        let mut arena = gpu.arena(0);
        let too_much = gpu.info().total_memory.saturating_mul(4).max(1 << 40);
        assert!(arena.reserve(too_much).is_err());
        arena
            .reserve(1 << 20)
            .expect("a small arena after a failed one");
        arena.staging().expect("staging")[..4].copy_from_slice(&[1, 2, 3, 4]);
        arena.upload(0..4).expect("upload");
        arena.download(0..4).expect("download");
        assert_eq!(&arena.staging().expect("staging")[..4], &[1, 2, 3, 4]);
    }

    #[test]
    fn fnv1a_separates_parts() {
        assert_ne!(fnv1a(&[b"ab", b"c"]), fnv1a(&[b"a", b"bc"]));
        assert_eq!(fnv1a(&[b"x"]), fnv1a(&[b"x"]));
    }

    #[test]
    fn options_name_the_architecture() {
        let source = KernelSource {
            name: "t",
            code: "",
            options: &["--fmad=false"],
        };
        let options = compile_options(&source, (9, 0));
        assert_eq!(options[0], "--gpu-architecture=sm_90");
        assert!(options.contains(&"--fmad=false".to_string()));
    }
}
