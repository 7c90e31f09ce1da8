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

fn lines(data: &[u8]) -> impl Iterator<Item = (usize, &[u8])> {
    let body = data.strip_suffix(b"\n").unwrap_or(data);
    let mut it = body.split(|&b| b == b'\n').enumerate();
    if data.is_empty() {
        it.next();
    }
    it.map(|(i, l)| (i + 1, l.strip_suffix(b"\r").unwrap_or(l)))
}

/// Parses FASTA or FASTQ; an empty file has no records.
pub fn parse(path: &Path, data: &[u8]) -> Result<(SeqFormat, Vec<SeqRecord>), EcError> {
    match data.first() {
        None => Ok((SeqFormat::Fasta, Vec::new())),
        Some(b'>') => parse_fasta(path, data).map(|r| (SeqFormat::Fasta, r)),
        Some(b'@') => parse_fastq(path, data).map(|r| (SeqFormat::Fastq, r)),
        Some(_) => Err(EcError::format(
            path,
            1,
            "input starts with neither '>' (FASTA) nor '@' (FASTQ)",
        )),
    }
}

fn parse_fasta(path: &Path, data: &[u8]) -> Result<Vec<SeqRecord>, EcError> {
    let mut records: Vec<SeqRecord> = Vec::new();
    for (line_no, line) in lines(data) {
        if let Some(header) = line.strip_prefix(b">") {
            records.push(SeqRecord {
                header: header.to_vec(),
                seq: Vec::new(),
                qual: None,
            });
        } else if let Some(rec) = records.last_mut() {
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
    Ok(records)
}

fn parse_fastq(path: &Path, data: &[u8]) -> Result<Vec<SeqRecord>, EcError> {
    let all: Vec<(usize, &[u8])> = lines(data).collect();
    let mut records = Vec::with_capacity(all.len() / 4);
    for group in all.chunks(4) {
        let (n, header) = group[0];
        let Some(header) = header.strip_prefix(b"@") else {
            return Err(EcError::format(path, n, "FASTQ header must start with '@'"));
        };
        if group.len() < 4 {
            return Err(EcError::format(
                path,
                n,
                "truncated FASTQ record (needs 4 lines)",
            ));
        }
        let (plus_no, plus) = group[2];
        if !plus.starts_with(b"+") {
            return Err(EcError::format(
                path,
                plus_no,
                "FASTQ separator line must start with '+'",
            ));
        }
        let (seq, (qual_no, qual)) = (group[1].1, group[3]);
        if qual.len() != seq.len() {
            return Err(EcError::format(
                path,
                qual_no,
                format!(
                    "quality length {} differs from sequence length {}",
                    qual.len(),
                    seq.len()
                ),
            ));
        }
        records.push(SeqRecord {
            header: header.to_vec(),
            seq: seq.to_vec(),
            qual: Some(qual.to_vec()),
        });
    }
    Ok(records)
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
