//! EC as three families of the engine (exact-v1 correction, default-mode
//! correction, default-mode counting), and how a bulk call (a `runTest`
//! launch, a batch, a file) is split between the CPU pool and the GPUs.
//!
//! A job is a chunk of reads of one call. exact-v1's launch is one grid over
//! every record, but every record is processed alone: only the grid's extra
//! passes over record 0 depend on the launch size, and those stay on the
//! host (`kernel_v1::launch`), so chunks give v1's bytes.
//!
//! A call is bulk work its caller knows the size of, not one of many small
//! calls, so no per-call routing applies: a call of [`BULK_MIN_READS`] reads
//! or more starts the family's devices (in the background) and works
//! through its first chunks on the CPU pool meanwhile; once a GPU is up,
//! the rest goes to the GPUs a few chunks at a time. A smaller call never
//! starts them (a launch's start-up would cost more than the call).

use std::collections::VecDeque;
use std::ops::Range;
use std::sync::Arc;
use std::sync::atomic::{AtomicU64, Ordering};

use crate::engine::device::{DeviceError, Gpu};
use crate::engine::family::{self, Bulk, Family};
use crate::engine::scheduler::{BatchRunner, Job, Queued};

use super::bloom_v1::BloomTableV1;
use super::correct_default::{self, ReadOutcome, Verdict};
use super::default_mode::ReadView;
use super::error::EcError;
use super::gpu::{CountRunner, DefaultRunner, EcRunner, GPU_MAX_LEN, ProbeTable, V1Runner};
use super::kernel_v1::{self, KernelConfig};
use super::kmer_counts::{KmerCounter, SolidKmers};
use super::parallel::for_each_chunk_mut;
use super::params::Params;

/// Smallest call that starts the devices: below this the CPU pool finishes
/// sooner than a GPU starts (milliseconds of work). A larger call that the
/// CPU pool finishes before they are up only leaves them ready for the next.
pub const BULK_MIN_READS: usize = 1 << 14;
/// Reads of the first chunk the CPU pool takes while the devices start
/// (each next one is twice as large).
const CPU_CHUNK_READS: usize = 1 << 14;
/// Reads of a GPU chunk (one launch): about a wave of threads on a large GPU.
const GPU_CHUNK_READS: usize = 1 << 18;
/// GPU chunks queued ahead of the one the caller waits for.
const IN_FLIGHT: usize = 4;
/// Reads per parallel work item of the CPU rerun of a default-mode chunk.
const READS_PER_ITEM: usize = 512;
/// Reads per parallel item of the host's share of a GPU call (screening
/// before it, applying the kernel's verdicts after): a few microseconds of
/// work each, so thousands make an item.
const HOST_CHUNK_READS: usize = 4096;

/// A chunk of one exact-v1 kernel launch: whole records, their kernel
/// (`pair`: `fix_errors2`), the settings and the Bloom table.
pub struct V1Chunk {
    pub(crate) records: Vec<u8>,
    pub(crate) pair: bool,
    pub(crate) cfg: KernelConfig,
    pub(crate) bloom: Arc<BloomTableV1>,
}

/// A chunk's records after the kernel, per record its trimmed start, and
/// how many the watchdog stopped.
pub struct V1ChunkOut {
    pub(crate) records: Vec<u8>,
    pub(crate) trim_start: Vec<u32>,
    pub(crate) watchdog: u64,
}

impl V1Chunk {
    /// A chunk of `records` (v1's record array, stride `read_len + 2`) for
    /// kernel 1, or kernel 2 when `pair`, as `params` configure it.
    pub fn new(
        records: Vec<u8>,
        pair: bool,
        params: &Params,
        bloom: Arc<BloomTableV1>,
    ) -> Result<V1Chunk, EcError> {
        params.validate()?;
        let stride = params.read_len + 2;
        if params.mode != super::Mode::ExactV1 || records.len() % stride != 0 {
            return Err(EcError::InvalidParam(
                "an exact-v1 chunk needs exact-v1 parameters and whole records".into(),
            ));
        }
        Ok(V1Chunk {
            records,
            pair,
            cfg: super::v1::kernel_config(params),
            bloom,
        })
    }
}

