//! WFA alignments as scheduler jobs: the unit shared by the batch API, the
//! transparent `wavefront_align` path and the GPU runners.
//!
//! A [`PairSet`] holds many pairs in one buffer; a [`WfaJob`] is a range of
//! one (or of another [`PairSource`], such as caller memory lent for one
//! batch run) plus the aligner configuration. The CPU path of a job is the same
//! [`Aligner`] that serves `wavefront_align`, so a result is the same
//! whichever device produced it.

use std::cell::RefCell;
use std::ops::Range;
use std::sync::Arc;

use super::{
    AlignStatus, Aligner, AlignerAttributes, AlignmentScope, MemoryMode, Operations, WfaError,
};
use crate::engine::device::{DeviceError, Gpu};
use crate::engine::family::Family;
use crate::engine::scheduler::{BatchRunner, Job, Scheduler};

/// Where one pair lives inside [`PairSet::bytes`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PairSpan {
    pub pattern_offset: usize,
    pub pattern_len: usize,
    pub text_offset: usize,
    pub text_len: usize,
}

/// Many pairs packed back to back (pattern then text) in one buffer.
#[derive(Clone, Debug, Default)]
pub struct PairSet {
    pub bytes: Vec<u8>,
    pub spans: Vec<PairSpan>,
}

impl PairSet {
    pub fn with_capacity(pairs: usize, bytes: usize) -> PairSet {
        PairSet {
            bytes: Vec::with_capacity(bytes),
            spans: Vec::with_capacity(pairs),
        }
    }

    /// Appends one pair; returns its index.
    pub fn push(&mut self, pattern: &[u8], text: &[u8]) -> usize {
        let pattern_offset = self.bytes.len();
        self.bytes.extend_from_slice(pattern);
        let text_offset = self.bytes.len();
        self.bytes.extend_from_slice(text);
        self.spans.push(PairSpan {
            pattern_offset,
            pattern_len: pattern.len(),
            text_offset,
            text_len: text.len(),
        });
        self.spans.len() - 1
    }
}

/// Where a job reads its pairs: the batch's own copies ([`PairSet`]) or
/// memory a caller lends for one run (no copy: the devices pack straight
/// from it). Whoever lends memory keeps it valid until every job reading
/// it is done (`Queued` handles wait for their jobs, even when dropped).
pub trait PairSource: Send + Sync {
    fn len(&self) -> usize;
    fn is_empty(&self) -> bool {
        self.len() == 0
    }
    /// Pattern and text lengths, without touching the bases.
    fn lengths(&self, index: usize) -> (usize, usize);
    fn pattern(&self, index: usize) -> &[u8];
    fn text(&self, index: usize) -> &[u8];
}

impl PairSource for PairSet {
    fn len(&self) -> usize {
        self.spans.len()
    }
    fn lengths(&self, index: usize) -> (usize, usize) {
        let s = &self.spans[index];
        (s.pattern_len, s.text_len)
    }
    fn pattern(&self, index: usize) -> &[u8] {
        let s = &self.spans[index];
        &self.bytes[s.pattern_offset..s.pattern_offset + s.pattern_len]
    }
    fn text(&self, index: usize) -> &[u8] {
        let s = &self.spans[index];
        &self.bytes[s.text_offset..s.text_offset + s.text_len]
    }
}

/// The result of one pair: what `wavefront_align` would have left behind.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct PairResult {
    /// The status, or the configuration error upstream turns into `exit(1)`.
    pub outcome: Result<AlignStatus, WfaError>,
    /// `cigar->score` (client convention).
    pub score: i32,
    /// The valid CIGAR operations (`'M' 'X' 'I' 'D'`); empty for score-only.
    pub operations: Operations,
}

impl PairResult {
    /// Reads a finished CPU aligner.
    pub fn from_aligner(aligner: &Aligner, outcome: Result<AlignStatus, WfaError>) -> PairResult {
        match outcome {
            Ok(status) => PairResult {
                outcome: Ok(status),
                score: aligner.score(),
                operations: Operations::from_letters(aligner.cigar().operations().to_vec()),
            },
            Err(e) => PairResult {
                outcome: Err(e),
                score: 0,
                operations: Operations::default(),
            },
        }
    }

