//! Adaptive banded event alignment (ABEA), bit-exact with f5c's CPU `align()`
//! (`src/align.c`, unchanged from v1.1 `de579c54` to v1.6 `e8e3942`), plus
//! f5c's method-of-moments scaling estimate, and the batch path that splits
//! reads between the GPU and the CPU pool the way f5c's `align_cuda` does.
//!
//! The structs are `#[repr(C)]` with f5c's field order and types (`CACHED_LOG`
//! layout) so that a C-ABI wrapper can reinterpret caller memory without
//! copying.

pub mod batch;
pub mod cpu;
pub mod emission;
mod gpu;
pub(crate) use gpu::MAX_AVG_EPK;
pub use gpu::{Sizing, set_sizing};
pub mod kmer;

use std::cell::RefCell;
use std::sync::{Arc, Mutex};

use crate::engine::device::{DeviceError, Gpu};
use crate::engine::family::{self, Family, Placement};
use crate::engine::scheduler::{self, BatchRunner, ScheduleError, Scheduler};

pub use cpu::Aligner;
pub use gpu::AbeaRunner;

/// Cells per band (`ALN_BANDWIDTH`).
pub const ALN_BANDWIDTH: usize = 100;

/// One signal event; f5c's `event_t` (24 bytes: start@0 length@8 mean@12
/// stdv@16, 4 bytes tail padding). f5c commented out scrappie's `pos` and
/// `state` fields, so they are absent here too. ABEA reads only `mean`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Event {
    pub start: u64,
    pub length: f32,
    pub mean: f32,
    pub stdv: f32,
}

/// One pore-model state; f5c's `model_t` with `CACHED_LOG` (12 bytes).
/// `level_log_stdv` must be the caller's value (f5c: `log(level_stdv)` in
/// double, rounded to float), never recomputed here.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Model {
    pub level_mean: f32,
    pub level_stdv: f32,
    pub level_log_stdv: f32,
}

/// f5c's `scalings_t` with `CACHED_LOG` (16 bytes). ABEA uses only `scale`
/// and `shift`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Scalings {
    pub scale: f32,
    pub shift: f32,
    pub var: f32,
    pub log_var: f32,
}

/// One aligned (k-mer, event) pair; f5c's `AlignedPair` (8 bytes).
/// `ref_pos` is the k-mer index in the read, `read_pos` the event index.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AlignedPair {
    pub ref_pos: i32,
    pub read_pos: i32,
}

/// Output capacity f5c v1.6 gives `align()` (`n_events + read_len` pairs;
/// v1.1 gave `2 * n_events`). A successful alignment never needs more than
/// `n_events + n_kmers` pairs, which is within this for k ≥ 1.
pub fn out_capacity(n_events: usize, sequence_len: usize) -> usize {
    n_events + sequence_len
}

thread_local! {
    // One reusable workspace per thread so that per-read calls through the
    // free functions do not reallocate the band arrays.
    static WORKSPACE: RefCell<Aligner> = RefCell::new(Aligner::new());
}

/// A workspace larger than this after a read is released: the host's threads
/// keep their workspace for their whole life, and one very long read (about
/// 150 MB of bands per 100 kb) should not pin that memory in every thread.
const WORKSPACE_KEEP_BYTES: usize = 256 << 20;

fn with_workspace<R>(f: impl FnOnce(&mut Aligner) -> R) -> R {
    WORKSPACE.with(|w| {
        let mut aligner = w.borrow_mut();
        let result = f(&mut aligner);
        if aligner.footprint() > WORKSPACE_KEEP_BYTES {
            aligner.shrink();
        }
        result
    })
}

/// Aligns `events` to the k-mers of `sequence` (the basecalled read) and
/// returns the pairs in ascending order, or an empty vector when the read
/// fails f5c's QC (f5c returns 0 then). See [`Aligner::align`] for the inputs
/// f5c leaves undefined and what is returned for them.
pub fn align(
    sequence: &[u8],
    events: &[Event],
    models: &[Model],
    kmer_size: u32,
    scaling: Scalings,
    sample_rate: f32,
) -> Vec<AlignedPair> {
    with_workspace(|w| {
        w.align(sequence, events, models, kmer_size, scaling, sample_rate)
            .to_vec()
    })
}

