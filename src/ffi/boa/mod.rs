//! The BOA (POA v2 as forked by BOA and linked by CONSENT) mirror ABI: the
//! ten symbols CONSENT links plus `generate_lpo_bundles` and
//! `heaviest_bundle`, with upstream's signatures, layouts ([`types`]),
//! allocation contract and in-place mutations ([`convert`]). The algorithms
//! are the `poa` family's; this module only moves data across the boundary.
//!
//! Differences from upstream, all where upstream would crash, abort or write
//! out of bounds (listed in `include/boa/README.md`): a message in
//! upstream's `black_flag` format on stderr and upstream's failure value (or
//! nothing, for `void` functions) instead. No function here touches shared
//! mutable state, so every call may run on many threads at once (upstream's
//! `read_score_matrix` sorts through a global row pointer and its aligner
//! writes into the caller's gap arrays; ours do neither).

pub mod convert;
pub mod types;

use std::cell::UnsafeCell;
use std::ffi::{OsStr, c_char, c_float, c_int};
use std::io::Write;
use std::os::unix::ffi::OsStrExt;
use std::path::Path;
use std::ptr;

use convert::{
    c_str, c_str_bounded, calloc_array, free_letter_lists, free_source_infos, is_c_space,
    matrix_from_c, push_source, read_letters, read_lpo, read_source_infos, set_name, store_lpo,
    strdup_bytes,
};
use types::{
    LpoLetter, LpoSequence, LpoSourceInfo, NAME_MAX, ResidueScoreMatrix, SYMBOL_MAX,
    ScoringFunction, StringPtr,
};

use crate::ffi_guard;
use crate::poa::{self, MatrixError, ScoreMatrix};

/// Upstream's `SEQUENCE_BUFFER_CHUNK`: `create_seq` grows arrays by this many.
const SEQUENCE_CHUNK: usize = 8;
/// `create_seq`'s `do_switch_case` values.
const SWITCH_CASE_TO_LOWER: c_int = 1;
const SWITCH_CASE_TO_UPPER: c_int = 2;
/// `black_flag` levels, in upstream's order.
const LEVEL_NAMES: [&str; 6] = ["CRASH", "DIED", "EXCEPTION", "BAD_DATA", "WARNING", "DEBUG"];
const LEVEL_TRAP: usize = 1;
const LEVEL_USERR: usize = 3;

/// The writable 1,024-byte `ERRTXT` buffer upstream's warning macros format
/// into before calling [`black_flag`]. It must live in `.data` with exactly
/// upstream's size: clients built against upstream get copy relocations.
#[repr(transparent)]
pub struct ErrText(UnsafeCell<[c_char; 1024]>);

// SAFETY: the buffer is C's global by contract; Rust code only touches it
// inside `black_flag`, under that function's documented contract.
unsafe impl Sync for ErrText {}

/// `char ERRTXT[1024]`.
#[unsafe(no_mangle)]
#[unsafe(link_section = ".data")]
pub static ERRTXT: ErrText = ErrText(UnsafeCell::new([0; 1024]));

/// Prints one report in upstream's `black_flag` layout. Our own reports do
/// not go through `ERRTXT`: formatting into a process-wide buffer would race
/// between threads.
fn report(level: usize, origin: &str, message: &str) {
    let text = format!(
        "black_flag: {} seqshim:{} {origin}\n{message}\nend_black_flag\n",
        LEVEL_NAMES.get(level).unwrap_or(&"UNKNOWN"),
        env!("CARGO_PKG_VERSION"),
    );
    let _ = std::io::stderr().lock().write_all(text.as_bytes());
}

// ------------------------------------------------------------ seq_util.h

/// Reads a score-matrix file into the caller's matrix: symbols, scores,
/// `best_match`, gap parameters, and `calloc`ed gap arrays of
/// `max_gap_length + 2` entries. Returns the number of symbols; −2 when the
/// file cannot be opened, −1 on a malformed file (message on stderr), 0 for
/// a file without a symbol line. The gap defaults (12, 2, 0; truncation 16,
/// decay 0) are written first, as upstream does, even when reading fails.
///
/// # Safety
/// `filename` must be null or a NUL-terminated path; `m` must be null or
/// point to a writable `ResidueScoreMatrix_T`. Any gap arrays already in
/// `m` are overwritten, not freed (as upstream).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn read_score_matrix(
    filename: *mut c_char,
    m: *mut ResidueScoreMatrix,
) -> c_int {
    ffi_guard!(-1, {
        // SAFETY: null or a valid writable matrix per the contract.
        let Some(m) = (unsafe { m.as_mut() }) else {
            report(LEVEL_USERR, "read_score_matrix", "matrix pointer is NULL");
            return -1;
        };
        m.gap_penalty_set = [[12, 2, 0], [12, 2, 0]];
        m.trunc_gap_length = poa::matrix::TRUNCATE_GAP_LENGTH;
        m.decay_gap_length = poa::matrix::DECAY_GAP_LENGTH;
        // SAFETY: null or NUL-terminated per the contract.
        let name = unsafe { c_str(filename) };
        let parsed = if filename.is_null() {
            Err(MatrixError::NotFound("(null)".into()))
        } else {
            ScoreMatrix::from_file(Path::new(OsStr::from_bytes(name)))
        };
        match parsed {
            Ok(sm) => store_matrix(m, &sm),
            Err(MatrixError::NotFound(_)) => {
                let shown =
                    String::from_utf8_lossy(if filename.is_null() { b"(null)" } else { name });
                report(
                    LEVEL_USERR,
                    "read_score_matrix",
                    &format!("Can't open alignment matrix from {shown}\n"),
                );
                -2
            }
            Err(MatrixError::NoSymbols) => {
                m.nsymbol = 0;
                m.symbol[0] = 0;
                0
            }
            Err(e) => {
                report(LEVEL_TRAP, "read_score_matrix", &e.to_string());
                e.code()
            }
        }
    })
}

