//! POA v2 score-matrix files ("PAM format" as read by `read_score_matrix`).
//!
//! The reader reproduces upstream's line-oriented parse: lines are taken in
//! chunks of at most 1022 bytes (upstream reads with a 1023-byte `fgets`),
//! keyword lines are recognised with `sscanf`-like prefix matching, the first
//! other line is the symbol list and each later line is a score row keyed by
//! its first byte.

use std::fmt;
use std::path::Path;

/// Longest `trunc + decay` gap model the aligner represents.
pub const MAX_GAP_LENGTH: i32 = i16::MAX as i32 - 2;

/// Upstream's `TRUNCATE_GAP_LENGTH` default.
pub const TRUNCATE_GAP_LENGTH: i32 = 16;
/// Upstream's `DECAY_GAP_LENGTH` default.
pub const DECAY_GAP_LENGTH: i32 = 0;
/// Capacity of the fixed symbol / score arrays in upstream's struct.
pub const MAX_SYMBOLS: usize = 128;

/// Why a matrix file was rejected.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum MatrixError {
    /// The file could not be opened (upstream returns −2).
    NotFound(String),
    /// A score row ended before all `nsymbol` values were read (upstream −1).
    MissingScore { row: u8, column: u8 },
    /// A score row starts with a byte that is not in the symbol list (upstream −1).
    UnknownSymbol(u8),
    /// No symbol line was found (upstream returns 0, which callers treat as failure).
    NoSymbols,
    /// More symbols than upstream's fixed 128-entry arrays can hold (upstream overflows).
    TooManySymbols(usize),
    /// Negative truncation/decay lengths would index outside the gap arrays upstream.
    BadGapLengths { trunc: i32, decay: i32 },
    /// The file went on past 1 MiB (a device or a FIFO that never ends,
    /// say) or could not be read to its end.
    Unreadable(String),
}

/// The most bytes of a matrix file read: real ones are a few kilobytes, and
/// a file that never ends (`/dev/zero`, a FIFO) must not grow memory.
/// (Private: a public constant would reach the C header.)
const MAX_MATRIX_BYTES: u64 = 1 << 20;

impl MatrixError {
    /// Upstream's integer return code for this failure.
    pub fn code(&self) -> i32 {
        match self {
            MatrixError::NotFound(_) => -2,
            MatrixError::NoSymbols => 0,
            _ => -1,
        }
    }
}

impl fmt::Display for MatrixError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MatrixError::NotFound(p) => write!(f, "Can't open alignment matrix from {p}"),
            MatrixError::MissingScore { row, column } => write!(
                f,
                "Missing score value for pair {}:{}",
                *row as char, *column as char
            ),
            MatrixError::UnknownSymbol(c) => {
                write!(f, "Missing or unknown sequence symbol: {}", *c as char)
            }
            MatrixError::NoSymbols => write!(f, "matrix file has no symbol line"),
            MatrixError::TooManySymbols(n) => {
                write!(f, "matrix file lists {n} symbols (at most 127 fit)")
            }
            MatrixError::BadGapLengths { trunc, decay } => {
                write!(f, "negative gap truncation/decay length ({trunc}, {decay})")
            }
            MatrixError::Unreadable(why) => write!(f, "matrix file unreadable: {why}"),
        }
    }
}

impl std::error::Error for MatrixError {}

/// Parsed score matrix, field-for-field what `ResidueScoreMatrix_T` carries
/// (minus the unused frequency table).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct ScoreMatrix {
    /// Symbol list in file order; a letter's index here is its code in the graph.
    pub symbols: Vec<u8>,
    /// `score[a * nsymbol + b]`; rows absent from the file stay 0.
    pub score: Vec<i32>,
    /// Per row, symbol indices sorted by descending score (ties keep index order).
    pub best_match: Vec<Vec<i32>>,
    /// `[0]` = x set (open, ext1, ext2), `[1]` = y set; `GAP-PENALTIES-X=` writes `[1]`.
    pub gap_penalty_set: [[i32; 3]; 2],
    pub trunc_gap_length: i32,
    pub decay_gap_length: i32,
    pub max_gap_length: i32,
    /// Cost of extending a gap whose current length state is the index;
    /// `max_gap_length + 2` entries, the last one the special initial state.
    pub gap_penalty_x: Vec<i32>,
    pub gap_penalty_y: Vec<i32>,
}

