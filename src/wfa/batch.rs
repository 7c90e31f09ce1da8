//! Many pairs, one configuration: routes each pair to a device or the CPU
//! pool, cuts them into jobs and runs everything at once through the
//! process-wide WFA scheduler. The C batch API is a thin layer over this.

use std::ops::Range;
use std::sync::Arc;
use std::time::{Duration, Instant};

use super::checks;
use super::job::{self, PairResult, PairSet, PairSource, WfaJob};
use super::{AlignStatus, Aligner, AlignerAttributes, AlignmentScope, MemoryMode, WfaError};
use crate::engine::scheduler::{self, Queued, ScheduleError};

/// Device jobs are small: a device batch packs many of them into one
/// launch, and a job that falls back to the CPU (a failed device) must not
/// hold a CPU thread for long (256 kbases: about a dozen 10 kbp pairs).
const DEVICE_JOB_PAIRS: usize = 512;
const DEVICE_JOB_BASES: u64 = 256 << 10;
/// Device results a run holds back to store together on the pool.
const STORE_TOGETHER: usize = 1 << 16;
/// CPU jobs are small enough that the pool balances its threads.
const CPU_JOB_PAIRS: usize = 256;
/// Result slots below this many are made and filled on the caller's
/// thread rather than on the pool.
const PARALLEL_STORE: usize = 1 << 14;
const CPU_JOB_BASES: u64 = 1 << 20;
/// The longest pair: its CIGAR (2·(p+t) operations) must fit an `int`.
pub const MAX_PAIR_BASES: usize = (i32::MAX / 2) as usize;

/// Where a pair stands.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum Slot {
    /// Added, not run yet.
    Pending,
    Done(PairResult),
    /// A device could not run it and strict mode forbade the CPU.
    Failed(String),
}

/// What one [`Batch::run`] did.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunSummary {
    pub pairs: usize,
    /// Pairs offered to the devices (a device may still hand some back to
    /// the CPU).
    pub to_devices: usize,
    pub to_cpu: usize,
    pub failed: usize,
    pub elapsed: Duration,
}

/// Pairs a caller lends for one [`Batch::run_with`]: memory it keeps valid
/// and unchanged until that run returns. Jobs read the pairs where they
/// are (the devices pack straight from them), and each result goes to the
/// pair's slot.
pub trait Lent: PairSource {
    /// The slot (from [`Batch::reserve`]) of pair `index`.
    fn slot(&self, index: usize) -> usize;
}

/// Some of the lent pairs, in the order of one route.
struct LentRoute {
    lent: Arc<dyn Lent>,
    members: Vec<usize>,
}

impl PairSource for LentRoute {
    fn len(&self) -> usize {
        self.members.len()
    }
    fn lengths(&self, index: usize) -> (usize, usize) {
        self.lent.lengths(self.members[index])
    }
    fn pattern(&self, index: usize) -> &[u8] {
        self.lent.pattern(self.members[index])
    }
    fn text(&self, index: usize) -> &[u8] {
        self.lent.text(self.members[index])
    }
}

/// A device job of a run: its handle, its pairs in its set and their slots
/// (indexed by pair).
type QueuedJob = (Queued<WfaJob>, Range<usize>, Arc<Vec<usize>>);

/// A CPU job's pairs in its set, their slots and its results.
type Finished = (Range<usize>, Arc<Vec<usize>>, Vec<PairResult>);

/// A CPU job of a run and the slots of its pairs.
type CpuJob = (WfaJob, Arc<Vec<usize>>);

/// A job of a run: queued for the devices, or for the CPU pool.
enum Built {
    Queued(QueuedJob),
    ForCpu(CpuJob),
}

/// Pairs waiting for the next run, already split by route.
#[derive(Default)]
struct Route {
    set: PairSet,
    slots: Vec<usize>,
}

pub struct Batch {
    attributes: AlignerAttributes,
    use_devices: bool,
    router: job::DeviceRouter,
    /// Pairs taken so far (slots `0..pairs`).
    pairs: usize,
    /// Where results go. Written out to `pairs` only when a run starts, on
    /// the pool (a slot past its end is pending): adding a pair then touches
    /// as little fresh memory as possible, which for short pairs costs more
    /// than the rest of adding them.
    slots: Vec<Slot>,
    device: Route,
    cpu: Route,
    last: RunSummary,
}

