//! What a synchronous call costs where, learned online from this process's
//! own runs, so that the scheduler can send a call to a device only when its
//! result comes back sooner than the caller would have it by running the
//! call itself.
//!
//! Two models, both deliberately simple:
//! - [`CpuModel`]: nanoseconds per unit of [`Job::cost`](super::scheduler::Job::cost)
//!   on the caller's thread, one running average per power-of-two size
//!   class (a family's cost is rarely linear in its measure of size over
//!   six orders of magnitude, but is close to it within a factor of two).
//! - [`GpuModel`]: a device batch's time as a fixed latency plus a slope per
//!   unit of cost, fitted by least squares with old launches forgotten
//!   geometrically (a GPU's latency changes as caches warm and other
//!   processes come and go).
//!
//! Reads are lock-free so that the call that needs no device at all pays a
//! few atomic loads; writes race benignly (a lost update to an average is
//! another sample's worth of noise).

use std::sync::atomic::{AtomicU32, AtomicU64, Ordering};
use std::time::{Duration, Instant};

/// Size classes: cost below 2^CLASSES all fit, larger costs share the last.
const CLASSES: usize = 48;
/// Weight of a new sample in a class's running average.
const CPU_ALPHA: f64 = 0.125;
/// Most a sample may exceed its class's average by, once the class has
/// eight samples.
const OUTLIER: f64 = 4.0;
/// Samples a class needs before its estimate is used.
const CPU_WARM: u32 = 2;
/// Samples that always update a class; after these, one run in
/// [`CPU_SAMPLE_EVERY`] does, so that many threads running cheap calls do
/// not all write the same cache line.
const CPU_ALWAYS: u32 = 64;
const CPU_SAMPLE_EVERY: u32 = 32;

fn class_of(cost: u64) -> usize {
    ((u64::BITS - cost.max(1).leading_zeros()) as usize - 1).min(CLASSES - 1)
}

fn load_f64(a: &AtomicU64) -> f64 {
    f64::from_bits(a.load(Ordering::Relaxed))
}

fn store_f64(a: &AtomicU64, v: f64) {
    a.store(v.to_bits(), Ordering::Relaxed);
}

/// Time per unit of cost on the caller's thread, per size class.
pub struct CpuModel {
    ns_per_unit: [AtomicU64; CLASSES],
    samples: [AtomicU32; CLASSES],
}

impl Default for CpuModel {
    fn default() -> Self {
        CpuModel {
            ns_per_unit: std::array::from_fn(|_| AtomicU64::new(0f64.to_bits())),
            samples: std::array::from_fn(|_| AtomicU32::new(0)),
        }
    }
}

impl CpuModel {
    /// The expected time of a job of `cost` on one CPU thread; `None` until
    /// its size class has been seen.
    pub fn estimate(&self, cost: u64) -> Option<Duration> {
        let class = class_of(cost);
        if self.samples[class].load(Ordering::Relaxed) < CPU_WARM {
            return None;
        }
        let ns = load_f64(&self.ns_per_unit[class]) * cost.max(1) as f64;
        Some(Duration::from_nanos(ns.min(u64::MAX as f64) as u64))
    }

    /// As [`CpuModel::estimate`], once the class has seen `samples` runs:
    /// a thread's first calls pay one-time costs (allocations, cold
    /// caches) that would make cheap calls look expensive for a while.
    pub fn settled_estimate(&self, cost: u64, samples: u32) -> Option<Duration> {
        if self.samples[class_of(cost)].load(Ordering::Relaxed) < samples {
            return None;
        }
        self.estimate(cost)
    }

    /// Whether a run of this cost should be timed: always while its class
    /// is young, one run in a few after that.
    pub fn wants_sample(&self, cost: u64, ticket: u32) -> bool {
        self.samples[class_of(cost)].load(Ordering::Relaxed) < CPU_ALWAYS
            || ticket % CPU_SAMPLE_EVERY == 0
    }

