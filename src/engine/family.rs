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
use std::sync::{Arc, RwLock};

use super::device::{DeviceError, Gpu};
use super::fork::PerProcess;
use super::scheduler::{BatchRunner, Job, Options, ScheduleError, Scheduler};

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
}

/// The label a runner gives its GPU in logs and reports.
pub fn gpu_label(gpu: &Gpu) -> String {
    let info = gpu.info();
    format!("GPU {} ({})", info.ordinal, info.name)
}

/// One slot a family, created on first lookup and never freed: a family's
/// scheduler lives as long as the process, as its executors do.
type Slot = &'static (dyn Any + Send + Sync);

/// Every family's scheduler slot, by the family's type. A short list,
/// searched under a read lock (synchronous calls of many threads look up
/// their family at once); the write lock is taken once per family, and
/// never held while a scheduler starts (which compiles kernels).
static SLOTS: RwLock<Vec<(TypeId, Slot)>> = RwLock::new(Vec::new());

fn slot<F: Family>() -> &'static PerProcess<Scheduler<F::Job>> {
    let id = TypeId::of::<F>();
    let find = |slots: &[(TypeId, Slot)]| slots.iter().find(|(key, _)| *key == id).map(|s| s.1);
    let known = find(&SLOTS.read().unwrap_or_else(|p| p.into_inner()));
    let found = known.unwrap_or_else(|| {
        let mut slots = SLOTS.write().unwrap_or_else(|p| p.into_inner());
        // Another thread may have added it between the two locks.
        find(&slots).unwrap_or_else(|| {
            let fresh: &'static PerProcess<Scheduler<F::Job>> =
                Box::leak(Box::new(PerProcess::new()));
            slots.push((id, fresh));
            fresh
        })
    });
    found
        .downcast_ref::<PerProcess<Scheduler<F::Job>>>()
        .expect("a slot holds the scheduler of the family it is keyed by")
}

/// The family's process-wide scheduler, with executors for every GPU in use
/// (none on the CPU path). Started on first use in each process: a forked
/// child starts its own, on the CPU (see `fork`).
pub fn scheduler<F: Family>() -> &'static Scheduler<F::Job> {
    slot::<F>().get_or_init(|| {
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
        for gpu in gpus {
            match F::runners(gpu) {
                Ok(built) => runners.extend(built),
                Err(e) => crate::log_warn!(
                    "{} kernel unavailable on GPU {}: {e}",
                    F::NAME,
                    gpu.info().ordinal
                ),
            }
        }
        runners.extend(F::extra_runners());
        Scheduler::new(runners, F::options())
    })
}

/// Whether the family's scheduler has started (without starting it).
#[cfg(test)]
fn started<F: Family>() -> bool {
    slot::<F>().get().is_some()
}

/// How a synchronous call (one upstream call, one result) runs.
pub enum Placement<J: Job> {
    /// On the caller's thread: no device in use, or a job the devices do
    /// not take. The job was never built.
    Here,
    /// Through the family's scheduler, which may still run it on the
    /// caller's thread (a lone caller's cheap job) or coalesce it with other
    /// callers' jobs into a device batch.
    Submitted(Result<J::Output, ScheduleError>),
}

/// The one routine every synchronous entry point uses: when the family has
/// a device in use and `make_job` offers a job (it returns `None` for a call
/// no device takes), the job goes to the scheduler; otherwise the caller
/// runs the call itself, with no job built and nothing copied.
pub fn place<F: Family>(make_job: impl FnOnce() -> Option<F::Job>) -> Placement<F::Job> {
    let scheduler = scheduler::<F>();
    // `devices()` needs no lock: without GPUs a call costs one branch.
    if scheduler.devices().is_empty() || !scheduler.has_devices() {
        return Placement::Here;
    }
    match make_job() {
        Some(job) => Placement::Submitted(scheduler.submit(job)),
        None => Placement::Here,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

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
        let placed = place::<Again>(|| {
            built = true;
            Some(Doubling(1))
        });
        assert!(matches!(placed, Placement::Here));
        assert!(!built, "no job is built when no device is in use");
    }
}