impl Batch {
    /// Checks the configuration as `wavefront_aligner_new` and
    /// `wavefront_align` would (penalties, BiWFA with ends-free, drops with
    /// edit/indel). `use_devices: false` keeps every pair on the CPU.
    pub fn new(attributes: AlignerAttributes, use_devices: bool) -> Result<Batch, WfaError> {
        Aligner::new(&attributes)?;
        let unit = matches!(
            attributes.penalties,
            super::Penalties::Edit | super::Penalties::Indel
        );
        checks::configuration(
            attributes.memory_mode == MemoryMode::Ultralow,
            &attributes.form,
            attributes.heuristic.strategy,
            unit,
        )?;
        Ok(Batch {
            attributes,
            use_devices,
            router: job::DeviceRouter::new(&attributes),
            pairs: 0,
            slots: Vec::new(),
            device: Route::default(),
            cpu: Route::default(),
            last: RunSummary::default(),
        })
    }

    pub fn attributes(&self) -> &AlignerAttributes {
        &self.attributes
    }

    /// Whether a pair of these lengths can be aligned with this
    /// configuration (ends-free lengths no larger than the sequences, CIGAR
    /// within an `int`).
    pub fn check_lengths(&self, pattern_len: usize, text_len: usize) -> Result<(), WfaError> {
        if pattern_len.saturating_add(text_len) > MAX_PAIR_BASES {
            return Err(WfaError::Unsupported("pair too long"));
        }
        checks::ends_free(&self.attributes.form, pattern_len as i64, text_len as i64)
    }

    /// Room for `pairs` more slots, reserved up front; `false` (nothing
    /// reserved) when the memory cannot be had.
    pub fn try_reserve(&mut self, pairs: usize) -> bool {
        self.slots.try_reserve(pairs).is_ok()
    }

    /// Takes a slot whose sequences come later, through [`Batch::fill`] or
    /// lent to [`Batch::run_with`].
    pub fn reserve(&mut self) -> usize {
        self.pairs += 1;
        self.pairs - 1
    }

    /// Copies a pair into the batch; returns its index. The caller has
    /// checked the lengths.
    pub fn add(&mut self, pattern: &[u8], text: &[u8]) -> usize {
        let slot = self.reserve();
        self.fill(slot, pattern, text);
        slot
    }

    /// Copies the sequences of a reserved slot.
    pub fn fill(&mut self, slot: usize, pattern: &[u8], text: &[u8]) {
        let route = if self.use_devices && self.router.takes(pattern.len(), text.len()) {
            &mut self.device
        } else {
            &mut self.cpu
        };
        route.set.push(pattern, text);
        route.slots.push(slot);
    }

    pub fn len(&self) -> usize {
        self.pairs
    }

    pub fn is_empty(&self) -> bool {
        self.pairs == 0
    }

    pub fn slot(&self, index: usize) -> Option<&Slot> {
        static PENDING: Slot = Slot::Pending;
        (index < self.pairs).then(|| self.slots.get(index).unwrap_or(&PENDING))
    }

    /// What the last run did.
    pub fn last_run(&self) -> RunSummary {
        self.last
    }

    /// Drops every pair and result; the configuration stays, and so does
    /// the room for as many slots (a batch reused for batches of the same
    /// size adds its pairs into memory already in place).
    pub fn reset(&mut self) {
        self.pairs = 0;
        self.slots.clear();
        self.device = Route::default();
        self.cpu = Route::default();
        self.last = RunSummary::default();
    }

    /// Aligns every pair added since the last run: device jobs go to the
    /// GPU executors while the CPU pool aligns the others.
    pub fn run(&mut self) -> RunSummary {
        self.run_with(None)
    }

