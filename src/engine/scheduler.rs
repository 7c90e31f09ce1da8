//! Routing jobs between the caller's thread, the CPU pool and the GPUs.
//!
//! A family describes one unit of work as a [`Job`] and a device as a
//! [`BatchRunner`] (pack a batch, launch, unpack). A [`Scheduler`] owns one
//! executor thread per runner. Callers either [`Scheduler::submit`] one job
//! (the synchronous upstream APIs), [`Scheduler::run_all`] many (the batch
//! APIs), or [`Scheduler::queue_many`] jobs a group at a time as they build
//! them and wait for each later. Executors take what is queued when they
//! become free (a fair share when several are free at once), so
//! concurrent callers are coalesced into batches without any call waiting for
//! a batch to fill. A batch that fails, a job the device could not finish, and
//! a device that keeps failing all end the same way: the job reruns on the CPU
//! and the caller gets its result. Nothing is dropped.

use std::collections::VecDeque;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc;
use std::sync::{Arc, Condvar, Mutex, MutexGuard};
use std::time::{Duration, Instant};

use super::cost_model::{CpuModel, GpuModel, Timed};

/// One unit of work.
pub trait Job: Send + 'static {
    type Output: Send + 'static;

    /// Runs the job on the CPU. This is both the CPU path and the rescue path
    /// for jobs a device could not finish, so it must always produce a result.
    fn run_cpu(&self) -> Self::Output;

    /// Whether a device may take this job at all (size limits, options the
    /// kernel does not implement). Ineligible jobs always run on the CPU.
    fn gpu_eligible(&self) -> bool {
        true
    }

    /// A rough amount of work, compared with the scheduler's threshold to keep
    /// cheap jobs of a lone caller on its own thread.
    fn cost(&self) -> u64 {
        1
    }
}

/// A device that runs batches of jobs of one family.
pub trait BatchRunner<J: Job>: Send + 'static {
    /// Names the device in logs and reports, e.g. `GPU 0 (NVIDIA H100)`.
    fn label(&self) -> String;

    /// The most jobs one batch may hold.
    fn capacity(&self) -> usize;

    /// The most total [`Job::cost`] one batch may hold (at least one job is
    /// always taken), so that a large submission is cut into several
    /// launches and spread over every executor.
    fn max_batch_cost(&self) -> u64 {
        u64::MAX
    }

    /// The least total [`Job::cost`] worth one batch while more is queued:
    /// the fair share of a draining queue is not cut below it. A batch
    /// waits for its slowest job, so a queue halved into ever smaller
    /// batches at the end of a run leaves the device mostly idle.
    fn min_batch_cost(&self) -> u64 {
        0
    }

    /// Runs `jobs`; returns one entry per job, `None` where the device could
    /// not finish that job (it is then rerun on the CPU). An `Err` sends the
    /// whole batch to the CPU.
    fn run_batch(&mut self, jobs: &[J]) -> Result<Vec<Option<J::Output>>, String>;
}

/// Batches a device runner fails on purpose, as a failing device would, so
/// that tests can watch their jobs rerun on the CPU.
#[derive(Debug, Default)]
pub struct InjectedFailures(u32);

impl InjectedFailures {
    /// Makes the next `batches` batches fail.
    pub fn set(&mut self, batches: u32) {
        self.0 = batches;
    }

    /// Call first in `run_batch`: an error while failures are pending.
    pub fn take(&mut self, family: &str) -> Result<(), String> {
        if self.0 == 0 {
            return Ok(());
        }
        self.0 -= 1;
        Err(format!("{family}: injected device failure"))
    }
}

/// Why a job has no result. Only produced in strict mode, where falling back
/// to the CPU is an error instead of a rescue.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ScheduleError(pub String);

impl std::fmt::Display for ScheduleError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(&self.0)
    }
}

/// How [`Scheduler::submit`] chooses between the caller's thread and the
/// devices for one synchronous call.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Routing {
    /// A call goes to a device only when its result is expected back sooner
    /// than the caller would have it by running the call itself: the queue's
    /// wait plus a launch's time at the batch size it would join, against
    /// the call's time on one CPU thread, both learned from this process's
    /// own runs. A queued call not yet taken by a device when its CPU time
    /// has passed is taken back and run by its caller. The default.
    Cost,
    /// Every call of concurrent callers joins the device queue; a lone
    /// caller's call below `inline_cost_below` runs on its thread. For
    /// measurements (`SEQSHIM_ROUTING=coalesce`).
    Coalesce,
}

/// A device's result must come this many times sooner than the caller's own
/// before a call is sent: estimates are noisy, and a caller that waits for
/// a device leaves its core idle.
const DEVICE_MARGIN: f64 = 1.25;
/// Without a launch in this long, one call is sent to an idle device anyway,
/// so that a model that turned pessimistic (a slow first launch, a GPU
/// shared with a process that has since finished) is corrected. Costs one
/// caller one device round trip per interval at most.
const EXPLORE_EVERY: Duration = Duration::from_secs(1);

/// Tunables of one scheduler.
#[derive(Clone, Debug)]
pub struct Options {
    /// Names the family in the per-second report (`SEQSHIM_LOG=info`).
    pub name: &'static str,
    /// How synchronous calls are placed.
    pub routing: Routing,
    /// Jobs allowed to wait in the queue before submitters block.
    pub queue_limit: usize,
    /// How long an executor waits for more jobs before launching a batch
    /// that is not full.
    pub linger: Duration,
    /// A lone caller's job below this cost runs on the caller's thread.
    pub inline_cost_below: u64,
    /// Fail jobs instead of rescuing them on the CPU.
    pub strict: bool,
    /// Consecutive failed batches after which an executor gives its device up.
    pub max_consecutive_failures: u32,
}

impl Default for Options {
    fn default() -> Self {
        let config = super::config::get();
        Options {
            name: "jobs",
            routing: config.routing,
            queue_limit: 65_536,
            linger: config.batch_linger,
            inline_cost_below: u64::MAX,
            strict: config.strict,
            max_consecutive_failures: 3,
        }
    }
}

/// Counters for reports and tests.
#[derive(Debug, Default)]
pub struct Stats {
    pub inline_jobs: AtomicU64,
    pub queued_jobs: AtomicU64,
    pub batches: AtomicU64,
    pub batched_jobs: AtomicU64,
    pub largest_batch: AtomicU64,
    pub rescued_jobs: AtomicU64,
    pub failed_batches: AtomicU64,
    /// Queued calls their callers took back and ran themselves.
    pub reclaimed_jobs: AtomicU64,
}

impl Stats {
    fn snapshot(&self) -> StatsSnapshot {
        let load = |c: &AtomicU64| c.load(Ordering::Relaxed);
        StatsSnapshot {
            inline_jobs: load(&self.inline_jobs),
            queued_jobs: load(&self.queued_jobs),
            batches: load(&self.batches),
            batched_jobs: load(&self.batched_jobs),
            largest_batch: load(&self.largest_batch),
            rescued_jobs: load(&self.rescued_jobs),
            failed_batches: load(&self.failed_batches),
            reclaimed_jobs: load(&self.reclaimed_jobs),
        }
    }
}

/// A copy of [`Stats`] at one moment.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct StatsSnapshot {
    pub inline_jobs: u64,
    pub queued_jobs: u64,
    pub batches: u64,
    pub batched_jobs: u64,
    pub largest_batch: u64,
    pub rescued_jobs: u64,
    pub failed_batches: u64,
    pub reclaimed_jobs: u64,
}

type Reply<T> = mpsc::SyncSender<Result<T, ScheduleError>>;

struct Ticket<J: Job> {
    job: J,
    reply: Reply<J::Output>,
    /// `job.cost()`, taken once when queued.
    cost: u64,
    /// Finds the ticket in the queue when its caller takes it back.
    id: u64,
}

