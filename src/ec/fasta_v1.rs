//! v1's FASTA reader (`GetSeq`, spec §4.2) and writer (spec §4.6), quirks
//! included: one header plus one sequence line per record, a blank line ends
//! the input, names cut to 59 bytes, the reader's byte map, and the final
//! call's duplicate (or lost last record) removed by `NUM_READS--`.

use std::path::Path;

use super::error::EcError;

/// `fgets` buffer size in v1 (reads at most 499 bytes per call).
const FGETS_LIMIT: usize = 499;
/// `namestr[NAMESTR_LEN - 1] = 0` keeps at most 59 bytes of a name.
const NAME_MAX: usize = 59;

/// One record as v1's `DNASequence` holds it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct V1Read {
    /// Header line without `>` and newline, cut at a NUL and to 59 bytes.
    pub name: Vec<u8>,
    /// `length` bytes after the reader map (may contain NUL bytes).
    pub seq: Vec<u8>,
}

/// v1's `unmasked_nuc` for bytes below 0x80 (bytes at or above 0x80 index
/// before the table in v1 and are rejected by the caller).
fn unmask(byte: u8) -> u8 {
    const CODES: &[u8; 16] = b"\0\x01\x02\x03NRYWSMKHBVDX";
    match byte {
        0..=3 => byte,
        4..=15 => CODES[byte as usize],
        b'A' | b'C' | b'G' | b'T' | b'N' | b'H' | b'K' | b'M' | b'R' | b'S' | b'W' | b'X'
        | b'Y' => byte,
        b'a' | b'c' | b'g' | b't' | b'h' | b'k' | b'm' | b'n' | b'r' | b's' | b'x' => {
            byte.to_ascii_uppercase()
        }
        _ => 0,
    }
}

/// A `FILE*` over an in-memory file with `feof` semantics.
struct CFile<'a> {
    data: &'a [u8],
    pos: usize,
    eof: bool,
    /// 1-based line number of the next byte.
    line: usize,
}

impl CFile<'_> {
    fn getc(&mut self) -> Option<u8> {
        match self.data.get(self.pos) {
            Some(&b) => {
                self.pos += 1;
                if b == b'\n' {
                    self.line += 1;
                }
                Some(b)
            }
            None => {
                self.eof = true;
                None
            }
        }
    }

    /// `fgets(buf, 500, f)`: `None` if EOF comes before any byte.
    fn gets(&mut self) -> Option<Vec<u8>> {
        let mut out = Vec::new();
        while out.len() < FGETS_LIMIT {
            match self.getc() {
                Some(b) => {
                    out.push(b);
                    if b == b'\n' {
                        break;
                    }
                }
                None => break,
            }
        }
        (!out.is_empty()).then_some(out)
    }
}

/// C string view: bytes up to the first NUL.
fn c_str(bytes: &[u8]) -> &[u8] {
    &bytes[..bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len())]
}

/// Parses a whole FASTA file the way v1's `main` does.
pub fn read_v1_fasta(path: &Path, data: &[u8], read_len: usize) -> Result<Vec<V1Read>, EcError> {
    let mut file = CFile {
        data,
        pos: 0,
        eof: false,
        line: 1,
    };
    let mut name: Vec<u8> = Vec::new();
    // The reused `seq` buffer, as a C string (unmapped part never visible).
    let mut seq: Vec<u8> = Vec::new();
    let mut reads = Vec::new();
    loop {
        if file.eof {
            break;
        }
        let first = file.getc();
        if matches!(first, Some(0 | b'\n' | b' ')) {
            break;
        }
        if first == Some(b'>')
            && let Some(line) = file.gets()
        {
            let mut n = c_str(&line).to_vec();
            if n.last() == Some(&b'\n') {
                n.pop();
            }
            n.truncate(NAME_MAX);
            name = n;
        }
        let seq_line_no = file.line;
        if let Some(line) = file.gets() {
            let mut s = c_str(&line).to_vec();
            if matches!(s.last(), Some(b'\n' | b'#')) {
                s.pop();
            }
            if s.len() > read_len {
                return Err(EcError::ReadTooLong {
                    file: path.to_path_buf(),
                    line: seq_line_no,
                    len: s.len(),
                    read_len,
                });
            }
            if s.iter().any(|&b| b >= 0x80) {
                return Err(EcError::format(
                    path,
                    seq_line_no,
                    "byte >= 0x80 in a sequence line (undefined in v1's reader)",
                ));
            }
            seq = s.iter().map(|&b| unmask(b)).collect();
        } else {
            // fgets left the buffer as it was; v1 maps it again.
            seq = c_str(&seq).iter().map(|&b| unmask(b)).collect();
        }
        reads.push(V1Read {
            name: name.clone(),
            seq: seq.clone(),
        });
    }
    // v1's `NUM_READS--`: drops the re-read duplicate, or the real last record
    // when the file lacks a final newline.
    reads.pop();
    Ok(reads)
}

/// Appends one output record as v1's `main` prints it.
pub fn write_v1_record(out: &mut Vec<u8>, name: &[u8], record_bytes: &[u8]) {
    out.push(b'>');
    out.extend_from_slice(name);
    out.push(b'\n');
    out.extend_from_slice(record_bytes);
    out.push(b'\n');
}

#[cfg(test)]
mod tests {
    use super::*;

    fn parse(text: &[u8]) -> Vec<V1Read> {
        read_v1_fasta(Path::new("t.fa"), text, 10).unwrap()
    }

    #[test]
    fn final_newline_keeps_every_record_and_missing_one_loses_last() {
        assert_eq!(parse(b">a\nACGT\n>b\nacgn\n").len(), 2);
        let r = parse(b">a\nACGT\n>b\nACGN");
        assert_eq!(r.len(), 1);
        assert_eq!(parse(b">a\nAC.T\n")[0].seq, b"AC\0T");
        assert_eq!(parse(b">a\nacgn\n")[0].seq, b"ACGN");
    }

    #[test]
    fn long_lines_are_errors_with_line_numbers() {
        let e = read_v1_fasta(Path::new("x.fa"), b">a\nACGT\n>b\nACGTACGTACGT\n", 10).unwrap_err();
        assert_eq!(
            e.to_string(),
            "x.fa:4: sequence of 12 bytes is longer than read_len 10"
        );
    }
}
