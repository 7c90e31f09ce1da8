//! Default mode's input read as a stream of record blocks, so that a file
//! is never held whole in memory: a block is parsed while the one before it
//! is corrected and the one before that is written. A helper thread reads
//! (and decompresses) the input ahead of the parser.

use std::io::Read;
use std::path::{Path, PathBuf};
use std::sync::mpsc;

use super::error::EcError;
use super::output::open_input;
use super::seqio::{self, SeqFormat, SeqRecord};

/// Bytes the reading thread hands over at a time.
const READ_BYTES: usize = 8 << 20;
/// Pieces of [`READ_BYTES`] read ahead of the parser (one block's text).
const READ_AHEAD: usize = 8;

/// A FASTA or FASTQ file (gzip-compressed or not) as blocks of whole records.
pub struct RecordBlocks {
    path: PathBuf,
    /// The input, read by a helper thread; it ends with the input (the
    /// channel closes) or at its first error.
    input: mpsc::Receiver<std::io::Result<Vec<u8>>>,
    format: SeqFormat,
    /// Bytes read and not yet parsed; they start a record.
    pending: Vec<u8>,
    /// The line of the file `pending` starts on (1-based).
    next_line: usize,
    at_end: bool,
    /// Time spent waiting for input and parsing, for the debug log.
    waiting: std::time::Duration,
    parsing: std::time::Duration,
}

impl RecordBlocks {
    /// Opens `path` and reads enough to tell its format.
    pub fn open(path: &Path) -> Result<Self, EcError> {
        let mut input = open_input(path)?;
        let (tx, rx) = mpsc::sync_channel(READ_AHEAD);
        std::thread::Builder::new()
            .name("seqshim-ec-input".into())
            .spawn(move || {
                loop {
                    let mut piece = Vec::with_capacity(READ_BYTES);
                    match (&mut input).take(READ_BYTES as u64).read_to_end(&mut piece) {
                        Ok(0) => break,
                        // A closed channel: the blocks were dropped.
                        Ok(_) if tx.send(Ok(piece)).is_err() => break,
                        Ok(_) => {}
                        Err(e) => {
                            let _ = tx.send(Err(e));
                            break;
                        }
                    }
                }
            })
            .map_err(|e| EcError::io(path, e))?;
        let mut blocks = RecordBlocks {
            path: path.to_path_buf(),
            input: rx,
            format: SeqFormat::Fasta,
            pending: Vec::new(),
            next_line: 1,
            at_end: false,
            waiting: std::time::Duration::ZERO,
            parsing: std::time::Duration::ZERO,
        };
        blocks.fill(1)?;
        blocks.format = seqio::detect(path, &blocks.pending)?;
        Ok(blocks)
    }

    pub fn format(&self) -> SeqFormat {
        self.format
    }

    /// Reads until at least `want` bytes are pending or the input ends.
    fn fill(&mut self, want: usize) -> Result<(), EcError> {
        while !self.at_end && self.pending.len() < want {
            match self.input.recv() {
                Ok(Ok(piece)) if self.pending.is_empty() => self.pending = piece,
                Ok(Ok(piece)) => self.pending.extend_from_slice(&piece),
                Ok(Err(e)) => return Err(EcError::io(&self.path, e)),
                Err(mpsc::RecvError) => self.at_end = true,
            }
        }
        Ok(())
    }