impl<J: Job> Ticket<J> {
    /// A ticket for a job of this cost (computed once, outside the lock) and
    /// the receiver its reply arrives on.
    fn new(job: J, cost: u64, id: u64) -> (Self, mpsc::Receiver<Result<J::Output, ScheduleError>>) {
        let (reply, receiver) = mpsc::sync_channel(1);
        (
            Ticket {
                job,
                reply,
                cost,
                id,
            },
            receiver,
        )
    }
}

struct State<J: Job> {
    queue: VecDeque<Ticket<J>>,
    /// Callers currently inside `submit`, inline ones included: a caller that
    /// sees others means concurrency worth batching.
    active_callers: usize,
    live_executors: usize,
    /// Executors inside `take_batch` (waiting for work or taking it).
    idle_executors: usize,
    shutting_down: bool,
    /// Sum of the queued tickets' costs.
    queued_cost: u64,
    /// When each busy executor's batch is expected to end (by executor).
    busy_until: Vec<Option<Instant>>,
    next_ticket: u64,
}

pub struct Shared<J: Job> {
    state: Mutex<State<J>>,
    work_ready: Condvar,
    space_free: Condvar,
    options: Options,
    stats: Stats,
    /// A call's time on its caller's thread, by cost.
    cpu_model: CpuModel,
    /// A launch's time, by the batch's cost.
    gpu_model: GpuModel,
    /// The scheduler's clock: launches and reports are timed from here.
    epoch: Instant,
    /// When the last batch was taken (ms on the scheduler's clock).
    last_launch_ms: AtomicU64,
    /// Calls running on their callers' threads that routing counts.
    running_here: std::sync::atomic::AtomicUsize,
    report: Report,
}

impl<J: Job> Shared<J> {
    fn lock(&self) -> MutexGuard<'_, State<J>> {
        // A panic while holding the lock can only come from our own code
        // between two plain field updates; the state stays consistent.
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// Runs a job on the caller's thread, timing it for the CPU model.
    fn run_here(&self, job: &J, cost: u64) -> Result<J::Output, ScheduleError> {
        let _timer = HereTimer::start(self, cost, true);
        run_cpu_caught(job)
    }

    /// Whether other callers are at work: queued, waiting, or running a
    /// call on their own thread that routing saw.
    fn others_active(&self, state: &State<J>) -> bool {
        state.active_callers > 0
            || !state.queue.is_empty()
            || self.running_here.load(Ordering::Relaxed) > 0
    }

    /// Where a call of `cost` goes under [`Routing::Cost`]: `None` for the
    /// caller's thread, `Some(patience)` for the device queue, taken back
    /// if no device has taken it within `patience`.
    fn cost_route(
        &self,
        state: &State<J>,
        cost: u64,
        cpu: Option<Duration>,
    ) -> Option<Option<Duration>> {
        let cpu = cpu?;
        if state.live_executors == 0 {
            return None;
        }
        if !self.gpu_model.is_warm() {
            // Until launches have been timed, one call at a time goes to an
            // idle device (the others run here): a device that turns out
            // slow costs one caller one round trip, not every caller a wait.
            let probing = state.queue.is_empty() && state.idle_executors == state.live_executors;
            return probing.then_some(Some(cpu));
        }
        let now = Instant::now();
        let wait = if state.idle_executors > 0 {
            Duration::ZERO
        } else {
            state
                .busy_until
                .iter()
                .flatten()
                .map(|end| end.saturating_duration_since(now))
                .min()
                .unwrap_or(Duration::ZERO)
        };
        let launch = self
            .gpu_model
            .launch(state.queued_cost.saturating_add(cost));
        if (wait + launch).mul_f64(DEVICE_MARGIN) < cpu {
            return Some(Some(cpu.saturating_sub(launch)));
        }
        // An idle device that has not launched for a while gets this call,
        // so that its model follows what it can do now.
        (state.idle_executors > 0 && self.explore_due()).then_some(Some(cpu))
    }

    /// Waits for a queued call's result; when no device has taken the call
    /// within `patience`, takes it back and runs it here.
    fn wait_or_reclaim(
        &self,
        receiver: &mpsc::Receiver<Result<J::Output, ScheduleError>>,
        id: u64,
        patience: Option<Duration>,
    ) -> Result<J::Output, ScheduleError> {
        let Some(patience) = patience else {
            return wait(receiver);
        };
        match receiver.recv_timeout(patience) {
            Ok(result) => return result,
            Err(mpsc::RecvTimeoutError::Disconnected) => {
                return Err(ScheduleError("internal: executor dropped a job".into()));
            }
            Err(mpsc::RecvTimeoutError::Timeout) => {}
        }
        let reclaimed = {
            let mut state = self.lock();
            let at = state.queue.iter().position(|t| t.id == id);
            let ticket = at.and_then(|at| state.queue.remove(at));
            if let Some(t) = &ticket {
                state.queued_cost = state.queued_cost.saturating_sub(t.cost);
            }
            ticket
        };
        match reclaimed {
            Some(ticket) => {
                self.space_free.notify_all();
                self.stats.reclaimed_jobs.fetch_add(1, Ordering::Relaxed);
                self.run_here(&ticket.job, ticket.cost)
            }
            // A device has it: its result is on the way.
            None => wait(receiver),
        }
    }

    fn ms_since_epoch(&self, at: Instant) -> u64 {
        at.saturating_duration_since(self.epoch).as_millis() as u64
    }

    /// Whether no batch was launched for [`EXPLORE_EVERY`].
    fn explore_due(&self) -> bool {
        let now = self.ms_since_epoch(Instant::now());
        now.saturating_sub(self.last_launch_ms.load(Ordering::Relaxed))
            > EXPLORE_EVERY.as_millis() as u64
    }

    /// With `SEQSHIM_LOG=info`, one line per second of work at most: how
    /// many calls ran where, and the mean device batch.
    fn maybe_report(&self) {
        if !super::log::enabled(super::config::LogLevel::Info) {
            return;
        }
        let now = self.ms_since_epoch(Instant::now());
        let due = self.report.next_ms.load(Ordering::Relaxed);
        if now < due
            || self
                .report
                .next_ms
                .compare_exchange(due, now + 1000, Ordering::Relaxed, Ordering::Relaxed)
                .is_err()
        {
            return;
        }
        let current = self.stats.snapshot();
        let mut last = self.report.last.lock().unwrap_or_else(|p| p.into_inner());
        let (before, since_ms) = *last;
        *last = (current, now);
        drop(last);
        let here = current.inline_jobs - before.inline_jobs;
        let queued = current.queued_jobs - before.queued_jobs;
        let batches = current.batches - before.batches;
        let batched = current.batched_jobs - before.batched_jobs;
        if here + queued == 0 {
            return;
        }
        crate::log_info!(
            "{}: last {:.1} s: {here} ran on the callers' threads ({} taken back from the queue), \
             {queued} queued for the GPU, {batches} launches of {:.1} on average, {} rescued on the CPU",
            self.options.name,
            now.saturating_sub(since_ms) as f64 / 1e3,
            current.reclaimed_jobs - before.reclaimed_jobs,
            if batches == 0 {
                0.0
            } else {
                batched as f64 / batches as f64
            },
            current.rescued_jobs - before.rescued_jobs,
        );
    }
}

/// The per-second report's state: when the next is due and the counters
/// the last one saw.
#[derive(Default)]
struct Report {
    next_ms: AtomicU64,
    last: Mutex<(StatsSnapshot, u64)>,
}

/// Routes jobs of one family to its devices and the CPU.
pub struct Scheduler<J: Job> {
    shared: Arc<Shared<J>>,
    labels: Vec<String>,
}

