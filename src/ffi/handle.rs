//! The one implementation of native batch handles. Every family's batch
//! API has the same lifecycle, in the style of GenomeWorks' batches:
//! `create(options, expected size, &handle)` → `add` (copied, or borrowed
//! where the family offers it) → `run` → per-item status and results →
//! `size` → `reset` → `destroy`. A handle is a `Box` of the family's batch
//! state handed to C as an opaque pointer; these helpers do the checks and
//! the ownership once, for every family.
//!
//! Double destroy is safe: live handles are registered at creation, and
//! destroying a pointer that is not live (already destroyed, or never ours)
//! is logged and ignored instead of freeing memory twice. Using a destroyed
//! handle in any other call is undefined behaviour, as with `free`: those
//! calls are per item and must stay cheap, so they only check for null and
//! alignment.

use std::any::TypeId;
use std::collections::HashSet;
use std::sync::Mutex;

use super::status::{SEQSHIM_E_ARG, SEQSHIM_E_NULL, SEQSHIM_OK, seqshim_status};

/// The family state behind a handle, as the shared lifecycle calls need it.
pub trait BatchState: 'static {
    /// Items added since creation or the last reset.
    fn len(&self) -> usize;
    /// No items.
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Forgets every item and result; options and reserved room stay.
    fn reset(&mut self);
}

/// Handles created and not yet destroyed, by address and type.
static LIVE: Mutex<Option<HashSet<(usize, TypeId)>>> = Mutex::new(None);

fn live() -> std::sync::MutexGuard<'static, Option<HashSet<(usize, TypeId)>>> {
    LIVE.lock().unwrap_or_else(|p| p.into_inner())
}

/// Boxes `state` and writes the handle to `*out`.
///
/// # Safety
/// `out` must be null (refused with `SEQSHIM_E_NULL`) or valid for a write.
pub unsafe fn create<T: BatchState>(state: T, out: *mut *mut T) -> seqshim_status {
    if out.is_null() {
        return SEQSHIM_E_NULL;
    }
    let raw = Box::into_raw(Box::new(state));
    live()
        .get_or_insert_with(HashSet::new)
        .insert((raw as usize, TypeId::of::<T>()));
    // SAFETY: `out` is non-null and writable per this function's contract.
    unsafe { *out = raw };
    SEQSHIM_OK
}

fn check<T>(ptr: *const T) -> Result<(), seqshim_status> {
    if ptr.is_null() {
        Err(SEQSHIM_E_NULL)
    } else if !ptr.is_aligned() {
        Err(SEQSHIM_E_ARG)
    } else {
        Ok(())
    }
}

/// The state behind a handle, for reading.
///
/// # Safety
/// `ptr` must be null (refused) or a live handle of this type, not being
/// changed by another thread for `'a`.
pub unsafe fn state<'a, T>(ptr: *const T) -> Result<&'a T, seqshim_status> {
    check(ptr)?;
    // SAFETY: non-null, aligned, and a live handle per the contract.
    Ok(unsafe { &*ptr })
}

/// The state behind a handle, for changing.
///
/// # Safety
/// `ptr` must be null (refused) or a live handle of this type, used by no
/// other thread for `'a`.
pub unsafe fn state_mut<'a, T>(ptr: *mut T) -> Result<&'a mut T, seqshim_status> {
    check(ptr)?;
    // SAFETY: non-null, aligned, a live handle used by this thread alone per
    // the contract.
    Ok(unsafe { &mut *ptr })
}

/// Items in the batch; 0 for a null handle.
///
/// # Safety
/// As [`state`].
pub unsafe fn len<T: BatchState>(ptr: *const T) -> usize {
    // SAFETY: forwarded from this function's contract.
    unsafe { state(ptr) }.map_or(0, BatchState::len)
}

/// Empties the batch for reuse.
///
/// # Safety
/// As [`state_mut`]; pointers the batch handed out are invalid afterwards.
pub unsafe fn reset<T: BatchState>(ptr: *mut T) -> seqshim_status {
    // SAFETY: forwarded from this function's contract.
    match unsafe { state_mut(ptr) } {
        Ok(state) => {
            state.reset();
            SEQSHIM_OK
        }
        Err(status) => status,
    }
}

/// Frees a handle. Null is ignored; so, with one log line, is a pointer
/// that is not a live handle of this type (a second destroy).
///
/// # Safety
/// `ptr` must not be used by any other thread during or after the call.
pub unsafe fn destroy<T: BatchState>(ptr: *mut T) {
    if ptr.is_null() {
        return;
    }
    let was_live = live()
        .as_mut()
        .is_some_and(|set| set.remove(&(ptr as usize, TypeId::of::<T>())));
    if !was_live {
        crate::log_warn!(
            "ignored the destroy of a batch handle that is not live (destroyed twice?): {ptr:p}"
        );
        return;
    }
    // SAFETY: a pointer from `create` (it was registered there), removed from
    // the live set just now, so freed exactly once.
    drop(unsafe { Box::from_raw(ptr) });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[derive(Default)]
    struct Items(Vec<u32>);
    impl BatchState for Items {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn reset(&mut self) {
            self.0.clear();
        }
    }

    #[test]
    fn lifecycle_and_double_destroy() {
        let mut handle: *mut Items = std::ptr::null_mut();
        // SAFETY: every pointer below is null, `&mut handle`, or the live
        // handle; the second destroy is the case under test.
        unsafe {
            assert_eq!(
                create(Items::default(), std::ptr::null_mut()),
                SEQSHIM_E_NULL
            );
            assert_eq!(create(Items::default(), &mut handle), SEQSHIM_OK);
            state_mut(handle).unwrap().0.extend([1, 2, 3]);
            assert_eq!(len(handle), 3);
            assert_eq!(reset(handle), SEQSHIM_OK);
            assert_eq!(len(handle), 0);
            assert_eq!(len::<Items>(std::ptr::null()), 0);
            assert_eq!(reset::<Items>(std::ptr::null_mut()), SEQSHIM_E_NULL);
            assert!(matches!(
                state::<Items>(std::ptr::null()),
                Err(SEQSHIM_E_NULL)
            ));
            destroy(handle);
            destroy(handle);
            destroy::<Items>(std::ptr::null_mut());
        }
    }
}