fn store_matrix(m: &mut ResidueScoreMatrix, sm: &ScoreMatrix) -> c_int {
    let n = sm.nsymbol();
    for (i, &c) in sm.symbols.iter().enumerate() {
        m.symbol[i] = c as c_char;
    }
    m.symbol[n] = 0;
    for i in 0..n {
        m.score[i][..n].copy_from_slice(&sm.score[i * n..i * n + n]);
        m.best_match[i][..n].copy_from_slice(&sm.best_match[i]);
    }
    m.gap_penalty_set = sm.gap_penalty_set;
    m.trunc_gap_length = sm.trunc_gap_length;
    m.decay_gap_length = sm.decay_gap_length;
    m.max_gap_length = sm.max_gap_length;
    let gaps = sm.gap_penalty_x.len();
    // SAFETY: zeroed ints are valid; each array gets `gaps` entries.
    unsafe {
        m.gap_penalty_x = calloc_array::<c_int>(gaps);
        m.gap_penalty_y = calloc_array::<c_int>(gaps);
        ptr::copy_nonoverlapping(sm.gap_penalty_x.as_ptr(), m.gap_penalty_x, gaps);
        ptr::copy_nonoverlapping(sm.gap_penalty_y.as_ptr(), m.gap_penalty_y, gaps);
    }
    m.nsymbol = n as c_int;
    n as c_int
}

/// Appends a sequence to the caller's `Sequence_T` array: the array is
/// `calloc`ed with 8 entries when `nseq <= 0` and `realloc`ed by 8 zeroed
/// entries whenever `nseq` is a multiple of 8, so `(*seq)[nseq]` exists.
/// Whitespace is removed from `tmp_seq` **in place**; the entry gets a
/// `malloc`ed copy of it (lower- or upper-cased for `do_switch_case` 1 or 2),
/// the name (at most 127 bytes), a `malloc`ed title (`"untitled"` for null)
/// and the length. Returns 1; 0 (with a message) for a null `seq` or
/// `tmp_seq`, where upstream would crash.
///
/// # Safety
/// `seq` must point to a `Sequence_T *` that is null or a libc allocation
/// sized as this function sizes it for `nseq` entries; `tmp_seq` must be a
/// writable NUL-terminated string; `seq_name` must be null, NUL-terminated
/// or at least 128 bytes long (only 128 are read, as upstream's `strncpy`);
/// `seq_title` must be null or NUL-terminated.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn create_seq(
    nseq: c_int,
    seq: *mut *mut LpoSequence,
    seq_name: *mut c_char,
    seq_title: *mut c_char,
    tmp_seq: *mut c_char,
    do_switch_case: c_int,
) -> c_int {
    ffi_guard!(0, {
        if seq.is_null() || tmp_seq.is_null() {
            report(
                LEVEL_USERR,
                "create_seq",
                "sequence array or residue string is NULL",
            );
            return 0;
        }
        // SAFETY: `seq` is valid per the contract.
        let array = unsafe { &mut *seq };
        let n = usize::try_from(nseq).unwrap_or(0);
        if nseq <= 0 {
            // SAFETY: zeroed sequences are valid.
            *array = unsafe { calloc_array::<LpoSequence>(SEQUENCE_CHUNK) };
        } else if n % SEQUENCE_CHUNK == 0 {
            // SAFETY: the array is a libc allocation of n entries per the
            // contract; the new chunk is zeroed before use.
            unsafe {
                let bytes = (n + SEQUENCE_CHUNK) * size_of::<LpoSequence>();
                let p = libc::realloc((*array).cast(), bytes).cast::<LpoSequence>();
                if p.is_null() {
                    report(LEVEL_TRAP, "create_seq", "out of memory");
                    return 0;
                }
                ptr::write_bytes(p.add(n), 0, SEQUENCE_CHUNK);
                *array = p;
            }
        }
        // SAFETY: entry n exists after the growth above.
        let entry = unsafe { &mut *(*array).add(n) };
        // SAFETY: tmp_seq is a writable NUL-terminated string per contract.
        let raw = unsafe { c_str(tmp_seq) };
        let len = raw.len();
        // SAFETY: compacting in place within the string's own bytes.
        let text = unsafe { std::slice::from_raw_parts_mut(tmp_seq.cast::<u8>(), len + 1) };
        let mut j = 0;
        for i in 0..len {
            if !is_c_space(text[i]) {
                text[j] = text[i];
                j += 1;
            }
        }
        text[j] = 0;
        let mut residues = text[..j].to_vec();
        match do_switch_case {
            SWITCH_CASE_TO_LOWER => residues.make_ascii_lowercase(),
            SWITCH_CASE_TO_UPPER => residues.make_ascii_uppercase(),
            _ => {}
        }
        entry.sequence = strdup_bytes(&residues);
        // SAFETY: null, NUL-terminated, or at least NAME_MAX bytes per contract.
        set_name(&mut entry.name, unsafe {
            c_str_bounded(seq_name, NAME_MAX)
        });
        entry.title = if seq_title.is_null() {
            strdup_bytes(b"untitled")
        } else {
            // SAFETY: NUL-terminated per contract.
            strdup_bytes(unsafe { c_str(seq_title) })
        };
        entry.length = j as c_int;
        1
    })
}

// ------------------------------------------------------------ lpo.h