/// Where a synchronous call runs; see [`Scheduler::route`].
pub enum Route<'a, J: Job> {
    /// On the caller's thread, timed by the timer (hold it while the call
    /// runs: its drop records the time).
    Here(HereTimer<'a, J>),
    /// On a device, through [`Scheduler::submit_routed`] with this patience.
    Device(Option<Duration>),
}

/// Times a call its caller runs itself, for the CPU model (one run in a
/// few once the call's size class is known), and while routing may still
/// look for concurrent callers, counts it as one.
pub struct HereTimer<'a, J: Job> {
    shared: &'a Shared<J>,
    /// Times the call into the scheduler's CPU model.
    _timed: Timed<'a>,
    counted: bool,
}

impl<'a, J: Job> HereTimer<'a, J> {
    fn start(shared: &'a Shared<J>, cost: u64, counted: bool) -> Self {
        // Exactly on the locked paths; in batches on the lock-free one.
        count_here(&shared.stats.inline_jobs, !counted);
        if counted {
            shared.running_here.fetch_add(1, Ordering::Relaxed);
        }
        HereTimer {
            shared,
            _timed: Timed::start(&shared.cpu_model, cost),
            counted,
        }
    }
}

impl<J: Job> Drop for HereTimer<'_, J> {
    fn drop(&mut self) {
        if self.counted {
            self.shared.running_here.fetch_sub(1, Ordering::Relaxed);
        }
        self.shared.maybe_report();
    }
}

/// Counts a call run on its caller's thread. `batched`: counted a batch at
/// a time per thread, for the lock-free path, where many threads running
/// cheap calls would otherwise all write one counter's cache line at every
/// call; the counter then lags by less than a batch per thread.
fn count_here(counter: &AtomicU64, batched: bool) {
    const BATCH: u64 = 32;
    thread_local! {
        static CALLS: std::cell::Cell<u64> = const { std::cell::Cell::new(0) };
    }
    if !batched {
        counter.fetch_add(1, Ordering::Relaxed);
        return;
    }
    let nth = CALLS.with(|c| {
        let n = c.get() + 1;
        c.set(n);
        n
    });
    if nth % BATCH == 0 {
        counter.fetch_add(BATCH, Ordering::Relaxed);
    }
}

/// Runs jobs on the CPU pool only, in input order, without touching any
/// scheduler: for batches that must not use a device, so that a process
/// that never asks for one never starts its runners (kernels, device
/// memory). A job that panics fails alone (see [`run_cpu_caught`]).
///
/// The caller's thread works through the jobs too, so a small batch never
/// waits behind another caller's long one (see [`super::cpu::map_shared`]).
pub fn run_on_cpu<J: Job>(jobs: Vec<J>) -> Vec<Result<J::Output, ScheduleError>> {
    super::cpu::map_shared(jobs, |job| run_cpu_caught(&job))
        .into_iter()
        .map(|output| output.unwrap_or_else(|| Err(ScheduleError("internal: job lost".into()))))
        .collect()
}

/// How the error of a job whose CPU path panicked begins, so that callers
/// can tell a contained bug from a device failure.
pub const CPU_PATH_PANICKED: &str = "the CPU path panicked";

/// Runs a job on the CPU with its panic caught: a bug met by one job fails
/// that job, with the panic's message, instead of the caller's whole batch
/// or (on a pool thread started with `spawn`, whose panics abort) the
/// process.
pub fn run_cpu_caught<J: Job>(job: &J) -> Result<J::Output, ScheduleError> {
    super::panic::catching(|| job.run_cpu()).map_err(|payload| {
        ScheduleError(format!(
            "{CPU_PATH_PANICKED}: {}",
            super::panic::panic_message(&*payload)
        ))
    })
}

impl<J: Job> Scheduler<J> {
    /// Starts one executor thread per runner. With no runners every job runs
    /// on the CPU.
    pub fn new(runners: Vec<Box<dyn BatchRunner<J>>>, options: Options) -> Self {
        let shared = Arc::new(Shared {
            state: Mutex::new(State {
                queue: VecDeque::new(),
                active_callers: 0,
                live_executors: 0,
                idle_executors: 0,
                shutting_down: false,
                queued_cost: 0,
                busy_until: Vec::new(),
                next_ticket: 0,
            }),
            work_ready: Condvar::new(),
            space_free: Condvar::new(),
            options,
            stats: Stats::default(),
            cpu_model: CpuModel::default(),
            gpu_model: GpuModel::default(),
            epoch: Instant::now(),
            last_launch_ms: AtomicU64::new(0),
            running_here: std::sync::atomic::AtomicUsize::new(0),
            report: Report::default(),
        });
        let mut labels = Vec::new();
        for (index, runner) in runners.into_iter().enumerate() {
            let label = runner.label();
            let worker = shared.clone();
            {
                let mut state = shared.lock();
                state.live_executors += 1;
                state.busy_until.push(None);
            }
            let spawned = std::thread::Builder::new()
                .name(format!("seqshim-gpu-{index}"))
                .spawn(move || executor_loop(worker, runner, index));
            match spawned {
                Ok(_) => labels.push(label),
                Err(e) => {
                    shared.lock().live_executors -= 1;
                    crate::log_warn!("could not start the executor for {label}: {e}");
                }
            }
        }
        Scheduler { shared, labels }
    }

    /// Labels of the devices this scheduler started executors for.
    pub fn devices(&self) -> &[String] {
        &self.labels
    }

    /// Whether any device executor is still running.
    pub fn has_devices(&self) -> bool {
        self.shared.lock().live_executors > 0
    }

    pub fn stats(&self) -> StatsSnapshot {
        self.shared.stats.snapshot()
    }

    /// Runs one job and returns its result, on the caller's thread or on a
    /// device as [`Options::routing`] decides (see [`Routing`]).
    pub fn submit(&self, job: J) -> Result<J::Output, ScheduleError> {
        let cost = job.cost();
        if !job.gpu_eligible() {
            return self.shared.run_here(&job, cost);
        }
        match self.route(cost) {
            Route::Here(timer) => {
                let output = run_cpu_caught(&job);
                drop(timer);
                output
            }
            Route::Device(patience) => self.submit_routed(job, patience),
        }
    }

