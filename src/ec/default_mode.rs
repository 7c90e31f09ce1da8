//! Default-mode file driver and batch correction (spec §9.2, §9.3).

use std::path::Path;
use std::sync::mpsc;

use super::correct_default::{ReadOutcome, correct_read};
use super::error::EcError;
use super::kmer_counts::{KmerCounter, SolidKmers};
use super::output::{AtomicOutputs, read_input};
use super::parallel::for_each_chunk_mut;
use super::params::Params;
use super::seqio::{self, SeqFormat, SeqRecord};
use super::stream::RecordBlocks;
use super::{ReadStatus, Stats};

/// Reads per parallel work item during correction.
const READS_PER_CHUNK: usize = 512;

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

/// Records per block of a file: one correction call each (a GPU batch or
/// the CPU pool), and a progress line after it on long files.
const BLOCK_RECORDS: usize = 1 << 19;
/// Input text per block, so that long reads make blocks of fewer records.
const BLOCK_BYTES: usize = 256 << 20;

/// A file's records, block after block: read from the file (twice, once
/// for the spectrum and once for correction, so that neither pass holds
/// the file) or, for an input that cannot be read twice (a pipe), from
/// memory.
enum Source<'a> {
    File(&'a Path),
    Memory(Vec<SeqRecord>),
}

type Blocks<'a> = Box<dyn Iterator<Item = Result<Vec<SeqRecord>, EcError>> + Send + 'a>;

impl Source<'_> {
    fn blocks(&mut self) -> Result<Blocks<'_>, EcError> {
        Ok(match self {
            Source::File(path) => {
                let mut file = RecordBlocks::open(path)?;
                Box::new(std::iter::from_fn(move || {
                    file.next_block(BLOCK_RECORDS, BLOCK_BYTES).transpose()
                }))
            }
            Source::Memory(records) => {
                let mut records = std::mem::take(records).into_iter();
                Box::new(std::iter::from_fn(move || {
                    let block: Vec<SeqRecord> = records.by_ref().take(BLOCK_RECORDS).collect();
                    (!block.is_empty()).then_some(Ok(block))
                }))
            }
        })
    }
}

/// `correct_file` in default mode: FASTA or FASTQ in, same format out.
/// The file is read twice, in blocks: the spectrum is counted from its
/// sequences, then each block is corrected while the next is read and the
/// last is written, so memory holds the sequences and a few blocks, never
/// the whole file.
pub fn correct_file_default(
    in_path: &Path,
    fixed_path: &Path,
    discard_path: Option<&Path>,
    params: &Params,
    progress: &mut dyn FnMut(&str),
) -> Result<Stats, EcError> {
    // A file of a few megabytes or more: start the GPUs while it is read.
    let metadata = std::fs::metadata(in_path).map_err(|e| EcError::io(in_path, e))?;
    super::family::prepare_devices(metadata.len() as usize / 64);
    let (format, mut source) = if metadata.is_file() {
        (RecordBlocks::open(in_path)?.format(), Source::File(in_path))
    } else {
        let (format, records) = seqio::parse(in_path, &read_input(in_path)?)?;
        (format, Source::Memory(records))
    };
    let solid = {
        let (mut bases, mut ends) = (Vec::new(), Vec::new());
        // A pipe's records stay in memory for the second pass.
        let mut kept = Vec::new();
        let in_memory = matches!(source, Source::Memory(_));
        for block in source.blocks()? {
            for rec in block? {
                bases.extend_from_slice(&rec.seq);
                ends.push(bases.len());
                if in_memory {
                    kept.push(rec);
                }
            }
        }
        if let Source::Memory(records) = &mut source {
            *records = kept;
        }
        progress(&format!("read {} reads", ends.len()));
        let starts = std::iter::once(0).chain(ends.iter().copied());
        let seqs: Vec<&[u8]> = starts.zip(&ends).map(|(s, &e)| &bases[s..e]).collect();
        (count_solid(&seqs, params), seqs.len())
    };
    let (solid, total) = solid;
    progress(&format!(
        "counted the spectrum: {} solid k-mers",
        solid.len()
    ));
    let mut paths = vec![fixed_path];
    paths.extend(discard_path);
    let outputs = AtomicOutputs::create(&paths)?;
    let mut stats = Stats {
        reads: total as u64,
        solid_kmers: solid.len() as u64,
        ..Stats::default()
    };
    let (outputs, corrected) = correct_blocks(
        source.blocks()?,
        outputs,
        format,
        &mut stats,
        total,
        |records| {
            let mut views: Vec<ReadView<'_>> = records
                .iter_mut()
                .map(|r: &mut SeqRecord| (&mut r.seq, r.qual.as_mut()))
                .collect();
            correct_reads(&mut views, &solid, params)
        },
        progress,
    )?;
    if corrected != total {
        return Err(EcError::io(
            in_path,
            std::io::Error::other(format!(
                "the file changed while it was corrected ({total} reads, then {corrected})"
            )),
        ));
    }
    progress(&format!("corrected {total} reads"));
    outputs.commit()?;
    progress("wrote the output files");
    Ok(stats)
}