/// Turns each of `seq[0..nseq]` into a linear LPO: residues missing from the
/// matrix's symbol list become `symbol[0]`, then `sequence` is rewritten
/// **in place** into symbol indices (unknown → `nsymbol − 1`), a `calloc`ed
/// letter array is built (letter i linked to i−1 and i+1, source
/// `{0, i}`) and one source entry (weight 1, no bundle) is appended. An
/// empty sequence gets no letters (upstream writes before its array).
///
/// # Safety
/// `seq` must be valid for `nseq` entries made by [`create_seq`] (or laid
/// out the same way, with libc allocations); `m` must point to a matrix
/// filled by [`read_score_matrix`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn initialize_seqs_as_lpo(
    nseq: c_int,
    seq: *mut LpoSequence,
    m: *mut ResidueScoreMatrix,
) {
    ffi_guard!((), {
        let n = usize::try_from(nseq).unwrap_or(0);
        if n == 0 {
            return;
        }
        // SAFETY: null or a valid matrix per contract.
        let (Some(m), false) = ((unsafe { m.as_ref() }), seq.is_null()) else {
            report(
                LEVEL_USERR,
                "initialize_seqs_as_lpo",
                "sequence or matrix pointer is NULL",
            );
            return;
        };
        // Upstream walks the array from the end; the entries are independent.
        for i in (0..n).rev() {
            // SAFETY: i < nseq entries per contract.
            let s = unsafe { &mut *seq.add(i) };
            // SAFETY: forwarded from this function's contract.
            unsafe { init_linear(s, m) };
        }
    })
}

/// The symbol list of a C matrix: its first `nsymbol` entries (at most
/// `SYMBOL_MAX`), as index lookups see it. Borrowed, not copied: this runs
/// for every sequence of every window.
fn symbols_of(m: &ResidueScoreMatrix) -> &[u8] {
    let nsym = usize::try_from(m.nsymbol).unwrap_or(0).min(SYMBOL_MAX);
    c_chars_as_bytes(&m.symbol[..nsym])
}

/// `c_char` and `u8` have one size and alignment; only the sign differs.
fn c_chars_as_bytes(c: &[c_char]) -> &[u8] {
    // SAFETY: same size, alignment and validity; the borrow is carried over.
    unsafe { std::slice::from_raw_parts(c.as_ptr().cast::<u8>(), c.len()) }
}

/// `limit_residues` + `index_symbols` + `lpo_init` for one sequence (the
/// family's [`poa::graph`] functions), written straight into the C
/// structures: a read's linear graph fits the letters' inline list heads,
/// so the only allocations are the ones the caller frees (letters, the
/// source entry and its title), as upstream's.
///
/// # Safety
/// As [`initialize_seqs_as_lpo`], for one entry.
unsafe fn init_linear(s: &mut LpoSequence, m: &ResidueScoreMatrix) {
    let symbols = symbols_of(m);
    // `limit_residues` treats the symbol list as a C string.
    let allowed = {
        let all = c_chars_as_bytes(&m.symbol);
        &all[..all.iter().position(|&c| c == 0).unwrap_or(all.len())]
    };
    let len = usize::try_from(s.length).unwrap_or(0);
    let codes: &[u8] = if s.sequence.is_null() {
        &[]
    } else {
        // SAFETY: create_seq made `sequence` a NUL-terminated string of
        // `length` bytes.
        let text = unsafe { std::slice::from_raw_parts_mut(s.sequence.cast::<u8>(), len) };
        // Upstream limits up to the string's end and indexes every byte.
        let limit = text.iter().position(|&c| c == 0).unwrap_or(len);
        poa::graph::limit_residues(&mut text[..limit], allowed);
        poa::graph::index_symbols(text, symbols);
        text
    };
    // SAFETY: zeroed letters are valid.
    let letters = unsafe { calloc_array::<LpoLetter>(len) };
    let last = len as c_int - 1;
    for i in 0..len {
        // SAFETY: i < len letters just allocated.
        let l = unsafe { &mut *letters.add(i) };
        let ipos = i as c_int;
        l.left.ipos = if ipos > 0 { ipos - 1 } else { -1 };
        l.right.ipos = if ipos < last { ipos + 1 } else { -1 };
        l.source.iseq = 0;
        l.source.ipos = ipos;
        l.align_ring = ipos;
        l.ring_id = ipos;
        // A sequence without residues is all symbol 0 (`lpo_init` on zeroed text).
        l.letter = codes.get(i).copied().unwrap_or(0) as c_char;
    }
    s.letter = letters;
    let mut name = [0u8; NAME_MAX];
    let name_len = s.name.iter().position(|&c| c == 0).unwrap_or(NAME_MAX);
    name[..name_len].copy_from_slice(c_chars_as_bytes(&s.name[..name_len]));
    let title: &[u8] = if s.title.is_null() {
        b"untitled"
    } else {
        // SAFETY: create_seq's title is NUL-terminated and outlives this call.
        unsafe { c_str(s.title) }
    };
    // SAFETY: source_seq is null or sized by the same discipline.
    unsafe { push_source(s, &name[..name_len], title, len as c_int, 1, -1) };
}

/// Upstream's `lpo_index_symbols`: letters that still hold residue bytes
/// (the first one is not a symbol index) are translated to indices.
///
/// # Safety
/// `s.letter` must be valid for `s.length` letters.
unsafe fn index_letters(s: &mut LpoSequence, m: &ResidueScoreMatrix) {
    let len = usize::try_from(s.length).unwrap_or(0);
    if s.letter.is_null() || len == 0 {
        return;
    }
    // SAFETY: valid for `len` letters per contract.
    let letters = unsafe { std::slice::from_raw_parts_mut(s.letter, len) };
    if (letters[0].letter as c_int) < m.nsymbol {
        return;
    }
    let symbols = symbols_of(m);
    for l in letters {
        l.letter = poa::graph::symbol_index(symbols, l.letter as u8) as c_char;
    }
}