    /// Adds one run of `cost` that took `took`.
    pub fn record(&self, cost: u64, took: Duration) {
        let class = class_of(cost);
        let x = took.as_nanos() as f64 / cost.max(1) as f64;
        let n = self.samples[class].fetch_add(1, Ordering::Relaxed);
        let old = load_f64(&self.ns_per_unit[class]);
        // The first samples are averaged plainly, later ones exponentially,
        // each at most OUTLIER times the average: a call preempted or
        // faulting for milliseconds would otherwise make 5 us calls look
        // like 100 us ones (seen: it started the GPU for 150 bp pairs). A
        // real rise still comes through, by OUTLIER-fold steps.
        let x = if n >= 8 { x.min(old * OUTLIER) } else { x };
        let alpha = (1.0 / (n as f64 + 1.0)).max(CPU_ALPHA);
        store_f64(&self.ns_per_unit[class], old + alpha * (x - old));
    }
}

/// Times one call its caller runs, into a [`CpuModel`], when the model
/// wants the sample (see [`CpuModel::wants_sample`]); records on drop.
pub struct Timed<'a> {
    model: &'a CpuModel,
    cost: u64,
    started: Option<Instant>,
}

impl<'a> Timed<'a> {
    pub fn start(model: &'a CpuModel, cost: u64) -> Self {
        thread_local! {
            static CALLS: std::cell::Cell<u32> = const { std::cell::Cell::new(0) };
        }
        let nth = CALLS.with(|c| {
            c.set(c.get().wrapping_add(1));
            c.get()
        });
        Timed {
            model,
            cost,
            started: model.wants_sample(cost, nth).then(Instant::now),
        }
    }
}

impl Drop for Timed<'_> {
    fn drop(&mut self) {
        if let Some(started) = self.started {
            self.model.record(self.cost, started.elapsed());
        }
    }
}

/// Weight kept by the older launches at each new one.
const GPU_DECAY: f64 = 0.9;
/// Launches the model needs before its estimate is used.
const GPU_WARM: u32 = 2;

/// A device batch's time as `fixed + slope * cost`.
#[derive(Default)]
pub struct GpuModel {
    /// Weighted sums over launches: count, cost, time, cost², cost·time.
    sums: std::sync::Mutex<[f64; 5]>,
    fixed_ns: AtomicU64,
    slope_ns: AtomicU64,
    launches: AtomicU32,
}

impl GpuModel {
    /// Adds one launch of `cost` in total that took `took`, from the batch
    /// taken to the results handed over.
    pub fn record(&self, cost: u64, took: Duration) {
        let (x, y) = (cost as f64, took.as_nanos() as f64);
        let (fixed, slope) = {
            let mut s = self.sums.lock().unwrap_or_else(|p| p.into_inner());
            for v in s.iter_mut() {
                *v *= GPU_DECAY;
            }
            s[0] += 1.0;
            s[1] += x;
            s[2] += y;
            s[3] += x * x;
            s[4] += x * y;
            fit(&s)
        };
        store_f64(&self.fixed_ns, fixed);
        store_f64(&self.slope_ns, slope);
        self.launches.fetch_add(1, Ordering::Relaxed);
    }

    /// Whether enough launches were seen to trust the estimate.
    pub fn is_warm(&self) -> bool {
        self.launches.load(Ordering::Relaxed) >= GPU_WARM
    }

    /// The expected time of one launch of `cost` in total.
    pub fn launch(&self, cost: u64) -> Duration {
        let ns = load_f64(&self.fixed_ns) + load_f64(&self.slope_ns) * cost as f64;
        Duration::from_nanos(ns.clamp(0.0, u64::MAX as f64) as u64)
    }
}