/// Emulates `sscanf(s, "%d%n")`: skip C whitespace, optional sign, digits.
/// Returns the value and bytes consumed.
fn scan_int(s: &[u8]) -> Option<(i32, usize)> {
    let mut k = 0;
    while k < s.len() && is_c_space(s[k]) {
        k += 1;
    }
    let mut neg = false;
    if k < s.len() && (s[k] == b'+' || s[k] == b'-') {
        neg = s[k] == b'-';
        k += 1;
    }
    let start = k;
    let mut v: i64 = 0;
    while k < s.len() && s[k].is_ascii_digit() {
        v = v.saturating_mul(10).saturating_add((s[k] - b'0') as i64);
        k += 1;
    }
    if k == start {
        return None;
    }
    let v = if neg { -v } else { v };
    // glibc's %d stores the strtol result truncated to int.
    Some((v as i32, k))
}

pub(crate) fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

/// `sscanf(line, "<keyword>%d %d ...")` conversion count and values.
fn scan_keyword(line: &[u8], keyword: &str, want: usize) -> Option<Vec<i32>> {
    let rest = line.strip_prefix(keyword.as_bytes())?;
    let mut vals = Vec::with_capacity(want);
    let mut pos = 0;
    for _ in 0..want {
        match scan_int(&rest[pos..]) {
            Some((v, n)) => {
                vals.push(v);
                pos += n;
            }
            None => break,
        }
    }
    if vals.len() == want { Some(vals) } else { None }
}

/// Splits like repeated `fgets(buf, 1023, f)`: a chunk ends after '\n' or
/// after 1022 bytes; a NUL byte ends the visible C string of the chunk.
fn fgets_chunks(text: &[u8]) -> Vec<&[u8]> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < text.len() {
        let mut j = i;
        while j < text.len() && j - i < 1022 {
            j += 1;
            if text[j - 1] == b'\n' {
                break;
            }
        }
        let chunk = &text[i..j];
        let visible = match chunk.iter().position(|&c| c == 0) {
            Some(z) => &chunk[..z],
            None => chunk,
        };
        out.push(visible);
        i = j;
    }
    out
}

/// The next chunk [`fgets_chunks`] would give, read from `reader`; `None`
/// at the end.
fn next_fgets_chunk(reader: &mut impl std::io::BufRead) -> std::io::Result<Option<Vec<u8>>> {
    let mut chunk = Vec::new();
    while chunk.len() < 1022 {
        let available = reader.fill_buf()?;
        if available.is_empty() {
            break;
        }
        let room = 1022 - chunk.len();
        let take = available.iter().take(room).position(|&c| c == b'\n');
        let n = take.map_or(room.min(available.len()), |i| i + 1);
        chunk.extend_from_slice(&available[..n]);
        reader.consume(n);
        if take.is_some() {
            break;
        }
    }
    if chunk.is_empty() {
        return Ok(None);
    }
    if let Some(z) = chunk.iter().position(|&c| c == 0) {
        chunk.truncate(z);
    }
    Ok(Some(chunk))
}

impl ScoreMatrix {
    /// Reads a matrix file from disk.
    ///
    /// The file is read a line at a time and reading stops at the first
    /// bad line, as upstream's does, so a file that never ends fails after
    /// its first chunk instead of being read whole; at most 1 MiB is read
    /// in any case.
    pub fn from_file(path: impl AsRef<Path>) -> Result<Self, MatrixError> {
        let p = path.as_ref();
        let file =
            std::fs::File::open(p).map_err(|_| MatrixError::NotFound(p.display().to_string()))?;
        let mut reader = std::io::Read::take(std::io::BufReader::new(file), MAX_MATRIX_BYTES);
        let mut failed = None;
        let chunks = std::iter::from_fn(|| match next_fgets_chunk(&mut reader) {
            Ok(chunk) => chunk,
            Err(e) => {
                failed = Some(e);
                None
            }
        });
        let parsed = Self::parse_chunks(chunks);
        if let Some(e) = failed {
            return Err(MatrixError::Unreadable(e.to_string()));
        }
        if reader.limit() == 0 {
            return Err(MatrixError::Unreadable(format!(
                "longer than {MAX_MATRIX_BYTES} bytes"
            )));
        }
        parsed
    }

    /// Parses matrix file contents.
    pub fn parse(text: &[u8]) -> Result<Self, MatrixError> {
        Self::parse_chunks(fgets_chunks(text).into_iter().map(<[u8]>::to_vec))
    }