/// Whether `f` scores like [`matrix_scoring_function`]: it is ours, or it
/// returns `m->score[a][b]` for every pair of symbol letters. The aligner
/// scores from the matrix directly, so any other function is refused.
///
/// # Safety
/// `f` must be callable with letter arrays of `nsymbol` entries and `m`.
unsafe fn scores_like_matrix(
    f: unsafe extern "C" fn(
        c_int,
        c_int,
        *mut LpoLetter,
        *mut LpoLetter,
        *mut ResidueScoreMatrix,
    ) -> c_int,
    m: *mut ResidueScoreMatrix,
) -> bool {
    if f as usize == matrix_scoring_function as *const () as usize {
        return true;
    }
    // SAFETY: m is valid per contract.
    let n = usize::try_from(unsafe { (*m).nsymbol })
        .unwrap_or(0)
        .min(SYMBOL_MAX);
    // SAFETY: zeroed letters are valid; every index passed is < n.
    unsafe {
        let xs = calloc_array::<LpoLetter>(n);
        let ys = calloc_array::<LpoLetter>(n);
        for k in 0..n {
            (*xs.add(k)).letter = k as c_char;
            (*ys.add(k)).letter = k as c_char;
            (*xs.add(k)).left.ipos = -1;
            (*xs.add(k)).right.ipos = -1;
            (*ys.add(k)).left.ipos = -1;
            (*ys.add(k)).right.ipos = -1;
        }
        let mut same = true;
        'outer: for a in 0..n {
            for b in 0..n {
                if f(a as c_int, b as c_int, xs, ys, m) != (*m).score[a][b] {
                    same = false;
                    break 'outer;
                }
            }
        }
        libc::free(xs.cast());
        libc::free(ys.cast());
        same
    }
}

/// Fuses `seqs[1..nseq]` one by one, in input order, into `seqs[0]` and
/// returns `seqs[0]` (or null for `nseq <= 0`). Sequences whose letters
/// are null are initialised first; fused sequences lose their letters
/// (`letter = NULL`) and keep their strings and source entries, so the
/// caller frees every input with `free_lpo_sequence(seqs[i], 0)`.
///
/// Only upstream's CONSENT configuration is implemented: no aggressive
/// fusion, `do_progressive == 0`, no score file, and a scoring function that
/// scores from the matrix (ours, or one returning `m->score[a][b]`). Other
/// requests print a message and return null without changing anything.
/// `preserve_sequence_order` changes nothing in this configuration.
///
/// # Safety
/// `seqs` must be valid for `nseq` pointers to well-formed sequences (see
/// [`create_seq`] and [`initialize_seqs_as_lpo`]); `score_matrix` must be
/// filled by [`read_score_matrix`]; `scoring_function` must be null or
/// callable as upstream calls it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn buildup_progressive_lpo(
    nseq: c_int,
    seqs: *mut *mut LpoSequence,
    score_matrix: *mut ResidueScoreMatrix,
    use_aggressive_fusion: c_int,
    do_progressive: c_int,
    score_file: *mut c_char,
    scoring_function: ScoringFunction,
    use_global_alignment: c_int,
    preserve_sequence_order: c_int,
) -> *mut LpoSequence {
    let _ = preserve_sequence_order;
    ffi_guard!(ptr::null_mut(), {
        const WHO: &str = "buildup_progressive_lpo";
        if nseq <= 0 {
            return ptr::null_mut();
        }
        if seqs.is_null() || score_matrix.is_null() {
            report(LEVEL_USERR, WHO, "sequence array or matrix pointer is NULL");
            return ptr::null_mut();
        }
        let n = nseq as usize;
        // SAFETY: valid for n pointers per contract.
        let ptrs = unsafe { std::slice::from_raw_parts(seqs, n) };
        if ptrs.iter().any(|p| p.is_null()) {
            report(LEVEL_USERR, WHO, "a sequence pointer is NULL");
            return ptr::null_mut();
        }
        // The same sequence twice would be fused into itself and then have
        // its letters freed as a fused input.
        let mut sorted = ptrs.to_vec();
        sorted.sort_unstable();
        if sorted.windows(2).any(|w| w[0] == w[1]) {
            report(LEVEL_USERR, WHO, "the same sequence appears twice");
            return ptr::null_mut();
        }
        // With one sequence upstream returns before any of these matter.
        let unsupported = if n == 1 {
            None
        } else if use_aggressive_fusion != 0 {
            Some("aggressive fusion")
        } else if do_progressive != 0 {
            Some("progressive ordering (do_progressive)")
        } else if !score_file.is_null() {
            Some("a pair score file")
        } else {
            match scoring_function {
                None => Some("a NULL scoring function"),
                // SAFETY: callable per contract; the matrix is valid.
                Some(f) if !unsafe { scores_like_matrix(f, score_matrix) } => {
                    Some("a scoring function other than matrix_scoring_function")
                }
                Some(_) => None,
            }
        };
        if let Some(what) = unsupported {
            report(
                LEVEL_USERR,
                WHO,
                &format!("seqshim does not implement {what}"),
            );
            return ptr::null_mut();
        }
        // SAFETY: valid matrix per contract.
        let m = unsafe { &*score_matrix };
        let matrix = match matrix_from_c(m) {
            Ok(matrix) => matrix,
            Err(e) => {
                report(LEVEL_USERR, WHO, &e);
                return ptr::null_mut();
            }
        };
        for &p in ptrs {
            // SAFETY: each pointer is a valid sequence per contract.
            unsafe {
                let s = &mut *p;
                // Not yet initialised: no letters and no source entry. (An
                // empty sequence has no letters but already has its entry.)
                if s.letter.is_null() && s.nsource_seq == 0 {
                    init_linear(s, m);
                }
                index_letters(s, m);
            }
        }
        if n == 1 {
            return ptrs[0];
        }
        let mut origins: Vec<*const LpoSourceInfo> = Vec::new();
        for &p in ptrs {
            // SAFETY: well-formed sequences per contract.
            let s = unsafe { &*p };
            for k in 0..usize::try_from(s.nsource_seq).unwrap_or(0) {
                // SAFETY: k < nsource_seq.
                origins.push(unsafe { s.source_seq.add(k) });
            }
        }
        let read_all = || -> Vec<poa::Lpo> {
            ptrs.iter()
                // SAFETY: well-formed sequences per contract.
                .map(|&p| unsafe { read_lpo(&*p) })
                .collect()
        };
        // A window the POA kernel takes may go to a device, when its graph
        // comes back sooner than this thread builds it (see `poa::routed`).
        let global = use_global_alignment != 0;
        let longest = ptrs
            .iter()
            // SAFETY: as above.
            .map(|&p| usize::try_from(unsafe { (*p).length }).unwrap_or(0))
            .max()
            .unwrap_or(0);
        let mut read: Option<Vec<poa::Lpo>> = None;
        let offer = poa::routed::build_on_device(
            poa::routed::window_cost(n, longest),
            &matrix,
            global,
            || {
                let lpos = read.insert(read_all());
                lpos.iter()
                    .map(|l| poa::routed::linear_codes(l, matrix.nsymbol()))
                    .collect()
            },
        );
        let (graph, fused) = match offer {
            poa::routed::Offer::Device(letters) => {
                let sources = read
                    .take()
                    .unwrap_or_else(read_all)
                    .into_iter()
                    .flat_map(|l| l.sources)
                    .collect();
                let graph = poa::Lpo {
                    letters,
                    sources,
                    ..poa::Lpo::default()
                };
                (graph, n - 1)
            }
            poa::routed::Offer::Failed(e) => {
                report(LEVEL_TRAP, WHO, &format!("{e}\n"));
                return ptr::null_mut();
            }
            poa::routed::Offer::Here(_timer) => {
                let lpos = read.take().unwrap_or_else(read_all);
                match poa::buildup_progressive_counted(lpos, &matrix, global) {
                    Some(built) => built,
                    None => return ptr::null_mut(),
                }
            }
        };
        if fused + 1 < n {
            report(
                LEVEL_TRAP,
                WHO,
                &format!(
                    "Exceeded memory bound ({} bytes); {} of {n} sequences fused\n",
                    poa::build::POA_MAX_ALLOC,
                    fused + 1
                ),
            );
        }
        // SAFETY: seqs[0] is a well-formed sequence with libc allocations.
        unsafe { store_lpo(&mut *ptrs[0], &graph, &origins) };
        for &p in &ptrs[1..=fused] {
            // SAFETY: the fused sequence's letters are libc allocations it owns.
            unsafe {
                let s = &mut *p;
                free_letter_lists(s.letter, usize::try_from(s.length).unwrap_or(0));
                libc::free(s.letter.cast());
                s.letter = ptr::null_mut();
            }
        }
        ptrs[0]
    })
}

