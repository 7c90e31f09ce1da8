//! `mm_allocator_*`: upstream's arena, as far as clients can tell. Every
//! request is a libc `malloc` block registered with its allocator, so
//! `mm_allocator_delete` releases whatever the client forgot, as upstream's
//! segment release does, and memory handed out stays valid until freed.

use std::collections::HashMap;
use std::ffi::c_void;

use super::types::mm_allocator_t;
use crate::ffi_guard;

/// Aligned address handed out -> address `malloc` returned.
type Registry = HashMap<usize, usize>;

/// # Safety
/// `mm` must be null or a live allocator from [`mm_allocator_new`].
unsafe fn registry<'a>(mm: *mut mm_allocator_t) -> Option<&'a mut Registry> {
    if mm.is_null() {
        return None;
    }
    // SAFETY: `mm` is a live allocator per the contract; `segments` is either
    // null or the `Box<Registry>` leaked by `mm_allocator_new`.
    unsafe { ((*mm).segments as *mut Registry).as_mut() }
}

/// Creates an allocator. `segment_size` is recorded, as upstream, but
/// requests are served by `malloc` one by one.
///
/// # Safety
/// Always safe to call; release the result with [`mm_allocator_delete`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mm_allocator_new(segment_size: u64) -> *mut mm_allocator_t {
    ffi_guard!(std::ptr::null_mut(), {
        let registry = Box::into_raw(Box::<Registry>::default());
        Box::into_raw(Box::new(mm_allocator_t {
            request_ticker: 0,
            segment_size,
            segments: registry.cast(),
            segments_free: std::ptr::null_mut(),
            current_segment_idx: 0,
            malloc_requests: std::ptr::null_mut(),
            malloc_requests_freed: 0,
        }))
    })
}

/// Releases the allocator and every block still allocated from it.
///
/// # Safety
/// `mm_allocator` must be null or come from [`mm_allocator_new`] and not be
/// used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mm_allocator_delete(mm_allocator: *mut mm_allocator_t) {
    ffi_guard!((), {
        if mm_allocator.is_null() {
            return;
        }
        // SAFETY: created by `mm_allocator_new` as a Box, per the contract.
        let mm = unsafe { Box::from_raw(mm_allocator) };
        if !mm.segments.is_null() {
            // SAFETY: `segments` is the Box<Registry> leaked at creation.
            let registry = unsafe { Box::from_raw(mm.segments as *mut Registry) };
            for (_, raw) in registry.iter() {
                // SAFETY: every registered block came from libc::malloc.
                unsafe { libc::free(*raw as *mut c_void) };
            }
        }
    })
}

/// Allocates `num_bytes` aligned to `align_bytes` (a power of two; 8 when
/// smaller), zeroed when `zero_mem`. Returns null when out of memory.
///
/// # Safety
/// `mm_allocator` must be a live allocator from [`mm_allocator_new`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mm_allocator_allocate(
    mm_allocator: *mut mm_allocator_t,
    num_bytes: u64,
    zero_mem: bool,
    align_bytes: u64,
) -> *mut c_void {
    ffi_guard!(std::ptr::null_mut(), {
        // SAFETY: forwarded contract.
        unsafe { allocate(mm_allocator, num_bytes, zero_mem, align_bytes) }
    })
}

/// # Safety
/// As [`mm_allocator_allocate`].
pub unsafe fn allocate(
    mm_allocator: *mut mm_allocator_t,
    num_bytes: u64,
    zero_mem: bool,
    align_bytes: u64,
) -> *mut c_void {
    // SAFETY: forwarded contract.
    let Some(registry) = (unsafe { registry(mm_allocator) }) else {
        return std::ptr::null_mut();
    };
    let align = align_bytes.max(8).next_power_of_two() as usize;
    let Some(total) = (num_bytes as usize).checked_add(align) else {
        return std::ptr::null_mut();
    };
    // SAFETY: plain malloc; checked for null below.
    let raw = unsafe { libc::malloc(total.max(1)) } as usize;
    if raw == 0 {
        return std::ptr::null_mut();
    }
    let aligned = (raw + align - 1) & !(align - 1);
    if zero_mem {
        // SAFETY: [aligned, aligned+num_bytes) lies inside the block.
        unsafe { std::ptr::write_bytes(aligned as *mut u8, 0, num_bytes as usize) };
    }
    registry.insert(aligned, raw);
    // SAFETY: live allocator per the contract.
    unsafe { (*mm_allocator).request_ticker += 1 };
    aligned as *mut c_void
}

/// Returns a block to the allocator. Unknown pointers are ignored.
///
/// # Safety
/// `mm_allocator` must be a live allocator; `memory` null or a block it
/// handed out that is not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn mm_allocator_free(mm_allocator: *mut mm_allocator_t, memory: *mut c_void) {
    ffi_guard!((), {
        // SAFETY: forwarded contract.
        unsafe { free(mm_allocator, memory) }
    })
}

/// # Safety
/// As [`mm_allocator_free`].
pub unsafe fn free(mm_allocator: *mut mm_allocator_t, memory: *mut c_void) {
    // SAFETY: forwarded contract.
    if let Some(registry) = unsafe { registry(mm_allocator) } {
        if let Some(raw) = registry.remove(&(memory as usize)) {
            // SAFETY: registered blocks come from libc::malloc.
            unsafe { libc::free(raw as *mut c_void) };
            // SAFETY: live allocator per the contract.
            unsafe { (*mm_allocator).malloc_requests_freed += 1 };
        }
    }
}
