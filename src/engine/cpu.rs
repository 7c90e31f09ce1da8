//! The private CPU pool. seqshim never touches rayon's global pool: the host
//! may use it, size it, or not expect extra threads in it.

use once_cell::sync::OnceCell;

use super::fork::PerProcess;

// Per process: a forked child has none of the parent's pool threads, so it
// builds its own pools on first use (see `fork`).
static POOL: PerProcess<Option<rayon::ThreadPool>> = PerProcess::new();
static HOST_POOL: PerProcess<Option<rayon::ThreadPool>> = PerProcess::new();
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
    super::panic::install_hook();
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

/// Calls `work` on every item and returns the results in order, on the
/// caller's thread *and* on every pool thread that is free to help.
///
/// The caller never waits behind other callers' work: it takes items
/// itself, one at a time, while helpers queued on the pool take items too
/// once they start. When the pool is busy with someone else's long batch,
/// the helpers start late or after the caller is done (they then find
/// nothing left and return), and the caller finishes alone; it waits only
/// for items a helper already took. `rayon::install` would instead queue
/// the whole call behind everything the pool's threads have in hand.
///
/// `work` must not panic (wrap it in `panic::catching`); should it panic
/// anyway on a helper, that item's result is `None`.
pub fn map_shared<T, R, F>(items: Vec<T>, work: F) -> Vec<Option<R>>
where
    T: Send + 'static,
    R: Send + 'static,
    F: Fn(T) -> R + Send + Sync + 'static,
{
    start_shared(items, work).join()
}

/// [`map_shared`] in two steps: the pool's helpers start now, and the
/// caller joins in (and collects the results) with [`SharedRun::join`],
/// after doing something else meanwhile.
pub fn start_shared<T, R, F>(items: Vec<T>, work: F) -> SharedRun<T, R, F>
where
    T: Send + 'static,
    R: Send + 'static,
    F: Fn(T) -> R + Send + Sync + 'static,
{
    let n = items.len();
    let shared = std::sync::Arc::new(Shared {
        items: std::sync::Mutex::new(items.into_iter().map(Some).collect()),
        next: std::sync::atomic::AtomicUsize::new(0),
        done: std::sync::Mutex::new(Done {
            results: (0..n).map(|_| None).collect(),
            finished: 0,
        }),
        all_done: std::sync::Condvar::new(),
        work,
    });
    if let Some(pool) = pool().filter(|_| n > 1) {
        // The caller is one of the pool's worth of threads: one helper
        // fewer keeps the work to as many threads as the pool has.
        for _ in 0..threads().saturating_sub(1).min(n - 1) {
            let helper = shared.clone();
            pool.spawn(move || helper.take_until_empty());
        }
    }
    SharedRun(shared)
}

/// A [`start_shared`] run the caller has not joined yet.
pub struct SharedRun<T, R, F>(std::sync::Arc<Shared<T, R, F>>);

impl<T, R, F: Fn(T) -> R> SharedRun<T, R, F> {
    /// Works through what is left on this thread, waits for the items
    /// helpers took, and returns every result in input order.
    pub fn join(self) -> Vec<Option<R>> {
        let shared = &self.0;
        shared.take_until_empty();
        let mut done = lock(&shared.done);
        while done.finished < done.results.len() {
            done = shared
                .all_done
                .wait(done)
                .unwrap_or_else(|p| p.into_inner());
        }
        std::mem::take(&mut done.results)
    }
}

/// The state one [`map_shared`] call shares with its helpers.
struct Shared<T, R, F> {
    /// Each item is moved out by whoever takes it.
    items: std::sync::Mutex<Vec<Option<T>>>,
    next: std::sync::atomic::AtomicUsize,
    done: std::sync::Mutex<Done<R>>,
    all_done: std::sync::Condvar,
    work: F,
}

struct Done<R> {
    results: Vec<Option<R>>,
    finished: usize,
}

fn lock<V>(m: &std::sync::Mutex<V>) -> std::sync::MutexGuard<'_, V> {
    // Only plain field updates happen under these locks.
    m.lock().unwrap_or_else(|p| p.into_inner())
}

impl<T, R, F: Fn(T) -> R> Shared<T, R, F> {
    /// Takes and runs items until none is left.
    fn take_until_empty(&self) {
        use std::sync::atomic::Ordering;
        loop {
            let index = self.next.fetch_add(1, Ordering::Relaxed);
            let Some(item) = lock(&self.items).get_mut(index).and_then(Option::take) else {
                return;
            };
            // Counts the item as finished even if `work` unwinds, so that
            // the caller is never left waiting for it.
            let mut finish = Finish {
                shared: self,
                index,
                result: None,
            };
            finish.result = Some((self.work)(item));
        }
    }
}

/// Records one item's result (or its absence) when dropped.
struct Finish<'a, T, R, F> {
    shared: &'a Shared<T, R, F>,
    index: usize,
    result: Option<R>,
}

impl<T, R, F> Drop for Finish<'_, T, R, F> {
    fn drop(&mut self) {
        let mut done = lock(&self.shared.done);
        done.results[self.index] = self.result.take();
        done.finished += 1;
        if done.finished == done.results.len() {
            self.shared.all_done.notify_all();
        }
    }
}