    /// The next block, as the pieces it was parsed in: at most
    /// `max_records` records, ending near `max_bytes` of input text (a
    /// longer record makes a block of its own); `None` after the last one.
    pub fn next_block(
        &mut self,
        max_records: usize,
        max_bytes: usize,
    ) -> Result<Option<Vec<Vec<SeqRecord>>>, EcError> {
        let mut want = max_bytes.max(1);
        loop {
            let started = std::time::Instant::now();
            self.fill(want)?;
            self.waiting += started.elapsed();
            let started = std::time::Instant::now();
            let parsed = seqio::parse_records_parallel(
                &self.path,
                &self.pending,
                self.format,
                self.next_line,
                max_records,
                self.at_end,
            )?;
            self.parsing += started.elapsed();
            if parsed.is_empty() && self.at_end {
                crate::log_debug!(
                    "EC: {}: waiting for input {:?}, parsing {:?}",
                    self.path.display(),
                    self.waiting,
                    self.parsing
                );
            }
            if !parsed.is_empty() || self.at_end {
                self.pending.drain(..parsed.bytes);
                self.next_line += parsed.lines;
                return Ok((!parsed.is_empty()).then_some(parsed.pieces));
            }
            // One record longer than the block so far: read on.
            want = self.pending.len() * 2;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn blocks_of(text: &[u8], max_records: usize, max_bytes: usize) -> Result<Vec<usize>, EcError> {
        let dir = std::env::temp_dir().join(format!("seqshim-ec-stream-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join(format!("in-{max_records}-{max_bytes}-{}", text.len()));
        std::fs::write(&path, text).unwrap();
        let mut blocks = RecordBlocks::open(&path)?;
        let mut sizes = Vec::new();
        let mut all = Vec::new();
        while let Some(pieces) = blocks.next_block(max_records, max_bytes)? {
            let block = seqio::joined(pieces);
            sizes.push(block.len());
            all.extend(block);
        }
        let (_, whole) = seqio::parse(&path, text)?;
        assert_eq!(all, whole, "blocks join to the whole file's records");
        Ok(sizes)
    }

    #[test]
    fn blocks_join_to_the_whole_parse_for_any_block_size() {
        let fasta = b">a x\nAC\nGT\n>b\n\n>c\r\nAAA\r\nC";
        let fastq = b"@q1\nACGT\n+\nIIII\n@q2\nA\n+q2\nI\n@q3\n\n+\n\n";
        for text in [&fasta[..], &fastq[..], b"", b">only\n"] {
            for max_records in [1, 2, 100] {
                for max_bytes in [1, 3, 7, 1000] {
                    let sizes = blocks_of(text, max_records, max_bytes).unwrap();
                    assert!(sizes.iter().all(|&n| n >= 1 && n <= max_records));
                }
            }
        }
    }

    #[test]
    fn gzip_input_reads_in_blocks_like_plain() {
        use std::io::Write;
        let mut text = Vec::new();
        for i in 0..2000 {
            text.extend_from_slice(format!("@r{i}\nACGTTGCA\n+\nIIIIIIII\n").as_bytes());
        }
        let mut gz = flate2::write::GzEncoder::new(Vec::new(), flate2::Compression::fast());
        gz.write_all(&text).unwrap();
        let packed = gz.finish().unwrap();
        let dir = std::env::temp_dir().join(format!("seqshim-ec-stream-gz-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let path = dir.join("in.fq.gz");
        std::fs::write(&path, packed).unwrap();
        let mut blocks = RecordBlocks::open(&path).unwrap();
        assert_eq!(blocks.format(), SeqFormat::Fastq);
        let mut all = Vec::new();
        while let Some(pieces) = blocks.next_block(300, 1000).unwrap() {
            let block = seqio::joined(pieces);
            assert!(block.len() <= 300);
            all.extend(block);
        }
        let (_, whole) = seqio::parse(&path, &text).unwrap();
        assert_eq!(all, whole);
        let _ = std::fs::remove_dir_all(&dir);
    }

    #[test]
    fn errors_name_the_line_of_the_whole_file() {
        let text = b"@q1\nACGT\n+\nIIII\n@q2\nACGT\n+\nIII\n";
        for max_bytes in [1, 5, 1000] {
            let e = blocks_of(text, 1, max_bytes).unwrap_err();
            assert!(
                e.to_string()
                    .ends_with(":8: quality length 3 differs from sequence length 4"),
                "{e}"
            );
        }
        let e = blocks_of(b"@q1\nA\n+\nI\n@q2\nA\n", 1, 2).unwrap_err();
        assert!(
            e.to_string()
                .ends_with(":5: truncated FASTQ record (needs 4 lines)"),
            "{e}"
        );
        let e = blocks_of(b">a\nAC\n>b\nA C\n", 1, 2).unwrap_err();
        assert!(
            e.to_string()
                .ends_with(":4: whitespace inside a sequence line"),
            "{e}"
        );
    }
}