impl V1ChunkOut {
    /// Records whose bytes, trimmed start or watchdog flag differ from
    /// `other`'s (the total watchdog count stands in for the flags).
    pub fn differences(&self, other: &V1ChunkOut, read_len: usize) -> usize {
        let stride = read_len + 2;
        let records = self
            .records
            .chunks(stride)
            .zip(other.records.chunks(stride))
            .zip(self.trim_start.iter().zip(&other.trim_start))
            .filter(|((a, b), (s, t))| a != b || s != t)
            .count();
        records
            + (self.records.len() != other.records.len()) as usize
            + (self.watchdog != other.watchdog) as usize
    }
}

impl Job for V1Chunk {
    type Output = V1ChunkOut;

    fn run_cpu(&self) -> V1ChunkOut {
        let mut records = self.records.clone();
        let mut trim_start = vec![0; records.len() / (self.cfg.read_len + 2)];
        let watchdog = kernel_v1::process_records_cpu(
            &mut records,
            self.pair,
            &self.cfg,
            &self.bloom,
            &mut trim_start,
        );
        V1ChunkOut {
            records,
            trim_start,
            watchdog,
        }
    }

    fn gpu_eligible(&self) -> bool {
        self.cfg.read_len <= GPU_MAX_LEN
    }

    /// Record bytes.
    fn cost(&self) -> u64 {
        self.records.len() as u64
    }
}

/// A chunk of default-mode reads to judge: upper-case ACGT of k to
/// [`GPU_MAX_LEN`] bases, `reads[offsets[i]..offsets[i + 1]]`.
pub struct DefaultChunk {
    pub(crate) reads: Vec<u8>,
    pub(crate) offsets: Vec<u32>,
    pub(crate) params: Params,
    pub(crate) table: Arc<ProbeTable>,
}

/// The judged reads (same layout) and one verdict per read.
pub struct DefaultChunkOut {
    pub(crate) work: Vec<u8>,
    pub(crate) verdicts: Vec<Verdict>,
}

impl DefaultChunk {
    /// A chunk of reads for the default-mode kernel: each of `k` to
    /// [`GPU_MAX_LEN`] A/C/G/T (either case), judged against `spectrum`.
    pub fn new(
        reads: &[&[u8]],
        params: &Params,
        spectrum: &super::Spectrum,
    ) -> Result<DefaultChunk, EcError> {
        params.validate()?;
        let solid = spectrum.solid_kmers()?;
        for (index, read) in reads.iter().enumerate() {
            if correct_default::outcome_without_voting(read, params.k).is_some()
                || read.len() > GPU_MAX_LEN
            {
                return Err(EcError::InvalidParam(format!(
                    "read {index} is not for the kernel (non-ACGT, shorter than k or longer than {GPU_MAX_LEN})"
                )));
            }
        }
        let (packed, offsets) = pack_reads(reads, true)
            .ok_or_else(|| EcError::InvalidParam("a chunk of more than 4 GiB of reads".into()))?;
        Ok(DefaultChunk {
            reads: packed,
            offsets,
            params: params.clone(),
            table: solid.probe_table(),
        })
    }
}

impl DefaultChunkOut {
    /// Reads whose judged bytes or verdict differ from `other`'s.
    pub fn differences(&self, other: &DefaultChunkOut) -> usize {
        let same_layout = self.work.len() == other.work.len();
        let verdicts = self
            .verdicts
            .iter()
            .zip(&other.verdicts)
            .filter(|(a, b)| a != b)
            .count();
        verdicts
            + (!same_layout || self.work != other.work) as usize
            + self.verdicts.len().abs_diff(other.verdicts.len())
    }
}

impl Job for DefaultChunk {
    type Output = DefaultChunkOut;

