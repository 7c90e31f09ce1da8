//! Default-mode sequence I/O: multi-line FASTA or four-line FASTQ (detected
//! from the first byte), full header lines, no length limits. Errors name the
//! file and the 1-based line.

use std::path::Path;

use super::error::EcError;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum SeqFormat {
    Fasta,
    Fastq,
}

/// One input record; `qual` is present for FASTQ.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct SeqRecord {
    /// Header line without its leading `>`/`@`.
    pub header: Vec<u8>,
    pub seq: Vec<u8>,
    pub qual: Option<Vec<u8>>,
}

/// Whole records parsed from the front of a buffer, and how far they reach.
#[derive(Debug, Default)]
pub struct Parsed {
    pub records: Vec<SeqRecord>,
    /// Bytes of the buffer the records took (the rest starts a record).
    pub bytes: usize,
    /// Lines of the buffer the records took.
    pub lines: usize,
}

/// Lines of `data` as (start, line without its `\n` or `\r\n`), the last one
/// only if it ends in `\n` or `at_end` (a final unterminated line counts).
fn lines(data: &[u8], at_end: bool) -> impl Iterator<Item = (usize, &[u8])> {
    let mut start = 0;
    std::iter::from_fn(move || {
        let rest = data.get(start..).filter(|r| !r.is_empty())?;
        let (line, next) = match rest.iter().position(|&b| b == b'\n') {
            Some(n) => (&rest[..n], start + n + 1),
            None if at_end => (rest, data.len()),
            None => return None,
        };
        let at = start;
        start = next;
        Some((at, line.strip_suffix(b"\r").unwrap_or(line)))
    })
}

/// The format of a file that starts with `data` (empty: FASTA, no records).
pub fn detect(path: &Path, data: &[u8]) -> Result<SeqFormat, EcError> {
    match data.first() {
        None | Some(b'>') => Ok(SeqFormat::Fasta),
        Some(b'@') => Ok(SeqFormat::Fastq),
        Some(_) => Err(EcError::format(
            path,
            1,
            "input starts with neither '>' (FASTA) nor '@' (FASTQ)",
        )),
    }
}

/// Parses FASTA or FASTQ; an empty file has no records.
pub fn parse(path: &Path, data: &[u8]) -> Result<(SeqFormat, Vec<SeqRecord>), EcError> {
    let format = detect(path, data)?;
    let parsed = parse_records(path, data, format, 1, usize::MAX, true)?;
    Ok((format, parsed.records))
}

/// Parses at most `max_records` whole records from the front of `data`,
/// which starts a record on line `first_line` of `path`. Unless `at_end`,
/// a record that may go on past the end of `data` is left for later (a
/// FASTA record ends only where the next header starts).
pub fn parse_records(
    path: &Path,
    data: &[u8],
    format: SeqFormat,
    first_line: usize,
    max_records: usize,
    at_end: bool,
) -> Result<Parsed, EcError> {
    match format {
        SeqFormat::Fasta => parse_fasta(path, data, first_line, max_records, at_end),
        SeqFormat::Fastq => parse_fastq(path, data, first_line, max_records, at_end),
    }
}

fn parse_fasta(
    path: &Path,
    data: &[u8],
    first_line: usize,
    max_records: usize,
    at_end: bool,
) -> Result<Parsed, EcError> {
    let mut parsed = Parsed::default();
    let mut open: Option<SeqRecord> = None;
    for (i, (at, line)) in lines(data, at_end).enumerate() {
        let line_no = first_line + i;
        if let Some(header) = line.strip_prefix(b">") {
            if let Some(done) = open.take() {
                parsed.records.push(done);
                (parsed.bytes, parsed.lines) = (at, i);
                if parsed.records.len() == max_records {
                    return Ok(parsed);
                }
            }
            open = Some(SeqRecord {
                header: header.to_vec(),
                seq: Vec::new(),
                qual: None,
            });
        } else if let Some(rec) = open.as_mut() {
            if line.iter().any(|b| b.is_ascii_whitespace()) {
                return Err(EcError::format(
                    path,
                    line_no,
                    "whitespace inside a sequence line",
                ));
            }
            rec.seq.extend_from_slice(line);
        } else {
            return Err(EcError::format(
                path,
                line_no,
                "sequence before the first header",
            ));
        }
    }
    if let Some(done) = open.filter(|_| at_end) {
        parsed.records.push(done);
        parsed.bytes = data.len();
        parsed.lines = lines(data, true).count();
    }
    Ok(parsed)
}

