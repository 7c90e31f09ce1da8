//! Panics: their payload as text, the boundaries that catch them, and the
//! hook that keeps them off the host's stderr. Panics are caught in several
//! places (the C boundary, the scheduler's CPU rescue, the device runners,
//! the CUDA bindings' calls); each such place runs its code inside
//! [`catching`], so the hook knows that a panic there is ours, will be
//! contained, and deserves one `[seqshim]` line instead of Rust's default
//! message and backtrace. Any other panic of the process (a Rust host's
//! own) goes to the hook that was installed before ours.

use std::any::Any;
use std::cell::Cell;
use std::panic::{AssertUnwindSafe, PanicHookInfo, catch_unwind};
use std::sync::Once;

/// The payload of a panic that reports a failed allocation whose size
/// came from the input: code that can meet one catches it and returns an
/// out-of-memory error, where the allocator's default would abort the host.
#[derive(Debug)]
pub struct OutOfMemory {
    pub bytes: usize,
}

/// Unwinds with [`OutOfMemory`].
pub fn out_of_memory(bytes: usize) -> ! {
    std::panic::panic_any(OutOfMemory { bytes })
}

/// Reserves room for `additional` more elements, or unwinds with
/// [`OutOfMemory`] instead of aborting.
pub fn reserve_or_unwind<T>(v: &mut Vec<T>, additional: usize) {
    if v.try_reserve_exact(additional).is_err() {
        out_of_memory(additional.saturating_mul(size_of::<T>()));
    }
}

/// The text of a panic payload.
pub fn panic_message(payload: &(dyn Any + Send)) -> String {
    if let Some(oom) = payload.downcast_ref::<OutOfMemory>() {
        format!(
            "out of memory (an allocation of {} bytes failed)",
            oom.bytes
        )
    } else if let Some(s) = payload.downcast_ref::<&str>() {
        (*s).to_string()
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s.clone()
    } else {
        "unknown panic".to_string()
    }
}

thread_local! {
    /// How many of our catching boundaries this thread is inside.
    static CATCHING: Cell<usize> = const { Cell::new(0) };
    /// How many of them expect panics as a normal outcome (the CUDA
    /// bindings panic when a library or symbol is missing).
    static EXPECTING: Cell<usize> = const { Cell::new(0) };
}

static HOOK: Once = Once::new();

/// Installs, once per process, the hook described in the module
/// documentation. Called at seqshim's first use (a C export, the CPU pool,
/// a catching boundary), so a host that sets its own hook first keeps it
/// for its panics.
pub fn install_hook() {
    HOOK.call_once(|| {
        let previous = std::panic::take_hook();
        std::panic::set_hook(Box::new(move |info| {
            if EXPECTING.with(Cell::get) > 0 {
                crate::log_debug!("{}", one_line(info));
            } else if is_ours() {
                crate::log_warn!("{}", one_line(info));
            } else {
                previous(info);
            }
        }));
    });
}

/// Whether a panic on this thread now happens in seqshim's code: inside a
/// catching boundary, or on one of seqshim's own threads (pool workers and
/// device executors are all named `seqshim-...`).
fn is_ours() -> bool {
    CATCHING.with(Cell::get) > 0
        || std::thread::current()
            .name()
            .is_some_and(|name| name.starts_with("seqshim-"))
}

/// The panic as one line: message and place, no line breaks.
fn one_line(info: &PanicHookInfo<'_>) -> String {
    let message = panic_message(info.payload()).replace('\n', " ");
    if info.payload().is::<OutOfMemory>() {
        return format!("{message}; the call fails");
    }
    match info.location() {
        Some(at) => format!(
            "internal error (contained): {message} at {}:{}",
            at.file(),
            at.line()
        ),
        None => format!("internal error (contained): {message}"),
    }
}

/// Marks this thread as inside a catching boundary while it lives.
pub struct Catching(());

impl Catching {
    pub fn enter() -> Catching {
        install_hook();
        CATCHING.with(|d| d.set(d.get() + 1));
        Catching(())
    }
}

impl Drop for Catching {
    fn drop(&mut self) {
        CATCHING.with(|d| d.set(d.get().saturating_sub(1)));
    }
}

/// `catch_unwind` for seqshim's boundaries: the panic, if any, is reported
/// by the hook as one `[seqshim]` line and returned as the payload.
pub fn catching<R>(f: impl FnOnce() -> R) -> Result<R, Box<dyn Any + Send>> {
    let _scope = Catching::enter();
    catch_unwind(AssertUnwindSafe(f))
}

/// [`catching`] for code whose panics are an expected outcome, not a bug
/// (a CUDA library or symbol missing): reported only at debug level.
pub fn expecting<R>(f: impl FnOnce() -> R) -> Result<R, Box<dyn Any + Send>> {
    let _scope = Catching::enter();
    EXPECTING.with(|d| d.set(d.get() + 1));
    let result = catch_unwind(AssertUnwindSafe(f));
    EXPECTING.with(|d| d.set(d.get().saturating_sub(1)));
    result
}
