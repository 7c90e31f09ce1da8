//! The recipe every kernel family follows. A family names itself, its
//! kernel (the stem of its file in `kernels/`), its job type and how to
//! build its runners for one GPU; the engine does the rest: one scheduler
//! per family per process, created on first use, with executors for every
//! GPU in use, and one routine that decides, for a synchronous call, whether
//! it runs on the caller's thread or goes to the devices.
//!
//! ```ignore
//! struct Gact;
//! impl Family for Gact {
//!     const NAME: &'static str = "GACT";
//!     const KERNEL: &'static str = "gact";
//!     type Job = TileJob;
//!     fn runners(gpu: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<TileJob>>>, DeviceError> {
//!         Ok(vec![Box::new(TileRunner::new(gpu.clone())?)])
//!     }
//! }
//! let results = engine::family::scheduler::<Gact>().run_all(jobs);
//! ```

use std::any::{Any, TypeId};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use super::config::Backend;
use super::cost_model::{CpuModel, Timed};
use super::device::{DeviceError, Gpu};
use super::fork::PerProcess;
use super::scheduler::{BatchRunner, HereTimer, Job, Options, Route, ScheduleError, Scheduler};

/// A kernel family as the engine sees it.
pub trait Family: 'static {
    /// Names the family in logs, e.g. `WFA`.
    const NAME: &'static str;
    /// The stem of the family's kernel file in `kernels/` (`""` for a
    /// family with no kernel yet, whose work runs on the CPU). Its runners
    /// load it with `device::kernel_source(KERNEL)`.
    const KERNEL: &'static str;
    /// One unit of the family's work.
    type Job: Job;

    /// The runners (one per stream the family drives) for one GPU. An error
    /// leaves that GPU out for this family, with one log line.
    fn runners(gpu: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<Self::Job>>>, DeviceError>;

    /// Runners that stand in for a device, e.g. an emulated device in unit
    /// tests. Called once, after the GPUs' runners were built.
    fn extra_runners() -> Vec<Box<dyn BatchRunner<Self::Job>>> {
        Vec::new()
    }

    /// The scheduler's tunables for this family.
    fn options() -> Options {
        Options::default()
    }

    /// How long its synchronous calls must take on their callers' threads
    /// before they start the devices: about the shortest round trip of one
    /// of the family's launches, below which routing never sends a call
    /// there, so that starting the devices could only cost (see
    /// [`MIN_DEVICE_CALL`], the default).
    fn min_device_call() -> std::time::Duration {
        MIN_DEVICE_CALL
    }

    /// How many synchronous calls must have been seen running at once
    /// before they start the devices ([`MIN_DEVICE_CALLERS`] by default):
    /// a launch returns one job later than a core computes it, so a device
    /// can only gain on calls that wait for it together.
    fn min_device_callers() -> usize {
        MIN_DEVICE_CALLERS
    }
}

/// The label a runner gives its GPU in logs and reports.
pub fn gpu_label(gpu: &Gpu) -> String {
    let info = gpu.info();
    format!("GPU {} ({})", info.ordinal, info.name)
}

/// One slot a family, created on first lookup and never freed: a family's
/// scheduler lives as long as the process, as its executors do.
type Slot = &'static (dyn Any + Send + Sync);

/// Most families one process can hold (there are six).
const MAX_FAMILIES: usize = 32;

/// Every family's scheduler slot, by the family's type, filled in order and
/// never emptied. Synchronous calls of many threads look their family up at
/// every call, so the lookup is a few plain atomic loads (no lock, no
/// shared counter to write); adding a family takes [`ADDING`].
static SLOTS: [OnceLock<(TypeId, Slot)>; MAX_FAMILIES] = [const { OnceLock::new() }; MAX_FAMILIES];
static ADDING: Mutex<()> = Mutex::new(());

fn find_slot(id: TypeId) -> Option<Slot> {
    SLOTS
        .iter()
        .map_while(OnceLock::get)
        .find(|(key, _)| *key == id)
        .map(|s| s.1)
}

/// What the engine keeps for one family: its scheduler once started, and
/// what its calls cost on their callers' threads before that.
struct FamilySlot<J: Job> {
    /// Per process: a forked child starts its own, on the CPU (see `fork`).
    scheduler: PerProcess<Scheduler<J>>,
    before_start: CpuModel,
    /// Synchronous calls on their callers' threads before the start.
    callers: InFlight,
}

/// How many calls are running now, and the most seen at once.
#[derive(Default)]
pub struct InFlight {
    now: AtomicUsize,
    most: AtomicUsize,
}