/// Corrects `blocks` in order and writes each to `outputs` (fixed first,
/// then discarded reads if a second output is open): one thread reads the
/// next block and one writes the last while this one corrects. Returns the
/// outputs, still uncommitted, and the number of reads.
fn correct_blocks(
    blocks: Blocks<'_>,
    mut outputs: AtomicOutputs,
    format: SeqFormat,
    stats: &mut Stats,
    total: usize,
    correct: impl Fn(&mut [SeqRecord]) -> Vec<ReadOutcome>,
    progress: &mut dyn FnMut(&str),
) -> Result<(AtomicOutputs, usize), EcError> {
    let spawn_error = |e| EcError::io(Path::new("seqshim-ec"), e);
    std::thread::scope(|scope| {
        let (block_tx, block_rx) = mpsc::sync_channel(1);
        let (done_tx, done_rx) = mpsc::sync_channel::<(Vec<SeqRecord>, Vec<ReadOutcome>)>(1);
        std::thread::Builder::new()
            .name("seqshim-ec-read".into())
            .spawn_scoped(scope, move || {
                for block in blocks {
                    let failed = block.is_err();
                    if block_tx.send(block).is_err() || failed {
                        break;
                    }
                }
            })
            .map_err(spawn_error)?;
        let writer = std::thread::Builder::new()
            .name("seqshim-ec-write".into())
            .spawn_scoped(scope, move || -> Result<(AtomicOutputs, Stats), EcError> {
                let mut counts = Stats::default();
                let (mut fixed, mut discard) = (Vec::new(), Vec::new());
                for (records, outcomes) in done_rx {
                    fixed.clear();
                    discard.clear();
                    for (rec, outcome) in records.iter().zip(&outcomes) {
                        counts.count(outcome.status);
                        counts.watchdog_hits += u64::from(outcome.capped);
                        // correct_read never edits a discarded read: it goes out as read (Q13).
                        let out = if outcome.status == ReadStatus::Discarded {
                            &mut discard
                        } else {
                            &mut fixed
                        };
                        seqio::write_record(out, format, rec);
                    }
                    outputs.write(0, &fixed)?;
                    if outputs.files() > 1 {
                        outputs.write(1, &discard)?;
                    }
                }
                Ok((outputs, counts))
            })
            .map_err(spawn_error)?;
        let mut corrected = 0;
        let mut failed = None;
        for block in block_rx {
            let mut records = match block {
                Ok(records) => records,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            };
            let outcomes = correct(&mut records);
            corrected += records.len();
            if total > BLOCK_RECORDS && corrected < total {
                progress(&format!(
                    "corrected {corrected} of {total} reads ({:.0} %)",
                    100.0 * corrected as f64 / total as f64
                ));
            }
            if done_tx.send((records, outcomes)).is_err() {
                break; // the writer failed: its error is returned below
            }
        }
        drop(done_tx);
        let written = writer
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        if let Some(e) = failed {
            return Err(e);
        }
        let (outputs, counts) = written?;
        stats.add_counts(&counts);
        Ok((outputs, corrected))
    })
}