/// Frees the letters (and their list nodes), `title`, `sequence` and the
/// source entries of `seq`, and `seq` itself when `please_free_holder` is
/// non-zero. Null is a no-op.
///
/// # Safety
/// `seq` must be null or a well-formed sequence whose allocations came from
/// libc; with `please_free_holder`, `seq` itself must be a libc allocation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn free_lpo_sequence(seq: *mut LpoSequence, please_free_holder: c_int) {
    ffi_guard!((), {
        // SAFETY: null or valid per contract.
        let Some(s) = (unsafe { seq.as_mut() }) else {
            return;
        };
        // SAFETY: libc allocations owned by the sequence per contract.
        unsafe {
            free_letter_lists(s.letter, usize::try_from(s.length).unwrap_or(0));
            libc::free(s.letter.cast());
            s.letter = ptr::null_mut();
            libc::free(s.title.cast());
            s.title = ptr::null_mut();
            libc::free(s.sequence.cast());
            s.sequence = ptr::null_mut();
            if !s.source_seq.is_null() {
                free_source_infos(s.source_seq, usize::try_from(s.nsource_seq).unwrap_or(0));
                libc::free(s.source_seq.cast());
                s.source_seq = ptr::null_mut();
            }
            if please_free_holder != 0 {
                libc::free(seq.cast());
            }
        }
    })
}