    fn run_cpu(&self) -> DefaultChunkOut {
        let n = self.offsets.len().saturating_sub(1);
        let mut slots: Vec<(Vec<u8>, Verdict)> = (0..n)
            .map(|i| {
                let read = &self.reads[self.offsets[i] as usize..self.offsets[i + 1] as usize];
                (read.to_vec(), Verdict::default())
            })
            .collect();
        for_each_chunk_mut(&mut slots, READS_PER_ITEM, |_, chunk| {
            for (work, verdict) in chunk.iter_mut() {
                *verdict = correct_default::judge(work, &*self.table, &self.params);
            }
        });
        let mut work = Vec::with_capacity(self.reads.len());
        let mut verdicts = Vec::with_capacity(n);
        for (w, v) in slots {
            work.extend_from_slice(&w);
            verdicts.push(v);
        }
        DefaultChunkOut { work, verdicts }
    }

    /// Read bytes.
    fn cost(&self) -> u64 {
        self.reads.len() as u64
    }
}

/// exact-v1 correction as a family of the engine.
pub struct EcV1;

impl Family for EcV1 {
    const NAME: &'static str = "EC exact-v1";
    const KERNEL: &'static str = "ec";
    type Job = V1Chunk;

    fn runners(gpu: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<V1Chunk>>>, DeviceError> {
        Ok(vec![Box::new(V1Runner(EcRunner::new(gpu.clone())?))])
    }
}

/// Default-mode correction as a family of the engine.
pub struct EcDefault;

impl Family for EcDefault {
    const NAME: &'static str = "EC default";
    const KERNEL: &'static str = "ec";
    type Job = DefaultChunk;