    /// Where a synchronous call of `cost` should run, decided before its
    /// job is built: a call that runs on its caller's thread needs no job
    /// (no copy of its inputs), and its caller runs it with its own code.
    pub fn route(&self, cost: u64) -> Route<'_, J> {
        let shared = &*self.shared;
        let here = |counted: bool| Route::Here(HereTimer::start(shared, cost, counted));
        if self.labels.is_empty() {
            return here(false);
        }
        let cpu = shared.cpu_model.estimate(cost);
        if shared.options.routing == Routing::Cost {
            match cpu {
                // Learn what the call costs here before weighing a device.
                None => return here(true),
                // Without a lock: even an idle device alone would be slower.
                Some(cpu)
                    if shared.gpu_model.is_warm()
                        && cpu <= shared.gpu_model.launch(cost).mul_f64(DEVICE_MARGIN)
                        && !shared.explore_due() =>
                {
                    return here(false);
                }
                Some(_) => {}
            }
        }
        let state = shared.lock();
        let route = match shared.options.routing {
            Routing::Coalesce => {
                let cheap = cost < shared.options.inline_cost_below;
                (state.live_executors > 0 && (shared.others_active(&state) || !cheap))
                    .then_some(None)
            }
            Routing::Cost => shared.cost_route(&state, cost, cpu),
        };
        drop(state);
        match route {
            Some(patience) => Route::Device(patience),
            None => here(true),
        }
    }

    /// Queues a job [`Scheduler::route`] sent to the devices and waits for
    /// its result, taking it back to run here if no device has taken it
    /// within `patience`.
    pub fn submit_routed(
        &self,
        job: J,
        patience: Option<Duration>,
    ) -> Result<J::Output, ScheduleError> {
        let shared = &self.shared;
        let cost = job.cost();
        let mut state = shared.lock();
        state.active_callers += 1;
        let id = state.next_ticket;
        state.next_ticket += 1;
        let (ticket, receiver) = Ticket::new(job, cost, id);
        let outcome = match enqueue(shared, state, ticket) {
            Ok(()) => shared.wait_or_reclaim(&receiver, id, patience),
            Err(ticket) => shared.run_here(&ticket.job, cost),
        };
        shared.lock().active_callers -= 1;
        outcome
    }

    /// Runs many jobs, devices and CPU pool at once: jobs a device may take
    /// are queued for the executors (together, see [`Scheduler::queue_many`])
    /// while the CPU pool works through the others. Results come back in
    /// input order.
    pub fn run_all(&self, jobs: Vec<J>) -> Vec<Result<J::Output, ScheduleError>> {
        let shared = &self.shared;
        let use_devices = shared.lock().live_executors > 0;
        let mut results: Vec<Option<Result<J::Output, ScheduleError>>> =
            (0..jobs.len()).map(|_| None).collect();
        let mut for_cpu = Vec::new();
        let mut waiting = Vec::new();
        let mut handed_back = Vec::new();
        let mut to_queue = Vec::new();
        for (index, job) in jobs.into_iter().enumerate() {
            if use_devices && job.gpu_eligible() {
                to_queue.push((index, job));
            } else {
                for_cpu.push((index, job));
            }
        }
        // The CPU share starts on the free pool threads, the device share
        // is queued, and then this thread joins the CPU share: never
        // queued behind other callers' work on the pool.
        let cpu_share = start_indexed_on_cpu(for_cpu);
        let (indices, jobs): (Vec<usize>, Vec<J>) = to_queue.into_iter().unzip();
        for (index, handed) in indices.into_iter().zip(self.queue_many(jobs)) {
            match handed {
                Ok(queued) => waiting.push((index, queued)),
                Err(job) => handed_back.push((index, job)),
            }
        }
        let cpu_outputs = cpu_share();
        shared
            .stats
            .inline_jobs
            .fetch_add(cpu_outputs.len() as u64, Ordering::Relaxed);
        for (index, output) in cpu_outputs {
            results[index] = Some(output);
        }
        for (index, queued) in waiting {
            results[index] = Some(queued.wait());
        }
        // Jobs no executor was left to take (every device retired meanwhile).
        for (index, output) in run_indexed_on_cpu(handed_back) {
            results[index] = Some(output);
        }
        results
            .into_iter()
            .map(|r| r.unwrap_or_else(|| Err(ScheduleError("internal: job lost".into()))))
            .collect()
    }

    /// Hands jobs to the device executors and returns at once: the caller
    /// goes on (building the next jobs, say) while devices run them. The
    /// jobs enter the queue together (one lock, then one wake-up), so an
    /// executor finds all of them and can launch them as one batch: queued
    /// one by one, the first executor woke up to the first few and launched
    /// those alone (a 100,000-pair batch of 1 kbp pairs opened with
    /// launches of 917 and 393 pairs). Only a full queue splits them: the
    /// caller then waits for room while executors take what is there. May
    /// be called from many threads, the CPU pool's included: executors never
    /// wait for that pool, so a full queue always drains. Gives a job back
    /// when no executor is left.
    pub fn queue_many(&self, jobs: Vec<J>) -> Vec<Result<Queued<J>, J>> {
        let shared = &self.shared;
        let mut state = shared.lock();
        let mut handed = Vec::with_capacity(jobs.len());
        for job in jobs {
            let cost = job.cost();
            let id = state.next_ticket;
            state.next_ticket += 1;
            let (ticket, receiver) = Ticket::new(job, cost, id);
            let (after, pushed) = push(shared, state, ticket);
            state = after;
            handed.push(match pushed {
                Ok(()) => Ok(Queued(Some(receiver))),
                Err(ticket) => Err(ticket.job),
            });
        }
        drop(state);
        shared.work_ready.notify_all();
        handed
    }
}

/// A job given to the devices by [`Scheduler::queue_many`]. Dropping the handle
/// without [`Queued::wait`] (a caller unwinding, say) still waits for the
/// job: once every handle of a caller is gone, no device or pool thread
/// reads what its jobs borrow any more, which is what lets the batch API
/// lend caller memory to jobs instead of copying it.
pub struct Queued<J: Job>(Option<mpsc::Receiver<Result<J::Output, ScheduleError>>>);

impl<J: Job> Queued<J> {
    /// The job's output, once its device (or the CPU pool, should the device
    /// fail) has it.
    pub fn wait(mut self) -> Result<J::Output, ScheduleError> {
        match self.0.take() {
            Some(receiver) => wait(&receiver),
            None => Err(ScheduleError("internal: job already waited for".into())),
        }
    }
}

impl<J: Job> Drop for Queued<J> {
    fn drop(&mut self) {
        // Every path that ends a job (a device, a CPU rescue, a retired
        // executor's hand-back) replies after its last read of the job, or
        // drops the reply with the job unread.
        if let Some(receiver) = self.0.take() {
            let _ = receiver.recv();
        }
    }
}

/// [`run_on_cpu`] for jobs that carry their index in a run.
fn run_indexed_on_cpu<J: Job>(
    jobs: Vec<(usize, J)>,
) -> Vec<(usize, Result<J::Output, ScheduleError>)> {
    start_indexed_on_cpu(jobs)()
}

/// [`run_indexed_on_cpu`] started on the free pool threads; calling the
/// returned function joins in and collects the results.
fn start_indexed_on_cpu<J: Job>(
    jobs: Vec<(usize, J)>,
) -> impl FnOnce() -> Vec<(usize, Result<J::Output, ScheduleError>)> {
    let (indices, jobs): (Vec<usize>, Vec<J>) = jobs.into_iter().unzip();
    let run = super::cpu::start_shared(jobs, |job| run_cpu_caught(&job));
    move || {
        let lost = || Err(ScheduleError("internal: job lost".into()));
        let outputs = run.join().into_iter().map(|o| o.unwrap_or_else(lost));
        indices.into_iter().zip(outputs).collect()
    }
}

impl<J: Job> Drop for Scheduler<J> {
    fn drop(&mut self) {
        self.shared.lock().shutting_down = true;
        self.shared.work_ready.notify_all();
    }
}

/// Puts a ticket in the queue and wakes an executor; see [`push`].
fn enqueue<J: Job>(
    shared: &Shared<J>,
    state: MutexGuard<'_, State<J>>,
    ticket: Ticket<J>,
) -> Result<(), Ticket<J>> {
    let (state, pushed) = push(shared, state, ticket);
    drop(state);
    if pushed.is_ok() {
        shared.work_ready.notify_one();
    }
    pushed
}

/// Puts a ticket in the queue without waking an executor for it, waiting
/// while the queue is full (the executors are woken first, so that they
/// drain it). Gives the ticket back when no executor is left to take it.
fn push<'a, J: Job>(
    shared: &'a Shared<J>,
    mut state: MutexGuard<'a, State<J>>,
    ticket: Ticket<J>,
) -> (MutexGuard<'a, State<J>>, Result<(), Ticket<J>>) {
    while state.queue.len() >= shared.options.queue_limit && state.live_executors > 0 {
        shared.work_ready.notify_all();
        state = shared
            .space_free
            .wait(state)
            .unwrap_or_else(|p| p.into_inner());
    }
    if state.live_executors == 0 {
        return (state, Err(ticket));
    }
    state.queued_cost = state.queued_cost.saturating_add(ticket.cost);
    state.queue.push_back(ticket);
    shared.stats.queued_jobs.fetch_add(1, Ordering::Relaxed);
    (state, Ok(()))
}