    /// Where the CPU aligner would have put these operations in a CIGAR
    /// buffer of `max_operations` slots (that buffer only ever grows, so it
    /// depends on the aligner's history): high memory writes them backwards
    /// ending one before the last slot; the other modes from slot 0.
    pub fn cigar_offsets(&self, attributes: &AlignerAttributes, max_operations: i32) -> (i32, i32) {
        let n = self.operations.len() as i32;
        let backwards = attributes.memory_mode == MemoryMode::High
            && attributes.scope == AlignmentScope::ComputeAlignment
            && self.outcome == Ok(AlignStatus::Successful);
        if backwards {
            let end = max_operations - 1;
            (end - n, end)
        } else {
            (0, n)
        }
    }
}

/// A range of pairs of one set, all aligned with one configuration.
pub struct WfaJob {
    pub attributes: AlignerAttributes,
    pub pairs: Arc<dyn PairSource>,
    pub range: Range<usize>,
    /// Bases in the job (patterns and texts), the scheduler's rough measure
    /// of its cost.
    pub bases: u64,
    /// Whether the router allows a device to take this job.
    pub gpu: bool,
}

impl WfaJob {
    /// A job of pairs `range` of `pairs`, its bases counted.
    pub fn new(
        attributes: AlignerAttributes,
        pairs: Arc<dyn PairSource>,
        range: Range<usize>,
        gpu: bool,
    ) -> Self {
        let bases = range
            .clone()
            .map(|i| {
                let (p, t) = pairs.lengths(i);
                (p + t) as u64
            })
            .sum();
        WfaJob {
            attributes,
            pairs,
            range,
            bases,
            gpu,
        }
    }
}

thread_local! {
    /// One aligner per worker thread, rebuilt only when the configuration
    /// changes, as a real client keeps one aligner per thread.
    static CPU_ALIGNER: RefCell<Option<(AlignerAttributes, Aligner)>> = const { RefCell::new(None) };
}

/// Aligns one pair on this thread's CPU aligner.
pub fn align_on_cpu(attributes: &AlignerAttributes, pattern: &[u8], text: &[u8]) -> PairResult {
    CPU_ALIGNER.with(|slot| {
        let mut slot = slot.borrow_mut();
        if slot.as_ref().map(|(a, _)| a) != Some(attributes) {
            *slot = match Aligner::new(attributes) {
                Ok(aligner) => Some((*attributes, aligner)),
                Err(e) => {
                    return PairResult {
                        outcome: Err(e),
                        score: 0,
                        operations: Operations::default(),
                    };
                }
            };
        }
        let (_, aligner) = slot.as_mut().expect("aligner just built");
        // The aligner is reused for speed, but its history must not decide
        // whether this pair runs out of wavefronts.
        aligner.forget_table_growth();
        let outcome = aligner.align(pattern, text);
        PairResult::from_aligner(aligner, outcome)
    })
}

impl Job for WfaJob {
    type Output = Vec<PairResult>;

    fn run_cpu(&self) -> Vec<PairResult> {
        self.range
            .clone()
            .map(|i| align_on_cpu(&self.attributes, self.pairs.pattern(i), self.pairs.text(i)))
            .collect()
    }

    fn gpu_eligible(&self) -> bool {
        self.gpu
    }

    fn cost(&self) -> u64 {
        self.bases
    }
}

/// Whether a device may align this pair with this configuration (metric,
/// span, heuristic and size the kernel reproduces exactly). Everything else
/// stays on the CPU, so results never depend on where a pair ran.
/// The list of what is routed to the CPU, and why, is in [`super::gpu`].
/// The bytes of a pair are checked later, by the runner as it packs them on
/// the host pool (only the results of upper-case `ACGT` pairs are taken
/// from the kernel; the others are aligned on the CPU): that check reads
/// every base, which the thread adding pairs should not have to do.
pub fn gpu_may_take(attributes: &AlignerAttributes, pattern_len: usize, text_len: usize) -> bool {
    super::gpu::plan::Params::new(attributes)
        .is_ok_and(|params| params.takes_lengths(pattern_len, text_len))
}

