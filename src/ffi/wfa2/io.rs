//! Writing to the caller's `FILE*` streams, so our output interleaves with
//! the caller's own stdio output exactly as upstream's `fprintf` does.

unsafe extern "C" {
    #[link_name = "stderr"]
    static mut C_STDERR: *mut libc::FILE;
}

/// A caller's `FILE*`.
#[derive(Clone, Copy)]
pub struct Stream(pub *mut libc::FILE);

impl Stream {
    /// Writes `bytes`; a null stream writes nothing.
    pub fn write(self, bytes: &[u8]) {
        if self.0.is_null() || bytes.is_empty() {
            return;
        }
        // SAFETY: a non-null stream is a valid FILE* per every caller's
        // contract; fwrite reads exactly `bytes.len()` bytes.
        unsafe { libc::fwrite(bytes.as_ptr().cast(), 1, bytes.len(), self.0) };
    }
}

/// The C library's `stderr` stream.
pub fn stderr_stream() -> *mut libc::FILE {
    // SAFETY: glibc initialises `stderr` before any user code runs and we
    // only read the pointer.
    unsafe { std::ptr::addr_of!(C_STDERR).read() }
}

/// Writes upstream's diagnostics through C's `stderr`, where 2.3.3 writes
/// them, so ordering with the client's stdio is kept.
pub fn eprint(bytes: &[u8]) {
    Stream(stderr_stream()).write(bytes);
}