/// Least-squares line through the weighted sums, with a slope and an
/// intercept that are never negative (a launch never takes less time for
/// more work, nor less than nothing). With every launch of about one size
/// the slope is unknown; the whole time is then taken as latency, which
/// overestimates larger launches — the safe side.
fn fit(s: &[f64; 5]) -> (f64, f64) {
    let [n, sx, sy, sxx, sxy] = *s;
    let mean_y = sy / n;
    let det = n * sxx - sx * sx;
    if det <= 1e-9 * n * sxx.max(1.0) {
        return (mean_y, 0.0);
    }
    let slope = ((n * sxy - sx * sy) / det).max(0.0);
    let fixed = (sy - slope * sx) / n;
    if fixed < 0.0 {
        // A line through the origin instead.
        return (0.0, if sxx > 0.0 { sxy / sxx } else { 0.0 }.max(0.0));
    }
    (fixed, slope)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn size_classes_are_powers_of_two() {
        assert_eq!(class_of(0), 0);
        assert_eq!(class_of(1), 0);
        assert_eq!(class_of(2), 1);
        assert_eq!(class_of(3), 1);
        assert_eq!(class_of(1024), 10);
        assert_eq!(class_of(u64::MAX), CLASSES - 1);
    }

    #[test]
    fn cpu_estimates_scale_within_a_class_and_need_samples() {
        let m = CpuModel::default();
        assert_eq!(m.estimate(1000), None);
        m.record(1000, Duration::from_micros(10));
        assert_eq!(m.estimate(1000), None, "one sample is not enough");
        m.record(1000, Duration::from_micros(30));
        // The first samples are a plain average: 20 ns per unit.
        assert_eq!(m.estimate(1000), Some(Duration::from_micros(20)));
        assert_eq!(m.estimate(600), Some(Duration::from_micros(12)));
        assert_eq!(m.estimate(100), None, "another class");
    }

    #[test]
    fn a_settled_estimate_outgrows_slow_first_calls() {
        let m = CpuModel::default();
        // A cold first call, then steady 10 us calls.
        m.record(300, Duration::from_millis(2));
        for _ in 0..7 {
            m.record(300, Duration::from_micros(10));
        }
        assert_eq!(m.settled_estimate(300, 64), None);
        assert!(m.estimate(300).unwrap() > Duration::from_micros(200));
        for _ in 0..56 {
            m.record(300, Duration::from_micros(10));
        }
        let settled = m.settled_estimate(300, 64).unwrap();
        assert!(settled < Duration::from_micros(11), "{settled:?}");
    }

    #[test]
    fn an_outlier_moves_an_estimate_little() {
        let m = CpuModel::default();
        for _ in 0..64 {
            m.record(300, Duration::from_micros(5));
        }
        m.record(300, Duration::from_millis(3));
        let after = m.estimate(300).unwrap();
        assert!(after < Duration::from_micros(8), "{after:?}");
        // A lasting rise is followed.
        for _ in 0..40 {
            m.record(300, Duration::from_micros(100));
        }
        assert!(m.estimate(300).unwrap() > Duration::from_micros(90));
    }

    #[test]
    fn gpu_fit_recovers_latency_and_slope() {
        let m = GpuModel::default();
        assert!(!m.is_warm());
        for cost in [100u64, 1000, 5000, 20_000, 400, 9000] {
            m.record(cost, Duration::from_nanos(50_000 + 3 * cost));
        }
        assert!(m.is_warm());
        let one = m.launch(1).as_nanos() as f64;
        let big = m.launch(100_000).as_nanos() as f64;
        assert!((one - 50_003.0).abs() < 50.0, "latency {one}");
        assert!((big - 350_000.0).abs() < 500.0, "large launch {big}");
    }

    #[test]
    fn gpu_fit_of_one_size_is_all_latency() {
        let m = GpuModel::default();
        for _ in 0..4 {
            m.record(64, Duration::from_micros(200));
        }
        assert_eq!(m.launch(64), Duration::from_micros(200));
        assert_eq!(m.launch(1_000_000), Duration::from_micros(200));
    }

    #[test]
    fn gpu_fit_forgets_old_launches() {
        let m = GpuModel::default();
        for _ in 0..20 {
            m.record(10, Duration::from_millis(10));
        }
        for _ in 0..60 {
            m.record(10, Duration::from_micros(100));
        }
        assert!(
            m.launch(10) < Duration::from_micros(200),
            "{:?}",
            m.launch(10)
        );
    }
}