    /// Two runners a GPU, on two streams: a launch's host steps (packing
    /// and unpacking a chunk, about half as long as its kernel) run while
    /// the other runner's kernel does. Each holds its own copy of the
    /// spectrum's table.
    fn runners(gpu: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<DefaultChunk>>>, DeviceError> {
        (0..DEFAULT_LANES)
            .map(|lane| {
                Ok(
                    Box::new(DefaultRunner(EcRunner::on_lane(gpu.clone(), lane)?))
                        as Box<dyn BatchRunner<DefaultChunk>>,
                )
            })
            .collect()
    }
}

/// Default-mode runners a GPU.
const DEFAULT_LANES: usize = 2;

/// Reads corrected by bulk calls on GPUs and on the CPU pool, for reports.
static READS_ON_GPU: AtomicU64 = AtomicU64::new(0);
static READS_ON_CPU: AtomicU64 = AtomicU64::new(0);

/// Where the reads of this process's EC calls ran so far: (on a GPU, on
/// the CPU pool, the GPUs EC uses). A chunk handed to a device counts as
/// on a GPU even when its device failed and the scheduler reran it on the
/// CPU (`SEQSHIM_LOG=info` reports those rescues).
pub fn routing() -> (u64, u64, Vec<String>) {
    let mut devices: Vec<String> = Vec::new();
    for started in [
        family::started_devices::<EcV1>(),
        family::started_devices::<EcDefault>(),
    ] {
        for d in started {
            if !devices.contains(&d) {
                devices.push(d);
            }
        }
    }
    (
        READS_ON_GPU.load(Ordering::Relaxed),
        READS_ON_CPU.load(Ordering::Relaxed),
        devices,
    )
}

/// A chunk given to the devices, or given back when none was left.
type Handed<J> = Result<Queued<J>, J>;

/// Default mode's counting of a whole call's reads (one job: every k-mer
/// goes into one table): the reads, packed, and what the count needs.
pub struct CountJob {
    pub(crate) reads: Vec<u8>,
    pub(crate) offsets: Vec<u32>,
    pub(crate) k: usize,
    pub(crate) min_mult: u32,
    /// Windows of k bases in the reads (sizes the table).
    pub(crate) windows: u64,
}

impl CountJob {
    /// A job counting `reads` (any bytes; windows with a non-ACGT base are
    /// skipped) for k-mers of `k` seen at least `min_mult` times.
    pub fn new(reads: &[&[u8]], k: usize, min_mult: u32) -> Result<CountJob, EcError> {
        if !(1..=super::DEFAULT_MAX_K).contains(&k) || min_mult == 0 {
            return Err(EcError::InvalidParam(format!(
                "k = {k}, min_mult = {min_mult}"
            )));
        }
        let (windows, _) = windows_and_bytes(reads, k);
        let (packed, offsets) = pack_reads(reads, false)
            .ok_or_else(|| EcError::InvalidParam("more than 4 GiB of reads in one count".into()))?;
        Ok(CountJob {
            reads: packed,
            offsets,
            k,
            min_mult,
            windows,
        })
    }
}

/// Reads per piece of [`pack_reads`].
const PACK_READS: usize = 1 << 15;

/// `reads` laid end to end (upper-cased if `upper`) and their offsets
/// (`reads[i]` at `offsets[i]..offsets[i + 1]`), copied by the CPU pool
/// piece by piece: one thread packing 20 M reads for a count took 1.7 s.
/// `None` past 4 GiB.
fn pack_reads(reads: &[&[u8]], upper: bool) -> Option<(Vec<u8>, Vec<u32>)> {
    let mut offsets = Vec::with_capacity(reads.len() + 1);
    let mut end = 0usize;
    offsets.push(0u32);
    for r in reads {
        end += r.len();
        offsets.push(u32::try_from(end).ok()?);
    }
    let mut packed = vec![0u8; end];
    let mut pieces: Vec<(&mut [u8], &[&[u8]])> = Vec::new();
    let mut rest = packed.as_mut_slice();
    for (group, first) in reads.chunks(PACK_READS).zip((0..).step_by(PACK_READS)) {
        let len = (offsets[first + group.len()] - offsets[first]) as usize;
        let (piece, tail) = std::mem::take(&mut rest).split_at_mut(len);
        pieces.push((piece, group));
        rest = tail;
    }
    for_each_chunk_mut(&mut pieces, 1, |_, pieces| {
        for (out, group) in pieces.iter_mut() {
            let mut at = 0;
            for r in group.iter() {
                let to = &mut out[at..at + r.len()];
                to.copy_from_slice(r);
                if upper {
                    to.make_ascii_uppercase();
                }
                at += r.len();
            }
        }
    });
    Some((packed, offsets))
}

/// The windows of `k` bases in `reads` (what sizes a count's table) and
/// their bytes.
fn windows_and_bytes(reads: &[&[u8]], k: usize) -> (u64, usize) {
    reads.iter().fold((0, 0), |(windows, bytes), r| {
        (
            windows + (r.len() + 1).saturating_sub(k) as u64,
            bytes + r.len(),
        )
    })
}

impl Job for CountJob {
    /// The solid canonical codes, or `None` where a GPU could not hold
    /// them (never from the CPU).
    type Output = Option<Vec<u64>>;

    fn run_cpu(&self) -> Option<Vec<u64>> {
        let reads: Vec<&[u8]> = self
            .offsets
            .windows(2)
            .map(|w| &self.reads[w[0] as usize..w[1] as usize])
            .collect();
        let mut counter = KmerCounter::new(self.k);
        counter.add(&reads);
        Some(counter.into_solid(self.min_mult).codes().collect())
    }

    /// Read bytes.
    fn cost(&self) -> u64 {
        self.reads.len() as u64
    }
}

/// Default mode's k-mer counting as a family of the engine.
pub struct EcCount;

impl Family for EcCount {
    const NAME: &'static str = "EC counting";
    const KERNEL: &'static str = "ec";
    type Job = CountJob;

