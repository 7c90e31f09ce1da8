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

/// Whole records of a parallel parse in the pieces they were parsed in
/// (in order: a caller that keeps them moves none), and how far they reach.
#[derive(Debug, Default)]
pub struct ParsedPieces {
    pub pieces: Vec<Vec<SeqRecord>>,
    /// Bytes of the buffer the records took (the rest starts a record).
    pub bytes: usize,
    /// Lines of the buffer the records took.
    pub lines: usize,
}

impl ParsedPieces {
    pub fn is_empty(&self) -> bool {
        self.pieces.iter().all(Vec::is_empty)
    }
}

/// The records of `pieces` in one vector (the one piece itself if alone).
pub fn joined(mut pieces: Vec<Vec<SeqRecord>>) -> Vec<SeqRecord> {
    if pieces.len() == 1 {
        return pieces.pop().unwrap_or_default();
    }
    pieces.into_iter().flatten().collect()
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
    let parsed = parse_records_parallel(path, data, format, 1, usize::MAX, true)?;
    Ok((format, joined(parsed.pieces)))
}

/// Text per piece when a buffer is parsed in parallel: large enough that a
/// piece's parse outweighs handing it to a thread.
const PIECE_BYTES: usize = 1 << 20;

/// Where a piece of a parallel parse starts: a record's first byte, with
/// the lines and records of the buffer before it.
#[derive(Clone, Copy, Debug)]
struct Cut {
    at: usize,
    lines: usize,
    records: usize,
}

/// What one segment of a buffer holds for [`cut_at_records`]: its line
/// starts, its header lines (`>`), and where its first few of each are.
#[derive(Default)]
struct Segment {
    lines: usize,
    headers: usize,
    /// The first four line starts (one of them starts a FASTQ record).
    first_lines: [Option<usize>; 4],
    /// The first header line: (position, line starts before it here).
    first_header: Option<(usize, usize)>,
}

/// Cuts `data` where the sequential parse starts a record (every fourth
/// line of FASTQ, a header line of FASTA), at most one cut per
/// `piece_bytes` of text (the first record start in each segment but the
/// first), only before `max_records` records are complete and only at a
/// line the sequential parse sees (one that ends in a newline, unless
/// `at_end`). The segments are scanned on the CPU pool: one thread finding
/// every line start of 4 GB of FASTQ took about a second.
fn cut_at_records(
    data: &[u8],
    format: SeqFormat,
    max_records: usize,
    at_end: bool,
    piece_bytes: usize,
) -> Vec<Cut> {
    let seen = if at_end {
        data.len()
    } else {
        memchr::memrchr(b'\n', data).map_or(0, |n| n + 1)
    };
    let piece_bytes = piece_bytes.max(1);
    // A line starts at 0 and after every newline, if before `seen`.
    let segments = super::parallel::collect_indexed(seen.div_ceil(piece_bytes), |i| {
        let (start, end) = (i * piece_bytes, ((i + 1) * piece_bytes).min(seen));
        let mut seg = Segment::default();
        let mut note = |at: usize| {
            if let Some(slot) = seg.first_lines.get_mut(seg.lines) {
                *slot = Some(at);
            }
            if data[at] == b'>' {
                seg.first_header.get_or_insert((at, seg.lines));
                seg.headers += 1;
            }
            seg.lines += 1;
        };
        if start == 0 {
            note(0);
        }
        // Newlines at start - 1 .. end - 1 start the lines at start .. end.
        let from = start.saturating_sub(1);
        for n in memchr::memchr_iter(b'\n', &data[from..end - 1]) {
            note(from + n + 1);
        }
        seg
    });
    let mut cuts = Vec::new();
    let (mut lines, mut headers) = (0, 0);
    for (i, seg) in segments.iter().enumerate() {
        let cut = match format {
            _ if i == 0 => None,
            SeqFormat::Fastq => seg
                .first_lines
                .iter()
                .enumerate()
                .find_map(|(j, at)| at.filter(|_| (lines + j) % 4 == 0).map(|at| (at, j)))
                .map(|(at, j)| Cut {
                    at,
                    lines: lines + j,
                    records: (lines + j) / 4,
                }),
            SeqFormat::Fasta => seg.first_header.map(|(at, j)| Cut {
                at,
                lines: lines + j,
                records: headers,
            }),
        };
        if let Some(cut) = cut {
            if cut.records >= max_records {
                break;
            }
            cuts.push(cut);
        }
        lines += seg.lines;
        headers += seg.headers;
    }
    cuts
}

/// [`parse_records`] on the engine's CPU pool: the buffer is cut where the
/// sequential parse starts a record, the pieces are parsed at once and
/// joined in order, so the records, the bytes and lines taken, and the
/// first error are the sequential parse's.
pub fn parse_records_parallel(
    path: &Path,
    data: &[u8],
    format: SeqFormat,
    first_line: usize,
    max_records: usize,
    at_end: bool,
) -> Result<ParsedPieces, EcError> {
    parse_in_pieces(
        path,
        data,
        format,
        first_line,
        max_records,
        at_end,
        PIECE_BYTES,
    )
}