/// Flattens the graph into MSA rows. Returns the number of columns (`nring`);
/// `*p_seq_pos` gets a `malloc`ed array of `nsource_seq` row pointers into
/// one `malloc`ed block `*p_p` of `nsource_seq * nring` bytes, pre-filled
/// with `gap_character`; rows are **not** NUL-terminated. Letters below
/// `nsymbol` are written as `symbol[letter]` when `symbol` is not null.
/// `*p_include` is never written, as upstream. Returns 0 for a null `seq`.
///
/// # Safety
/// `seq` must be null or a well-formed LPO; `symbol` must be null or valid
/// for `nsymbol` bytes; each output pointer must be null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn xlate_lpo_to_al(
    seq: *mut LpoSequence,
    nsymbol: c_int,
    symbol: *mut c_char,
    ibundle: c_int,
    gap_character: c_char,
    p_seq_pos: *mut *mut *mut c_char,
    p_p: *mut *mut c_char,
    p_include: *mut *mut c_char,
) -> c_int {
    // Upstream computes bundle flags for `ibundle >= 0` and frees them
    // again; nothing observable comes of them.
    let _ = (ibundle, p_include);
    ffi_guard!(0, {
        // SAFETY: null or valid per contract.
        let Some(s) = (unsafe { seq.as_ref() }) else {
            report(LEVEL_USERR, "xlate_lpo_to_al", "sequence pointer is NULL");
            return 0;
        };
        // Read straight from the C letters (the family's `msa::xlate_lpo_to_al`
        // rules: a column per run of equal `ring_id`s, counted from 0, so an
        // empty graph still has one), without building a Rust graph: the
        // only allocations are the two blocks the caller frees.
        let len = usize::try_from(s.length).unwrap_or(0);
        let letters: &[LpoLetter] = if s.letter.is_null() || len == 0 {
            &[]
        } else {
            // SAFETY: a well-formed LPO has `length` letters.
            unsafe { std::slice::from_raw_parts(s.letter, len) }
        };
        let mut nring = 0usize;
        let mut current = 0;
        for l in letters {
            if l.ring_id != current {
                current = l.ring_id;
                nring += 1;
            }
        }
        nring += 1;
        // No source table means no rows, whatever the count says.
        let nsrc = if s.source_seq.is_null() {
            0
        } else {
            usize::try_from(s.nsource_seq).unwrap_or(0)
        };
        // Letters of 128 and up are negative `char`s to upstream, which
        // writes them raw whatever `nsymbol` says.
        let nsym = usize::try_from(nsymbol).unwrap_or(0).min(SYMBOL_MAX);
        // SAFETY: `symbol` holds `nsymbol` bytes when not null, per contract.
        let symbols =
            unsafe { crate::ffi::guard::bytes(symbol.cast(), nsym) }.filter(|_| !symbol.is_null());
        // SAFETY: zeroed pointers/bytes are valid; sizes as computed.
        let rows = unsafe { calloc_array::<*mut c_char>(nsrc) };
        // SAFETY: as above.
        let block = unsafe { calloc_array::<c_char>(nsrc * nring) };
        if !block.is_null() {
            // SAFETY: block holds nsrc * nring bytes; rows holds nsrc pointers.
            let cells = unsafe { std::slice::from_raw_parts_mut(block.cast::<u8>(), nsrc * nring) };
            cells.fill(gap_character as u8);
            for i in 0..nsrc {
                // SAFETY: as above.
                unsafe { *rows.add(i) = block.add(i * nring) };
            }
            let mut current = 0;
            let mut col = 0;
            for l in letters {
                if l.ring_id != current {
                    current = l.ring_id;
                    col += 1;
                }
                let code = l.letter as u8;
                let c = match symbols {
                    Some(sym) if (code as usize) < sym.len() => sym[code as usize],
                    _ => code,
                };
                // The source list as `read_sources` walks it: stop at a
                // blank entry; skip sources past the table (a malformed
                // graph) rather than write out of bounds.
                let mut src: *const types::LpoLetterSource = &l.source;
                // SAFETY: the head or a `more` node, valid per contract.
                while let Some(e) = unsafe { src.as_ref() } {
                    if e.ipos < 0 || e.iseq < 0 {
                        break;
                    }
                    if let Some(row) = usize::try_from(e.iseq).ok().filter(|&r| r < nsrc) {
                        cells[row * nring + col] = c;
                    }
                    src = e.more;
                }
            }
        }
        // SAFETY: output pointers are null or writable per contract.
        unsafe {
            match (p_seq_pos.as_mut(), p_p.as_mut()) {
                (Some(sp), Some(pp)) => {
                    *sp = rows;
                    *pp = block;
                }
                (Some(sp), None) => *sp = rows,
                (None, Some(pp)) => {
                    *pp = block;
                    libc::free(rows.cast());
                }
                (None, None) => {
                    libc::free(rows.cast());
                    libc::free(block.cast());
                }
            }
        }
        nring as c_int
    })
}

/// Repeatedly extracts the heaviest bundle (see [`heaviest_bundle`]) and
/// adds each path as a new source `CONSENS<k>` until every source is
/// bundled, a path is shorter than 10 nodes, or a bundle gains no member;
/// sources covering at least `minimum_fraction` of their length on a path
/// join its bundle and their weight becomes 0.
///
/// # Safety
/// `seq` must be null or a well-formed LPO whose allocations came from libc.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn generate_lpo_bundles(seq: *mut LpoSequence, minimum_fraction: c_float) {
    ffi_guard!((), {
        // SAFETY: null or valid per contract.
        let Some(s) = (unsafe { seq.as_mut() }) else {
            report(
                LEVEL_USERR,
                "generate_lpo_bundles",
                "sequence pointer is NULL",
            );
            return;
        };
        // SAFETY: well-formed per contract.
        let mut lpo = unsafe { read_lpo(s) };
        let before = lpo.sources.len();
        poa::generate_lpo_bundles(&mut lpo, minimum_fraction);
        let origins: Vec<*const LpoSourceInfo> = (0..before)
            // SAFETY: k < nsource_seq.
            .map(|k| unsafe { s.source_seq.add(k) } as *const LpoSourceInfo)
            .collect();
        // SAFETY: libc allocations per contract.
        unsafe { store_lpo(s, &lpo, &origins) };
    })
}