impl InFlight {
    fn enter(&self) -> Caller<'_> {
        let now = self.now.fetch_add(1, Ordering::Relaxed) + 1;
        // Read first: most calls see no new peak and leave the line shared.
        if now > self.most.load(Ordering::Relaxed) {
            self.most.fetch_max(now, Ordering::Relaxed);
        }
        Caller(self)
    }

    fn most(&self) -> usize {
        self.most.load(Ordering::Relaxed)
    }
}

/// One call counted in an [`InFlight`] while it lives.
pub struct Caller<'a>(&'a InFlight);

impl Drop for Caller<'_> {
    fn drop(&mut self) {
        self.0.now.fetch_sub(1, Ordering::Relaxed);
    }
}

fn slot<F: Family>() -> &'static FamilySlot<F::Job> {
    let id = TypeId::of::<F>();
    let found = find_slot(id).unwrap_or_else(|| {
        let _adding = ADDING.lock().unwrap_or_else(|p| p.into_inner());
        // Another thread may have added it before we took the lock.
        find_slot(id).unwrap_or_else(|| {
            let fresh: &'static FamilySlot<F::Job> = Box::leak(Box::new(FamilySlot {
                scheduler: PerProcess::new(),
                before_start: CpuModel::default(),
                callers: InFlight::default(),
            }));
            let free = SLOTS
                .iter()
                .find(|s| s.get().is_none())
                .expect("more kernel families than MAX_FAMILIES");
            let _ = free.set((id, fresh));
            fresh
        })
    });
    found
        .downcast_ref::<FamilySlot<F::Job>>()
        .expect("a slot holds the scheduler of the family it is keyed by")
}

/// Set once a family with a kernel found no GPU to use: then no family will
/// have one, and a synchronous call needs no lock to know it.
static NO_DEVICES: AtomicBool = AtomicBool::new(false);

/// Whether a synchronous call may still find a device: false once the
/// process is known to have none (one relaxed load).
pub fn devices_possible() -> bool {
    !NO_DEVICES.load(Ordering::Relaxed)
}

/// The family's process-wide scheduler, with executors for every GPU in use
/// (none on the CPU path). Started on first use in each process: a forked
/// child starts its own, on the CPU (see `fork`).
pub fn scheduler<F: Family>() -> &'static Scheduler<F::Job> {
    slot::<F>().scheduler.get_or_init(|| {
        let mut runners = Vec::new();
        // A family without a kernel runs on the CPU only, and one whose
        // kernel file is missing says so once.
        let gpus = match (F::KERNEL, super::device::kernel_source(F::KERNEL)) {
            ("", _) => &[][..],
            (_, Ok(_)) => super::device::gpus(),
            (_, Err(e)) => {
                crate::log_warn!("{}: {e}; its work runs on the CPU", F::NAME);
                &[][..]
            }
        };
        // (Unit tests stand emulated devices in for GPUs.)
        if !cfg!(test) && !F::KERNEL.is_empty() && super::device::gpus().is_empty() {
            NO_DEVICES.store(true, Ordering::Relaxed);
        }
        for gpu in gpus {
            match F::runners(gpu) {
                Ok(built) => runners.extend(built),
                // The driver shutting down: the process exits mid start-up.
                Err(e) if e.driver_shutting_down() => crate::log_info!(
                    "{} kernel not loaded on GPU {}: the process is exiting",
                    F::NAME,
                    gpu.info().ordinal
                ),
                Err(e) => crate::log_warn!(
                    "{} kernel unavailable on GPU {}: {e}",
                    F::NAME,
                    gpu.info().ordinal
                ),
            }
        }
        runners.extend(F::extra_runners());
        let options = Options {
            name: F::NAME,
            ..F::options()
        };
        Scheduler::new(runners, options)
    })
}

/// The devices of the family's scheduler if it has started (without
/// starting it): empty before, and on the CPU path.
pub fn started_devices<F: Family>() -> Vec<String> {
    slot::<F>()
        .scheduler
        .get()
        .map(|s| s.devices().to_vec())
        .unwrap_or_default()
}

/// Whether the family's scheduler has started (without starting it).
#[cfg(test)]
fn started<F: Family>() -> bool {
    slot::<F>().scheduler.get().is_some()
}

/// A call that costs its caller less than this is never worth a device (a
/// launch's round trip alone takes longer), so calls below it do not start
/// the devices: a process of cheap calls never pays their start-up (kernel
/// loading, memory, pinned buffers that stall the process's page faults
/// while they are locked).
const MIN_DEVICE_CALL: std::time::Duration = std::time::Duration::from_micros(50);

