//! Containment at the C boundary. Every export runs its body inside
//! [`ffi_guard!`], so a panic (ours, or cudarc's when a CUDA library goes
//! missing) becomes the function's error value instead of unwinding into C,
//! which would be undefined behaviour.

// CPU fallback relies on catching panics from the CUDA bindings; an abort
// build would turn a missing driver into a dead host process.
#[cfg(panic = "abort")]
compile_error!("seqshim must be built with panic = \"unwind\"");

/// Marks the current thread as inside a guarded call for the guard's
/// lifetime, so that the panic hook reports a panic here as one
/// `[seqshim]` line (see `engine::panic`). Entering the first guard also
/// sets up what a host process needs of us once: the panic hook and the
/// fork handler.
pub struct GuardScope(#[allow(dead_code)] crate::engine::panic::Catching);

impl GuardScope {
    pub fn enter() -> GuardScope {
        super::fork::register();
        GuardScope(crate::engine::panic::Catching::enter())
    }
}

/// Runs `$body` with panics caught; on a panic logs one warning and
/// evaluates to the function's panic value. Native exports write
/// `ffi_guard!({ ... })` and get the value their return type names
/// ([`OnPanic`](crate::ffi::status::OnPanic): `SEQSHIM_E_PANIC` for a
/// status, null for a pointer, 0 for a size, nothing for `void`); upstream
/// mirrors name upstream's failure value: `ffi_guard!(-1, { ... })`.
#[macro_export]
#[doc(hidden)]
macro_rules! ffi_guard {
    ($body:block) => {
        $crate::ffi_guard!(<_ as $crate::ffi::status::OnPanic>::on_panic(), $body)
    };
    ($on_panic:expr, $body:block) => {{
        let _scope = $crate::ffi::guard::GuardScope::enter();
        match ::std::panic::catch_unwind(::std::panic::AssertUnwindSafe(|| $body)) {
            Ok(value) => value,
            Err(payload) => {
                // The panic hook already said what and where, as a warning.
                $crate::log_debug!(
                    "internal error contained at the C boundary: {}",
                    $crate::engine::panic::panic_message(&*payload)
                );
                $on_panic
            }
        }
    }};
}

/// Views `n` elements of caller memory as a slice, or `None` for a null or
/// misaligned pointer with `n > 0` or a size past what a slice may span. A
/// null pointer with `n == 0` is an empty slice.
///
/// # Safety
/// When `ptr` is not null it must be valid for reads of `n` elements for `'a`.
pub unsafe fn slice<'a, T>(ptr: *const T, n: usize) -> Option<&'a [T]> {
    let bytes = n.checked_mul(size_of::<T>())?;
    if n == 0 {
        return Some(&[]);
    }
    // A misaligned pointer would make `from_raw_parts` abort the process.
    if ptr.is_null() || !ptr.is_aligned() || bytes > isize::MAX as usize {
        return None;
    }
    // SAFETY: non-null, aligned and valid for `n` reads per this function's
    // contract; the byte size fits in isize.
    Some(unsafe { std::slice::from_raw_parts(ptr, n) })
}

/// As [`slice`], writable.
///
/// # Safety
/// When `ptr` is not null it must be valid for writes of `n` elements for
/// `'a` and not aliased by any other live reference.
pub unsafe fn slice_mut<'a, T>(ptr: *mut T, n: usize) -> Option<&'a mut [T]> {
    let bytes = n.checked_mul(size_of::<T>())?;
    if n == 0 {
        return Some(&mut []);
    }
    if ptr.is_null() || !ptr.is_aligned() || bytes > isize::MAX as usize {
        return None;
    }
    // SAFETY: non-null, aligned, valid and unaliased for `n` writes per this
    // function's contract; the byte size fits in isize.
    Some(unsafe { std::slice::from_raw_parts_mut(ptr, n) })
}

/// [`slice`] of bytes.
///
/// # Safety
/// As [`slice`].
pub unsafe fn bytes<'a>(ptr: *const u8, len: usize) -> Option<&'a [u8]> {
    // SAFETY: forwarded from this function's contract.
    unsafe { slice(ptr, len) }
}

/// [`slice_mut`] of bytes.
///
/// # Safety
/// As [`slice_mut`].
pub unsafe fn bytes_mut<'a>(ptr: *mut u8, len: usize) -> Option<&'a mut [u8]> {
    // SAFETY: forwarded from this function's contract.
    unsafe { slice_mut(ptr, len) }
}

#[cfg(test)]
mod tests {
    #[test]
    fn guard_turns_a_panic_into_the_error_value() {
        let value: i32 = crate::ffi_guard!(-3, {
            if std::hint::black_box(true) {
                panic!("boom");
            }
            0
        });
        assert_eq!(value, -3);
    }

    #[test]
    fn guard_passes_values_through() {
        let value: i32 = crate::ffi_guard!(-3, { 42 });
        assert_eq!(value, 42);
    }

    #[test]
    fn null_pointers_are_only_empty() {
        // SAFETY: null pointers are never dereferenced by these helpers.
        unsafe {
            assert_eq!(super::bytes(std::ptr::null(), 0), Some(&[][..]));
            assert_eq!(super::bytes(std::ptr::null(), 4), None);
            assert!(super::bytes_mut(std::ptr::null_mut(), 1).is_none());
        }
    }
}