fn wait<T>(receiver: &mpsc::Receiver<Result<T, ScheduleError>>) -> Result<T, ScheduleError> {
    receiver
        .recv()
        .unwrap_or_else(|_| Err(ScheduleError("internal: executor dropped a job".into())))
}

fn executor_loop<J: Job>(
    shared: Arc<Shared<J>>,
    mut runner: Box<dyn BatchRunner<J>>,
    index: usize,
) {
    let label = runner.label();
    let capacity = runner.capacity().max(1);
    let max_cost = runner.max_batch_cost().max(1);
    let min_cost = runner.min_batch_cost().min(max_cost);
    let mut consecutive_failures = 0;
    loop {
        let batch = match take_batch(&shared, capacity, min_cost..=max_cost, index) {
            Some(batch) => batch,
            None => break,
        };
        let batch_cost = batch.iter().fold(0u64, |sum, t| sum.saturating_add(t.cost));
        let (jobs, replies): (Vec<J>, Vec<Reply<J::Output>>) =
            batch.into_iter().map(|t| (t.job, t.reply)).unzip();
        let stats = &shared.stats;
        stats.batches.fetch_add(1, Ordering::Relaxed);
        stats
            .batched_jobs
            .fetch_add(jobs.len() as u64, Ordering::Relaxed);
        stats
            .largest_batch
            .fetch_max(jobs.len() as u64, Ordering::Relaxed);

        let started = Instant::now();
        let outcome =
            super::panic::catching(|| runner.run_batch(&jobs)).unwrap_or_else(|payload| {
                Err(format!(
                    "panicked: {}",
                    super::panic::panic_message(&*payload)
                ))
            });
        let outputs = match outcome {
            Ok(outputs) if outputs.len() == jobs.len() => {
                consecutive_failures = 0;
                // A first launch also pays one-time costs (module loading,
                // memory growth): the model starts pessimistic, the safe
                // side, and forgets it within a few launches.
                shared.gpu_model.record(batch_cost, started.elapsed());
                crate::log_debug!(
                    "{label}: batch of {} in {:.3} ms",
                    jobs.len(),
                    started.elapsed().as_secs_f64() * 1e3
                );
                outputs
            }
            failed => {
                let why = match failed {
                    Err(e) => e,
                    Ok(outputs) => {
                        format!("returned {} results for {} jobs", outputs.len(), jobs.len())
                    }
                };
                consecutive_failures += 1;
                stats.failed_batches.fetch_add(1, Ordering::Relaxed);
                crate::log_warn!(
                    "{label}: batch of {} failed ({why}); rerunning it on the CPU",
                    jobs.len()
                );
                jobs.iter().map(|_| None).collect()
            }
        };
        deliver(&shared, jobs, replies, outputs, &label);
        shared.maybe_report();

        if consecutive_failures >= shared.options.max_consecutive_failures {
            crate::log_warn!(
                "{label}: {consecutive_failures} failed batches in a row; no longer using this device"
            );
            break;
        }
    }
    retire(&shared);
}

/// Waits for work, lingers if asked, and takes up to `capacity` tickets
/// whose costs sum to at most the end of `cost` (one ticket at least).
/// `None` when the scheduler is shutting down.
fn take_batch<J: Job>(
    shared: &Shared<J>,
    capacity: usize,
    cost: std::ops::RangeInclusive<u64>,
    executor: usize,
) -> Option<Vec<Ticket<J>>> {
    let mut state = shared.lock();
    state.idle_executors += 1;
    state.busy_until[executor] = None;
    while state.queue.is_empty() {
        if state.shutting_down {
            state.idle_executors -= 1;
            return None;
        }
        state = shared
            .work_ready
            .wait(state)
            .unwrap_or_else(|p| p.into_inner());
    }
    let linger = shared.options.linger;
    if !linger.is_zero() && state.queue.len() < capacity {
        let deadline = Instant::now() + linger;
        while state.queue.len() < capacity {
            let now = Instant::now();
            if now >= deadline {
                break;
            }
            state = shared
                .work_ready
                .wait_timeout(state, deadline - now)
                .unwrap_or_else(|p| p.into_inner())
                .0;
        }
    }
    // With several executors free, leave a fair share of the queue to the
    // others, so one large submission is spread over every GPU instead of
    // filling the first executor that wakes up; but take at least the start
    // of `cost` while there is more. Executors still busy get no share: the
    // next free one takes what is left then (counting them cut the end of a
    // run into ever-halved launches, each a round trip of its own).
    let share = state.queue.len().div_ceil(state.idle_executors.max(1));
    state.idle_executors -= 1;
    let take = batch_len(state.queue.iter().map(|t| t.cost), share, capacity, &cost);
    let batch: Vec<Ticket<J>> = state.queue.drain(..take).collect();
    let taken = batch.iter().fold(0u64, |sum, t| sum.saturating_add(t.cost));
    state.queued_cost = state.queued_cost.saturating_sub(taken);
    let now = Instant::now();
    state.busy_until[executor] = Some(now + shared.gpu_model.launch(taken));
    shared
        .last_launch_ms
        .store(shared.ms_since_epoch(now), Ordering::Relaxed);
    drop(state);
    shared.space_free.notify_all();
    Some(batch)
}

/// How many of the queued jobs (their costs, front first) one batch takes:
/// one at least, at most `capacity`, costs summing to at most the end of
/// `cost`, and more than `share` only while the batch is below its start.
fn batch_len(
    costs: impl Iterator<Item = u64>,
    share: usize,
    capacity: usize,
    cost: &std::ops::RangeInclusive<u64>,
) -> usize {
    let mut take = 0;
    let mut taken = 0u64;
    for (i, c) in costs.take(capacity).enumerate() {
        let more = taken.saturating_add(c);
        if i > 0 && (more > *cost.end() || (i >= share && taken >= *cost.start())) {
            break;
        }
        taken = more;
        take = i + 1;
    }
    take
}

/// Sends each caller its result; jobs without one are rerun on the CPU pool
/// (or refused, in strict mode).
fn deliver<J: Job>(
    shared: &Arc<Shared<J>>,
    jobs: Vec<J>,
    replies: Vec<Reply<J::Output>>,
    outputs: Vec<Option<J::Output>>,
    label: &str,
) {
    for ((job, reply), output) in jobs.into_iter().zip(replies).zip(outputs) {
        match output {
            // A caller that went away (it cannot, but) is not our problem.
            Some(output) => {
                let _ = reply.send(Ok(output));
            }
            None if shared.options.strict => {
                let _ = reply.send(Err(ScheduleError(format!(
                    "{label} could not run the job and SEQSHIM_STRICT forbids the CPU fallback"
                ))));
            }
            None => {
                shared.stats.rescued_jobs.fetch_add(1, Ordering::Relaxed);
                super::cpu::spawn(move || {
                    let _ = reply.send(run_cpu_caught(&job));
                });
            }
        }
    }
}

