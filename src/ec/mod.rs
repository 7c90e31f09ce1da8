//! CUDA-EC v1.0.x spectral-alignment error correction (spec `cudaec.md`),
//! CPU implementation.
//!
//! Two modes ([`Mode`]): *exact-v1* reproduces v1's bytes, quirks included;
//! *default* uses exact canonical counting and the fixes of spec §9.3.
//!
//! Entry points:
//! - [`correct_file`]: the whole program (count, correct, write) for a file;
//! - [`Spectrum`] + [`correct_batch`]: the same in steps, on in-memory reads;
//! - [`run_test`]: v1's `runTest` on a raw record array and Bloom table.

mod bloom_v1;
mod correct_default;
mod default_mode;
mod error;
mod family;
mod fasta_v1;
mod gpu;
mod hash;
mod kernel_v1;
mod kmer_counts;
mod output;
mod parallel;
mod params;
mod seqio;
mod spectrum;
mod stream;
mod v1;
mod votes;

use std::path::Path;

pub use bloom_v1::BloomTableV1;
pub use error::EcError;
pub use family::{
    BULK_MIN_READS, CountJob, DefaultChunk, DefaultChunkOut, EcCount, EcDefault, EcV1, V1Chunk,
    V1ChunkOut, routing,
};
pub use fasta_v1::V1Read;
pub use gpu::{CountRunner, DefaultRunner, EcRunner, GPU_MAX_LEN, V1Runner};
pub use params::{DEFAULT_MAX_K, Mode, Params, V1_WATCHDOG_ROUNDS};
pub use spectrum::Spectrum;
pub use v1::V1FileResult;

/// Per-read result class (spec §9.2 `SEQSHIM_EC_*`).
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
#[repr(u8)]
pub enum ReadStatus {
    Unchanged = 0,
    Fixed = 1,
    Trimmed = 2,
    Discarded = 3,
}

/// Counters of a run (spec §9.2 `seqshim_ec_stats`).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Stats {
    pub reads: u64,
    pub unchanged: u64,
    pub fixed: u64,
    pub trimmed: u64,
    pub discarded: u64,
    pub solid_kmers: u64,
    /// exact-v1: reads stopped by the 65,536-round watchdog; default: reads
    /// whose correction hit the round cap.
    pub watchdog_hits: u64,
}

impl Stats {
    fn count(&mut self, status: ReadStatus) {
        match status {
            ReadStatus::Unchanged => self.unchanged += 1,
            ReadStatus::Fixed => self.fixed += 1,
            ReadStatus::Trimmed => self.trimmed += 1,
            ReadStatus::Discarded => self.discarded += 1,
        }
    }

    /// Adds the per-status counts and watchdog hits of `other`.
    fn add_counts(&mut self, other: &Stats) {
        self.unchanged += other.unchanged;
        self.fixed += other.fixed;
        self.trimmed += other.trimmed;
        self.discarded += other.discarded;
        self.watchdog_hits += other.watchdog_hits;
    }
}

/// Result of one read of [`correct_batch`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct ReadResult {
    pub status: ReadStatus,
    /// Bases trimmed from the start (the read now starts at offset 0).
    pub trim_start: u32,
}

/// Corrects a FASTA (exact-v1) or FASTA/FASTQ (default) file.
///
/// exact-v1 needs `discard_path` and writes v1's two files byte for byte.
/// Outputs appear only when complete (temporary file + rename).
pub fn correct_file(
    in_path: &Path,
    fixed_path: &Path,
    discard_path: Option<&Path>,
    params: &Params,
) -> Result<Stats, EcError> {
    correct_file_with_progress(in_path, fixed_path, discard_path, params, &mut |_| {})
}