/// The runners of every GPU in use (several per GPU, see `WfaRunner::for_gpu`).
/// Most bases one device batch holds: enough pairs to fill a GPU with
/// workers (about 110,000 pairs of 150 bp, 1,600 of 10 kbp), small enough
/// that a GPU's streams take turns (one packs and decodes on the host while
/// another's kernel runs). 16 M bases measured no different on an
/// H200 (BENCHMARKS.md).
pub const DEVICE_BATCH_BASES: u64 = 32 << 20;

/// [`DEVICE_BATCH_BASES`], or `SEQSHIM_WFA_BATCH_BASES` when set (for
/// measurements).
pub fn device_batch_bases() -> u64 {
    static BASES: once_cell::sync::Lazy<u64> = once_cell::sync::Lazy::new(|| {
        crate::engine::config::get()
            .setting::<u64>("SEQSHIM_WFA_BATCH_BASES")
            .filter(|&b| b > 0)
            .unwrap_or(DEVICE_BATCH_BASES)
    });
    *BASES
}

/// WFA as a family of the engine. The CPU pool does not take queued
/// device jobs: on an H200 with 16 cores, a pool that helped (while more
/// than a quarter of a device batch per stream was queued) took the host
/// cores that pack and decode the GPU's launches, and the batch API ran up
/// to 2.4x slower at 1-10 kbp (BENCHMARKS.md). Pairs a GPU cannot take still
/// run on the pool, alongside.
pub struct Wfa;

impl Family for Wfa {
    const NAME: &'static str = "WFA";
    const KERNEL: &'static str = "wfa";
    type Job = WfaJob;

    fn runners(gpu: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<WfaJob>>>, DeviceError> {
        Ok(super::gpu::WfaRunner::for_gpu(gpu)?
            .into_iter()
            .map(|r| Box::new(r) as Box<dyn BatchRunner<WfaJob>>)
            .collect())
    }

    /// This crate's unit tests drive the device paths with an emulated
    /// device (CI has no GPU).
    fn extra_runners() -> Vec<Box<dyn BatchRunner<WfaJob>>> {
        #[cfg(test)]
        return vec![Box::new(emulated::Runner)];
        #[cfg(not(test))]
        Vec::new()
    }
}

/// The process-wide WFA scheduler (GPU executors when a GPU is in use).
pub fn scheduler() -> &'static Scheduler<WfaJob> {
    crate::engine::family::scheduler::<Wfa>()
}

/// Whether the batch API and the transparent `wavefront_align` path offer this
/// pair to a device: [`gpu_may_take`], plus, in this crate's own unit tests,
/// the emulated device.
pub fn device_may_take(
    attributes: &AlignerAttributes,
    pattern_len: usize,
    text_len: usize,
) -> bool {
    DeviceRouter::new(attributes).takes(pattern_len, text_len)
}

/// [`device_may_take`] for many pairs of one configuration: the
/// configuration is checked once.
#[derive(Clone, Copy, Debug)]
pub struct DeviceRouter {
    // Read only by the unit tests' emulated device.
    #[cfg(test)]
    attributes: AlignerAttributes,
    params: Option<super::gpu::plan::Params>,
}

impl DeviceRouter {
    pub fn new(attributes: &AlignerAttributes) -> DeviceRouter {
        DeviceRouter {
            #[cfg(test)]
            attributes: *attributes,
            params: super::gpu::plan::Params::new(attributes).ok(),
        }
    }

    /// Whether a device may align a pair of these lengths.
    pub fn takes(&self, pattern_len: usize, text_len: usize) -> bool {
        #[cfg(test)]
        if crate::engine::device::gpus().is_empty() {
            return emulated::may_take(&self.attributes, pattern_len, text_len);
        }
        self.params
            .is_some_and(|params| params.takes_lengths(pattern_len, text_len))
    }
}

