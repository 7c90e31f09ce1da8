//! seqshim's own C API (`include/seqshim.h`): version, backend report,
//! selftest and status codes. The families add their batch APIs beside it.

use std::ffi::{c_char, c_int};

use crate::ffi_guard;

/// Success.
pub const SEQSHIM_OK: c_int = 0;
/// A required pointer argument was null.
pub const SEQSHIM_ERR_NULL_POINTER: c_int = -1;
/// An argument was out of range or inconsistent.
pub const SEQSHIM_ERR_INVALID_ARGUMENT: c_int = -2;
/// An internal error was contained; the call had no effect.
pub const SEQSHIM_ERR_INTERNAL: c_int = -3;
/// The GPU path failed and SEQSHIM_STRICT forbade the CPU fallback, or a GPU
/// was expected to run the work and did not.
pub const SEQSHIM_ERR_GPU: c_int = -4;
/// A result differed from the CPU reference.
pub const SEQSHIM_ERR_MISMATCH: c_int = -5;

const VERSION: &[u8] = concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes();

/// The library version as a static NUL-terminated string, e.g. `"0.1.0"`.
///
/// # Safety
/// Always safe to call. The returned pointer is valid for the life of the
/// process and must not be freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_version() -> *const c_char {
    VERSION.as_ptr().cast()
}

/// A short English description of a status code, as a static string.
///
/// # Safety
/// Always safe to call. The returned pointer is valid for the life of the
/// process and must not be freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_strerror(status: c_int) -> *const c_char {
    let text: &'static [u8] = match status {
        SEQSHIM_OK => b"success\0",
        SEQSHIM_ERR_NULL_POINTER => b"a required pointer argument was null\0",
        SEQSHIM_ERR_INVALID_ARGUMENT => b"an argument was out of range\0",
        SEQSHIM_ERR_INTERNAL => b"internal error (contained; see the [seqshim] log line)\0",
        SEQSHIM_ERR_GPU => b"the GPU path failed and no CPU fallback was allowed\0",
        SEQSHIM_ERR_MISMATCH => b"a result differed from the CPU reference\0",
        _ => b"unknown status code\0",
    };
    text.as_ptr().cast()
}

/// Writes a human-readable report of the backend in use into `buf`, like
/// `snprintf`: at most `len - 1` bytes and a terminating NUL. Returns the
/// length of the whole report (without NUL), so a caller whose buffer was too
/// small can retry with a larger one; negative `SEQSHIM_ERR_*` on error.
/// `buf` may be null when `len` is 0, to ask for the length only.
///
/// # Safety
/// `buf` must be null or valid for writes of `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_backend_info(buf: *mut c_char, len: usize) -> c_int {
    ffi_guard!(SEQSHIM_ERR_INTERNAL, {
        // SAFETY: forwarded from this function's contract.
        let Some(out) = (unsafe { super::guard::bytes_mut(buf.cast(), len) }) else {
            return SEQSHIM_ERR_NULL_POINTER;
        };
        let report = crate::engine::report::backend_report();
        let bytes = report.as_bytes();
        if let Some(room) = out.len().checked_sub(1) {
            let n = bytes.len().min(room);
            out[..n].copy_from_slice(&bytes[..n]);
            out[n] = 0;
        }
        c_int::try_from(bytes.len()).unwrap_or(c_int::MAX)
    })
}

/// Runs the selftest through the scheduler: on a GPU when one is in use
/// (compiling or loading the selftest kernel, uploading, launching,
/// downloading), on the CPU otherwise, and compares every value with the CPU
/// reference. Returns `SEQSHIM_OK`, `SEQSHIM_ERR_MISMATCH`, or
/// `SEQSHIM_ERR_GPU` when GPUs are in use but the work did not run on them.
///
/// # Safety
/// Always safe to call, from any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_selftest() -> c_int {
    ffi_guard!(SEQSHIM_ERR_INTERNAL, {
        let report = crate::selftest::run(64, 4_096);
        let place = if report.devices.is_empty() {
            "the CPU".to_string()
        } else {
            report.devices.join(", ")
        };
        crate::log_info!(
            "selftest: {} values on {place}, {} mismatches, {} GPU batches, {} rescued",
            report.values,
            report.mismatches,
            report.gpu_batches,
            report.rescued
        );
        if report.mismatches > 0 {
            SEQSHIM_ERR_MISMATCH
        } else if !report.passed() {
            SEQSHIM_ERR_GPU
        } else {
            SEQSHIM_OK
        }
    })
}
