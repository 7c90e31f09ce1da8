//! NVRTC compilation and the on-disk cache: kernel sources become CUBINs
//! for the device's own architecture, cached by source hash, options and
//! NVRTC version; `compile_check` lets CI compile every kernel without a
//! GPU.

use std::ffi::{CStr, CString, c_char};
use std::path::{Path, PathBuf};
use std::sync::atomic::{AtomicUsize, Ordering};
use std::time::Instant;

use cudarc::nvrtc::{Ptx, sys as nvrtc_sys};

use super::config;
use super::context::{err, shielded};
use super::{DeviceError, Gpu, Kernel, KernelSource};

/// Shared helpers every kernel may `#include "common.cuh"`.
const COMMON_HEADER: (&str, &str) = ("common.cuh", include_str!("../../../kernels/common.cuh"));

static COMPILED: AtomicUsize = AtomicUsize::new(0);
static CACHE_HITS: AtomicUsize = AtomicUsize::new(0);

/// Kernel compilations and cache hits so far in this process.
pub fn kernel_counters() -> (usize, usize) {
    (
        COMPILED.load(Ordering::Relaxed),
        CACHE_HITS.load(Ordering::Relaxed),
    )
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

impl Gpu {
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
}

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

/// The cache file of `source` compiled for `compute_capability` by NVRTC
/// version `nvrtc`. The key covers the source, the shared header, the
/// options, the NVRTC version and the architecture, so any change
/// recompiles; the name also carries seqshim's version in the clear, for
/// [`cache_holds`].
fn file_name_for(
    source: &KernelSource,
    compute_capability: (i32, i32),
    nvrtc: (i32, i32),
) -> String {
    let options = compile_options(source, compute_capability);
    let key = fnv1a(&[
        source.code.as_bytes(),
        COMMON_HEADER.1.as_bytes(),
        options.join(" ").as_bytes(),
        format!("{}.{}", nvrtc.0, nvrtc.1).as_bytes(),
        env!("CARGO_PKG_VERSION").as_bytes(),
    ]);
    format!(
        "{}-sm_{}{}-{}-{key:016x}.cubin",
        source.name,
        compute_capability.0,
        compute_capability.1,
        env!("CARGO_PKG_VERSION")
    )
}

/// Whether `kernel` has a CUBIN of this version of seqshim in the on-disk
/// cache. Asked before NVRTC is loaded and any GPU opened, so neither
/// NVRTC's version nor the architecture is checked: a cache written with
/// another NVRTC, or shared by GPUs of different kinds, answers yes.
fn cache_holds(kernel: &str) -> bool {
    config::get()
        .kernel_cache_dir()
        .is_some_and(|dir| dir_holds(&dir, kernel))
}

/// [`cache_holds`] for the cache folder `dir`.
fn dir_holds(dir: &Path, kernel: &str) -> bool {
    let (prefix, version) = (
        format!("{kernel}-sm_"),
        format!("-{}-", env!("CARGO_PKG_VERSION")),
    );
    std::fs::read_dir(dir).is_ok_and(|entries| {
        entries.filter_map(|e| e.ok()).any(|e| {
            e.file_name()
                .to_str()
                .is_some_and(|name| name.starts_with(&prefix) && name.contains(&version))
                && e.metadata().is_ok_and(|m| m.len() > 0)
        })
    })
}

/// A kernel that uses what ours use (the shared header, shared memory,
/// atomics, 64-bit arithmetic), compiled once by [`prime`].
const PRIMER: &str = r#"#include "common.cuh"
extern "C" __global__ void seqshim_primer(unsigned long long *out, const unsigned int *in, int n) {
    __shared__ unsigned long long sum[32];
    int i = blockIdx.x * blockDim.x + threadIdx.x;
    if (threadIdx.x < 32) sum[threadIdx.x] = 0;
    __syncthreads();
    if (i < n) atomicAdd(&sum[threadIdx.x % 32], (unsigned long long)in[i] * 2654435761ull);
    __syncthreads();
    if (threadIdx.x < 32) atomicAdd(&out[threadIdx.x], sum[threadIdx.x]);
}
"#;

/// The architecture the primer is compiled for: one every NVRTC we load
/// (12 and 13) supports.
const PRIMER_ARCH: (i32, i32) = (7, 5);

/// Loads NVRTC (once per process; later calls return at once), so that
/// its exit handlers are registered before the exit wait of a start-up
/// (see [`prime`]).
pub(super) fn load() {
    static LOADED: std::sync::Once = std::sync::Once::new();
    LOADED.call_once(|| {
        let started = Instant::now();
        match nvrtc_version() {
            Ok(_) => crate::log_debug!(
                "NVRTC loaded in {:.1} ms",
                started.elapsed().as_secs_f64() * 1e3
            ),
            Err(e) => crate::log_debug!("NVRTC not loaded: {e}"),
        }
    });
}

/// Unless `kernel` is in the cache: compiles a small program, so that
/// NVRTC's first compile is over (after [`load`]).
///
/// Why: NVRTC registers exit handlers of its own (destructors of its
/// internal state: about 3,300 as it loads, a dozen more, its C++
/// runtime's included, in its first compile). Exit handlers run last
/// registered first, so an exit while a start-up thread loaded NVRTC or
/// compiled ran them before the start-up's exit wait and tore NVRTC down
/// under the compiler: `free(): invalid pointer` or a segmentation fault,
/// and the host process was gone. So a background start-up loads NVRTC,
/// and primes it when its family's kernel is not cached, on the caller's
/// thread before it registers its exit wait (`StartUp::begin`; a few
/// milliseconds, or a tenth of a second or two with the priming, once per
/// process), and the probe loads it before it registers its own: the waits
/// then run ahead of NVRTC's handlers. A kernel cached for another
/// architecture only, or by another NVRTC, is compiled without priming.
pub(super) fn prime(kernel: &str) {
    static PRIMED: std::sync::Mutex<bool> = std::sync::Mutex::new(false);
    let mut primed = PRIMED.lock().unwrap_or_else(|p| p.into_inner());
    if *primed || cache_holds(kernel) {
        return;
    }
    let source = KernelSource {
        name: "primer",
        code: PRIMER,
        options: &[],
    };
    let started = Instant::now();
    match compile(
        source.name,
        source.code,
        &compile_options(&source, PRIMER_ARCH),
        true,
    ) {
        Ok(_) => {
            *primed = true;
            crate::log_debug!(
                "NVRTC primed in {:.0} ms (kernel {kernel} not in the cache)",
                started.elapsed().as_secs_f64() * 1e3
            );
        }
        Err(e) => crate::log_debug!("NVRTC not primed: {e}"),
    }
}

/// Compiles `source` to a CUBIN for `compute_capability`, reading and writing
/// the on-disk cache (see [`file_name_for`]).
fn compile_cached(
    source: &KernelSource,
    compute_capability: (i32, i32),
) -> Result<Vec<u8>, DeviceError> {
    let options = compile_options(source, compute_capability);
    let nvrtc = nvrtc_version()?;
    let version = format!("{}.{}", nvrtc.0, nvrtc.1);
    let file_name = file_name_for(source, compute_capability, nvrtc);
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
    // Ahead of whatever NVRTC registered while it compiled (see `prime`).
    static HOOKED: std::sync::Once = std::sync::Once::new();
    HOOKED.call_once(super::hook_exit);
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

#[cfg(test)]
mod tests {
    use super::*;

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

    /// The start-up primes NVRTC unless the cache holds the kernel: a
    /// cache file as `compile_cached` names it counts, whatever the
    /// architecture and NVRTC; an empty file, another kernel whose name
    /// starts alike, or another version of seqshim does not.
    #[test]
    fn the_cache_holds_a_kernel_by_the_name_compiles_give_it() {
        let dir = std::env::temp_dir().join(format!("seqshim-cache-holds-{}", std::process::id()));
        let _ = std::fs::remove_dir_all(&dir);
        std::fs::create_dir_all(&dir).unwrap();
        let source = |name| KernelSource {
            name,
            code: "__global__ void k() {}",
            options: &[],
        };
        assert!(!dir_holds(&dir, "ec"));
        assert!(!dir_holds(&dir.join("absent"), "ec"));
        let write = |name: &str, bytes: &[u8]| std::fs::write(dir.join(name), bytes).unwrap();
        write(&file_name_for(&source("ec"), (9, 0), (13, 0)), b"");
        write(&file_name_for(&source("ecx"), (9, 0), (13, 0)), b"cubin");
        write("ec-sm_90-0.0.0-0123456789abcdef.cubin", b"cubin");
        assert!(
            !dir_holds(&dir, "ec"),
            "empty, another kernel or another version"
        );
        write(&file_name_for(&source("ec"), (7, 5), (12, 4)), b"cubin");
        assert!(dir_holds(&dir, "ec"));
        assert!(dir_holds(&dir, "ecx"));
        assert!(!dir_holds(&dir, "wfa"));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