/// Synchronous calls seen in flight at once before they start the devices.
/// A single WFA pair or ABEA read takes a device several times as long as a
/// core (its one block works through the alignment step by step), so with
/// few callers the devices cannot gain, and their start-up (contexts,
/// kernels, pinned memory) is spent for nothing: on an H200 host, 1-4
/// callers of 10 kbp pairs ran at 0.88-0.94x the CPU path with the GPU
/// started, while 16 and more gained up to 1.3x.
const MIN_DEVICE_CALLERS: usize = 8;

/// Calls of a size class timed before their estimate decides a start.
const SETTLED_SAMPLES: u32 = 64;

/// Whether a family's devices are up for a call.
enum Started<J: Job> {
    Yes(&'static Scheduler<J>),
    /// Not (yet): the call runs on its caller's thread, timed and counted
    /// here.
    NotYet(&'static CpuModel, Option<&'static InFlight>),
}

/// The family's scheduler when it has started. Otherwise the call runs on
/// its caller's thread, and once calls are seen to cost at least
/// [`Family::min_device_call`] the scheduler starts on a background thread (once):
/// no call waits for GPUs to be probed, kernels loaded and memory reserved
/// (about a second). A family without a kernel, a backend named in
/// `SEQSHIM_BACKEND` (`cuda` asks for the devices from the first call, `cpu`
/// has none to start) and strict mode (where tests expect the devices from
/// the first call) start in the foreground.
fn started_or_starting<F: Family>(cost: u64) -> Started<F::Job> {
    let slot = slot::<F>();
    if let Some(started) = slot.scheduler.get() {
        return Started::Yes(started);
    }
    let config = super::config::get();
    if cfg!(test) || F::KERNEL.is_empty() || config.strict || config.backend != Backend::Auto {
        return Started::Yes(scheduler::<F>());
    }
    // Decided on a settled average: a process's first calls are slow
    // (cold caches, first allocations), and 150 bp pairs looked like 50 us
    // calls for a while and started the GPU for nothing.
    let settled = slot.before_start.settled_estimate(cost, SETTLED_SAMPLES);
    let long_enough = settled.is_some_and(|t| t >= F::min_device_call());
    let worth_a_device = long_enough && slot.callers.most() >= F::min_device_callers();
    let why = || {
        format!(
            "calls of cost {cost} take {:.0} us on their callers' threads, up to {} at once",
            settled.unwrap_or_default().as_secs_f64() * 1e6,
            slot.callers.most()
        )
    };
    if worth_a_device && start_in_background::<F>(why()).is_err() {
        // No thread to spare: start here, as before.
        return Started::Yes(scheduler::<F>());
    }
    // Only calls long enough to start the devices are counted: cheap ones
    // (150 bp pairs) would pay shared atomics on every call for nothing.
    Started::NotYet(&slot.before_start, long_enough.then_some(&slot.callers))
}

/// Where a family's bulk work (one call the caller knows is large: a
/// file, a whole batch, split into chunks by the family) can go now.
pub enum Bulk<J: Job> {
    /// To these devices.
    Devices(&'static Scheduler<J>),
    /// Nowhere yet: the devices are starting on a thread of their own;
    /// work through a chunk on the CPU pool and ask again.
    Starting,
    /// The CPU pool only: this process has no device for the family.
    CpuOnly,
}

/// Where the family's bulk work can go. The first ask starts the devices on
/// a thread of its own (once), so the caller works through its first chunks
/// on the CPU pool meanwhile; strict mode, a backend named in
/// `SEQSHIM_BACKEND` and unit tests start them here.
pub fn bulk<F: Family>(cost: u64) -> Bulk<F::Job> {
    if !devices_possible() {
        return Bulk::CpuOnly;
    }
    let scheduler = match slot::<F>().scheduler.get() {
        Some(started) => started,
        None => {
            let config = super::config::get();
            if cfg!(test)
                || F::KERNEL.is_empty()
                || config.strict
                || config.backend != Backend::Auto
                || start_in_background::<F>(format!("a bulk call of cost {cost}")).is_err()
            {
                scheduler::<F>()
            } else {
                return Bulk::Starting;
            }
        }
    };
    if scheduler.has_devices() {
        Bulk::Devices(scheduler)
    } else {
        Bulk::CpuOnly
    }
}

/// Starts the family's scheduler on a thread of its own, once.
fn start_in_background<F: Family>(why: String) -> std::io::Result<()> {
    static STARTING: Mutex<Vec<TypeId>> = Mutex::new(Vec::new());
    {
        let mut starting = STARTING.lock().unwrap_or_else(|p| p.into_inner());
        if starting.contains(&TypeId::of::<F>()) {
            return Ok(());
        }
        starting.push(TypeId::of::<F>());
    }
    // Taken before the thread exists, so that no exit can slip in between.
    let start_up = super::device::StartUp::begin(F::KERNEL);
    std::thread::Builder::new()
        .name("seqshim-start".into())
        .spawn(move || {
            let _exit_waits = start_up;
            crate::log_info!(
                "{}: starting the devices in the background: {why}",
                F::NAME
            );
            let started = std::time::Instant::now();
            let devices = scheduler::<F>().devices().len();
            crate::log_info!(
                "{}: {devices} device executors up after {:.0} ms; calls ran on their callers' threads meanwhile",
                F::NAME,
                started.elapsed().as_secs_f64() * 1e3
            );
        })
        .map(drop)
}

/// What a caller holds while it runs a call itself: it times the call for
/// the routing (see [`Placement::Here`]).
pub enum Timing<J: Job> {
    Scheduled(HereTimer<'static, J>),
    BeforeStart(Timed<'static>, Option<Caller<'static>>),
    Untimed,
}

/// How a synchronous call (one upstream call, one result) runs.
pub enum Placement<J: Job> {
    /// On the caller's thread, with the caller's own code: no device in use,
    /// a call the devices do not take, or one whose result a device would
    /// return later than the caller computes it. The job was never built.
    /// Hold the timer (when there is one) while the call runs: it teaches
    /// the routing what calls cost here.
    Here(Timing<J>),
    /// Through the family's devices (or, should none take it in time, on
    /// the caller's thread after all, as a job).
    Submitted(Result<J::Output, ScheduleError>),
}

/// The one routine every synchronous entry point uses. `cost` is the
/// call's [`Job::cost`], known before the job is built: the routing decides
/// from it, and only a call sent to a device has its job built by
/// `make_job` (which returns `None` for a call no device takes). Otherwise
/// the caller runs the call itself, with nothing copied.
pub fn place<F: Family>(cost: u64, make_job: impl FnOnce() -> Option<F::Job>) -> Placement<F::Job> {
    if !devices_possible() {
        return Placement::Here(Timing::Untimed);
    }
    let scheduler = match started_or_starting::<F>(cost) {
        Started::Yes(scheduler) => scheduler,
        Started::NotYet(model, callers) => {
            return Placement::Here(Timing::BeforeStart(
                Timed::start(model, cost),
                callers.map(InFlight::enter),
            ));
        }
    };
    // `devices()` needs no lock: without GPUs a call costs one branch.
    if scheduler.devices().is_empty() {
        return Placement::Here(Timing::Untimed);
    }
    match scheduler.route(cost) {
        Route::Here(timer) => Placement::Here(Timing::Scheduled(timer)),
        Route::Device(patience) => match make_job() {
            Some(job) if job.gpu_eligible() => {
                debug_assert_eq!(job.cost(), cost, "{}: place's cost is the job's", F::NAME);
                Placement::Submitted(scheduler.submit_routed(job, patience))
            }
            _ => Placement::Here(Timing::Untimed),
        },
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn in_flight_keeps_the_most_callers_seen_at_once() {
        let callers = InFlight::default();
        {
            let _a = callers.enter();
            let _b = callers.enter();
            assert_eq!(callers.most(), 2);
        }
        let _c = callers.enter();
        assert_eq!(callers.now.load(Ordering::Relaxed), 1);
        assert_eq!(callers.most(), 2);
    }

    struct Twice;
    struct Doubling(u32);
    impl Job for Doubling {
        type Output = u32;
        fn run_cpu(&self) -> u32 {
            self.0 * 2
        }
    }
    impl Family for Twice {
        const NAME: &'static str = "test";
        const KERNEL: &'static str = "";
        type Job = Doubling;
        fn runners(_: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<Doubling>>>, DeviceError> {
            Ok(Vec::new())
        }
    }

    #[test]
    fn one_scheduler_per_family_started_on_first_use() {
        assert!(!started::<Twice>());
        let first = scheduler::<Twice>() as *const _;
        assert!(started::<Twice>());
        assert_eq!(first, scheduler::<Twice>() as *const _);
        let results = scheduler::<Twice>().run_all(vec![Doubling(2), Doubling(5)]);
        assert_eq!(results, vec![Ok(4), Ok(10)]);
    }

    /// A second family, so that the first test alone starts `Twice`.
    struct Again;
    impl Family for Again {
        const NAME: &'static str = "test again";
        const KERNEL: &'static str = "";
        type Job = Doubling;
        fn runners(_: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<Doubling>>>, DeviceError> {
            Ok(Vec::new())
        }
    }

    #[test]
    fn a_family_without_devices_runs_calls_here() {
        let mut built = false;
        let placed = place::<Again>(1, || {
            built = true;
            Some(Doubling(1))
        });
        assert!(matches!(placed, Placement::Here(_)));
        assert!(!built, "no job is built when no device is in use");
    }
}