    /// [`Batch::run`] with the pairs of reserved slots lent for the call.
    /// When it returns, however it returns (a panic inside included), no
    /// job reads the lent pairs any more: every queued job is waited for.
    pub fn run_with(&mut self, lent: Option<Arc<dyn Lent>>) -> RunSummary {
        let started = Instant::now();
        let device = std::mem::take(&mut self.device);
        let cpu = std::mem::take(&mut self.cpu);
        let (use_devices, router) = (self.use_devices, self.router);
        let lent_len = lent.as_ref().map_or(0, |l| l.len());
        // One pass on this thread: a parallel partition of 100,000 pairs
        // took about 1 ms on 16 cores, most of it before the GPUs had work.
        let mut lent_device = Vec::new();
        let mut lent_cpu = Vec::new();
        if let Some(lent) = &lent {
            lent_device.reserve(if use_devices { lent_len } else { 0 });
            for i in 0..lent_len {
                let (p, t) = lent.lengths(i);
                if use_devices && router.takes(p, t) {
                    lent_device.push(i);
                } else {
                    lent_cpu.push(i);
                }
            }
        }
        let routed = started.elapsed();
        let pairs = device.slots.len() + cpu.slots.len() + lent_len;
        // Without a live device the "device" pairs are CPU work like the
        // rest, cut into CPU-sized jobs so that every core gets some.
        // A batch that must not use a device never asks the scheduler: that
        // would start its GPU runners (kernel, arenas) for nothing.
        let devices = self.use_devices && job::scheduler().has_devices();
        let to_devices = if devices {
            device.slots.len() + lent_device.len()
        } else {
            0
        };
        let mut summary = RunSummary {
            pairs,
            to_devices,
            to_cpu: pairs - to_devices,
            ..RunSummary::default()
        };
        if pairs > 0 {
            crate::log_info!(
                "wfa batch: aligning {pairs} pairs ({} offered to {} GPU stream(s), {} on the CPU pool)",
                summary.to_devices,
                if self.use_devices {
                    job::scheduler().devices().len()
                } else {
                    0
                },
                summary.to_cpu
            );
        }
        // Each route's pairs (copied, then lent) with their slots.
        let mut routes: Vec<(Arc<dyn PairSource>, Vec<usize>, bool)> = Vec::new();
        for (route, gpu) in [(device, devices), (cpu, false)] {
            if !route.slots.is_empty() {
                routes.push((Arc::new(route.set), route.slots, gpu));
            }
        }
        if let Some(lent) = &lent {
            for (members, gpu) in [(lent_device, devices), (lent_cpu, false)] {
                if !members.is_empty() {
                    let slots = members.iter().map(|&i| lent.slot(i)).collect();
                    let lent = lent.clone();
                    routes.push((Arc::new(LentRoute { lent, members }), slots, gpu));
                }
            }
        }
        // Device jobs are queued as they are cut, a full batch for each
        // executor at a time, so that the GPUs start on the first ones at
        // once and with full launches. Then the CPU jobs run on the pool
        // while the GPUs work, and last the device results are stored, in
        // queue order, each as soon as it is back. A device job no executor
        // was left to take becomes a CPU job. (A `Queued` handle that is
        // dropped unwaited, by a panic here, still waits for its job.)
        let group_bases = if devices {
            let executors = job::scheduler().devices().len().max(1) as u64;
            job::device_batch_bases().saturating_mul(executors)
        } else {
            0
        };
        let mut group = Group::default();
        let mut first_queued = None;
        let mut built: Vec<Built> = Vec::new();
        for (set, slots, gpu) in routes {
            let (max_pairs, max_bases) = job_size(set.len(), gpu);
            let sizes = (0..set.len()).map(|i| {
                let (p, t) = set.lengths(i);
                p + t
            });
            let slots = Arc::new(slots);
            for (range, bases) in chunks(sizes, max_pairs, max_bases) {
                let job = WfaJob {
                    attributes: self.attributes,
                    pairs: set.clone(),
                    range,
                    bases,
                    gpu,
                };
                if !gpu {
                    built.push(Built::ForCpu((job, slots.clone())));
                    continue;
                }
                group.bases += bases;
                group.jobs.push((job, slots.clone()));
                if group.bases >= group_bases {
                    built.extend(std::mem::take(&mut group).dispatch());
                    first_queued.get_or_insert_with(|| started.elapsed());
                }
            }
        }
        if !group.jobs.is_empty() {
            built.extend(group.dispatch());
            first_queued.get_or_insert_with(|| started.elapsed());
        }
        // The result slots, while the devices start (for a large batch,
        // fresh memory that takes a millisecond or more to fault in).
        let (have, taken) = (self.slots.len(), self.pairs);
        let slots = &mut self.slots;
        if taken - have < PARALLEL_STORE {
            // Not worth the pool, whose threads may be busy with another
            // caller's long work.
            slots.extend((have..taken).map(|_| Slot::Pending));
        } else {
            crate::engine::cpu::install(|| {
                use rayon::prelude::*;
                slots.par_extend((have..taken).into_par_iter().map(|_| Slot::Pending));
            });
        }
        let mut queued: Vec<QueuedJob> = Vec::new();
        let mut cpu_jobs: Vec<CpuJob> = Vec::new();
        for job in built {
            match job {
                Built::Queued(handed) => queued.push(handed),
                Built::ForCpu(job) => cpu_jobs.push(job),
            }
        }
        let prepared = started.elapsed();
        let (jobs, owners): (Vec<WfaJob>, Vec<Arc<Vec<usize>>>) = cpu_jobs.into_iter().unzip();
        let ranges: Vec<_> = jobs.iter().map(|j| j.range.clone()).collect();
        let mut done = Vec::with_capacity(jobs.len());
        for ((output, range), slots) in scheduler::run_on_cpu(jobs)
            .into_iter()
            .zip(ranges)
            .zip(owners)
        {
            match output {
                Ok(results) => done.push((range, slots, results)),
                // A job that panicked: its pairs fail, the others stand.
                failed => self.store(range, &slots, failed, &mut summary),
            }
        }
        self.store_finished(done);
        // Device results in queue order, stored a few tens of thousands at a
        // time on the pool: the GPUs' batches tend to finish together, and
        // 100,000 results stored one by one on this thread took about 2 ms
        // after the last of them; all of a million stored at the end made
        // 150 bp runs slower than storing them while the GPUs worked.
        let mut done = Vec::new();
        let mut held = 0;
        for (handed, range, slots) in queued {
            match handed.wait() {
                Ok(results) if results.len() == range.len() => {
                    held += results.len();
                    done.push((range, slots, results));
                    if held >= STORE_TOGETHER {
                        self.store_finished(std::mem::take(&mut done));
                        held = 0;
                    }
                }
                failed => self.store(range, &slots, failed, &mut summary),
            }
        }
        self.store_finished(done);
        summary.elapsed = started.elapsed();
        if pairs > 0 {
            crate::log_debug!(
                "wfa batch: routes ready in {:.1} ms, first device jobs queued at {:.1} ms, jobs cut and device jobs queued in {:.1} ms, all aligned and stored {:.1} ms later",
                routed.as_secs_f64() * 1e3,
                first_queued.unwrap_or_default().as_secs_f64() * 1e3,
                prepared.as_secs_f64() * 1e3,
                (summary.elapsed - prepared).as_secs_f64() * 1e3
            );
            let secs = summary.elapsed.as_secs_f64();
            crate::log_info!(
                "wfa batch: {pairs} pairs in {:.3} s ({:.0} alignments/s), {} failed",
                secs,
                pairs as f64 / secs.max(1e-9),
                summary.failed
            );
        }
        self.last = summary;
        summary
    }
}