fn parse_in_pieces(
    path: &Path,
    data: &[u8],
    format: SeqFormat,
    first_line: usize,
    max_records: usize,
    at_end: bool,
    piece_bytes: usize,
) -> Result<ParsedPieces, EcError> {
    let cuts = cut_at_records(data, format, max_records, at_end, piece_bytes);
    let Some(&last) = cuts.last() else {
        let whole = parse_records(path, data, format, first_line, max_records, at_end)?;
        return Ok(ParsedPieces {
            pieces: vec![whole.records],
            bytes: whole.bytes,
            lines: whole.lines,
        });
    };
    let starts = std::iter::once(Cut {
        at: 0,
        lines: 0,
        records: 0,
    });
    // Every piece but the last holds whole records and ends where the next
    // record starts: it is parsed as a whole text.
    type Piece = (Cut, usize, Option<Result<Parsed, EcError>>);
    let mut pieces: Vec<Piece> = starts
        .chain(cuts.iter().copied())
        .zip(cuts.iter().map(|c| c.at).chain([data.len()]))
        .map(|(cut, end)| (cut, end, None))
        .collect();
    super::parallel::for_each_chunk_mut(&mut pieces, 1, |_, chunk| {
        for (cut, end, out) in chunk.iter_mut() {
            let is_last = cut.at == last.at;
            *out = Some(parse_records(
                path,
                &data[cut.at..*end],
                format,
                first_line + cut.lines,
                if is_last {
                    max_records - cut.records
                } else {
                    usize::MAX
                },
                !is_last || at_end,
            ));
        }
    });
    let mut parsed = ParsedPieces {
        pieces: Vec::with_capacity(pieces.len()),
        ..ParsedPieces::default()
    };
    for (cut, _, out) in pieces {
        let piece = out.expect("every piece is parsed")?;
        parsed.pieces.push(piece.records);
        (parsed.bytes, parsed.lines) = (cut.at + piece.bytes, cut.lines + piece.lines);
    }
    Ok(parsed)
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

    /// Random FASTA or FASTQ text, valid or with a damaged line here and
    /// there, with CRLF line ends and empty lines at times.
    fn random_text(seed: u64, format: SeqFormat, records: usize, damage: bool) -> Vec<u8> {
        let mut x = seed | 1;
        let mut next = move |n: u64| {
            x ^= x << 13;
            x ^= x >> 7;
            x ^= x << 17;
            x % n
        };
        let mut t = Vec::new();
        for i in 0..records {
            let eol: &[u8] = if next(10) == 0 { b"\r\n" } else { b"\n" };
            let len = next(40) as usize;
            let seq: Vec<u8> = (0..len).map(|_| b"ACGTN"[next(5) as usize]).collect();
            match format {
                SeqFormat::Fasta => {
                    t.extend_from_slice(format!(">r{i}").as_bytes());
                    t.extend_from_slice(eol);
                    for line in seq.chunks(7) {
                        t.extend_from_slice(line);
                        t.extend_from_slice(eol);
                    }
                    if next(8) == 0 {
                        t.extend_from_slice(eol);
                    }
                }
                SeqFormat::Fastq => {
                    t.extend_from_slice(format!("@r{i}").as_bytes());
                    t.extend_from_slice(eol);
                    t.extend_from_slice(&seq);
                    t.extend_from_slice(eol);
                    t.push(b'+');
                    t.extend_from_slice(eol);
                    t.extend(std::iter::repeat_n(b'I', seq.len()));
                    t.extend_from_slice(eol);
                }
            }
            if damage && next(60) == 0 {
                let at = next(t.len() as u64) as usize;
                t[at] = [b' ', b'\n', b'@', b'>', b'+'][next(5) as usize];
            }
        }
        t
    }

    /// The parse in pieces equals the sequential parse: records, bytes and
    /// lines taken, and the first error with its line, for any piece size,
    /// record limit, and whether the text is the end of the input.
    #[test]
    fn parse_in_pieces_equals_the_sequential_parse() {
        let p = Path::new("in");
        let mut compared = 0;
        for seed in 1..120u64 {
            for format in [SeqFormat::Fasta, SeqFormat::Fastq] {
                let full = random_text(seed, format, 1 + (seed as usize * 7) % 90, seed % 3 == 0);
                let cut = full.len() - (seed as usize * 13) % (full.len() / 4 + 1);
                let text = &full[..cut];
                for max_records in [1, 5, 17, usize::MAX] {
                    for at_end in [false, true] {
                        for piece in [1, 16, 100, 1 << 20] {
                            let want = parse_records(p, text, format, 3, max_records, at_end);
                            let got =
                                parse_in_pieces(p, text, format, 3, max_records, at_end, piece);
                            match (want, got) {
                                (Ok(w), Ok(g)) => {
                                    assert_eq!(
                                        (w.records, w.bytes, w.lines),
                                        (joined(g.pieces), g.bytes, g.lines),
                                        "seed {seed} {format:?} max {max_records} at_end {at_end} piece {piece}"
                                    );
                                }
                                (Err(w), Err(g)) => assert_eq!(w.to_string(), g.to_string()),
                                (w, g) => panic!(
                                    "seed {seed} {format:?} max {max_records} at_end {at_end} piece {piece}: {:?} vs {:?}",
                                    w.map(|w| w.records.len()),
                                    g.map(|g| joined(g.pieces).len())
                                ),
                            }
                            compared += 1;
                        }
                    }
                }
            }
        }
        assert!(compared > 7_000);
    }

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
