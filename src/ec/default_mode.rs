//! Default-mode file driver and batch correction (spec §9.2, §9.3).

use std::path::Path;
use std::sync::mpsc;
use std::time::{Duration, Instant};

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
    let solid = solid.lookup();
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
const BLOCK_BYTES: usize = 64 << 20;
/// Most records per block when they are already in memory (kept by the
/// first pass): larger blocks cost no memory there, and keep the GPUs fed
/// for longer between a block's host steps (on 20 M reads of 100 bp, blocks
/// of 2^19 left an H200 idle about half the second pass). A set is still cut
/// into about 8 blocks (at least [`BLOCK_RECORDS`] each), so that writing
/// overlaps correcting.
const MEMORY_BLOCK_RECORDS: usize = 1 << 21;

/// Heap bytes a record holds beyond its text (three vectors and their
/// allocations), for the first pass's budget.
const RECORD_OVERHEAD: usize = 96;

fn record_bytes(rec: &SeqRecord) -> usize {
    rec.header.len() + rec.seq.len() + rec.qual.as_ref().map_or(0, Vec::len) + RECORD_OVERHEAD
}

/// How much of a file's records the first pass may keep for the second:
/// `SEQSHIM_EC_KEEP_MB` MiB, else a quarter of the memory the system has
/// available (2 GiB if unknown).
fn record_memory_budget() -> usize {
    if let Some(mib) = crate::engine::config::get().setting::<usize>("SEQSHIM_EC_KEEP_MB") {
        return mib.saturating_mul(1 << 20);
    }
    let available_kib = std::fs::read_to_string("/proc/meminfo")
        .ok()
        .and_then(|info| {
            let line = info.lines().find(|l| l.starts_with("MemAvailable:"))?;
            line.split_whitespace().nth(1)?.parse::<usize>().ok()
        });
    available_kib.map_or(2 << 30, |kib| kib.saturating_mul(1024) / 4)
}

/// A file's records, block after block: read from the file, or from
/// memory (those the first pass kept, in the pieces it parsed them in, and
/// a pipe's, which cannot be read twice).
enum Source<'a> {
    File(&'a Path),
    Memory(Vec<Vec<SeqRecord>>),
}

/// A block of records as the pieces it was parsed in (the first pass keeps
/// them as they are; the second joins them).
type Pieces = Vec<Vec<SeqRecord>>;

type Blocks<'a> = Box<dyn Iterator<Item = Result<Pieces, EcError>> + Send + 'a>;

impl Source<'_> {
    fn blocks(&mut self) -> Result<Blocks<'_>, EcError> {
        Ok(match self {
            Source::File(path) => {
                let mut file = RecordBlocks::open(path)?;
                Box::new(std::iter::from_fn(move || {
                    file.next_block(BLOCK_RECORDS, BLOCK_BYTES).transpose()
                }))
            }
            Source::Memory(blocks) => {
                let total: usize = blocks.iter().map(Vec::len).sum();
                let per_block = (total / 8).clamp(BLOCK_RECORDS, MEMORY_BLOCK_RECORDS);
                let mut records = std::mem::take(blocks).into_iter().flatten();
                Box::new(std::iter::from_fn(move || {
                    let block: Vec<SeqRecord> = records.by_ref().take(per_block).collect();
                    (!block.is_empty()).then_some(Ok(vec![block]))
                }))
            }
        })
    }
}

/// `correct_file` in default mode: FASTA or FASTQ in, same format out.
/// The file is read in blocks, and the spectrum counted from its sequences;
/// then each block is corrected while the next is read and the last is
/// written. A file whose records fit a quarter of the available memory is
/// read once (its records kept); a larger one is read again for the second
/// pass, so memory holds its sequences and a few blocks, never the file.
pub fn correct_file_default(
    in_path: &Path,
    fixed_path: &Path,
    discard_path: Option<&Path>,
    params: &Params,
    progress: &mut dyn FnMut(&str),
) -> Result<Stats, EcError> {
    let budget = record_memory_budget();
    correct_file_within(in_path, fixed_path, discard_path, params, budget, progress)
}