/// [`correct_file`], calling `progress` with one line at the end of each
/// phase (read, count, correct, write) for command-line progress reports.
pub fn correct_file_with_progress(
    in_path: &Path,
    fixed_path: &Path,
    discard_path: Option<&Path>,
    params: &Params,
    progress: &mut dyn FnMut(&str),
) -> Result<Stats, EcError> {
    params.validate()?;
    match params.mode {
        Mode::ExactV1 => {
            let discard = discard_path.ok_or_else(|| {
                EcError::InvalidParam("exact-v1 needs a discard file (v1 always writes one)".into())
            })?;
            v1::correct_file_v1(in_path, fixed_path, discard, params, progress)
        }
        Mode::Default => {
            default_mode::correct_file_default(in_path, fixed_path, discard_path, params, progress)
        }
    }
}

/// exact-v1 host program on an in-memory FASTA file, returning every
/// intermediate product (solid list, Bloom table, record arrays) as well as
/// the two output files' bytes. `path` only names the input in errors.
pub fn process_v1_file(path: &Path, data: &[u8], params: &Params) -> Result<V1FileResult, EcError> {
    params.validate()?;
    if params.mode != Mode::ExactV1 {
        return Err(EcError::InvalidParam(
            "process_v1_file needs Mode::ExactV1".into(),
        ));
    }
    v1::process_v1_file(path, data, params)
}

/// v1's FASTA reader (`GetSeq` + `NUM_READS--`, spec §4.2): the records and
/// bytes exactly as v1 sees them (reader map applied, names cut to 59 bytes).
/// Sequence lines longer than `read_len` are [`EcError::ReadTooLong`].
pub fn read_fasta_v1(path: &Path, data: &[u8], read_len: usize) -> Result<Vec<V1Read>, EcError> {
    fasta_v1::read_v1_fasta(path, data, read_len)
}

/// Corrects reads in place with a finalised spectrum.
///
/// exact-v1 treats the batch as one v1 launch (grid extra passes over read 0,
/// `-search 2` packing), so pass a whole file as one batch to match v1; each
/// read becomes the record's first `len` bytes (discarded reads keep v1's
/// edits). Default mode corrects reads independently; discarded reads are
/// left as they came in.
pub fn correct_batch(
    spectrum: &Spectrum,
    params: &Params,
    reads: &mut [Vec<u8>],
) -> Result<Vec<ReadResult>, EcError> {
    params.validate()?;
    let sp = spectrum.params();
    if (sp.mode, sp.k, sp.read_len) != (params.mode, params.k, params.read_len) {
        return Err(EcError::InvalidParam(
            "mode, k and read_len must match the spectrum's".into(),
        ));
    }
    match params.mode {
        Mode::ExactV1 => {
            let bloom = spectrum.export_v1()?;
            let read_len = params.read_len;
            if let Some((index, r)) = reads.iter().enumerate().find(|(_, r)| r.len() > read_len) {
                return Err(EcError::BatchReadTooLong {
                    index,
                    len: r.len(),
                    read_len,
                });
            }
            let records_in = v1::pack_records(reads.iter().map(|r| r.as_slice()), read_len);
            let mut records = records_in.clone();
            let report = v1::run_kernels(&mut records, &v1::kernel_config(params), bloom)?;
            let stride = read_len + 2;
            let results = reads
                .iter_mut()
                .zip(records.chunks(stride).zip(records_in.chunks(stride)))
                .zip(&report.trim_start)
                .map(|((read, (after, before)), &trim_start)| {
                    let len = (after[read_len + 1] as i8).max(0) as usize;
                    *read = after[..len].to_vec();
                    ReadResult {
                        status: v1::classify(before, after, read_len),
                        trim_start,
                    }
                })
                .collect();
            Ok(results)
        }
        Mode::Default => {
            let solid = spectrum.solid_kmers()?;
            let mut views: Vec<default_mode::ReadView<'_>> =
                reads.iter_mut().map(|r| (r, None)).collect();
            let outcomes = default_mode::correct_reads(&mut views, solid, params);
            Ok(outcomes
                .iter()
                .map(|o| ReadResult {
                    status: o.status,
                    trim_start: o.trim_start,
                })
                .collect())
        }
    }
}

