//! Default-mode file driver and batch correction (spec §9.2, §9.3).

use std::path::Path;

use super::correct_default::{ReadOutcome, correct_read};
use super::error::EcError;
use super::kmer_counts::{KmerCounter, SolidKmers};
use super::output::{read_input, write_all_atomically};
use super::parallel::for_each_chunk_mut;
use super::params::Params;
use super::seqio::{self, SeqRecord};
use super::{ReadStatus, Stats};

/// Reads per parallel work item during correction.
const READS_PER_CHUNK: usize = 512;
/// Reads per progress line while correcting a long file.
const PROGRESS_BLOCK: usize = 1 << 19;

/// A read's sequence and, for FASTQ, its qualities, both edited in place.
pub type ReadView<'a> = (&'a mut Vec<u8>, Option<&'a mut Vec<u8>>);

/// Corrects independent reads, on GPUs for a large call (see
/// `family::correct_reads`); any batching gives the same bytes.
pub fn correct_reads(
    reads: &mut [ReadView<'_>],
    solid: &SolidKmers,
    params: &Params,
) -> Vec<ReadOutcome> {
    super::family::correct_reads(reads, solid, params)
}

/// Corrects independent reads in parallel on the CPU pool.
pub(crate) fn correct_reads_cpu(
    reads: &mut [ReadView<'_>],
    solid: &SolidKmers,
    params: &Params,
) -> Vec<ReadOutcome> {
    let blank = ReadOutcome {
        status: ReadStatus::Unchanged,
        trim_start: 0,
        capped: false,
    };
    let mut slots: Vec<(&mut ReadView<'_>, ReadOutcome)> =
        reads.iter_mut().map(|r| (r, blank)).collect();
    for_each_chunk_mut(&mut slots, READS_PER_CHUNK, |_, chunk| {
        for (read, outcome) in chunk.iter_mut() {
            let (seq, qual) = &mut **read;
            *outcome = correct_read(seq, qual.as_deref_mut(), solid, params);
        }
    });
    slots.into_iter().map(|(_, o)| o).collect()
}

/// Builds the solid set from all reads of a file or batch: on a GPU for a
/// large call once one is up, else on the CPU pool (the same set).
pub fn count_solid(reads: &[&[u8]], params: &Params) -> SolidKmers {
    if let Some(solid) = super::family::count_solid_on_gpu(reads, params) {
        return solid;
    }
    let mut counter = KmerCounter::new(params.k);
    counter.add(reads);
    counter.into_solid(params.min_mult)
}

/// `correct_file` in default mode: FASTA or FASTQ in, same format out.
pub fn correct_file_default(
    in_path: &Path,
    fixed_path: &Path,
    discard_path: Option<&Path>,
    params: &Params,
    progress: &mut dyn FnMut(&str),
) -> Result<Stats, EcError> {
    // A file of a few megabytes or more: start the GPUs while it is read.
    let size = std::fs::metadata(in_path).map_or(0, |m| m.len() as usize);
    super::family::prepare_devices(size / 64);
    let data = read_input(in_path)?;
    let (format, mut records) = seqio::parse(in_path, &data)?;
    drop(data);
    progress(&format!("read {} reads", records.len()));
    let solid = {
        let seqs: Vec<&[u8]> = records.iter().map(|r| r.seq.as_slice()).collect();
        count_solid(&seqs, params)
    };
    progress(&format!(
        "counted the spectrum: {} solid k-mers",
        solid.len()
    ));
    let outcomes = {
        let total = records.len();
        let mut views: Vec<ReadView<'_>> = records
            .iter_mut()
            .map(|r: &mut SeqRecord| (&mut r.seq, r.qual.as_mut()))
            .collect();
        // Reads are independent, so blocks give the same bytes as one call;
        // long files get a progress line per block.
        let mut outcomes = Vec::with_capacity(total);
        for block in views.chunks_mut(PROGRESS_BLOCK) {
            outcomes.extend(correct_reads(block, &solid, params));
            if total > PROGRESS_BLOCK && outcomes.len() < total {
                progress(&format!(
                    "corrected {} of {} reads ({:.0} %)",
                    outcomes.len(),
                    total,
                    100.0 * outcomes.len() as f64 / total as f64
                ));
            }
        }
        outcomes
    };
    progress(&format!("corrected {} reads", records.len()));
    let mut stats = Stats {
        reads: records.len() as u64,
        solid_kmers: solid.len() as u64,
        ..Stats::default()
    };
    let (mut fixed, mut discard) = (Vec::new(), Vec::new());
    for (rec, outcome) in records.iter().zip(&outcomes) {
        stats.count(outcome.status);
        stats.watchdog_hits += u64::from(outcome.capped);
        if outcome.status == ReadStatus::Discarded {
            // correct_read never edits a discarded read: it goes out as read (Q13).
            seqio::write_record(&mut discard, format, rec);
        } else {
            seqio::write_record(&mut fixed, format, rec);
        }
    }
    match discard_path {
        Some(d) => write_all_atomically(&[(fixed_path, &fixed), (d, &discard)])?,
        None => write_all_atomically(&[(fixed_path, &fixed)])?,
    }
    progress("wrote the output files");
    Ok(stats)
}
