//! exact-v1 host program (`main.cpp`, spec §4): read, count, build the Bloom
//! table, pack records, run the kernels, write the two FASTA files.

use std::path::Path;

use super::bloom_v1::{BloomTableV1, CountingFilterV1, strncpy_into};
use super::error::EcError;
use super::fasta_v1::{V1Read, read_v1_fasta, write_v1_record};
use super::kernel_v1::{FLAG_DISCARD, KernelConfig, RunReport};
use super::output::{read_input, write_all_atomically};
use super::params::Params;
use super::{ReadStatus, Stats};

pub(crate) fn kernel_config(params: &Params) -> KernelConfig {
    KernelConfig {
        read_len: params.read_len,
        k: params.k,
        min_votes: params.min_votes,
        max_trim: params.max_trim as i16,
        do_trim: params.do_trim,
        max_mods: params.max_mods,
        num_search: i16::from(params.num_search),
        round_limit: params.round_limit(params.read_len),
    }
}

/// Builds v1's record array: `strncpy(rec, seq, L+1)`, flag `'D'`, `(char)len`.
pub(crate) fn pack_records<'a>(
    reads: impl ExactSizeIterator<Item = &'a [u8]>,
    read_len: usize,
) -> Vec<u8> {
    let stride = read_len + 2;
    let mut records = vec![0u8; reads.len() * stride];
    for (rec, seq) in records.chunks_mut(stride).zip(reads) {
        strncpy_into(&mut rec[..read_len + 1], seq);
        rec[read_len] = FLAG_DISCARD;
        rec[read_len + 1] = seq.len() as u8;
    }
    records
}

/// Runs the kernels, rejecting inputs outside the exact-v1 domain (§5.7).
pub(crate) fn run_kernels(
    records: &mut [u8],
    cfg: &KernelConfig,
    bloom: &BloomTableV1,
) -> Result<RunReport, EcError> {
    let stride = cfg.read_len + 2;
    if records.len() % stride != 0 {
        return Err(EcError::InvalidParam(format!(
            "record array of {} bytes is not a multiple of the stride {stride}",
            records.len()
        )));
    }
    if records.is_empty() {
        return Ok(RunReport::default());
    }
    if bloom.num_tuples() < 1 || bloom.modulus() == 0 {
        return Err(EcError::Domain(format!(
            "numTuples = {} (v1's Bloom modulus numTuples*64 mod 2^32 would be 0)",
            bloom.num_tuples()
        )));
    }
    if let Some(i) = records
        .chunks(stride)
        .position(|r| i32::from(r[cfg.read_len + 1] as i8) > cfg.read_len as i32)
    {
        return Err(EcError::Domain(format!(
            "record {i}: length byte exceeds read_len"
        )));
    }
    Ok(super::kernel_v1::run(records, cfg, bloom))
}

/// Classifies a record after the kernels against its packed input (README).
pub(crate) fn classify(before: &[u8], after: &[u8], read_len: usize) -> ReadStatus {
    if after[read_len] == FLAG_DISCARD {
        ReadStatus::Discarded
    } else if (after[read_len + 1] as i8) < (before[read_len + 1] as i8) {
        ReadStatus::Trimmed
    } else if after[..read_len] == before[..read_len] {
        ReadStatus::Unchanged
    } else {
        ReadStatus::Fixed
    }
}

/// Everything the exact-v1 file driver produces, before it is written.
pub struct V1FileResult {
    pub fixed: Vec<u8>,
    pub discard: Vec<u8>,
    pub stats: Stats,
    pub solid_list: Vec<Vec<u8>>,
    pub bloom: BloomTableV1,
    pub records_in: Vec<u8>,
    pub records_out: Vec<u8>,
    /// Records handed to `fix_errors2` (0 unless `num_search == 2`).
    pub kernel2_reads: u64,
}

/// The whole v1 host program on an in-memory file.
pub fn process_v1_file(path: &Path, data: &[u8], params: &Params) -> Result<V1FileResult, EcError> {
    process_v1_file_progress(path, data, params, &mut |_| {})
}

/// [`process_v1_file`], reporting the end of each phase to `progress`.
pub(crate) fn process_v1_file_progress(
    path: &Path,
    data: &[u8],
    params: &Params,
    progress: &mut dyn FnMut(&str),
) -> Result<V1FileResult, EcError> {
    let read_len = params.read_len;
    let reads: Vec<V1Read> = read_v1_fasta(path, data, read_len)?;
    progress(&format!("read {} reads", reads.len()));
    let mut filter =
        CountingFilterV1::new(read_len, params.k, params.min_mult, reads.len() as u64)?;
    let seqs: Vec<&[u8]> = reads.iter().map(|r| r.seq.as_slice()).collect();
    filter.add(&seqs)?;
    let bloom = filter.build_bloom()?;
    progress(&format!(
        "counted the spectrum: {} solid strings, Bloom table of {} bytes",
        filter.num_solid(),
        bloom.bytes().len()
    ));
    let records_in = pack_records(seqs.iter().copied(), read_len);
    let mut records = records_in.clone();
    let cfg = kernel_config(params);
    let report = run_kernels(&mut records, &cfg, &bloom)?;
    progress(&format!(
        "corrected {} reads ({} into the second kernel)",
        reads.len(),
        report.kernel2_reads
    ));

    let stride = read_len + 2;
    let mut stats = Stats {
        reads: reads.len() as u64,
        solid_kmers: filter.num_solid() as u64,
        watchdog_hits: report.watchdog_hits,
        ..Stats::default()
    };
    let (mut fixed, mut discard) = (Vec::new(), Vec::new());
    for ((read, rec), rec_in) in reads
        .iter()
        .zip(records.chunks(stride))
        .zip(records_in.chunks(stride))
    {
        let status = classify(rec_in, rec, read_len);
        stats.count(status);
        let len = (rec[read_len + 1] as i8).max(0) as usize;
        let out = if rec[read_len] == FLAG_DISCARD {
            &mut discard
        } else {
            &mut fixed
        };
        write_v1_record(out, &read.name, &rec[..len]);
    }
    Ok(V1FileResult {
        fixed,
        discard,
        stats,
        solid_list: filter.entries().map(|e| e.to_vec()).collect(),
        bloom,
        records_in,
        records_out: records,
        kernel2_reads: report.kernel2_reads,
    })
}

/// `correct_file` for exact-v1: byte-identical outputs to v1's `main`.
pub fn correct_file_v1(
    in_path: &Path,
    fixed_path: &Path,
    discard_path: &Path,
    params: &Params,
    progress: &mut dyn FnMut(&str),
) -> Result<Stats, EcError> {
    let data = read_input(in_path)?;
    let result = process_v1_file_progress(in_path, &data, params, progress)?;
    write_all_atomically(&[(fixed_path, &result.fixed), (discard_path, &result.discard)])?;
    progress("wrote the fixed and discard files");
    Ok(result.stats)
}