/// f5c's calling convention: writes the pairs to `out` and returns their
/// count, 0 on QC failure. A C wrapper passes `event_table.event[0..n]` as
/// `events` (f5c ignores the table's `start`/`end`) and `models[0..4^k]`. If the alignment does not fit in `out`, nothing is
/// written and 0 is returned (f5c v1.6 aborts on an assert there; with
/// `out.len() >= out_capacity(..)` and k ≥ 1 it cannot happen).
pub fn align_into(
    out: &mut [AlignedPair],
    sequence: &[u8],
    events: &[Event],
    models: &[Model],
    kmer_size: u32,
    scaling: Scalings,
    sample_rate: f32,
) -> usize {
    with_workspace(|w| {
        w.align_into(
            out,
            sequence,
            events,
            models,
            kmer_size,
            scaling,
            sample_rate,
        )
    })
}

/// As [`align`], from the event means alone.
pub fn align_means(
    sequence: &[u8],
    means: &[f32],
    models: &[Model],
    kmer_size: u32,
    scaling: Scalings,
) -> Vec<AlignedPair> {
    with_workspace(|w| {
        w.align_means(sequence, means, models, kmer_size, scaling)
            .to_vec()
    })
}

/// f5c's method-of-moments estimate of `scale` and `shift` from the event
/// means and the model levels of the read's k-mers (double accumulators, same
/// summation order as f5c).
///
/// `var` and `log_var` are left uninitialised by f5c; they are returned as
/// 1.0 and 0.0 (the identity values ABEA assumes). When a k-mer cannot be
/// ranked into `models` (k > 16 or `models` shorter than 4^k), `scale` and
/// `shift` are NaN instead of f5c's out-of-bounds read.
pub fn estimate_scalings_using_mom(
    sequence: &[u8],
    models: &[Model],
    kmer_size: u32,
    events: &[Event],
) -> Scalings {
    // f5c computes n_kmers as int32 from an unsigned subtraction; wrapping
    // i32 arithmetic gives the same value, including negatives for short
    // reads (then the k-mer loop is empty, as in f5c).
    let n_kmers = (sequence.len() as i32)
        .wrapping_sub(kmer_size as i32)
        .wrapping_add(1);

    let mut event_level_sum = 0.0f64;
    for e in events {
        event_level_sum += f64::from(e.mean);
    }

    let mut kmer_level_sum = 0.0f64;
    let mut kmer_level_sq_sum = 0.0f64;
    for i in 0..n_kmers.max(0) as usize {
        let level = kmer::kmer_rank(&sequence[i..], kmer_size)
            .and_then(|r| models.get(r as usize))
            .map(|m| f64::from(m.level_mean));
        let Some(l) = level else {
            return Scalings {
                scale: f32::NAN,
                shift: f32::NAN,
                var: 1.0,
                log_var: 0.0,
            };
        };
        kmer_level_sum += l;
        kmer_level_sq_sum += l * l;
    }

    let n_events = events.len() as f64;
    let shift = event_level_sum / n_events - kmer_level_sum / f64::from(n_kmers);

    let mut event_level_sq_sum = 0.0f64;
    for e in events {
        let d = f64::from(e.mean) - shift;
        event_level_sq_sum += d * d;
    }

    let scale = (event_level_sq_sum / n_events) / (kmer_level_sq_sum / f64::from(n_kmers));

    Scalings {
        scale: scale as f32,
        shift: shift as f32,
        var: 1.0,
        log_var: 0.0,
    }
}

// ---------------------------------------------------------------------------
// Jobs, routing and batches
// ---------------------------------------------------------------------------

/// One read to align, owning what the alignment reads (the event means are
/// the only event field ABEA uses), so that it can wait in a device queue.
pub struct AlignJob {
    pub sequence: Vec<u8>,
    pub means: Vec<f32>,
    pub models: Arc<[Model]>,
    pub kmer_size: u32,
    pub scaling: Scalings,
    /// Routed to the GPU by f5c's rules (see [`BatchOptions`]).
    pub gpu: bool,
}

impl AlignJob {
    /// f5c's `n_bands × ALN_BANDWIDTH`, the unit of ABEA's work.
    pub fn band_cells(&self) -> u64 {
        Aligner::band_cells(self.sequence.len(), self.means.len(), self.kmer_size) as u64
    }
}

impl scheduler::Job for AlignJob {
    type Output = Vec<AlignedPair>;

    fn run_cpu(&self) -> Vec<AlignedPair> {
        align_means(
            &self.sequence,
            &self.means,
            &self.models,
            self.kmer_size,
            self.scaling,
        )
    }

    fn gpu_eligible(&self) -> bool {
        self.gpu
    }

    fn cost(&self) -> u64 {
        self.band_cells()
    }
}