/// The heaviest path through `len` letters by weighted source overlap.
/// Returns a `calloc`ed array of `len` entries whose first `*p_best_len`
/// are the path's letter indices (null when `len <= 0`); the caller frees
/// it.
///
/// # Safety
/// `seq` must be valid for `len` well-formed letters whose sources index
/// `source_seq[0..nsource_seq]`; `p_best_len` must be null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn heaviest_bundle(
    len: c_int,
    seq: *mut LpoLetter,
    nsource_seq: c_int,
    source_seq: *mut LpoSourceInfo,
    p_best_len: *mut c_int,
) -> *mut c_int {
    ffi_guard!(ptr::null_mut(), {
        let n = usize::try_from(len).unwrap_or(0);
        // SAFETY: valid for `len` letters per contract.
        let letters = unsafe { read_letters(seq, n) };
        // SAFETY: valid for `nsource_seq` entries per contract.
        let sources =
            unsafe { read_source_infos(source_seq, usize::try_from(nsource_seq).unwrap_or(0)) };
        let path = poa::heaviest_bundle(&letters, &sources);
        // SAFETY: zeroed ints are valid; the path has at most len nodes.
        let out = unsafe { calloc_array::<c_int>(n) };
        if !out.is_null() {
            // SAFETY: path.len() <= n.
            unsafe { ptr::copy_nonoverlapping(path.as_ptr(), out, path.len().min(n)) };
        }
        // SAFETY: null or writable per contract.
        if let Some(p) = unsafe { p_best_len.as_mut() } {
            *p = path.len() as c_int;
        }
        out
    })
}

// ------------------------------------------------------------ align_score.h

/// `m->score[seq_x[i].letter][seq_y[j].letter]`; 0 for a letter outside the
/// 128-entry table (upstream would read out of bounds).
///
/// # Safety
/// `seq_x` must be valid for `i + 1` letters, `seq_y` for `j + 1`, and `m`
/// must point to a matrix.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn matrix_scoring_function(
    i: c_int,
    j: c_int,
    seq_x: *mut LpoLetter,
    seq_y: *mut LpoLetter,
    m: *mut ResidueScoreMatrix,
) -> c_int {
    ffi_guard!(0, {
        if seq_x.is_null() || seq_y.is_null() || m.is_null() || i < 0 || j < 0 {
            return 0;
        }
        // SAFETY: indices and pointers valid per contract.
        let (a, b, m) = unsafe {
            (
                (*seq_x.add(i as usize)).letter,
                (*seq_y.add(j as usize)).letter,
                &*m,
            )
        };
        match (usize::try_from(a), usize::try_from(b)) {
            (Ok(a), Ok(b)) if a < SYMBOL_MAX && b < SYMBOL_MAX => m.score[a][b],
            _ => 0,
        }
    })
}

// ------------------------------------------------------------ default.h, black_flag.h

/// Frees `s->p` with libc `free`, sets it to null and `last_alloc` to 0.
/// Returns 0 (also for a null `s`, which upstream would dereference).
///
/// # Safety
/// `s` must be null or point to a `stringptr` whose `p` is null or a libc
/// allocation.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn stringptr_free(s: *mut StringPtr) -> c_int {
    ffi_guard!(0, {
        // SAFETY: null or valid per contract.
        if let Some(s) = unsafe { s.as_mut() } {
            // SAFETY: a libc allocation or null per contract.
            unsafe { libc::free(s.p.cast()) };
            s.p = ptr::null_mut();
            s.last_alloc = 0;
        }
        0
    })
}