/// Leaves in `aligner` the history it would have had if it had aligned a
/// `pattern_len` x `text_len` pair itself with this result (buffers only
/// grow, and later CIGAR offsets depend on their size), for a pair a device
/// aligned on its behalf.
pub fn absorb_device_alignment(
    aligner: &mut Aligner,
    pattern_len: usize,
    text_len: usize,
    result: &PairResult,
) {
    if let Ok(status) = result.outcome {
        aligner
            .core
            .absorb(pattern_len as i32, text_len as i32, status, result.score);
    }
}

/// A stand-in device for this crate's unit tests (CI has no GPU): it runs
/// batches with [`align_on_cpu`] on its executor thread, exactly what a
/// correct device returns, and declines the longest jobs so that the CPU
/// rescue path is exercised too.
#[cfg(test)]
pub(crate) mod emulated {
    use super::*;
    use std::sync::atomic::{AtomicU64, Ordering};

    /// Pairs this long or longer are left to the CPU pool.
    pub const ROUTE_BELOW: usize = 4_000;
    /// Jobs whose first pair is this long are "unfinished" on the device.
    pub const RESCUE_FROM: usize = 3_000;

    pub fn may_take(attributes: &AlignerAttributes, pattern_len: usize, text_len: usize) -> bool {
        attributes.memory_mode != MemoryMode::Ultralow && pattern_len + text_len < ROUTE_BELOW
    }

    /// One-pair jobs (the transparent `wavefront_align` path) the device
    /// ran, and the most of them one batch held.
    pub static ONE_PAIR_JOBS: AtomicU64 = AtomicU64::new(0);
    pub static LARGEST_ONE_PAIR_BATCH: AtomicU64 = AtomicU64::new(0);

    static TURN: std::sync::Mutex<()> = std::sync::Mutex::new(());

    /// Tests that use the process-wide scheduler take turns, so that one
    /// sees only its own jobs (a lone caller is inline only while nobody
    /// else has work queued).
    pub fn take_turn() -> std::sync::MutexGuard<'static, ()> {
        TURN.lock().unwrap_or_else(|p| p.into_inner())
    }

    pub struct Runner;

    impl BatchRunner<WfaJob> for Runner {
        fn label(&self) -> String {
            "emulated device".into()
        }

        fn capacity(&self) -> usize {
            256
        }

        fn run_batch(&mut self, jobs: &[WfaJob]) -> Result<Vec<Option<Vec<PairResult>>>, String> {
            let one_pair = jobs.iter().filter(|j| j.pairs.len() == 1).count() as u64;
            ONE_PAIR_JOBS.fetch_add(one_pair, Ordering::Relaxed);
            LARGEST_ONE_PAIR_BATCH.fetch_max(one_pair, Ordering::Relaxed);
            Ok(jobs
                .iter()
                .map(|job| {
                    let first = job.range.start;
                    let long = job.range.is_empty() || {
                        let (p, t) = job.pairs.lengths(first);
                        p + t >= RESCUE_FROM
                    };
                    (!long).then(|| job.run_cpu())
                })
                .collect())
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn cpu_job_equals_a_fresh_aligner() {
        let mut set = PairSet::default();
        set.push(b"ACGTACGTTTGACA", b"ACGTTCGTTGACA");
        set.push(b"", b"ACG");
        set.push(b"GATTACA", b"GATTACA");
        set.push(b"", b"");
        let attributes = AlignerAttributes::default();
        let job = WfaJob::new(attributes, Arc::new(set.clone()), 0..set.len(), false);
        let results = job.run_cpu();
        for (i, result) in results.iter().enumerate() {
            let mut aligner = Aligner::new(&attributes).unwrap();
            let outcome = aligner.align(set.pattern(i), set.text(i));
            assert_eq!(
                *result,
                PairResult::from_aligner(&aligner, outcome),
                "pair {i}"
            );
            let (b, e) = result.cigar_offsets(&attributes, aligner.cigar().max_operations);
            assert_eq!(
                (b, e),
                (aligner.cigar().begin_offset, aligner.cigar().end_offset),
                "pair {i}"
            );
        }
    }
}