impl Batch {
    /// The results of finished jobs, each with all of its results. A job
    /// whose slots are one run of consecutive slots (those of pairs added in
    /// order) fills its run on the pool: a million short pairs took longer
    /// to store one by one than to align on 16 cores.
    fn store_finished(&mut self, done: Vec<Finished>) {
        let mut runs: Vec<(usize, Vec<PairResult>)> = Vec::new();
        for (range, slots, results) in done {
            let mine = &slots[range];
            if !mine.is_empty() && mine.windows(2).all(|w| w[1] == w[0] + 1) {
                runs.push((mine[0], results));
            } else {
                self.put(mine, results);
            }
        }
        // One piece of the slots per run; runs are disjoint, as each slot
        // belongs to one pair.
        runs.sort_unstable_by_key(|(first, _)| *first);
        let mut pieces: Vec<(&mut [Slot], Vec<PairResult>)> = Vec::with_capacity(runs.len());
        let mut rest: &mut [Slot] = &mut self.slots;
        let mut rest_at = 0;
        for (first, results) in runs {
            let (_, from_first) = std::mem::take(&mut rest).split_at_mut(first - rest_at);
            let (piece, after) = from_first.split_at_mut(results.len());
            rest = after;
            rest_at = first + results.len();
            pieces.push((piece, results));
        }
        let fill = |(piece, results): (&mut [Slot], Vec<PairResult>)| {
            for (slot, result) in piece.iter_mut().zip(results) {
                *slot = Slot::Done(result);
            }
        };
        let count: usize = pieces.iter().map(|(piece, _)| piece.len()).sum();
        if count < PARALLEL_STORE {
            // As for the slots: a few results are stored here and now.
            pieces.into_iter().for_each(fill);
        } else {
            crate::engine::cpu::install(|| {
                use rayon::prelude::*;
                pieces.into_par_iter().for_each(fill);
            });
        }
    }