fn parse_fastq(
    path: &Path,
    data: &[u8],
    first_line: usize,
    max_records: usize,
    at_end: bool,
) -> Result<Parsed, EcError> {
    let mut parsed = Parsed::default();
    let mut all = lines(data, at_end);
    while parsed.records.len() < max_records {
        let n = first_line + parsed.lines;
        let mut group: [(usize, &[u8]); 4] = [(0, &[]); 4];
        let mut got = 0;
        for line in all.by_ref().take(4) {
            group[got] = line;
            got += 1;
        }
        if got == 0 {
            break;
        }
        let header = group[0].1;
        let Some(header) = header.strip_prefix(b"@") else {
            return Err(EcError::format(path, n, "FASTQ header must start with '@'"));
        };
        if got < 4 {
            if !at_end {
                break;
            }
            return Err(EcError::format(
                path,
                n,
                "truncated FASTQ record (needs 4 lines)",
            ));
        }
        if !group[2].1.starts_with(b"+") {
            return Err(EcError::format(
                path,
                n + 2,
                "FASTQ separator line must start with '+'",
            ));
        }
        let (seq, qual) = (group[1].1, group[3].1);
        if qual.len() != seq.len() {
            return Err(EcError::format(
                path,
                n + 3,
                format!(
                    "quality length {} differs from sequence length {}",
                    qual.len(),
                    seq.len()
                ),
            ));
        }
        parsed.records.push(SeqRecord {
            header: header.to_vec(),
            seq: seq.to_vec(),
            qual: Some(qual.to_vec()),
        });
        parsed.lines += 4;
        parsed.bytes = all_consumed(data, group[3].0, group[3].1.len());
    }
    Ok(parsed)
}

/// The end of a line that starts at `at` with `len` bytes of content: past
/// its `\r\n` or `\n`, or the end of the data.
fn all_consumed(data: &[u8], at: usize, len: usize) -> usize {
    data[at + len..]
        .iter()
        .position(|&b| b == b'\n')
        .map_or(data.len(), |n| at + len + n + 1)
}

/// Appends a record in `format` (FASTA sequences on one line).
pub fn write_record(out: &mut Vec<u8>, format: SeqFormat, rec: &SeqRecord) {
    match format {
        SeqFormat::Fasta => {
            out.push(b'>');
            out.extend_from_slice(&rec.header);
            out.push(b'\n');
            out.extend_from_slice(&rec.seq);
            out.push(b'\n');
        }
        SeqFormat::Fastq => {
            out.push(b'@');
            out.extend_from_slice(&rec.header);
            out.push(b'\n');
            out.extend_from_slice(&rec.seq);
            out.extend_from_slice(b"\n+\n");
            out.extend_from_slice(rec.qual.as_deref().unwrap_or_default());
            out.push(b'\n');
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn parses_multiline_fasta_and_fastq_with_line_errors() {
        let p = Path::new("in.fa");
        let (f, r) = parse(p, b">a x\nAC\nGT\n>b\n\n").unwrap();
        assert_eq!(f, SeqFormat::Fasta);
        assert_eq!(r[0].seq, b"ACGT");
        assert_eq!(r[0].header, b"a x");
        assert_eq!(r[1].seq, b"");
        let (f, r) = parse(p, b"@q\nACGT\n+\nIIII\n").unwrap();
        assert_eq!((f, r.len()), (SeqFormat::Fastq, 1));
        let e = parse(Path::new("in.fq"), b"@q\nACGT\n+\nIII\n").unwrap_err();
        assert_eq!(
            e.to_string(),
            "in.fq:4: quality length 3 differs from sequence length 4"
        );
        let e = parse(p, b"ACGT\n").unwrap_err();
        assert!(e.to_string().starts_with("in.fa:1:"));
    }
}