    fn runners(gpu: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<CountJob>>>, DeviceError> {
        Ok(vec![Box::new(CountRunner::new(gpu.clone())?)])
    }
}

/// Starts the default-mode families' devices in the background (once) for
/// a run about to read a file of about `reads_hint` reads, when that is a
/// bulk call: they come up while the file is read, so counting and
/// correction find them ready.
pub(crate) fn prepare_devices(reads_hint: usize) {
    let strict = crate::engine::config::get().strict;
    if family::devices_possible() && (reads_hint >= BULK_MIN_READS || strict) {
        let _ = family::bulk::<EcCount>(0);
        let _ = family::bulk::<EcDefault>(0);
    }
}

/// Default mode's spectrum counted on a GPU, for a bulk call whose devices
/// are up; `None` means count on the CPU (no GPU up, a small call, or a
/// spectrum the GPU cannot hold). The set is the CPU's.
pub(crate) fn count_solid_on_gpu(reads: &[&[u8]], params: &Params) -> Option<SolidKmers> {
    let strict = crate::engine::config::get().strict;
    if !family::devices_possible() || (reads.len() < BULK_MIN_READS && !strict) {
        return None;
    }
    let (windows, bytes) = windows_and_bytes(reads, params.k);
    // Counts are 32-bit on the device and must not wrap; offsets too.
    if windows >= u64::from(u32::MAX) || bytes >= u32::MAX as usize {
        return None;
    }
    let Bulk::Devices(scheduler) = family::bulk::<EcCount>(bytes as u64) else {
        return None;
    };
    let started = std::time::Instant::now();
    let job = CountJob::new(reads, params.k, params.min_mult).ok()?;
    crate::log_debug!("EC counting: job packed in {:?}", started.elapsed());
    let Some(Ok(handed)) = scheduler.queue_many(vec![job]).pop() else {
        return None;
    };
    let codes = match handed.wait() {
        Ok(Some(codes)) => codes,
        // The runner logged why (a table too small for this spectrum).
        Ok(None) => return None,
        Err(e) => {
            crate::log_warn!("EC counting on the GPU failed ({e}); counting on the CPU");
            return None;
        }
    };
    // (A launch that failed was rerun on the CPU pool: the scheduler's
    // report line counts it as rescued.)
    crate::log_info!(
        "EC counting: {} reads counted on the device path, {} solid k-mers",
        reads.len(),
        codes.len()
    );
    Some(SolidKmers::from_codes(codes))
}

/// Works through `0..reads` in chunks: on the CPU pool (`run_here`) while
/// the family's devices are not up, then on the devices (`make_job`, and
/// `take` for each output, in order). A chunk the devices give back or
/// fail runs on the CPU pool. Calls below [`BULK_MIN_READS`] (any size in
/// strict mode) never wait for or start a device.
fn run_chunks<F: Family>(
    reads: usize,
    cost: u64,
    mut run_here: impl FnMut(Range<usize>),
    mut make_job: impl FnMut(Range<usize>) -> F::Job,
    mut take: impl FnMut(Range<usize>, <F::Job as Job>::Output),
) {
    let mut run_here = |range: Range<usize>| {
        READS_ON_CPU.fetch_add(range.len() as u64, Ordering::Relaxed);
        run_here(range)
    };
    let strict = crate::engine::config::get().strict;
    if reads == 0 || (reads < BULK_MIN_READS && !strict) {
        run_here(0..reads);
        return;
    }
    // While the devices start, the CPU pool takes chunks that double in
    // size (few pauses of the pool between them, and few chunks even if
    // the devices never come).
    let mut next = 0;
    let mut cpu_chunk = CPU_CHUNK_READS;
    let scheduler = loop {
        match family::bulk::<F>(cost) {
            Bulk::Devices(scheduler) => break scheduler,
            Bulk::Starting if next < reads => {
                let end = (next + cpu_chunk).min(reads);
                run_here(next..end);
                next = end;
                cpu_chunk *= 2;
            }
            _ => {
                run_here(next..reads);
                return;
            }
        }
    };
    let mut pending = (next..reads)
        .step_by(GPU_CHUNK_READS)
        .map(|s| s..(s + GPU_CHUNK_READS).min(reads));
    crate::log_info!(
        "{}: {} reads in {} chunks to {} device(s)",
        F::NAME,
        reads - next,
        pending.len(),
        scheduler.devices().len()
    );
    let mut queued: VecDeque<(Range<usize>, Handed<F::Job>)> = VecDeque::new();
    loop {
        while queued.len() < IN_FLIGHT {
            let Some(range) = pending.next() else { break };
            match scheduler.queue_many(vec![make_job(range.clone())]).pop() {
                Some(handed) => queued.push_back((range, handed)),
                None => run_here(range),
            }
        }
        let Some((range, handed)) = queued.pop_front() else {
            return;
        };
        match handed.map_err(drop).and_then(|q| q.wait().map_err(drop)) {
            Ok(out) => {
                READS_ON_GPU.fetch_add(range.len() as u64, Ordering::Relaxed);
                take(range, out)
            }
            Err(()) => run_here(range),
        }
    }
}

/// exact-v1: the grid's first round over every record (`pair` selects
/// `fix_errors2`), on GPUs for a bulk call, else on the CPU pool. Adds each
/// record's trimmed start; returns the watchdog hits.
pub(crate) fn process_records(
    records: &mut [u8],
    pair: bool,
    cfg: &KernelConfig,
    bloom: &BloomTableV1,
    trim_start: &mut [u32],
) -> u64 {
    let stride = cfg.read_len + 2;
    let n = records.len() / stride;
    if cfg.read_len > GPU_MAX_LEN || !family::devices_possible() {
        return kernel_v1::process_records_cpu(records, pair, cfg, bloom, trim_start);
    }
    let mut shared: Option<Arc<BloomTableV1>> = None;
    let watchdog = std::cell::Cell::new(0u64);
    let records_cell = std::cell::RefCell::new((records, trim_start));
    run_chunks::<EcV1>(
        n,
        (n * stride) as u64,
        |range| {
            let (records, trim) = &mut *records_cell.borrow_mut();
            watchdog.set(
                watchdog.get()
                    + kernel_v1::process_records_cpu(
                        &mut records[range.start * stride..range.end * stride],
                        pair,
                        cfg,
                        bloom,
                        &mut trim[range],
                    ),
            );
        },
        |range| V1Chunk {
            records: records_cell.borrow().0[range.start * stride..range.end * stride].to_vec(),
            pair,
            cfg: *cfg,
            // One copy of the table per call, shared by its chunks.
            bloom: shared
                .get_or_insert_with(|| Arc::new(bloom.clone()))
                .clone(),
        },
        |range, out| {
            let (records, trim) = &mut *records_cell.borrow_mut();
            records[range.start * stride..range.end * stride].copy_from_slice(&out.records);
            for (t, o) in trim[range].iter_mut().zip(&out.trim_start) {
                *t += o;
            }
            watchdog.set(watchdog.get() + out.watchdog);
        },
    );
    watchdog.get()
}

/// Default mode: corrects independent reads, the bulk of them on GPUs when
/// the call is large enough, the rest (and all of a small call) on the CPU
/// pool. Any split gives the same bytes.
pub(crate) fn correct_reads(
    reads: &mut [ReadView<'_>],
    solid: &SolidKmers,
    params: &Params,
) -> Vec<ReadOutcome> {
    let cpu =
        |reads: &mut [ReadView<'_>]| super::default_mode::correct_reads_cpu(reads, solid, params);
    if !family::devices_possible() {
        return cpu(reads);
    }
    // Reads the kernel takes, in order; the others are finished here.
    let mut outcomes: Vec<Option<ReadOutcome>> = vec![None; reads.len()];
    {
        let reads = &*reads;
        for_each_chunk_mut(&mut outcomes, HOST_CHUNK_READS, |c, chunk| {
            for (o, (seq, _)) in chunk.iter_mut().zip(&reads[c * HOST_CHUNK_READS..]) {
                *o = correct_default::outcome_without_voting(seq, params.k);
            }
        });
    }
    let kernel_reads: Vec<usize> = (0..reads.len())
        .filter(|&i| outcomes[i].is_none() && reads[i].0.len() <= GPU_MAX_LEN)
        .collect();
    let cost: u64 = kernel_reads.iter().map(|&i| reads[i].0.len() as u64).sum();
    let mut table: Option<Arc<ProbeTable>> = None;
    let cells = std::cell::RefCell::new((&mut *reads, &mut outcomes));
    run_chunks::<EcDefault>(
        kernel_reads.len(),
        cost,
        |range| {
            let (reads, outcomes) = &mut *cells.borrow_mut();
            let picked = &kernel_reads[range];
            for (&i, o) in picked.iter().zip(cpu(&mut pick(reads, picked))) {
                outcomes[i] = Some(o);
            }
        },
        |range| {
            let (reads, _) = &*cells.borrow();
            let picked: Vec<&[u8]> = kernel_reads[range]
                .iter()
                .map(|&i| reads[i].0.as_slice())
                .collect();
            // A chunk is GPU_CHUNK_READS reads of at most GPU_MAX_LEN bases.
            let (packed, offsets) = pack_reads(&picked, true).expect("a chunk is under 4 GiB");
            DefaultChunk {
                reads: packed,
                offsets,
                params: params.clone(),
                table: table.get_or_insert_with(|| solid.probe_table()).clone(),
            }
        },
        |range, out| {
            let (reads, outcomes) = &mut *cells.borrow_mut();
            let picked = &kernel_reads[range];
            // Each read's judged bytes follow the previous read's in `work`.
            let mut at = 0;
            let mut items: Vec<_> = pick(reads, picked)
                .into_iter()
                .zip(&out.verdicts)
                .map(|(read, verdict)| {
                    let start = at;
                    at += read.0.len();
                    (read, start, verdict, None)
                })
                .collect();
            for_each_chunk_mut(&mut items, HOST_CHUNK_READS, |_, chunk| {
                for ((seq, qual), at, verdict, outcome) in chunk.iter_mut() {
                    let work = &out.work[*at..*at + seq.len()];
                    *outcome = Some(correct_default::finish(
                        seq,
                        qual.as_deref_mut(),
                        work,
                        verdict,
                        params,
                    ));
                }
            });
            for (&i, (_, _, _, outcome)) in picked.iter().zip(items) {
                outcomes[i] = outcome;
            }
        },
    );
    // Reads longer than the kernel takes.
    let long: Vec<usize> = (0..reads.len())
        .filter(|&i| outcomes[i].is_none())
        .collect();
    if !long.is_empty() {
        for (&i, o) in long.iter().zip(cpu(&mut pick(reads, &long))) {
            outcomes[i] = Some(o);
        }
    }
    outcomes
        .into_iter()
        .map(|o| o.expect("every read has an outcome"))
        .collect()
}

/// The reads at `indices` (ascending), borrowed from `reads`.
fn pick<'a>(reads: &'a mut [ReadView<'_>], indices: &[usize]) -> Vec<ReadView<'a>> {
    let (Some(&first), Some(&last)) = (indices.first(), indices.last()) else {
        return Vec::new();
    };
    let mut wanted = indices.iter().peekable();
    reads[first..=last]
        .iter_mut()
        .enumerate()
        .filter_map(|(at, (seq, qual))| {
            (wanted.peek() == Some(&&(first + at))).then(|| {
                wanted.next();
                (&mut **seq, qual.as_deref_mut())
            })
        })
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn packed_reads_are_the_reads_end_to_end() {
        // Enough reads for several pieces, of lengths 0 to 299.
        let reads: Vec<Vec<u8>> = (0..3 * PACK_READS + 17)
            .map(|i| {
                (0..i % 300)
                    .map(|j| b"acgtNACGT"[(i * 7 + j) % 9])
                    .collect()
            })
            .collect();
        let views: Vec<&[u8]> = reads.iter().map(Vec::as_slice).collect();
        for upper in [false, true] {
            let (packed, offsets) = pack_reads(&views, upper).expect("under 4 GiB");
            let mut expected = reads.concat();
            if upper {
                expected.make_ascii_uppercase();
            }
            assert_eq!(packed, expected);
            assert_eq!(offsets.len(), reads.len() + 1);
            for (i, r) in reads.iter().enumerate() {
                assert_eq!(offsets[i + 1] - offsets[i], r.len() as u32);
            }
        }
        assert_eq!(pack_reads(&[], false), Some((Vec::new(), vec![0])));
    }
}
