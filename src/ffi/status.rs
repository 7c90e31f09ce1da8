//! The one status type of seqshim's native C API. Every native function
//! that can fail returns a `seqshim_status` (0 success, negative error), and
//! per-item statuses of a batch use the same codes. The upstream mirrors
//! (WFA2, BOA, f5c) keep their own return conventions.

use std::ffi::{c_char, c_int};

/// The outcome of a native call or of one batch item.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub enum seqshim_status {
    /// Success.
    SEQSHIM_OK = 0,
    /// A required pointer argument was null.
    SEQSHIM_E_NULL = -1,
    /// An argument was out of range or inconsistent.
    SEQSHIM_E_ARG = -2,
    /// An option (metric, penalties, mode, ...) is unknown or unsupported.
    SEQSHIM_E_OPTION = -3,
    /// An input is beyond a documented limit (length, count, graph size).
    SEQSHIM_E_LIMIT = -4,
    /// The call is out of lifecycle order: results asked for before `run`,
    /// or items added to a batch that has run and was not reset.
    SEQSHIM_E_STATE = -5,
    /// An item index beyond the batch.
    SEQSHIM_E_INDEX = -6,
    /// The caller's buffer is too small; the needed size was reported.
    SEQSHIM_E_BUFFER = -7,
    /// The GPU path failed and `SEQSHIM_STRICT=1` forbade the CPU fallback,
    /// or a GPU was expected to run the work and did not.
    SEQSHIM_E_DEVICE = -8,
    /// The computation refused the item the way upstream does (an
    /// unfeasible alignment, a score limit reached); the item has no result.
    SEQSHIM_E_REFUSED = -9,
    /// The item has no result because there is nothing to compute (a POA
    /// window with no non-empty read, or no consensus bundle).
    SEQSHIM_E_EMPTY = -10,
    /// An internal error was contained; the call had no effect.
    SEQSHIM_E_INTERNAL = -11,
    /// A bug (a Rust panic) was caught at the C boundary; the call had no
    /// effect. Please report it with the `[seqshim]` log line.
    SEQSHIM_E_PANIC = -12,
    /// A result differed from the CPU reference (the selftest).
    SEQSHIM_E_MISMATCH = -13,
    /// A file could not be opened, read or written.
    SEQSHIM_E_IO = -14,
    /// An input file is malformed.
    SEQSHIM_E_FORMAT = -15,
    /// Memory the call needs could not be allocated; the call had no effect.
    SEQSHIM_E_NOMEM = -16,
}

pub use seqshim_status::*;

/// Every status, for `seqshim_strerror` and its test.
const ALL: [seqshim_status; 17] = [
    SEQSHIM_OK,
    SEQSHIM_E_NULL,
    SEQSHIM_E_ARG,
    SEQSHIM_E_OPTION,
    SEQSHIM_E_LIMIT,
    SEQSHIM_E_STATE,
    SEQSHIM_E_INDEX,
    SEQSHIM_E_BUFFER,
    SEQSHIM_E_DEVICE,
    SEQSHIM_E_REFUSED,
    SEQSHIM_E_EMPTY,
    SEQSHIM_E_INTERNAL,
    SEQSHIM_E_PANIC,
    SEQSHIM_E_MISMATCH,
    SEQSHIM_E_IO,
    SEQSHIM_E_FORMAT,
    SEQSHIM_E_NOMEM,
];

impl seqshim_status {
    /// A static NUL-terminated description.
    pub fn text(self) -> &'static [u8] {
        match self {
            SEQSHIM_OK => b"success\0",
            SEQSHIM_E_NULL => b"a required pointer argument was null\0",
            SEQSHIM_E_ARG => b"an argument was out of range or inconsistent\0",
            SEQSHIM_E_OPTION => b"an option is unknown or unsupported\0",
            SEQSHIM_E_LIMIT => b"an input is beyond a documented limit\0",
            SEQSHIM_E_STATE => b"call out of order (results before run, or add after run)\0",
            SEQSHIM_E_INDEX => b"item index beyond the batch\0",
            SEQSHIM_E_BUFFER => b"the buffer is too small\0",
            SEQSHIM_E_DEVICE => b"the GPU path failed and no CPU fallback was allowed\0",
            SEQSHIM_E_REFUSED => b"the computation refused the item, as upstream does\0",
            SEQSHIM_E_EMPTY => b"nothing to compute: the item has no result\0",
            SEQSHIM_E_INTERNAL => b"internal error (contained; see the [seqshim] log line)\0",
            SEQSHIM_E_PANIC => {
                b"internal bug caught at the C boundary (see the [seqshim] log line)\0"
            }
            SEQSHIM_E_MISMATCH => b"a result differed from the CPU reference\0",
            SEQSHIM_E_IO => b"a file could not be opened, read or written\0",
            SEQSHIM_E_FORMAT => b"an input file is malformed\0",
            SEQSHIM_E_NOMEM => b"out of memory\0",
        }
    }

    /// The status with this code, if there is one.
    pub fn from_code(code: c_int) -> Option<seqshim_status> {
        ALL.into_iter().find(|s| *s as c_int == code)
    }
}

/// A short English description of a status code, as a static string;
/// "unknown status code" for a value that is none.
///
/// # Safety
/// Always safe to call. The returned pointer is valid for the life of the
/// process and must not be freed.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_strerror(status: c_int) -> *const c_char {
    let text = seqshim_status::from_code(status)
        .map(seqshim_status::text)
        .unwrap_or(b"unknown status code\0");
    text.as_ptr().cast()
}

/// What a native export returns when a panic is caught inside it, chosen by
/// its return type (see [`ffi_guard!`](crate::ffi_guard)).
pub trait OnPanic {
    fn on_panic() -> Self;
}

impl OnPanic for seqshim_status {
    fn on_panic() -> Self {
        SEQSHIM_E_PANIC
    }
}

impl OnPanic for () {
    fn on_panic() -> Self {}
}

/// Counts that double as statuses (negative on error): `SEQSHIM_E_PANIC`.
impl OnPanic for i64 {
    fn on_panic() -> Self {
        SEQSHIM_E_PANIC as i64
    }
}

/// Answers that double as statuses (1 / 0 / negative): `SEQSHIM_E_PANIC`.
impl OnPanic for i32 {
    fn on_panic() -> Self {
        SEQSHIM_E_PANIC as i32
    }
}

/// Sizes and counts: nothing.
impl OnPanic for usize {
    fn on_panic() -> Self {
        0
    }
}

impl<T> OnPanic for *mut T {
    fn on_panic() -> Self {
        std::ptr::null_mut()
    }
}

impl<T> OnPanic for *const T {
    fn on_panic() -> Self {
        std::ptr::null()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_status_is_distinct_negative_and_described() {
        let mut codes: Vec<c_int> = ALL.iter().map(|s| *s as c_int).collect();
        assert_eq!(codes[0], 0);
        assert!(codes[1..].iter().all(|&c| c < 0));
        codes.sort_unstable();
        codes.dedup();
        assert_eq!(codes.len(), ALL.len());
        for status in ALL {
            assert_eq!(seqshim_status::from_code(status as c_int), Some(status));
            assert!(status.text().ends_with(b"\0"));
        }
        assert_eq!(seqshim_status::from_code(1), None);
    }
}