    /// Puts each result in its slot, one by one.
    fn put(&mut self, slots: &[usize], results: Vec<PairResult>) {
        for (&slot, result) in slots.iter().zip(results) {
            self.slots[slot] = Slot::Done(result);
        }
    }

    /// Puts a job's results (pairs `range` of its set, whose slots are
    /// `slots[range]`) in their slots, or its failure.
    fn store(
        &mut self,
        range: Range<usize>,
        slots: &[usize],
        output: Result<Vec<PairResult>, ScheduleError>,
        summary: &mut RunSummary,
    ) {
        match output {
            Ok(results) if results.len() == range.len() => self.put(&slots[range], results),
            failed => {
                let why = match failed {
                    Err(ScheduleError(why)) => why,
                    Ok(r) => format!("{} results for {} pairs", r.len(), range.len()),
                };
                summary.failed += range.len();
                for i in range {
                    self.slots[slots[i]] = Slot::Failed(why.clone());
                }
            }
        }
    }
}

/// Device jobs cut but not yet queued.
#[derive(Default)]
struct Group {
    jobs: Vec<(WfaJob, Arc<Vec<usize>>)>,
    bases: u64,
}

impl Group {
    /// Queues the jobs together; one no executor was left to take comes
    /// back as a CPU job.
    fn dispatch(self) -> Vec<Built> {
        let (jobs, slots): (Vec<WfaJob>, Vec<Arc<Vec<usize>>>) = self.jobs.into_iter().unzip();
        let ranges: Vec<Range<usize>> = jobs.iter().map(|j| j.range.clone()).collect();
        job::scheduler()
            .queue_many(jobs)
            .into_iter()
            .zip(ranges)
            .zip(slots)
            .map(|((handed, range), slots)| match handed {
                Ok(handed) => Built::Queued((handed, range, slots)),
                Err(job) => Built::ForCpu((job, slots)),
            })
            .collect()
    }
}

/// How many pairs and bases a job of a route with `pairs` pairs holds.
fn job_size(pairs: usize, gpu: bool) -> (usize, u64) {
    if gpu {
        (DEVICE_JOB_PAIRS, DEVICE_JOB_BASES)
    } else {
        // At least a few jobs per pool thread, so that a batch of a few long
        // pairs still spreads over every core.
        let per_thread = pairs / (crate::engine::cpu::threads() * 4);
        (per_thread.clamp(1, CPU_JOB_PAIRS), CPU_JOB_BASES)
    }
}

/// Cuts pairs of these sizes (bases) into ranges of at most `max_pairs`
/// pairs and about `max_bases` bases (a longer pair gets a range of its
/// own), each with its bases. Lazy: a run queues its first jobs before the
/// last pairs' lengths are read.
pub(crate) fn chunks(
    sizes: impl Iterator<Item = usize>,
    max_pairs: usize,
    max_bases: u64,
) -> impl Iterator<Item = (std::ops::Range<usize>, u64)> {
    let mut sizes = sizes.enumerate().peekable();
    std::iter::from_fn(move || {
        let (start, first) = sizes.next()?;
        let mut bases = first as u64;
        let mut end = start + 1;
        while let Some(&(i, size)) = sizes.peek() {
            if i - start >= max_pairs || bases + size as u64 > max_bases {
                break;
            }
            bases += size as u64;
            end = i + 1;
            sizes.next();
        }
        Some((start..end, bases))
    })
}