    /// Parses a matrix file given as upstream's `fgets` chunks, stopping at
    /// the first bad one.
    fn parse_chunks(chunks: impl Iterator<Item = Vec<u8>>) -> Result<Self, MatrixError> {
        let mut set = [[12, 2, 0], [12, 2, 0]];
        let mut trunc = TRUNCATE_GAP_LENGTH;
        let mut decay = DECAY_GAP_LENGTH;
        let mut symbols: Vec<u8> = Vec::new();
        let mut rows: Vec<(usize, Vec<i32>)> = Vec::new();
        let mut found_symbol_line = false;

        for line in chunks {
            let line = &line[..];
            let first = line.first().copied().unwrap_or(0);
            if first == b'#' || first == b'\n' {
                continue;
            }
            if let Some(v) = scan_keyword(line, "GAP-TRUNCATION-LENGTH=", 1) {
                trunc = v[0];
            } else if let Some(v) = scan_keyword(line, "GAP-DECAY-LENGTH=", 1) {
                decay = v[0];
            } else if let Some(v) = scan_keyword(line, "GAP-PENALTIES=", 3) {
                set[0] = [v[0], v[1], v[2]];
                set[1] = [v[0], v[1], v[2]];
            } else if let Some(v) = scan_keyword(line, "GAP-PENALTIES-X=", 3) {
                // Upstream stores the "-X" set in slot 1, which feeds the y penalties.
                set[1] = [v[0], v[1], v[2]];
            } else if !found_symbol_line {
                symbols.extend(line.iter().copied().filter(|&c| !is_c_space(c)));
                if symbols.len() >= MAX_SYMBOLS {
                    return Err(MatrixError::TooManySymbols(symbols.len()));
                }
                found_symbol_line = true;
            } else {
                // An empty chunk (only possible at a NUL) has first byte NUL, never a symbol.
                let Some(isym) = symbols.iter().position(|&s| s == first) else {
                    return Err(MatrixError::UnknownSymbol(first));
                };
                let mut vals = Vec::with_capacity(symbols.len());
                let mut pos = 1;
                for &sym in symbols.iter() {
                    match scan_int(&line[pos.min(line.len())..]) {
                        Some((v, n)) => {
                            vals.push(v);
                            pos += n;
                        }
                        None => {
                            return Err(MatrixError::MissingScore {
                                row: symbols[isym],
                                column: sym,
                            });
                        }
                    }
                }
                rows.push((isym, vals));
            }
        }

        if symbols.is_empty() {
            return Err(MatrixError::NoSymbols);
        }
        // The aligner keeps gap-length states in 16 bits; longer truncation
        // plus decay lengths would overflow them (upstream's own states
        // wrap far earlier), so such files are refused.
        if trunc < 0 || decay < 0 || trunc.checked_add(decay).is_none_or(|g| g > MAX_GAP_LENGTH) {
            return Err(MatrixError::BadGapLengths { trunc, decay });
        }
        let n = symbols.len();
        let mut score = vec![0i32; n * n];
        for (isym, vals) in rows {
            score[isym * n..isym * n + n].copy_from_slice(&vals);
        }

        let max_gap = trunc + decay;
        let m = max_gap as usize;
        let mut gx = vec![0i32; m + 2];
        let mut gy = vec![0i32; m + 2];
        gx[0] = set[0][0];
        gy[0] = set[1][0];
        for i in 1..(trunc.max(1) as usize) {
            gx[i] = set[0][1];
            gy[i] = set[1][1];
        }
        for i in 0..decay as usize {
            // Same double arithmetic and truncation toward zero as upstream.
            let dx = (set[0][1] - set[0][2]) as f64 / (decay as f64 + 1.0);
            let dy = (set[1][1] - set[1][2]) as f64 / (decay as f64 + 1.0);
            gx[i + trunc as usize] = (set[0][1] as f64 - (i as f64 + 1.0) * dx) as i32;
            gy[i + trunc as usize] = (set[1][1] as f64 - (i as f64 + 1.0) * dy) as i32;
        }
        gx[m] = set[0][2];
        gy[m] = set[1][2];
        gx[m + 1] = 0;
        gy[m + 1] = 0;

        // Upstream uses qsort here; glibc's merge sort is stable, so ties keep
        // index order. Nothing on the alignment path reads this table.
        let best_match = (0..n)
            .map(|i| {
                let mut idx: Vec<i32> = (0..n as i32).collect();
                idx.sort_by(|&a, &b| score[i * n + b as usize].cmp(&score[i * n + a as usize]));
                idx
            })
            .collect();

        Ok(ScoreMatrix {
            symbols,
            score,
            best_match,
            gap_penalty_set: set,
            trunc_gap_length: trunc,
            decay_gap_length: decay,
            max_gap_length: max_gap,
            gap_penalty_x: gx,
            gap_penalty_y: gy,
        })
    }