/// v1's `Param` (28 bytes, little-endian, layout of spec §3).
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct V1Param {
    pub do_trim: i16,
    pub do_deletion: i16,
    pub do_insertion: i16,
    pub max_mods: i16,
    pub min_votes: i16,
    pub max_trim: i16,
    pub num_tuples: i32,
    pub num_search: i16,
    pub tuple_size: i16,
    pub num_of_reads: i32,
    pub read_len: i16,
}

impl V1Param {
    pub const SIZE: usize = 28;

    pub fn from_bytes(b: &[u8; Self::SIZE]) -> V1Param {
        let s = |o: usize| i16::from_le_bytes([b[o], b[o + 1]]);
        let i = |o: usize| i32::from_le_bytes([b[o], b[o + 1], b[o + 2], b[o + 3]]);
        V1Param {
            do_trim: s(0),
            do_deletion: s(2),
            do_insertion: s(4),
            max_mods: s(6),
            min_votes: s(8),
            max_trim: s(10),
            num_tuples: i(12),
            num_search: s(16),
            tuple_size: s(18),
            num_of_reads: i(20),
            read_len: s(24),
        }
    }

    pub fn to_bytes(&self) -> [u8; Self::SIZE] {
        let mut b = [0u8; Self::SIZE];
        for (o, v) in [
            (0, self.do_trim),
            (2, self.do_deletion),
            (4, self.do_insertion),
            (6, self.max_mods),
            (8, self.min_votes),
            (10, self.max_trim),
            (16, self.num_search),
            (18, self.tuple_size),
            (24, self.read_len),
        ] {
            b[o..o + 2].copy_from_slice(&v.to_le_bytes());
        }
        b[12..16].copy_from_slice(&self.num_tuples.to_le_bytes());
        b[20..24].copy_from_slice(&self.num_of_reads.to_le_bytes());
        b
    }
}

/// What [`run_test`] reports besides the edited records.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct RunTestReport {
    pub kernel2_reads: u64,
    pub watchdog_hits: u64,
}

/// v1's `runTest` (spec §2, §9.1): exact-v1 kernels on the first
/// `num_of_reads` records of `records`, in place. `hash_table` is the Bloom
/// table (bytes past its end read as 0); the modulus comes from `num_tuples`.
pub fn run_test(
    hash_table: &[u8],
    param: &V1Param,
    records: &mut [u8],
) -> Result<RunTestReport, EcError> {
    let read_len = usize::try_from(param.read_len)
        .ok()
        .filter(|&l| l > 0)
        .ok_or_else(|| EcError::Domain(format!("readLen = {}", param.read_len)))?;
    let k = usize::try_from(param.tuple_size).unwrap_or(0);
    if k == 0 || k > read_len {
        return Err(EcError::KOutOfRange {
            k,
            min: 1,
            max: read_len,
        });
    }
    let n = usize::try_from(param.num_of_reads)
        .map_err(|_| EcError::Domain(format!("NUM_OF_READS = {}", param.num_of_reads)))?;
    let needed = n * (read_len + 2);
    if records.len() < needed {
        return Err(EcError::InvalidParam(format!(
            "record array has {} bytes, {n} records need {needed}",
            records.len()
        )));
    }
    let cfg = kernel_v1::KernelConfig {
        read_len,
        k,
        min_votes: param.min_votes,
        max_trim: param.max_trim,
        do_trim: param.do_trim != 0,
        max_mods: param.max_mods,
        num_search: param.num_search,
        round_limit: V1_WATCHDOG_ROUNDS,
    };
    let bloom = BloomTableV1::from_bytes(hash_table.to_vec(), param.num_tuples, k);
    let report = v1::run_kernels(&mut records[..needed], &cfg, &bloom)?;
    Ok(RunTestReport {
        kernel2_reads: report.kernel2_reads,
        watchdog_hits: report.watchdog_hits,
    })
}