/// Prints a report of level `bug_level` (upstream's `CRASH`..`DEBUG`) with
/// the source location and the text in `ERRTXT` to stderr, clears `ERRTXT`
/// and returns 1. Upstream aborts the process for `CRASH` and `DEBUG`; this
/// returns 1 for them too.
///
/// # Safety
/// `sourcefile` and `sourcefile_revision` must be null or NUL-terminated.
/// `ERRTXT` is one process-wide buffer, as upstream: callers formatting into
/// it from several threads at once must serialise themselves.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn black_flag(
    bug_level: c_int,
    sourcefile: *mut c_char,
    sourceline: c_int,
    sourcefile_revision: *mut c_char,
) -> c_int {
    ffi_guard!(1, {
        let buf = ERRTXT.0.get();
        // SAFETY: the buffer is 1,024 bytes; reading up to its first NUL
        // (or its end) stays inside it.
        let text: Vec<u8> = unsafe { &*buf }
            .iter()
            .take_while(|&&c| c != 0)
            .map(|&c| c as u8)
            .collect();
        // SAFETY: null or NUL-terminated per contract.
        let (file, rev) = unsafe { (c_str(sourcefile), c_str(sourcefile_revision)) };
        let level = usize::try_from(bug_level).unwrap_or(usize::MAX);
        report(
            level,
            &format!(
                "{} {},{sourceline}",
                String::from_utf8_lossy(file),
                String::from_utf8_lossy(rev)
            ),
            &String::from_utf8_lossy(&text),
        );
        // SAFETY: writing the first byte of the 1,024-byte buffer.
        unsafe { (*buf)[0] = 0 };
        1
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poa::routed::tests::{FORCE, FROM_DEVICE};

    /// What one BOA call sequence left behind: the returned graph as read
    /// back, its MSA rows, and which inputs lost their letters.
    #[derive(Debug, PartialEq)]
    struct Outcome {
        graph: poa::Lpo,
        rows: Vec<Vec<u8>>,
        fused: Vec<bool>,
    }

    /// CONSENT's call sequence on one window, routed as `force` says.
    unsafe fn consent_window(reads: &[&[u8]], m: *mut ResidueScoreMatrix, force: bool) -> Outcome {
        let mut seq: *mut LpoSequence = ptr::null_mut();
        let mut name = *b"s\0";
        for (i, r) in reads.iter().enumerate() {
            let mut text = r.to_vec();
            text.push(0);
            // SAFETY: as create_seq's contract asks.
            let ok = unsafe {
                create_seq(
                    i as c_int,
                    &mut seq,
                    name.as_mut_ptr().cast(),
                    ptr::null_mut(),
                    text.as_mut_ptr().cast(),
                    0,
                )
            };
            assert_eq!(ok, 1);
        }
        let n = reads.len();
        // SAFETY: create_seq made `n` entries.
        let mut input: Vec<*mut LpoSequence> = (0..n).map(|i| unsafe { seq.add(i) }).collect();
        for &p in &input {
            // SAFETY: a sequence made by create_seq and a read matrix.
            unsafe { initialize_seqs_as_lpo(1, p, m) };
        }
        FORCE.with(|f| f.set(Some(force)));
        // SAFETY: CONSENT's arguments.
        let lpo = unsafe {
            buildup_progressive_lpo(
                n as c_int,
                input.as_mut_ptr(),
                m,
                0,
                0,
                ptr::null_mut(),
                Some(matrix_scoring_function),
                1,
                0,
            )
        };
        FORCE.with(|f| f.set(None));
        assert!(!lpo.is_null());
        // SAFETY: the call returned a well-formed sequence.
        let graph = unsafe { read_lpo(&*lpo) };
        let (mut rows, mut block, mut include) =
            (ptr::null_mut(), ptr::null_mut(), ptr::null_mut());
        // SAFETY: as xlate_lpo_to_al's contract asks.
        let ncol = unsafe {
            xlate_lpo_to_al(
                lpo,
                (*m).nsymbol,
                (*m).symbol.as_mut_ptr(),
                0,
                b'-' as c_char,
                &mut rows,
                &mut block,
                &mut include,
            )
        };
        // SAFETY: one row of `ncol` bytes per source, libc allocations.
        let outcome = unsafe {
            let rows_out = (0..(*lpo).nsource_seq as usize)
                .map(|i| {
                    std::slice::from_raw_parts((*rows.add(i)).cast::<u8>(), ncol as usize).to_vec()
                })
                .collect();
            libc::free(block.cast());
            libc::free(include.cast());
            libc::free(rows.cast());
            Outcome {
                graph,
                rows: rows_out,
                fused: input[1..].iter().map(|&p| (*p).letter.is_null()).collect(),
            }
        };
        for &p in &input {
            // SAFETY: every input is freed once, its holder is the array's.
            unsafe { free_lpo_sequence(p, 0) };
        }
        // SAFETY: the array is create_seq's libc allocation.
        unsafe { libc::free(seq.cast()) };
        outcome
    }

    /// A window sent to the (emulated) device leaves exactly what the call
    /// on the caller's thread leaves: the returned graph (every letter's
    /// links, sources and ring, every source entry), the MSA rows and the
    /// inputs' state.
    #[test]
    fn a_window_routed_to_the_device_gives_the_direct_calls_graph() {
        let path =
            std::env::temp_dir().join(format!("seqshim-boa-route-{}.mat", std::process::id()));
        std::fs::write(&path, poa::matrix::boa_dna_matrix_text()).unwrap();
        let mut c_path = path.as_os_str().as_bytes().to_vec();
        c_path.push(0);
        // SAFETY: zeroed matrices are valid; the path is NUL-terminated.
        let m = unsafe { calloc_array::<ResidueScoreMatrix>(1) };
        // SAFETY: as above.
        let read = unsafe { read_score_matrix(c_path.as_mut_ptr().cast(), m) };
        assert!(read > 0);
        let mut state = 0x2545f4914f6cdd1du64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let mut windows: Vec<Vec<Vec<u8>>> = vec![
            vec![
                b"ACGTACGTAAGGTTCCAGT".to_vec(),
                b"ACGTTCGTAAGGTCCAGTT".to_vec(),
            ],
            vec![b"AAAAAAAA".to_vec(); 3],
            vec![
                b"ACGTNNACGT".to_vec(),
                b"acgtacgtAC".to_vec(),
                b"AC GT\nAC".to_vec(),
            ],
        ];
        for _ in 0..60 {
            let len = 20 + next(120) as usize;
            let truth: Vec<u8> = (0..len).map(|_| b"ACGT"[next(4) as usize]).collect();
            let many = next(4) == 0;
            let n = 2 + next(if many { 31 } else { 7 }) as usize;
            windows.push(
                (0..n)
                    .map(|_| {
                        let mut r = Vec::new();
                        for &c in &truth {
                            match next(25) {
                                0 => {}
                                1 => r.extend([c, b"ACGT"[next(4) as usize]]),
                                2 => r.push(b"ACGT"[next(4) as usize]),
                                _ => r.push(c),
                            }
                        }
                        r
                    })
                    .collect(),
            );
        }
        FROM_DEVICE.with(|n| n.set(0));
        for (k, w) in windows.iter().enumerate() {
            let reads: Vec<&[u8]> = w.iter().map(|r| r.as_slice()).collect();
            // SAFETY: a matrix read above.
            let (here, device) = unsafe {
                (
                    consent_window(&reads, m, false),
                    consent_window(&reads, m, true),
                )
            };
            assert_eq!(here, device, "window {k}");
            assert_eq!(here.graph.sources.len(), reads.len());
        }
        let from_device = FROM_DEVICE.with(std::cell::Cell::get);
        eprintln!(
            "{} windows, {from_device} built on the device",
            windows.len()
        );
        assert!(
            from_device >= windows.len() - 1,
            "{from_device} of {}",
            windows.len()
        );
        // SAFETY: read_score_matrix's gap arrays, then the matrix itself.
        unsafe {
            libc::free((*m).gap_penalty_x.cast());
            libc::free((*m).gap_penalty_y.cast());
            libc::free(m.cast());
        }
        let _ = std::fs::remove_file(path);
    }
}