    /// BOA's DNA matrix (`Malfoy/BOA@09c1be1` `blosum80.mat`), built in memory.
    pub fn boa_dna() -> Self {
        Self::parse(boa_dna_matrix_text().as_bytes()).expect("built-in matrix parses")
    }

    pub fn nsymbol(&self) -> usize {
        self.symbols.len()
    }

    /// Score of two symbol indices.
    #[inline]
    pub fn pair(&self, a: u8, b: u8) -> i32 {
        self.score[a as usize * self.symbols.len() + b as usize]
    }

    /// Index of a byte in the symbol list; unknown bytes map to the last symbol
    /// (upstream's `index_symbols`, which scans from the end, so a symbol
    /// listed twice maps to its last place).
    pub fn index_of(&self, c: u8) -> u8 {
        super::graph::symbol_index(&self.symbols, c)
    }
}

/// Symbol order shared by Debian's stock BLOSUM80 file and BOA's DNA file.
pub const POA_SYMBOLS: &[u8] = b"ARNDCQEGHILKMFPSTWYVBZX?agtcu]n";

/// Text of a matrix file equivalent to BOA's: +5 on the A, C, G, T diagonal,
/// −10 elsewhere, `GAP-PENALTIES=5 5 5`.
pub fn boa_dna_matrix_text() -> String {
    let mut s = String::from("# DNA scoring as in BOA 09c1be1 (match +5, mismatch -10, gap 5)\n");
    s.push_str("GAP-PENALTIES=5 5 5\n");
    for &c in POA_SYMBOLS {
        s.push_str("  ");
        s.push(c as char);
    }
    s.push('\n');
    for &r in POA_SYMBOLS {
        s.push(r as char);
        for &c in POA_SYMBOLS {
            let v = if r == c && b"ACGT".contains(&r) {
                5
            } else {
                -10
            };
            s.push_str(&format!(" {v}"));
        }
        s.push('\n');
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The installed copy (`share/seqshim/boa/dna.mat`) stands in for BOA's
    /// file where CONSENT is built without BOA's sources, so it must parse
    /// to exactly the matrix the library builds in memory.
    #[test]
    fn installed_dna_matrix_is_current() {
        let installed = include_str!("../../integrations/consent/boa-dna.mat");
        assert_eq!(installed, boa_dna_matrix_text());
    }

    #[test]
    fn boa_dna_shape() {
        let m = ScoreMatrix::boa_dna();
        assert_eq!(m.nsymbol(), 31);
        assert_eq!(m.pair(0, 0), 5);
        assert_eq!(m.pair(4, 4), 5);
        assert_eq!(m.pair(7, 7), 5);
        assert_eq!(m.pair(16, 16), 5);
        assert_eq!(m.pair(2, 2), -10);
        assert_eq!(m.max_gap_length, 16);
        assert_eq!(m.gap_penalty_x.len(), 18);
        assert!(m.gap_penalty_x[..17].iter().all(|&g| g == 5));
        assert_eq!(m.gap_penalty_x[17], 0);
    }

    #[test]
    fn errors() {
        let e = ScoreMatrix::parse(b"A C\nA 1 2\nC 3\n").unwrap_err();
        assert_eq!(
            e,
            MatrixError::MissingScore {
                row: b'C',
                column: b'C'
            }
        );
        let e = ScoreMatrix::parse(b"A C\nG 1 2\n").unwrap_err();
        assert_eq!(e, MatrixError::UnknownSymbol(b'G'));
        assert_eq!(
            ScoreMatrix::parse(b"# only\n").unwrap_err(),
            MatrixError::NoSymbols
        );
        assert_eq!(
            ScoreMatrix::from_file("/nonexistent/x.mat")
                .unwrap_err()
                .code(),
            -2
        );
    }

    #[test]
    fn gap_keywords() {
        let m = ScoreMatrix::parse(
            b"GAP-PENALTIES=12 6 6\nGAP-PENALTIES-X=3 2 1\nGAP-TRUNCATION-LENGTH=4\nGAP-DECAY-LENGTH=2\nA\nA 1\n",
        )
        .unwrap();
        assert_eq!(m.max_gap_length, 6);
        assert_eq!(m.gap_penalty_x, vec![12, 6, 6, 6, 6, 6, 6, 0]);
        // decay from 2 to 1 over 2 steps: 2 - 1/3 -> 1, 2 - 2/3 -> 1
        assert_eq!(m.gap_penalty_y, vec![3, 2, 2, 2, 1, 1, 1, 0]);
    }
}