/// Removes an executor; when it was the last one, every queued job goes to
/// the CPU so that no caller waits forever.
fn retire<J: Job>(shared: &Arc<Shared<J>>) {
    let orphans: Vec<Ticket<J>> = {
        let mut state = shared.lock();
        state.live_executors -= 1;
        if state.live_executors == 0 {
            state.queued_cost = 0;
            state.queue.drain(..).collect()
        } else {
            Vec::new()
        }
    };
    shared.space_free.notify_all();
    for ticket in orphans {
        shared.stats.rescued_jobs.fetch_add(1, Ordering::Relaxed);
        super::cpu::spawn(move || {
            let _ = ticket.reply.send(run_cpu_caught(&ticket.job));
        });
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    /// A job whose answer is easy to check: the square of its input. It
    /// takes a little time, as real jobs do, so concurrent callers overlap.
    /// On the CPU, input [`PANICS`] meets a bug.
    struct Square(u64);

    const PANICS: u64 = 666_667;

    impl Job for Square {
        type Output = (u64, &'static str);
        fn run_cpu(&self) -> Self::Output {
            std::thread::sleep(Duration::from_micros(100));
            assert_ne!(self.0, PANICS, "a bug in the CPU path");
            (self.0 * self.0, "cpu")
        }
        fn gpu_eligible(&self) -> bool {
            self.0 != 7_777
        }
    }

    /// What the test device does with a batch.
    #[derive(Clone, Copy)]
    enum Behaviour {
        Work,
        FailBatches,
        SkipOddJobs,
        Panic,
    }

    /// A "device" that runs batches on the CPU, slowly enough that callers
    /// pile up behind it, and records batch sizes.
    struct TestRunner {
        behaviour: Behaviour,
        batch_sizes: Arc<Mutex<Vec<usize>>>,
        capacity: usize,
    }

    impl BatchRunner<Square> for TestRunner {
        fn label(&self) -> String {
            "test device".into()
        }
        fn capacity(&self) -> usize {
            self.capacity
        }
        fn run_batch(
            &mut self,
            jobs: &[Square],
        ) -> Result<Vec<Option<(u64, &'static str)>>, String> {
            self.batch_sizes.lock().unwrap().push(jobs.len());
            std::thread::sleep(Duration::from_millis(2));
            match self.behaviour {
                Behaviour::Work => Ok(jobs.iter().map(|j| Some((j.0 * j.0, "device"))).collect()),
                Behaviour::FailBatches => Err("simulated launch failure".into()),
                Behaviour::SkipOddJobs => Ok(jobs
                    .iter()
                    .map(|j| (j.0 % 2 == 0).then_some((j.0 * j.0, "device")))
                    .collect()),
                Behaviour::Panic => panic!("simulated driver panic"),
            }
        }
    }

    fn options(strict: bool) -> Options {
        Options {
            name: "test",
            routing: Routing::Coalesce,
            queue_limit: 64,
            linger: Duration::ZERO,
            inline_cost_below: 1_000,
            strict,
            max_consecutive_failures: 1_000_000,
        }
    }

    /// `devices` test devices taking `capacity` jobs a batch, under
    /// `options`, and the batch sizes they record.
    fn devices(
        behaviour: Behaviour,
        devices: usize,
        capacity: usize,
        options: Options,
    ) -> (Scheduler<Square>, Arc<Mutex<Vec<usize>>>) {
        let sizes = Arc::new(Mutex::new(Vec::new()));
        let runners: Vec<Box<dyn BatchRunner<Square>>> = (0..devices)
            .map(|_| {
                Box::new(TestRunner {
                    behaviour,
                    batch_sizes: sizes.clone(),
                    capacity,
                }) as Box<dyn BatchRunner<Square>>
            })
            .collect();
        (Scheduler::new(runners, options), sizes)
    }

    fn scheduler(
        behaviour: Behaviour,
        count: usize,
        strict: bool,
    ) -> (Scheduler<Square>, Arc<Mutex<Vec<usize>>>) {
        devices(behaviour, count, 256, options(strict))
    }

    fn one_device(
        behaviour: Behaviour,
        capacity: usize,
        options: Options,
    ) -> (Scheduler<Square>, Arc<Mutex<Vec<usize>>>) {
        devices(behaviour, 1, capacity, options)
    }

    /// `threads` callers each submit `per_thread` distinct jobs; returns every
    /// (input, output, where) triple.
    fn hammer(
        s: &Scheduler<Square>,
        threads: u64,
        per_thread: u64,
    ) -> Vec<(u64, u64, &'static str)> {
        let seen = Mutex::new(Vec::new());
        let start = std::sync::Barrier::new(threads as usize);
        std::thread::scope(|scope| {
            for t in 0..threads {
                let (seen, start) = (&seen, &start);
                scope.spawn(move || {
                    start.wait();
                    for i in 0..per_thread {
                        let input = t * 1_000 + i;
                        let (out, place) = s.submit(Square(input)).expect("job result");
                        seen.lock().unwrap().push((input, out, place));
                    }
                });
            }
        });
        seen.into_inner().unwrap()
    }

    #[test]
    fn concurrent_callers_are_coalesced_and_each_gets_its_own_result() {
        let (s, sizes) = scheduler(Behaviour::Work, 1, false);
        let results = hammer(&s, 32, 20);
        assert_eq!(results.len(), 640);
        for (input, out, _) in &results {
            assert_eq!(
                *out,
                input * input,
                "caller {input} got someone else's result"
            );
        }
        let sizes = sizes.lock().unwrap();
        let stats = s.stats();
        assert!(
            stats.largest_batch > 1,
            "no batch held more than one job: {sizes:?}"
        );
        assert!(
            (sizes.len() as u64) < stats.queued_jobs,
            "batches were not coalesced"
        );
        assert_eq!(stats.rescued_jobs, 0);
        assert_eq!(stats.inline_jobs + stats.queued_jobs, 640);
    }

    #[test]
    fn a_lone_caller_stays_on_its_own_thread() {
        let (s, sizes) = scheduler(Behaviour::Work, 1, false);
        for i in 0..50 {
            assert_eq!(s.submit(Square(i)).unwrap(), (i * i, "cpu"));
        }
        assert!(sizes.lock().unwrap().is_empty());
        assert_eq!(s.stats().inline_jobs, 50);
    }

    #[test]
    fn failing_batches_are_rerun_on_the_cpu_with_nothing_lost() {
        let (s, _) = scheduler(Behaviour::FailBatches, 1, false);
        let results = hammer(&s, 16, 10);
        assert_eq!(results.len(), 160);
        for (input, out, _) in &results {
            assert_eq!(*out, input * input);
        }
        let stats = s.stats();
        assert!(stats.failed_batches > 0);
        assert_eq!(stats.rescued_jobs, stats.queued_jobs);
    }

    #[test]
    fn jobs_a_device_skips_are_rescued() {
        let (s, _) = scheduler(Behaviour::SkipOddJobs, 2, false);
        let jobs: Vec<Square> = (0..500).map(Square).collect();
        let results = s.run_all(jobs);
        for (i, r) in results.into_iter().enumerate() {
            let (out, place) = r.unwrap();
            let i = i as u64;
            assert_eq!(out, i * i);
            assert_eq!(place, if i % 2 == 0 { "device" } else { "cpu" });
        }
        assert_eq!(s.stats().rescued_jobs, 250);
    }

    #[test]
    fn a_panicking_device_is_contained() {
        let (s, _) = scheduler(Behaviour::Panic, 1, false);
        let results = s.run_all((0..100).map(Square).collect());
        assert!(
            results
                .iter()
                .enumerate()
                .all(|(i, r)| r.as_ref().unwrap().0 == (i * i) as u64)
        );
    }

    #[test]
    fn strict_mode_reports_instead_of_falling_back() {
        let (s, _) = scheduler(Behaviour::FailBatches, 1, true);
        let results = s.run_all((0..10).map(Square).collect());
        assert!(results.iter().all(|r| r.is_err()));
    }

    #[test]
    fn batch_api_splits_between_device_and_cpu() {
        let (s, sizes) = scheduler(Behaviour::Work, 2, false);
        let mut jobs: Vec<Square> = (0..1_000).map(Square).collect();
        jobs[10] = Square(7_777); // not eligible for the device
        let results = s.run_all(jobs);
        assert_eq!(results[10].as_ref().unwrap(), &(7_777 * 7_777, "cpu"));
        let on_device = results
            .iter()
            .filter(|r| r.as_ref().unwrap().1 == "device")
            .count();
        assert_eq!(on_device, 999);
        assert_eq!(sizes.lock().unwrap().iter().sum::<usize>(), 999);
    }

    /// A slow device whose batches hold at most `max_cost` of cost.
    struct SlowDevice {
        max_cost: u64,
        batch_costs: Arc<Mutex<Vec<u64>>>,
    }

    impl BatchRunner<Square> for SlowDevice {
        fn label(&self) -> String {
            "slow device".into()
        }
        fn capacity(&self) -> usize {
            10_000
        }
        fn max_batch_cost(&self) -> u64 {
            self.max_cost
        }
        fn run_batch(
            &mut self,
            jobs: &[Square],
        ) -> Result<Vec<Option<(u64, &'static str)>>, String> {
            self.batch_costs
                .lock()
                .unwrap()
                .push(jobs.iter().map(Job::cost).sum());
            std::thread::sleep(Duration::from_millis(20));
            Ok(jobs.iter().map(|j| Some((j.0 * j.0, "device"))).collect())
        }
    }

    #[test]
    fn batches_respect_the_runner_cost_limit() {
        let costs = Arc::new(Mutex::new(Vec::new()));
        let runner = SlowDevice {
            max_cost: 5,
            batch_costs: costs.clone(),
        };
        let s = Scheduler::new(vec![Box::new(runner)], options(false));
        // Every job costs 1: 100 jobs, at most 5 per batch, all on the device.
        let results = s.run_all((0..100).map(|_| Square(10)).collect());
        assert!(
            results
                .iter()
                .all(|r| r.as_ref().unwrap() == &(100, "device"))
        );
        let costs = costs.lock().unwrap();
        assert!(costs.iter().all(|&c| c <= 5), "{costs:?}");
        assert_eq!(costs.iter().sum::<u64>(), 100);
    }

    /// Queues `Square(0..n)` together and waits for every result (the
    /// executors are live, so none is given back).
    fn queue_and_wait(s: &Scheduler<Square>, n: u64) -> Vec<(u64, &'static str)> {
        s.queue_many((0..n).map(Square).collect())
            .into_iter()
            .map(|handed| {
                let queued = handed.ok().expect("an executor is live");
                queued.wait().expect("job result")
            })
            .collect()
    }

    /// Jobs queued together are taken together: queued one at a time, the
    /// executor could wake up to the first few and launch those alone.
    #[test]
    fn jobs_queued_together_are_one_batch() {
        let (s, sizes) = scheduler(Behaviour::Work, 1, false);
        let outputs = queue_and_wait(&s, 60);
        let want: Vec<(u64, &str)> = (0..60).map(|i| (i * i, "device")).collect();
        assert_eq!(outputs, want);
        assert_eq!(*sizes.lock().unwrap(), vec![60]);
    }

    /// More jobs than the queue holds: the caller waits for room, and the
    /// executors it woke make room (no job is lost, nothing hangs).
    #[test]
    fn queueing_many_jobs_into_a_small_queue_waits_for_room() {
        let mut opts = options(false);
        opts.queue_limit = 5;
        let (s, sizes) = one_device(Behaviour::Work, 256, opts);
        let outputs: Vec<u64> = queue_and_wait(&s, 40).iter().map(|o| o.0).collect();
        assert_eq!(outputs, (0..40).map(|i| i * i).collect::<Vec<_>>());
        let sizes = sizes.lock().unwrap();
        assert_eq!(sizes.iter().sum::<usize>(), 40);
        assert!(sizes.iter().all(|&n| n <= 5), "{sizes:?}");
    }

    /// Dropping a `Queued` handle unwaited (as a caller unwinding would)
    /// returns only once its job is finished: the batch API lends caller
    /// memory to jobs on that promise.
    #[test]
    fn a_dropped_handle_waits_for_its_job() {
        struct Finisher(Arc<AtomicUsize>);
        impl BatchRunner<Square> for Finisher {
            fn label(&self) -> String {
                "finisher".into()
            }
            fn capacity(&self) -> usize {
                4
            }
            fn run_batch(
                &mut self,
                jobs: &[Square],
            ) -> Result<Vec<Option<(u64, &'static str)>>, String> {
                std::thread::sleep(Duration::from_millis(5));
                self.0.fetch_add(jobs.len(), Ordering::SeqCst);
                Ok(jobs.iter().map(|j| Some((j.0 * j.0, "device"))).collect())
            }
        }
        let finished = Arc::new(AtomicUsize::new(0));
        let s = Scheduler::new(vec![Box::new(Finisher(finished.clone()))], options(false));
        let handles: Vec<_> = s
            .queue_many((0..12).map(Square).collect())
            .into_iter()
            .map(|handed| handed.ok().expect("an executor is live"))
            .collect();
        drop(handles);
        assert_eq!(finished.load(Ordering::SeqCst), 12);
    }

    /// A batch takes its fair share of the queue, but not less than the
    /// least batch cost while more is queued, and never more than the
    /// capacity or the most cost.
    #[test]
    fn a_draining_queue_is_not_cut_below_the_least_batch_cost() {
        let ones = |n| std::iter::repeat_n(1u64, n);
        let cost = 25..=100;
        // Two executors, 1,000 queued: half, capped by the most cost.
        assert_eq!(batch_len(ones(1_000), 500, 10_000, &cost), 100);
        // 60 queued: the share of 30 is above the least cost.
        assert_eq!(batch_len(ones(60), 30, 10_000, &cost), 30);
        // 30 queued: a share of 15 would halve the tail; take 25.
        assert_eq!(batch_len(ones(30), 15, 10_000, &cost), 25);
        // Fewer than the least cost queued: all of them.
        assert_eq!(batch_len(ones(7), 4, 10_000, &cost), 7);
        // The capacity still bounds it, and one job is always taken.
        assert_eq!(batch_len(ones(30), 15, 20, &cost), 20);
        assert_eq!(batch_len([500u64, 1].into_iter(), 1, 10_000, &cost), 1);
        // Without a least cost, the fair share as before.
        assert_eq!(batch_len(ones(30), 15, 10_000, &(0..=100)), 15);
    }

    #[test]
    fn a_large_submission_is_spread_over_every_device() {
        let labels = Arc::new(Mutex::new(Vec::new()));
        struct Named {
            name: &'static str,
            seen: Arc<Mutex<Vec<&'static str>>>,
        }
        impl BatchRunner<Square> for Named {
            fn label(&self) -> String {
                self.name.into()
            }
            fn capacity(&self) -> usize {
                10_000
            }
            fn run_batch(
                &mut self,
                jobs: &[Square],
            ) -> Result<Vec<Option<(u64, &'static str)>>, String> {
                self.seen.lock().unwrap().push(self.name);
                std::thread::sleep(Duration::from_millis(5));
                Ok(jobs.iter().map(|j| Some((j.0 * j.0, self.name))).collect())
            }
        }
        let runners: Vec<Box<dyn BatchRunner<Square>>> = ["gpu0", "gpu1"]
            .into_iter()
            .map(|name| {
                Box::new(Named {
                    name,
                    seen: labels.clone(),
                }) as Box<dyn BatchRunner<Square>>
            })
            .collect();
        let s = Scheduler::new(runners, options(false));
        let results = s.run_all((0..2_000).map(Square).collect());
        assert!(
            results
                .iter()
                .enumerate()
                .all(|(i, r)| r.as_ref().unwrap().0 == (i * i) as u64)
        );
        let used: std::collections::HashSet<&str> =
            results.iter().map(|r| r.as_ref().unwrap().1).collect();
        assert!(
            used.contains("gpu0") && used.contains("gpu1"),
            "work went to {used:?} only"
        );
    }

    #[test]
    fn a_device_that_keeps_failing_is_retired_and_queued_work_survives() {
        let mut opts = options(false);
        opts.max_consecutive_failures = 2;
        let (s, sizes) = one_device(Behaviour::FailBatches, 4, opts);
        let results = s.run_all((0..200).map(Square).collect());
        assert!(
            results
                .iter()
                .enumerate()
                .all(|(i, r)| r.as_ref().unwrap().0 == (i * i) as u64)
        );
        assert!(!s.has_devices());
        // Later work runs on the CPU without touching the retired device.
        let before = sizes.lock().unwrap().len();
        assert_eq!(s.submit(Square(3)).unwrap(), (9, "cpu"));
        assert_eq!(sizes.lock().unwrap().len(), before);
    }

    #[test]
    fn backpressure_bounds_the_queue_without_deadlock() {
        let counter = Arc::new(AtomicUsize::new(0));
        let mut opts = options(false);
        opts.queue_limit = 5;
        let (s, sizes) = one_device(Behaviour::Work, 3, opts);
        let results = hammer(&s, 24, 5);
        counter.fetch_add(results.len(), Ordering::Relaxed);
        assert_eq!(counter.load(Ordering::Relaxed), 120);
        assert!(sizes.lock().unwrap().iter().all(|&n| n <= 3));
    }

    /// A CPU job that panics fails alone, on every CPU path: run with
    /// others, submitted inline, and rescued from a device on a pool thread
    /// (where an uncaught panic would abort the process).
    #[test]
    fn a_cpu_job_that_panics_fails_alone() {
        let (sched, _) = scheduler(Behaviour::Work, 0, false);
        let results = sched.run_all(vec![Square(2), Square(PANICS), Square(3)]);
        assert_eq!(results[0], Ok((4, "cpu")));
        let why = results[1].clone().expect_err("the panicking job fails");
        assert!(why.0.contains("a bug in the CPU path"), "{why}");
        assert_eq!(results[2], Ok((9, "cpu")));
        assert!(sched.submit(Square(PANICS)).is_err());

        // The device skips odd jobs (PANICS is odd): their CPU rescue runs
        // on a pool thread.
        let (sched, _) = scheduler(Behaviour::SkipOddJobs, 1, false);
        let results = sched.run_all(vec![Square(6), Square(PANICS), Square(9)]);
        assert_eq!(results[0], Ok((36, "device")));
        let why = results[1]
            .clone()
            .expect_err("the rescued panicking job fails");
        assert!(why.0.contains("a bug in the CPU path"), "{why}");
        assert_eq!(results[2], Ok((81, "cpu")));
    }

    /// A job that takes `cpu` on the caller's thread.
    struct Nap {
        x: u64,
        cpu: Duration,
    }

    impl Job for Nap {
        type Output = (u64, &'static str);
        fn run_cpu(&self) -> Self::Output {
            std::thread::sleep(self.cpu);
            (self.x + 1, "cpu")
        }
        fn cost(&self) -> u64 {
            100
        }
    }

    /// A device whose every launch takes `latency`, or stalls for a long
    /// time while `stall` is set.
    struct NapDevice {
        latency: Duration,
        stall: Arc<std::sync::atomic::AtomicBool>,
    }

    impl BatchRunner<Nap> for NapDevice {
        fn label(&self) -> String {
            "nap device".into()
        }
        fn capacity(&self) -> usize {
            1024
        }
        fn run_batch(&mut self, jobs: &[Nap]) -> Result<Vec<Option<(u64, &'static str)>>, String> {
            if self.stall.load(Ordering::Relaxed) {
                std::thread::sleep(Duration::from_millis(400));
            }
            std::thread::sleep(self.latency);
            Ok(jobs.iter().map(|j| Some((j.x + 1, "device"))).collect())
        }
    }

    fn nap_scheduler(latency: Duration) -> (Scheduler<Nap>, Arc<std::sync::atomic::AtomicBool>) {
        let stall = Arc::new(std::sync::atomic::AtomicBool::new(false));
        let device = NapDevice {
            latency,
            stall: stall.clone(),
        };
        let opts = Options {
            routing: Routing::Cost,
            ..options(false)
        };
        (Scheduler::new(vec![Box::new(device)], opts), stall)
    }

    /// `threads` callers, `calls` each, of jobs taking `cpu`; every result
    /// checked. Returns the wall time.
    fn nap_callers(s: &Scheduler<Nap>, threads: u64, calls: u64, cpu: Duration) -> Duration {
        let started = Instant::now();
        std::thread::scope(|scope| {
            for t in 0..threads {
                scope.spawn(move || {
                    for i in 0..calls {
                        let x = t * 1_000_000 + i;
                        assert_eq!(s.submit(Nap { x, cpu }).unwrap().0, x + 1);
                    }
                });
            }
        });
        started.elapsed()
    }

    #[test]
    fn cost_routing_keeps_calls_off_a_slow_device() {
        // A launch takes 30 ms, a call 200 us: once a few launches are
        // timed, calls stay on their callers' threads.
        let (s, _) = nap_scheduler(Duration::from_millis(30));
        let cpu = Duration::from_micros(200);
        let took = nap_callers(&s, 8, 150, cpu);
        let stats = s.stats();
        // 150 calls of 200 us each per thread is 30 ms; the warm-up
        // launches add a few device round trips.
        assert!(
            took < Duration::from_millis(600),
            "took {took:?}, {stats:?}"
        );
        assert!(stats.batches <= 8, "{stats:?}");
        assert!(stats.batched_jobs <= 40, "{stats:?}");
    }

    #[test]
    fn cost_routing_sends_calls_to_a_fast_device() {
        // A launch takes 1 ms whatever its size, a call 5 ms: the device
        // wins, and concurrent callers share its launches.
        let (s, _) = nap_scheduler(Duration::from_millis(1));
        let cpu = Duration::from_millis(5);
        nap_callers(&s, 8, 40, cpu);
        let stats = s.stats();
        assert!(stats.batched_jobs >= 8 * 40 / 2, "{stats:?}");
        assert!(
            stats.batched_jobs > stats.batches,
            "launches are shared: {stats:?}"
        );
    }

    #[test]
    fn a_queued_call_no_device_takes_is_taken_back() {
        let (s, stall) = nap_scheduler(Duration::from_millis(1));
        let cpu = Duration::from_millis(10);
        // Time the CPU (lone calls of an unknown size run here), then the
        // device (launches of one job each; the first is not a sample).
        for x in 0..2 {
            assert_eq!(s.submit(Nap { x, cpu }), Ok((x + 1, "cpu")));
        }
        for x in 0..5 {
            for queued in s.queue_many(vec![Nap { x, cpu }]) {
                assert_eq!(queued.ok().unwrap().wait(), Ok((x + 1, "device")));
            }
        }
        // The device now stalls on a job of its own; a call queued behind
        // it is taken back after about its CPU time and run here.
        stall.store(true, Ordering::Relaxed);
        let blocker = s.queue_many(vec![Nap { x: 7, cpu }]);
        std::thread::sleep(Duration::from_millis(20));
        let started = Instant::now();
        assert_eq!(s.submit(Nap { x: 41, cpu }), Ok((42, "cpu")));
        let took = started.elapsed();
        assert!(
            took < Duration::from_millis(200),
            "waited {took:?} for a stalled device"
        );
        assert_eq!(s.stats().reclaimed_jobs, 1, "{:?}", s.stats());
        for queued in blocker {
            assert_eq!(queued.ok().unwrap().wait(), Ok((8, "device")));
        }
    }
}