/// [`correct_file_default`] keeping at most `budget` bytes of records from
/// the first pass.
fn correct_file_within(
    in_path: &Path,
    fixed_path: &Path,
    discard_path: Option<&Path>,
    params: &Params,
    budget: usize,
    progress: &mut dyn FnMut(&str),
) -> Result<Stats, EcError> {
    // A file of a few megabytes or more: start the GPUs while it is read.
    let metadata = std::fs::metadata(in_path).map_err(|e| EcError::io(in_path, e))?;
    super::family::prepare_devices(metadata.len() as usize / 64);
    let (format, mut source) = if metadata.is_file() {
        (RecordBlocks::open(in_path)?.format(), Source::File(in_path))
    } else {
        let (format, records) = seqio::parse(in_path, &read_input(in_path)?)?;
        (format, Source::Memory(vec![records]))
    };
    let solid = {
        // The first pass keeps the records while they fit the budget (a
        // pipe's always: it cannot be read again), so that a file that fits
        // is read once; past the budget only the sequences stay. Blocks are
        // read and parsed on a helper thread while this one keeps the last.
        let must_keep = matches!(source, Source::Memory(_));
        let (mut kept, mut kept_bytes) = (Some(Vec::new()), 0);
        let (mut bases, mut ends) = (Vec::new(), Vec::new());
        let started = Instant::now();
        let blocks = source.blocks()?;
        std::thread::scope(|scope| -> Result<(), EcError> {
            for pieces in read_ahead(scope, blocks)? {
                let pieces = pieces?;
                let Some(kept_pieces) = kept.as_mut() else {
                    for rec in pieces.iter().flatten() {
                        bases.extend_from_slice(&rec.seq);
                        ends.push(bases.len());
                    }
                    continue;
                };
                kept_bytes += pieces.iter().flatten().map(record_bytes).sum::<usize>();
                kept_pieces.extend(pieces);
                if kept_bytes > budget && !must_keep {
                    for rec in kept_pieces.drain(..).flatten() {
                        bases.extend_from_slice(&rec.seq);
                        ends.push(bases.len());
                    }
                    kept = None;
                }
            }
            Ok(())
        })?;
        let seqs: Vec<&[u8]> = match &kept {
            Some(pieces) => pieces.iter().flatten().map(|r| r.seq.as_slice()).collect(),
            None => {
                let starts = std::iter::once(0).chain(ends.iter().copied());
                starts.zip(&ends).map(|(s, &e)| &bases[s..e]).collect()
            }
        };
        progress(&format!("read {} reads", seqs.len()));
        crate::log_debug!("EC: first pass read in {:?}", started.elapsed());
        let started = Instant::now();
        let counted = (count_solid(&seqs, params), seqs.len());
        crate::log_debug!("EC: spectrum counted in {:?}", started.elapsed());
        drop(seqs);
        if let Some(pieces) = kept {
            source = Source::Memory(pieces);
        }
        counted
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

/// Runs `blocks` on a helper thread of `scope`, one block ahead of the
/// receiver; it stops after the first error, or when the receiver is gone.
fn read_ahead<'scope, T: Send + 'scope>(
    scope: &'scope std::thread::Scope<'scope, '_>,
    blocks: impl Iterator<Item = Result<T, EcError>> + Send + 'scope,
) -> Result<mpsc::Receiver<Result<T, EcError>>, EcError> {
    let (block_tx, block_rx) = mpsc::sync_channel(1);
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
        .map_err(|e| EcError::io(Path::new("seqshim-ec"), e))?;
    Ok(block_rx)
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
        // Joined on the reading thread, beside the correcting.
        let block_rx = read_ahead(scope, blocks.map(|b| b.map(seqio::joined)))?;
        let (done_tx, done_rx) = mpsc::sync_channel::<(Vec<SeqRecord>, Vec<ReadOutcome>)>(1);
        let writer = std::thread::Builder::new()
            .name("seqshim-ec-write".into())
            .spawn_scoped(
                scope,
                move || -> Result<(AtomicOutputs, Stats, Duration), EcError> {
                    let mut counts = Stats::default();
                    let (mut fixed, mut discard) = (Vec::new(), Vec::new());
                    let mut busy = Duration::ZERO;
                    for (records, outcomes) in done_rx {
                        let started = Instant::now();
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
                        busy += started.elapsed();
                    }
                    Ok((outputs, counts, busy))
                },
            )
            .map_err(spawn_error)?;
        let mut corrected = 0;
        let mut failed = None;
        // Where the second pass spends its time: waiting for the reader,
        // correcting, and (on the writer's thread) formatting and writing.
        let (mut waiting, mut correcting) = (Duration::ZERO, Duration::ZERO);
        let mut asked = Instant::now();
        for block in block_rx {
            waiting += asked.elapsed();
            let mut records = match block {
                Ok(records) => records,
                Err(e) => {
                    failed = Some(e);
                    break;
                }
            };
            let started = Instant::now();
            let outcomes = correct(&mut records);
            correcting += started.elapsed();
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
            asked = Instant::now();
        }
        drop(done_tx);
        let written = writer
            .join()
            .unwrap_or_else(|p| std::panic::resume_unwind(p));
        if let Some(e) = failed {
            return Err(e);
        }
        let (outputs, counts, writing) = written?;
        crate::log_info!(
            "EC default: second pass {:.2} s waiting for input, {:.2} s correcting, {:.2} s writing (beside the correcting)",
            waiting.as_secs_f64(),
            correcting.as_secs_f64(),
            writing.as_secs_f64()
        );
        stats.add_counts(&counts);
        Ok((outputs, corrected))
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A file read twice (no budget for its records) and a file read once
    /// (its records kept) give the same bytes and counts.
    #[test]
    fn second_pass_from_the_file_equals_records_kept() {
        let dir = std::env::temp_dir().join(format!("seqshim-ec-passes-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let input = dir.join("reads.fq");
        let mut text = Vec::new();
        let mut x = 7u64;
        let genome: Vec<u8> = (0..3000)
            .map(|_| {
                x = x
                    .wrapping_mul(6364136223846793005)
                    .wrapping_add(1442695040888963407);
                b"ACGT"[(x >> 60) as usize & 3]
            })
            .collect();
        for i in 0..3000 {
            x = x
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            let at = (x >> 33) as usize % (genome.len() - 60);
            let mut read = genome[at..at + 60].to_vec();
            if i % 3 == 0 {
                let p = (x >> 20) as usize % 60;
                read[p] = if read[p] == b'A' { b'C' } else { b'A' };
            }
            text.extend_from_slice(format!("@r{i}\n").as_bytes());
            text.extend_from_slice(&read);
            text.extend_from_slice(b"\n+\n");
            text.extend(std::iter::repeat_n(b'I', 60));
            text.push(b'\n');
        }
        std::fs::write(&input, &text).unwrap();
        let params = Params {
            k: 15,
            min_mult: 3,
            ..Params::default_mode()
        };
        let mut outputs = Vec::new();
        for budget in [0, usize::MAX] {
            let (fixed, discard) = (
                dir.join(format!("f{budget}")),
                dir.join(format!("d{budget}")),
            );
            let stats =
                correct_file_within(&input, &fixed, Some(&discard), &params, budget, &mut |_| {})
                    .unwrap();
            assert_eq!(stats.reads, 3000);
            outputs.push((
                std::fs::read(&fixed).unwrap(),
                std::fs::read(&discard).unwrap(),
                stats,
            ));
        }
        assert!(
            outputs[0].2.fixed > 0,
            "some reads fixed: {:?}",
            outputs[0].2
        );
        assert_eq!(outputs[0].0, outputs[1].0);
        assert_eq!(outputs[0].1, outputs[1].1);
        assert_eq!(format!("{:?}", outputs[0].2), format!("{:?}", outputs[1].2));
        let _ = std::fs::remove_dir_all(&dir);
    }
}
