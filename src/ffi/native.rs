//! seqshim's own C API (`include/seqshim.h`): version, backend report,
//! selftest and status codes. The families add their batch APIs beside it.

use std::ffi::{c_char, c_int};

use super::status::{
    SEQSHIM_E_DEVICE, SEQSHIM_E_INTERNAL, SEQSHIM_E_MISMATCH, SEQSHIM_E_NULL, SEQSHIM_OK,
    seqshim_status,
};
use crate::ffi_guard;

const VERSION: &[u8] = concat!(env!("CARGO_PKG_VERSION"), "\0").as_bytes();

/// The library version as a static NUL-terminated string, e.g. `"0.2.0"`.
///
/// # Safety
/// Always safe to call. The returned pointer is valid for the life of the
/// process and must not be freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_version() -> *const c_char {
    VERSION.as_ptr().cast()
}

/// Writes a human-readable report of the backend in use into `buf`, like
/// `snprintf`: at most `len - 1` bytes and a terminating NUL. Returns the
/// length of the whole report (without NUL), so a caller whose buffer was too
/// small can retry with a larger one; a negative `seqshim_status` on error.
/// `buf` may be null when `len` is 0, to ask for the length only.
///
/// # Safety
/// `buf` must be null or valid for writes of `len` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_backend_info(buf: *mut c_char, len: usize) -> c_int {
    ffi_guard!(SEQSHIM_E_INTERNAL as c_int, {
        // SAFETY: forwarded from this function's contract.
        let Some(out) = (unsafe { super::guard::bytes_mut(buf.cast(), len) }) else {
            return SEQSHIM_E_NULL as c_int;
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
/// reference. Returns `SEQSHIM_OK`, `SEQSHIM_E_MISMATCH`, or
/// `SEQSHIM_E_DEVICE` when GPUs are in use but the work did not run on them.
///
/// # Safety
/// Always safe to call, from any thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_selftest() -> seqshim_status {
    ffi_guard!({
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
            SEQSHIM_E_MISMATCH
        } else if !report.passed() {
            SEQSHIM_E_DEVICE
        } else {
            SEQSHIM_OK
        }
    })
}
