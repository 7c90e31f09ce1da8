//! The `pthread_atfork` handler that tells the engine a child process
//! started (see `engine::fork`), so that a forked child rebuilds seqshim's
//! pools and schedulers instead of waiting on the parent's threads, which
//! it does not have.

use std::sync::Once;

static REGISTERED: Once = Once::new();

extern "C" fn in_child() {
    crate::engine::fork::child_after_fork();
}

/// Registers the handler, once per process.
pub fn register() {
    REGISTERED.call_once(|| {
        // SAFETY: `in_child` is a plain `extern "C" fn` that only does an
        // atomic increment (async-signal-safe, as a child handler of a
        // threaded process must be); the other two handlers are none.
        let failed = unsafe { libc::pthread_atfork(None, None, Some(in_child)) };
        if failed == 0 {
            crate::engine::fork::handler_registered();
        } else {
            // The engine then compares process ids instead.
            crate::log_debug!("pthread_atfork failed ({failed})");
        }
    });
}
