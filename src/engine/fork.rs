//! Surviving `fork()`. A child process inherits the parent's memory but
//! only the thread that forked: seqshim's pool threads and device executors
//! are gone, locks they held stay held, and CUDA contexts are unusable. So
//! every piece of process-wide runtime state (the CPU pools, a family's
//! scheduler) is kept per *process generation*: a child starts a new
//! generation, and the first use there builds fresh state instead of
//! touching the parent's, which is left alone (leaked, never dropped,
//! since dropping it would wait on threads that do not exist).
//!
//! The generation is bumped by a `pthread_atfork` child handler, which the
//! C boundary registers at its first call (`ffi::fork`); a Rust host that
//! never crossed the C boundary is covered by comparing process ids, which
//! costs a system call per check and so is only the fallback.

use std::sync::OnceLock;
use std::sync::atomic::{AtomicBool, AtomicU32, AtomicU64, Ordering};

use once_cell::race::OnceBox;

static GENERATION: AtomicU64 = AtomicU64::new(0);
/// Whether a fork handler keeps [`GENERATION`] current.
static HANDLER: AtomicBool = AtomicBool::new(false);
/// The process id [`GENERATION`] was last checked against (fallback only).
static PID: AtomicU32 = AtomicU32::new(0);

/// Called in the child right after `fork()` by the registered handler. Only
/// an atomic increment: a forked child of a threaded process may only do
/// async-signal-safe work here.
pub fn child_after_fork() {
    GENERATION.fetch_add(1, Ordering::AcqRel);
}

/// Records that a fork handler calling [`child_after_fork`] is in place.
pub fn handler_registered() {
    // The process id seen now, so that the fallback (used until this very
    // point) and the handler agree on the current generation.
    PID.store(std::process::id(), Ordering::Release);
    HANDLER.store(true, Ordering::Release);
}

/// The current process generation: 0 in the process that loaded seqshim,
/// one more in each forked child.
pub fn generation() -> u64 {
    if HANDLER.load(Ordering::Acquire) {
        return GENERATION.load(Ordering::Acquire);
    }
    let pid = std::process::id();
    let seen = PID.load(Ordering::Acquire);
    if seen != pid
        && PID
            .compare_exchange(seen, pid, Ordering::AcqRel, Ordering::Acquire)
            .is_ok()
        && seen != 0
    {
        GENERATION.fetch_add(1, Ordering::AcqRel);
    }
    GENERATION.load(Ordering::Acquire)
}

/// A value built once per process generation, on first use in it.
/// Lock-free to look up, so that a child never waits on a lock some parent
/// thread held at the moment of the fork.
pub struct PerProcess<T> {
    head: OnceBox<Entry<T>>,
}

/// One generation's value; a chain ordered by generation, each link made
/// by the first user in a later generation.
struct Entry<T> {
    generation: u64,
    value: OnceLock<T>,
    next: OnceBox<Entry<T>>,
}

impl<T> Entry<T> {
    fn boxed(generation: u64) -> Box<Entry<T>> {
        Box::new(Entry {
            generation,
            value: OnceLock::new(),
            next: OnceBox::new(),
        })
    }
}

impl<T> Default for PerProcess<T> {
    fn default() -> Self {
        Self::new()
    }
}

impl<T> PerProcess<T> {
    pub const fn new() -> Self {
        PerProcess {
            head: OnceBox::new(),
        }
    }

    /// This generation's entry, made if missing.
    fn entry(&self) -> &Entry<T> {
        self.entry_at(generation())
    }

    /// Generation `now`'s entry, made if missing.
    fn entry_at(&self, now: u64) -> &Entry<T> {
        let mut entry = self.head.get_or_init(|| Entry::boxed(now));
        while entry.generation < now {
            entry = entry.next.get_or_init(|| Entry::boxed(now));
        }
        entry
    }

    /// This process's value, built by `init` on its first use here.
    pub fn get_or_init(&self, init: impl FnOnce() -> T) -> &T {
        self.entry().value.get_or_init(init)
    }

    /// This process's value if it was built.
    pub fn get(&self) -> Option<&T> {
        self.entry().value.get()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    // The process-wide generation is left alone here: other tests in this
    // binary hold schedulers of the current one.
    #[test]
    fn a_new_generation_gets_a_new_value_and_the_old_one_stays() {
        let cell: PerProcess<u64> = PerProcess::new();
        assert_eq!(*cell.entry_at(3).value.get_or_init(|| 3), 3);
        assert_eq!(
            *cell.entry_at(3).value.get_or_init(|| 99),
            3,
            "once per generation"
        );
        assert_eq!(cell.entry_at(5).value.get(), None, "a child starts empty");
        assert_eq!(*cell.entry_at(5).value.get_or_init(|| 5), 5);
        assert_eq!(*cell.entry_at(5).value.get_or_init(|| 99), 5);
        assert_eq!(
            cell.entry_at(3).value.get(),
            Some(&3),
            "the parent's value stays"
        );
    }
}