/// The status a result reports to C callers, `wavefront_align`'s return
/// value: a refused configuration is -1.
pub fn status_code(result: &PairResult) -> i32 {
    match result.outcome {
        Ok(status) => status.code(),
        Err(_) => AlignStatus::Unfeasible.code(),
    }
}

/// The score a result reports to C callers: `cigar->score`, except that
/// where `wavefront_align` leaves the previous alignment's score (a refused
/// pair, a score-only alignment that did not finish), a batch reports
/// `INT32_MIN`, what an aligner that aligned only this pair would hold.
pub fn client_score(attributes: &AlignerAttributes, result: &PairResult) -> i32 {
    match result.outcome {
        Ok(AlignStatus::Successful) => result.score,
        Ok(_) if attributes.scope == AlignmentScope::ComputeAlignment => result.score,
        _ => i32::MIN,
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wfa::{AlignmentForm, Heuristic};

    fn random_pairs(n: usize, seed: u64) -> Vec<(Vec<u8>, Vec<u8>)> {
        let mut state = seed;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        (0..n)
            .map(|_| {
                let len = next() % 2_500;
                let p: Vec<u8> = (0..len).map(|_| b"ACGT"[next() % 4]).collect();
                let mut t = Vec::new();
                for &c in &p {
                    match next() % 20 {
                        0 => t.push(b"ACGT"[next() % 4]),
                        1 => {}
                        2 => {
                            t.push(c);
                            t.push(b"ACGT"[next() % 4]);
                        }
                        _ => t.push(c),
                    }
                }
                (p, t)
            })
            .collect()
    }

    #[test]
    fn chunking_covers_every_pair_once() {
        let size = |i: usize| i % 37 + i % 11;
        let ranges: Vec<_> = chunks((0..1_000).map(size), 64, 500).collect();
        let mut next = 0;
        for (r, bases) in &ranges {
            assert_eq!(r.start, next);
            assert!(r.len() <= 64 && !r.is_empty());
            assert_eq!(*bases, r.clone().map(|i| size(i) as u64).sum::<u64>());
            assert!(*bases <= 500 || r.len() == 1);
            next = r.end;
        }
        assert_eq!(next, 1_000);
    }

    /// A batch that must not use a device leaves the scheduler alone (on a
    /// GPU machine asking it would start the GPU runners) and still equals
    /// one aligner per pair.
    #[test]
    fn cpu_only_batch_does_not_use_the_scheduler() {
        let _turn = job::emulated::take_turn();
        let pairs = random_pairs(40, 11);
        let attributes = AlignerAttributes::default();
        let before = job::scheduler().stats();
        let mut batch = Batch::new(attributes, false).unwrap();
        for (p, t) in &pairs {
            batch.add(p, t);
        }
        let summary = batch.run();
        assert_eq!(job::scheduler().stats(), before);
        assert_eq!((summary.to_devices, summary.to_cpu), (0, pairs.len()));
        for (i, (p, t)) in pairs.iter().enumerate() {
            let mut reference = Aligner::new(&attributes).unwrap();
            let outcome = reference.align(p, t);
            let want = PairResult::from_aligner(&reference, outcome);
            assert_eq!(batch.slot(i), Some(&Slot::Done(want)), "pair {i}");
        }
    }

    /// Lent pairs for the tests: owned here, which is all the batch needs.
    #[derive(Default)]
    struct TestLent(Vec<(usize, Vec<u8>, Vec<u8>)>);

    impl PairSource for TestLent {
        fn len(&self) -> usize {
            self.0.len()
        }
        fn lengths(&self, index: usize) -> (usize, usize) {
            (self.0[index].1.len(), self.0[index].2.len())
        }
        fn pattern(&self, index: usize) -> &[u8] {
            &self.0[index].1
        }
        fn text(&self, index: usize) -> &[u8] {
            &self.0[index].2
        }
    }

    impl Lent for TestLent {
        fn slot(&self, index: usize) -> usize {
            self.0[index].0
        }
    }

    /// Lent pairs through the emulated device (which hands some back to the
    /// CPU) and the CPU pool, in reverse slot order: each result lands in
    /// its own slot and equals a fresh aligner's.
    #[test]
    fn lent_pairs_on_the_device_and_the_pool_keep_their_slots() {
        let _turn = job::emulated::take_turn();
        let pairs = random_pairs(200, 9);
        let attributes = AlignerAttributes::default();
        let mut batch = Batch::new(attributes, true).unwrap();
        let slots: Vec<usize> = pairs.iter().map(|_| batch.reserve()).collect();
        let mut lent = TestLent::default();
        for (i, (p, t)) in pairs.iter().enumerate().rev() {
            lent.0.push((slots[i], p.clone(), t.clone()));
        }
        let summary = batch.run_with(Some(Arc::new(lent)));
        assert_eq!((summary.pairs, summary.failed), (pairs.len(), 0));
        assert!(summary.to_devices > 0, "{summary:?}");
        for (i, (p, t)) in pairs.iter().enumerate() {
            let mut reference = Aligner::new(&attributes).unwrap();
            let outcome = reference.align(p, t);
            let want = PairResult::from_aligner(&reference, outcome);
            assert_eq!(batch.slot(i), Some(&Slot::Done(want)), "pair {i}");
        }
    }

    /// Copied and lent pairs, interleaved in one run and in two blocks in
    /// the next: results land in their own slots whether a job's slots are
    /// consecutive (stored on the pool) or not (one by one).
    #[test]
    fn interleaved_copied_and_lent_pairs_keep_their_slots() {
        let _turn = job::emulated::take_turn();
        let pairs = random_pairs(120, 5);
        let attributes = AlignerAttributes::default();
        let mut batch = Batch::new(attributes, false).unwrap();
        for (r, round) in pairs.chunks(60).enumerate() {
            let mut lent = TestLent::default();
            for (i, (p, t)) in round.iter().enumerate() {
                // Interleaved, then in two blocks.
                let copied = if r == 0 { i % 3 == 0 } else { i < 20 };
                if copied {
                    batch.add(p, t);
                } else {
                    lent.0.push((batch.reserve(), p.clone(), t.clone()));
                }
            }
            let summary = batch.run_with(Some(Arc::new(lent)));
            assert_eq!((summary.pairs, summary.failed), (round.len(), 0));
        }
        for (i, (p, t)) in pairs.iter().enumerate() {
            let mut reference = Aligner::new(&attributes).unwrap();
            let outcome = reference.align(p, t);
            let want = PairResult::from_aligner(&reference, outcome);
            assert_eq!(batch.slot(i), Some(&Slot::Done(want)), "pair {i}");
        }
        assert_eq!(batch.slot(pairs.len()), None);
    }

    /// Through the emulated device of the unit-test build: device jobs,
    /// rescued jobs and CPU jobs all equal a fresh aligner per pair.
    #[test]
    fn batch_equals_one_aligner_per_pair() {
        let _turn = job::emulated::take_turn();
        let pairs = random_pairs(300, 7);
        for (scope, heuristic) in [
            (AlignmentScope::ComputeAlignment, Heuristic::none()),
            (
                AlignmentScope::ComputeScore,
                Heuristic::wfadaptive(10, 50, 1),
            ),
        ] {
            let attributes = AlignerAttributes {
                scope,
                heuristic,
                form: AlignmentForm::END_TO_END,
                ..AlignerAttributes::default()
            };
            let mut batch = Batch::new(attributes, true).unwrap();
            for (p, t) in &pairs {
                batch.add(p, t);
            }
            let summary = batch.run();
            assert_eq!(summary.pairs, pairs.len());
            assert!(summary.to_devices > 0, "{summary:?}");
            // The emulated device declines some pairs; a real GPU in the
            // machine may take them all.
            if crate::engine::device::gpus().is_empty() {
                assert!(summary.to_cpu > 0, "{summary:?}");
            }
            for (i, (p, t)) in pairs.iter().enumerate() {
                let mut reference = Aligner::new(&attributes).unwrap();
                let outcome = reference.align(p, t);
                let want = PairResult::from_aligner(&reference, outcome);
                let Some(Slot::Done(got)) = batch.slot(i) else {
                    panic!("pair {i} has no result");
                };
                assert_eq!(status_code(got), status_code(&want), "pair {i}");
                assert_eq!(
                    client_score(&attributes, got),
                    client_score(&attributes, &want),
                    "pair {i}"
                );
                assert_eq!(got.operations, want.operations, "pair {i}");
            }
        }
    }
}
