//! The private CPU pool. seqshim never touches rayon's global pool: the host
//! may use it, size it, or not expect extra threads in it.

use once_cell::sync::OnceCell;

static POOL: OnceCell<Option<rayon::ThreadPool>> = OnceCell::new();
static HOST_POOL: OnceCell<Option<rayon::ThreadPool>> = OnceCell::new();
/// A size asked for by the program itself (a command-line `--threads`),
/// before the pool started; it wins over `SEQSHIM_THREADS`.
static REQUESTED: OnceCell<usize> = OnceCell::new();

/// Asks for a pool of `n` threads (at least one). Takes effect only before
/// the pool's first use; returns whether it did.
pub fn request_threads(n: usize) -> bool {
    POOL.get().is_none() && REQUESTED.set(n.max(1)).is_ok()
}

/// Number of worker threads the pool has (or would have).
pub fn threads() -> usize {
    if let Some(&n) = REQUESTED.get() {
        return n;
    }
    super::config::get().threads.unwrap_or_else(|| {
        std::thread::available_parallelism()
            .map(|n| n.get())
            .unwrap_or(1)
    })
}

/// The seqshim CPU pool, created on first use. `None` only if the operating
/// system refused to start threads; callers then run work inline.
pub fn pool() -> Option<&'static rayon::ThreadPool> {
    POOL.get_or_init(|| build_pool("cpu", threads())).as_ref()
}

/// A pool of `n` threads named `seqshim-{role}-{i}`; `None` (logged) when
/// the operating system refuses to start them.
fn build_pool(role: &'static str, n: usize) -> Option<rayon::ThreadPool> {
    let built = rayon::ThreadPoolBuilder::new()
        .num_threads(n)
        .thread_name(move |i| format!("seqshim-{role}-{i}"))
        // A panic in a task started with `spawn` would abort the process
        // without a handler. Every such task catches its own (the job's
        // caller gets the error); this only logs what escapes regardless.
        .panic_handler(move |payload| {
            crate::log_warn!(
                "a task on the {role} pool panicked: {}",
                super::panic::panic_message(&*payload)
            )
        })
        .build();
    match built {
        Ok(pool) => Some(pool),
        Err(err) => {
            crate::log_warn!("could not start the {role} pool ({err}); running work inline");
            None
        }
    }
}

/// Runs `f` inside the pool, so that rayon iterators in it use seqshim's
/// threads; inline when no pool could be built.
pub fn install<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match pool() {
        Some(pool) => pool.install(f),
        None => f(),
    }
}

/// Runs `f` on a pool thread without waiting for it.
pub fn spawn(f: impl FnOnce() + Send + 'static) {
    match pool() {
        Some(pool) => pool.spawn(f),
        None => f(),
    }
}

/// A second pool, as large as the main one, for the host side of device
/// batches (packing inputs, decoding results). It is separate so that a
/// device is never starved while the main pool runs long alignments next to
/// it (the CPU share of a batch API run); when both are busy the operating
/// system shares the cores between them.
fn host_pool() -> Option<&'static rayon::ThreadPool> {
    HOST_POOL
        .get_or_init(|| build_pool("host", threads().max(2)))
        .as_ref()
}

/// Runs `f` inside the device host pool (see [`host_pool`]); inline when no
/// pool could be built.
pub fn install_for_devices<R: Send>(f: impl FnOnce() -> R + Send) -> R {
    match host_pool() {
        Some(pool) => pool.install(f),
        None => f(),
    }
}