/// f5c's routing thresholds (`--cuda-max-lf`, `--cuda-max-epk`, and the
/// `AVG_EVENTS_PER_KMER_MAX` skip), with f5c's defaults.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct BatchOptions {
    /// GPU only if `read_len < max_lf × mean read length of the batch`.
    pub max_lf: f32,
    /// GPU only if `n_events / read_len < max_epk`.
    pub max_epk: f32,
    /// `n_events / read_len >= skip_epk`: not aligned, 0 pairs.
    pub skip_epk: f32,
    /// Everything on the CPU pool.
    pub force_cpu: bool,
    /// How the GPU runners size device memory; only the first batch's
    /// value counts (see [`set_sizing`]).
    pub sizing: Sizing,
}

impl Default for BatchOptions {
    fn default() -> Self {
        BatchOptions {
            max_lf: 3.0,
            max_epk: 5.0,
            skip_epk: 15.0,
            force_cpu: false,
            sizing: Sizing::default(),
        }
    }
}

/// One read of a batch.
pub struct BatchRead {
    pub sequence: Vec<u8>,
    pub means: Vec<f32>,
    pub scaling: Scalings,
}

/// Where f5c would send a read.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Route {
    /// Not aligned (no events, or too many events per base): 0 pairs.
    Skip,
    Cpu,
    Gpu,
}

/// f5c's `align_cuda` routing. The ratios are computed in `float` from the
/// same operands as f5c, so borderline reads go the same way.
pub fn route(sequence_len: usize, n_events: usize, mean_len: f32, options: &BatchOptions) -> Route {
    let epk = n_events as f32 / sequence_len as f32;
    // f5c aligns only when `epk < skip_epk`, so a NaN ratio is skipped too.
    let below_skip = epk < options.skip_epk;
    if n_events == 0 || !below_skip {
        return Route::Skip;
    }
    if !options.force_cpu
        && (sequence_len as f32) < options.max_lf * mean_len
        && epk < options.max_epk
    {
        Route::Gpu
    } else {
        Route::Cpu
    }
}

/// ABEA as a family of the engine.
pub struct Abea;

impl Family for Abea {
    const NAME: &'static str = "ABEA";
    const KERNEL: &'static str = "abea";
    type Job = AlignJob;

    fn runners(gpu: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<AlignJob>>>, DeviceError> {
        Ok(vec![Box::new(gpu::AbeaRunner::new(gpu.clone())?)])
    }
}

/// The process-wide ABEA scheduler (GPU executors when a GPU is in use).
pub fn scheduler() -> &'static Scheduler<AlignJob> {
    family::scheduler::<Abea>()
}

/// Aligns a batch: reads f5c would skip get no pairs, the others go to the
/// GPU or the CPU pool by f5c's rules and run concurrently. Results are in
/// input order and identical whichever device ran them; `Err` only in strict
/// mode, for a read the GPU could not finish.
pub fn align_batch(
    models: Arc<[Model]>,
    kmer_size: u32,
    reads: Vec<BatchRead>,
    options: &BatchOptions,
) -> Vec<Result<Vec<AlignedPair>, ScheduleError>> {
    gpu::set_sizing(options.sizing);
    let sum_bases: u64 = reads.iter().map(|r| r.sequence.len() as u64).sum();
    let mean_len = sum_bases as f32 / reads.len().max(1) as f32;
    let mut results: Vec<Option<Result<Vec<AlignedPair>, ScheduleError>>> =
        (0..reads.len()).map(|_| None).collect();
    let mut jobs = Vec::new();
    let mut slots = Vec::new();
    for (index, read) in reads.into_iter().enumerate() {
        let to = route(read.sequence.len(), read.means.len(), mean_len, options);
        if to == Route::Skip {
            results[index] = Some(Ok(Vec::new()));
            continue;
        }
        let mut job = AlignJob {
            sequence: read.sequence,
            means: read.means,
            models: models.clone(),
            kmer_size,
            scaling: read.scaling,
            gpu: false,
        };
        // Like f5c, a read too large for the device memory goes to the CPU
        // list up front rather than failing on the device.
        job.gpu = to == Route::Gpu && gpu::fits_a_device(&job);
        jobs.push(job);
        slots.push(index);
    }
    // A CPU-only batch leaves the GPUs alone: asking the scheduler would
    // start its runners (kernels, device memory) for nothing.
    let outputs = if options.force_cpu {
        scheduler::run_on_cpu(jobs)
    } else {
        scheduler().run_all(jobs)
    };
    for (index, result) in slots.into_iter().zip(outputs) {
        results[index] = Some(result);
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(ScheduleError("internal: read lost".into()))))
        .collect()
}

/// A model table shared by the jobs of concurrent per-read calls. Callers
/// pass the same table every time, so one copy is kept and reused while the
/// contents are bit-identical.
pub fn shared_models(models: &[Model]) -> Arc<[Model]> {
    static LAST: Mutex<Option<Arc<[Model]>>> = Mutex::new(None);
    let same = |a: &[Model], b: &[Model]| {
        a.len() == b.len()
            && a.iter().zip(b).all(|(x, y)| {
                x.level_mean.to_bits() == y.level_mean.to_bits()
                    && x.level_stdv.to_bits() == y.level_stdv.to_bits()
                    && x.level_log_stdv.to_bits() == y.level_log_stdv.to_bits()
            })
    };
    // Compare outside the lock: with 9-mer models the table has 262,144
    // entries, and concurrent callers must not queue behind each other here.
    let cached = LAST.lock().unwrap_or_else(|p| p.into_inner()).clone();
    if let Some(cached) = cached {
        if same(&cached, models) {
            return cached;
        }
    }
    let fresh: Arc<[Model]> = Arc::from(models);
    *LAST.lock().unwrap_or_else(|p| p.into_inner()) = Some(fresh.clone());
    fresh
}

/// Copies `pairs` to the front of `out` and returns their count, or 0 with
/// nothing written when they do not fit (f5c asserts there instead).
pub fn copy_pairs(out: &mut [AlignedPair], pairs: &[AlignedPair]) -> usize {
    match out.get_mut(..pairs.len()) {
        Some(dst) => {
            dst.copy_from_slice(pairs);
            pairs.len()
        }
        None => 0,
    }
}

/// One f5c `align()` call: on the caller's thread when no GPU is in use
/// (nothing copied); otherwise through the scheduler, so that concurrent
/// callers (f5c's worker threads) share GPU batches. The pairs are handed to
/// `emit`, which stores them and returns the count to report; 0 is returned
/// without calling it when strict mode refused a CPU rescue. Handing the
/// pairs over, rather than writing into a buffer of the caller's declared
/// size, lets the C wrapper touch only the bytes it actually writes.
pub fn align_call(
    sequence: &[u8],
    events: &[Event],
    models: &[Model],
    kmer_size: u32,
    scaling: Scalings,
    emit: impl FnOnce(&[AlignedPair]) -> usize,
) -> usize {
    let cost = Aligner::band_cells(sequence.len(), events.len(), kmer_size) as u64;
    let placed = family::place::<Abea>(cost, || {
        let defaults = BatchOptions::default();
        let epk = events.len() as f32 / sequence.len() as f32;
        let mut job = AlignJob {
            sequence: sequence.to_vec(),
            means: events.iter().map(|e| e.mean).collect(),
            models: shared_models(models),
            kmer_size,
            scaling,
            gpu: false,
        };
        job.gpu = epk < defaults.max_epk && gpu::fits_a_device(&job);
        Some(job)
    });
    match placed {
        Placement::Here(_timer) => {
            with_workspace(|w| emit(w.align(sequence, events, models, kmer_size, scaling, 0.0)))
        }
        Placement::Submitted(Ok(pairs)) => emit(&pairs),
        Placement::Submitted(Err(e)) => {
            crate::log_warn!("ABEA: {e}; returning 0 pairs");
            0
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn routing_follows_f5c() {
        let o = BatchOptions::default();
        assert_eq!(route(1000, 2000, 1000.0, &o), Route::Gpu);
        assert_eq!(route(1000, 0, 1000.0, &o), Route::Skip);
        assert_eq!(route(100, 1500, 1000.0, &o), Route::Skip);
        assert_eq!(route(100, 1499, 1000.0, &o), Route::Cpu);
        assert_eq!(route(1000, 5000, 1000.0, &o), Route::Cpu);
        assert_eq!(route(3000, 6000, 1000.0, &o), Route::Cpu);
        assert_eq!(route(2999, 6000, 1000.0, &o), Route::Gpu);
        assert_eq!(route(0, 10, 1000.0, &o), Route::Skip);
        let cpu_only = BatchOptions {
            force_cpu: true,
            ..o
        };
        assert_eq!(route(1000, 2000, 1000.0, &cpu_only), Route::Cpu);
    }

    #[test]
    fn c_layouts() {
        use std::mem::{align_of, size_of};
        assert_eq!(size_of::<Event>(), 24);
        assert_eq!(align_of::<Event>(), 8);
        assert_eq!(size_of::<Model>(), 12);
        assert_eq!(size_of::<Scalings>(), 16);
        assert_eq!(size_of::<AlignedPair>(), 8);
    }
}
