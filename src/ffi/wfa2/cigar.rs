//! `alignment/cigar.h`: the CIGAR object clients read from the aligner and
//! allocate for themselves, with 2.3.3's printing formats, messages and
//! sign conventions.

use std::ffi::{c_char, c_int, c_void};

use super::io::{self, Stream};
use super::mm_allocator::{allocate, free};
use super::types::{
    affine_penalties_t, affine2p_penalties_t, cigar_t, linear_penalties_t, mm_allocator_t,
};
use crate::ffi::guard;
use crate::ffi_guard;
use crate::wfa::cigar_ops::{self, AlignmentProblem, UnknownOp};
use crate::wfa::{Affine2pPenalties, AffinePenalties, LinearPenalties};

/// The valid operations of a CIGAR, `[begin_offset, end_offset)`.
///
/// # Safety
/// `cigar` must point to a valid `cigar_t` whose buffer covers the range.
pub(crate) unsafe fn ops<'a>(cigar: *const cigar_t) -> &'a [u8] {
    // SAFETY: null or a valid cigar per the contract.
    let Some(c) = (unsafe { cigar.as_ref() }) else {
        return &[];
    };
    // Offsets a client wrote outside the buffer read as an empty CIGAR
    // rather than memory the buffer does not own.
    if c.end_offset <= c.begin_offset
        || c.begin_offset < 0
        || c.end_offset > c.max_operations
        || c.operations.is_null()
    {
        return &[];
    }
    // SAFETY: the buffer covers [begin, end) per the contract.
    unsafe {
        std::slice::from_raw_parts(
            c.operations.add(c.begin_offset as usize) as *const u8,
            (c.end_offset - c.begin_offset) as usize,
        )
    }
}

/// Allocates a CIGAR of `max_operations` bytes from `mm_allocator`.
///
/// # Safety
/// `mm_allocator` must be a live allocator from `mm_allocator_new`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_new(
    max_operations: c_int,
    mm_allocator: *mut mm_allocator_t,
) -> *mut cigar_t {
    ffi_guard!(std::ptr::null_mut(), {
        // SAFETY: live allocator per the contract.
        unsafe { new(max_operations, mm_allocator) }
    })
}

/// # Safety
/// As [`cigar_new`].
pub(crate) unsafe fn new(max_operations: c_int, mm: *mut mm_allocator_t) -> *mut cigar_t {
    // SAFETY: live allocator per the contract.
    let cigar = unsafe { allocate(mm, size_of::<cigar_t>() as u64, false, 8) } as *mut cigar_t;
    if cigar.is_null() {
        return cigar;
    }
    // SAFETY: live allocator per the contract.
    let ops = unsafe { allocate(mm, max_operations.max(0) as u64, false, 8) } as *mut c_char;
    // SAFETY: `cigar` is a fresh block of the right size.
    unsafe {
        cigar.write(cigar_t {
            operations: ops,
            max_operations,
            begin_offset: 0,
            end_offset: 0,
            score: i32::MIN,
            mm_allocator: mm,
        })
    };
    cigar
}

/// Empties the CIGAR (score `INT32_MIN`).
///
/// # Safety
/// `cigar` must point to a valid `cigar_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_clear(cigar: *mut cigar_t) {
    ffi_guard!((), {
        // SAFETY: null or a valid cigar per the contract.
        let Some(c) = (unsafe { cigar.as_mut() }) else {
            return;
        };
        c.begin_offset = 0;
        c.end_offset = 0;
        c.score = i32::MIN;
    })
}

/// Grows the buffer when `max_operations` exceeds it (contents are not kept)
/// and empties the CIGAR.
///
/// # Safety
/// `cigar` must point to a valid `cigar_t` from [`cigar_new`].
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_resize(cigar: *mut cigar_t, max_operations: c_int) {
    ffi_guard!((), {
        // SAFETY: forwarded contract.
        unsafe { resize(cigar, max_operations) }
    })
}

/// # Safety
/// As [`cigar_resize`].
pub(crate) unsafe fn resize(cigar: *mut cigar_t, max_operations: c_int) {
    // SAFETY: null or a valid cigar per the contract.
    let Some(c) = (unsafe { cigar.as_mut() }) else {
        return;
    };
    if max_operations > c.max_operations {
        c.max_operations = max_operations;
        // SAFETY: the buffer came from this cigar's allocator.
        unsafe {
            free(c.mm_allocator, c.operations.cast());
            c.operations = allocate(c.mm_allocator, max_operations as u64, false, 8).cast();
        }
    }
    c.begin_offset = 0;
    c.end_offset = 0;
    c.score = i32::MIN;
}

/// The CIGAR behind `cigar` when it is non-null and its buffer can take
/// operations up to index `end` (exclusive). 2.3.3 writes past the buffer
/// in that case; seqshim prints one line and writes nothing more (callers
/// check before they write, except `cigar_add_mismatches`, which marks its
/// mismatches in place as 2.3.3 does before it pads).
///
/// # Safety
/// `cigar` must be null or point to a valid `cigar_t`.
unsafe fn with_room<'a>(cigar: *mut cigar_t, end: i64, who: &str) -> Option<&'a mut cigar_t> {
    // SAFETY: null or valid per the contract.
    let c = unsafe { cigar.as_mut() }?;
    has_room(c, end, who).then_some(c)
}

/// Whether `c` has a buffer, a sane end and room for index `end - 1`;
/// prints why not.
fn has_room(c: &cigar_t, end: i64, who: &str) -> bool {
    if c.operations.is_null() || end > i64::from(c.max_operations) || c.end_offset < 0 {
        io::eprint(
            format!(
                "[CIGAR] {who}: not enough room ({end} > {} operations)\n",
                c.max_operations
            )
            .as_bytes(),
        );
        return false;
    }
    true
}

/// Releases the CIGAR and its buffer.
///
/// # Safety
/// `cigar` must come from [`cigar_new`] and not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_free(cigar: *mut cigar_t) {
    ffi_guard!((), {
        if cigar.is_null() {
            return;
        }
        // SAFETY: valid cigar from cigar_new per the contract.
        unsafe {
            let mm = (*cigar).mm_allocator;
            free(mm, (*cigar).operations.cast());
            free(mm, cigar as *mut c_void);
        }
    })
}

/// Counts the `M` operations.
///
/// # Safety
/// `cigar` must point to a valid `cigar_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_get_matches(cigar: *mut cigar_t) -> c_int {
    // SAFETY: valid cigar per the contract.
    ffi_guard!(0, { cigar_ops::matches(unsafe { ops(cigar) }) as c_int })
}

/// Turns `M` operations whose bases differ into `X`, then pads the CIGAR with
/// `D`/`I` for whatever of the sequences it did not cover.
///
/// # Safety
/// The sequences must be readable for their lengths and `cigar`'s buffer
/// large enough for the padding plus a NUL. An operation other than
/// `M`/`I`/`D` prints upstream's message and stops there (2.3.3 exits).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_add_mismatches(
    pattern: *mut c_char,
    pattern_length: c_int,
    text: *mut c_char,
    text_length: c_int,
    cigar: *mut cigar_t,
) {
    ffi_guard!((), {
        // SAFETY: null or a valid cigar per the contract.
        let Some(c) = (unsafe { cigar.as_mut() }) else {
            return;
        };
        const WHO: &str = "cigar_add_mismatches";
        if !has_room(c, i64::from(c.end_offset), WHO)
            || c.begin_offset < 0
            || (c.end_offset > 0 && (pattern.is_null() || text.is_null()))
        {
            return;
        }
        // A null sequence is only possible with an empty CIGAR (checked
        // above), whose walk reads nothing: it is then viewed as empty.
        let len_or_empty = |p: *mut c_char, len: c_int| {
            if p.is_null() {
                0
            } else {
                usize::try_from(len).unwrap_or(0)
            }
        };
        let (plen, tlen) = (
            len_or_empty(pattern, pattern_length),
            len_or_empty(text, text_length),
        );
        // SAFETY: the sequences are readable for their lengths and the
        // CIGAR's range lies in its buffer, per the contract.
        let (Some(pat), Some(txt), Some(ops)) = (unsafe {
            (
                guard::bytes(pattern.cast_const().cast(), plen),
                guard::bytes(text.cast_const().cast(), tlen),
                guard::bytes_mut(
                    c.operations.add(c.begin_offset as usize).cast(),
                    (c.end_offset - c.begin_offset).max(0) as usize,
                ),
            )
        }) else {
            return;
        };
        let Ok((walked, p, t)) = cigar_ops::mark_mismatches(ops, pat, txt) else {
            io::eprint(b"[CIGAR] Wrong edit operation\n");
            return;
        };
        let (mut i, mut p, mut t) = (c.begin_offset + walked as c_int, p as c_int, t as c_int);
        // The padding, then a NUL, must fit (a high-memory CIGAR ends at the
        // end of its buffer: only a complete one fits there, as upstream).
        // Each side pads only what it lacks (a negative length pads nothing
        // and must not cancel the other side's padding).
        let lacking = |len: c_int, done: c_int| (i64::from(len) - i64::from(done)).max(0);
        let padding = lacking(pattern_length, p) + lacking(text_length, t);
        if !has_room(c, i64::from(i) + padding + 1, WHO) {
            return;
        }
        while p < pattern_length {
            // SAFETY: the buffer has room (checked above).
            unsafe { *c.operations.add(i as usize) = b'D' as c_char };
            i += 1;
            p += 1;
        }
        while t < text_length {
            // SAFETY: the buffer has room (checked above).
            unsafe { *c.operations.add(i as usize) = b'I' as c_char };
            i += 1;
            t += 1;
        }
        c.end_offset = i;
        // SAFETY: the buffer has room for the NUL (checked above).
        unsafe { *c.operations.add(i as usize) = 0 };
    })
}

/// Edit distance of the CIGAR (positive); `INT_MIN` on an unknown operation.
///
/// # Safety
/// `cigar` must point to a valid `cigar_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_score_edit(cigar: *mut cigar_t) -> c_int {
    ffi_guard!(i32::MIN, {
        // SAFETY: valid cigar per the contract.
        let ops = unsafe { ops(cigar) };
        cigar_ops::score_edit(ops).unwrap_or(i32::MIN)
    })
}

/// Gap-linear score (`score -= penalty`); `INT_MIN` on an unknown operation.
///
/// # Safety
/// `cigar` and `penalties` must each be null (the score is then 0) or
/// point to a valid object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_score_gap_linear(
    cigar: *mut cigar_t,
    penalties: *mut linear_penalties_t,
) -> c_int {
    ffi_guard!(i32::MIN, {
        // SAFETY: null or valid per the contract. Given NULL, a CIGAR
        // function does nothing and counts 0 (2.3.3 crashes).
        let Some(pen) = (unsafe { penalties.as_ref() }) else {
            return 0;
        };
        let pen = LinearPenalties {
            match_score: pen.match_,
            mismatch: pen.mismatch,
            indel: pen.indel,
        };
        // SAFETY: valid cigar per the contract.
        cigar_ops::score_gap_linear(unsafe { ops(cigar) }, &pen).unwrap_or(i32::MIN)
    })
}

const UNKNOWN_OP: &[u8] = b"[CIGAR] Computing CIGAR score: Unknown operation\n";

/// Gap-affine score (`score -= penalty`). An unknown operation prints
/// upstream's message and returns `INT_MIN` (2.3.3 exits).
///
/// # Safety
/// `cigar` and `penalties` must each be null (the score is then 0) or
/// point to a valid object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_score_gap_affine(
    cigar: *mut cigar_t,
    penalties: *mut affine_penalties_t,
) -> c_int {
    ffi_guard!(i32::MIN, {
        // SAFETY: null or valid per the contract. Given NULL, a CIGAR
        // function does nothing and counts 0 (2.3.3 crashes).
        let Some(pen) = (unsafe { penalties.as_ref() }) else {
            return 0;
        };
        let pen = AffinePenalties {
            match_score: pen.match_,
            mismatch: pen.mismatch,
            gap_opening: pen.gap_opening,
            gap_extension: pen.gap_extension,
        };
        // SAFETY: valid cigar per the contract.
        cigar_ops::score_gap_affine(unsafe { ops(cigar) }, &pen).unwrap_or_else(|_| {
            io::eprint(UNKNOWN_OP);
            i32::MIN
        })
    })
}

/// Gap-affine-2p score over runs of equal operations. An unknown operation,
/// or an empty CIGAR (2.3.3 scores the NUL "operation" then), prints
/// upstream's message and returns `INT_MIN` (2.3.3 exits).
///
/// # Safety
/// `cigar` and `penalties` must each be null (the score is then 0) or
/// point to a valid object.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_score_gap_affine2p(
    cigar: *mut cigar_t,
    penalties: *mut affine2p_penalties_t,
) -> c_int {
    ffi_guard!(i32::MIN, {
        if cigar.is_null() {
            return 0;
        }
        // SAFETY: null or valid per the contract. Given NULL, a CIGAR
        // function does nothing and counts 0 (2.3.3 crashes).
        let Some(pen) = (unsafe { penalties.as_ref() }) else {
            return 0;
        };
        let pen = Affine2pPenalties {
            match_score: pen.match_,
            mismatch: pen.mismatch,
            gap_opening1: pen.gap_opening1,
            gap_extension1: pen.gap_extension1,
            gap_opening2: pen.gap_opening2,
            gap_extension2: pen.gap_extension2,
        };
        // SAFETY: valid cigar per the contract.
        cigar_ops::score_gap_affine2p(unsafe { ops(cigar) }, &pen).unwrap_or_else(|_| {
            io::eprint(UNKNOWN_OP);
            i32::MIN
        })
    })
}

/// Orders two CIGARs: by length first, then by the first differing byte.
///
/// # Safety
/// Both must point to valid `cigar_t`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_cmp(cigar_a: *mut cigar_t, cigar_b: *mut cigar_t) -> c_int {
    ffi_guard!(0, {
        // SAFETY: both valid per the contract.
        let (a, b) = unsafe { (ops(cigar_a), ops(cigar_b)) };
        cigar_ops::compare(a, b)
    })
}

/// Copies offsets, score and operations (to the same offsets) from
/// `cigar_src` into `cigar_dst`. The capacity field becomes the smaller of
/// the two (upstream copies the source's, and a later append could then
/// run past the destination's buffer).
///
/// # Safety
/// Both must be valid; `cigar_dst`'s buffer must cover the source's range.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_copy(cigar_dst: *mut cigar_t, cigar_src: *mut cigar_t) {
    ffi_guard!((), {
        // SAFETY: valid per the contract.
        unsafe {
            let Some(s) = cigar_src.as_ref() else {
                return;
            };
            let Some(d) = with_room(cigar_dst, i64::from(s.end_offset), "cigar_copy") else {
                return;
            };
            if s.begin_offset < 0 || s.end_offset > s.max_operations || s.operations.is_null() {
                return;
            }
            // Upstream takes the source's capacity; a smaller destination
            // keeps its own, so that later appends check the real buffer.
            d.max_operations = d.max_operations.min(s.max_operations);
            d.begin_offset = s.begin_offset;
            d.end_offset = s.end_offset;
            d.score = s.score;
            let n = (s.end_offset - s.begin_offset).max(0) as usize;
            std::ptr::copy(
                s.operations.add(s.begin_offset as usize),
                d.operations.add(s.begin_offset as usize),
                n,
            );
        }
    })
}

/// Appends the source's operations after the destination's.
///
/// # Safety
/// Both must be valid; the destination's buffer must have room.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_append(cigar_dst: *mut cigar_t, cigar_src: *mut cigar_t) {
    ffi_guard!((), {
        // SAFETY: valid per the contract.
        unsafe {
            let src = ops(cigar_src);
            let Some(d) = cigar_dst.as_ref() else {
                return;
            };
            let end = i64::from(d.end_offset) + src.len() as i64;
            let Some(d) = with_room(cigar_dst, end, "cigar_append") else {
                return;
            };
            std::ptr::copy(
                src.as_ptr(),
                d.operations.add(d.end_offset as usize) as *mut u8,
                src.len(),
            );
            d.end_offset += src.len() as c_int;
        }
    })
}

/// # Safety
/// `cigar` must be valid with room for `length` more operations.
unsafe fn append_run(cigar: *mut cigar_t, op: u8, length: c_int) {
    // SAFETY: valid with room per the contract.
    unsafe {
        let Some(c) = cigar.as_ref() else {
            return;
        };
        let end = i64::from(c.end_offset) + i64::from(length.max(0));
        let Some(c) = with_room(cigar, end, "cigar_append") else {
            return;
        };
        if length > 0 {
            std::ptr::write_bytes(c.operations.add(c.end_offset as usize), op, length as usize);
        }
        c.end_offset += length;
    }
}

/// Appends `length` `D` operations.
///
/// # Safety
/// `cigar` must be valid with room for `length` more operations.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_append_deletion(cigar: *mut cigar_t, length: c_int) {
    // SAFETY: forwarded contract.
    ffi_guard!((), { unsafe { append_run(cigar, b'D', length) } })
}

/// Appends `length` `I` operations.
///
/// # Safety
/// `cigar` must be valid with room for `length` more operations.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_append_insertion(cigar: *mut cigar_t, length: c_int) {
    // SAFETY: forwarded contract.
    ffi_guard!((), { unsafe { append_run(cigar, b'I', length) } })
}

/// Checks that the CIGAR aligns `pattern` to `text`: every `M` matches,
/// every `X` mismatches, and both sequences are consumed exactly. With
/// `verbose`, the first problem is described on `stream`. An unknown
/// operation prints upstream's message to stderr and returns false (2.3.3
/// exits).
///
/// # Safety
/// The sequences must be readable as far as the CIGAR walks them; `stream`
/// must be a valid `FILE*` when `verbose`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_check_alignment(
    stream: *mut libc::FILE,
    pattern: *const c_char,
    pattern_length: c_int,
    text: *const c_char,
    text_length: c_int,
    cigar: *mut cigar_t,
    verbose: bool,
) -> bool {
    ffi_guard!(false, {
        // SAFETY: valid cigar per the contract.
        let ops = unsafe { ops(cigar) };
        let (p_len, t_len) = cigar_ops::extents(ops);
        // SAFETY: readable as far as the CIGAR walks them, per the contract
        // (a CIGAR that walks nowhere reads nothing, null or not).
        let (Some(pattern), Some(text)) =
            (unsafe { guard::bytes(pattern.cast(), p_len) }, unsafe {
                guard::bytes(text.cast(), t_len)
            })
        else {
            return false;
        };
        let problem =
            match cigar_ops::check_alignment(ops, pattern, pattern_length, text, text_length) {
                Ok(()) => return true,
                Err(problem) => problem,
            };
        let line = match problem {
            AlignmentProblem::Unknown(UnknownOp(op)) => {
                // Printed whatever `verbose` says (2.3.3 exits here).
                let mut line = b"[AlignCheck] Unknown edit operation '".to_vec();
                line.push(op);
                line.extend_from_slice(b"'\n");
                io::eprint(&line);
                return false;
            }
            _ if !verbose => return false,
            AlignmentProblem::Wrong {
                matching,
                p,
                t,
                pattern_base,
                text_base,
            } => {
                let (what, rel) = if matching {
                    ("not matching", "!=")
                } else {
                    ("not mismatching", "==")
                };
                let mut line = format!("[AlignCheck] Alignment {what} (pattern[{p}]=").into_bytes();
                line.push(pattern_base);
                line.extend_from_slice(format!(" {rel} text[{t}]=").as_bytes());
                line.push(text_base);
                line.extend_from_slice(b")\n");
                line
            }
            AlignmentProblem::PatternLength { aligned, length } => format!(
                "[AlignCheck] Alignment incorrect length \
                 (pattern-aligned={aligned},pattern-length={length})\n"
            )
            .into_bytes(),
            AlignmentProblem::TextLength { aligned, length } => format!(
                "[AlignCheck] Alignment incorrect length \
                 (text-aligned={aligned},text-length={length})\n"
            )
            .into_bytes(),
        };
        Stream(stream).write(&line);
        false
    })
}

/// Prints the run-length CIGAR to `stream`.
///
/// # Safety
/// `stream` must be a valid `FILE*` and `cigar` a valid `cigar_t`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_print(
    stream: *mut libc::FILE,
    cigar: *mut cigar_t,
    print_matches: bool,
) {
    ffi_guard!((), {
        // SAFETY: valid per the contract.
        Stream(stream).write(&cigar_ops::run_length_text(
            unsafe { ops(cigar) },
            print_matches,
        ));
    })
}

/// Writes the run-length CIGAR and a NUL into `buffer`; returns its length.
///
/// # Safety
/// `buffer` must be null (nothing is written, 0 returned) or have room for
/// the text and the NUL; `cigar` must be null or valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_sprint(
    buffer: *mut c_char,
    cigar: *mut cigar_t,
    print_matches: bool,
) -> c_int {
    ffi_guard!(0, {
        if buffer.is_null() {
            return 0;
        }
        // SAFETY: valid per the contract.
        let text = cigar_ops::run_length_text(unsafe { ops(cigar) }, print_matches);
        // SAFETY: the buffer has room per the contract.
        unsafe {
            std::ptr::copy_nonoverlapping(text.as_ptr(), buffer as *mut u8, text.len());
            *buffer.add(text.len()) = 0;
        }
        text.len() as c_int
    })
}

/// Prints the alignment as three rows (pattern, markers, text) after its
/// CIGAR. As in 2.3.3, the two CIGAR renderings go to stderr whatever
/// `stream` is; their labels and the rows go to `stream`.
///
/// # Safety
/// `stream` must be a valid `FILE*`, the sequences readable for their
/// lengths and as far as the CIGAR walks, and `cigar` valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn cigar_print_pretty(
    stream: *mut libc::FILE,
    pattern: *const c_char,
    pattern_length: c_int,
    text: *const c_char,
    text_length: c_int,
    cigar: *mut cigar_t,
    _mm_allocator: *mut mm_allocator_t,
) {
    ffi_guard!((), {
        // SAFETY: valid cigar per the contract.
        let ops = unsafe { ops(cigar) };
        // The rows show each sequence in full and wherever the CIGAR walks:
        // a NULL sequence with something to show prints nothing.
        let (p_walk, t_walk) = cigar_ops::extents(ops);
        let shown = |walk: usize, length: c_int| walk.max(length.max(0) as usize);
        if (pattern.is_null() && shown(p_walk, pattern_length) > 0)
            || (text.is_null() && shown(t_walk, text_length) > 0)
        {
            return;
        }
        let out = Stream(stream);
        let len = (pattern_length.max(0) + text_length.max(0) + 1) as usize;
        let (mut pat, mut mid, mut txt) = (vec![0u8; len], vec![0u8; len], vec![0u8; len]);
        // SAFETY: readable per the contract.
        let pc = |i: i32| unsafe { *pattern.add(i as usize) } as u8;
        // SAFETY: readable per the contract.
        let tc = |i: i32| unsafe { *text.add(i as usize) } as u8;
        let (mut a, mut p, mut t) = (0usize, 0i32, 0i32);
        for &op in ops {
            match op {
                b'M' | b'X' => {
                    let differ = pc(p) != tc(t);
                    pat[a] = pc(p);
                    txt[a] = tc(t);
                    mid[a] = match (op, differ) {
                        (b'M', true) => b'X',
                        (b'M', false) => b'|',
                        (_, true) => b' ',
                        (_, false) => b'X',
                    };
                    p += 1;
                    t += 1;
                    a += 1;
                }
                b'I' => {
                    pat[a] = b'-';
                    mid[a] = b' ';
                    txt[a] = tc(t);
                    t += 1;
                    a += 1;
                }
                b'D' => {
                    pat[a] = pc(p);
                    mid[a] = b' ';
                    txt[a] = b'-';
                    p += 1;
                    a += 1;
                }
                _ => {}
            }
        }
        let mut i = 0;
        while p < pattern_length {
            pat[a + i] = pc(p);
            mid[a + i] = b'?';
            p += 1;
            i += 1;
        }
        i = 0;
        while t < text_length {
            txt[a + i] = tc(t);
            mid[a + i] = b'?';
            t += 1;
            i += 1;
        }
        let cstr = |v: &[u8]| -> Vec<u8> { v.iter().copied().take_while(|&b| b != 0).collect() };
        let err = Stream(io::stderr_stream());
        out.write(b"      ALIGNMENT\t");
        err.write(&cigar_ops::run_length_text(ops, true));
        out.write(b"\n");
        out.write(b"      ALIGNMENT.COMPACT\t");
        err.write(&cigar_ops::run_length_text(ops, false));
        out.write(b"\n");
        for (label, row) in [
            (&b"      PATTERN    "[..], &pat),
            (&b"                 "[..], &mid),
            (&b"      TEXT       "[..], &txt),
        ] {
            let mut line = label.to_vec();
            line.extend_from_slice(&cstr(row));
            line.push(b'\n');
            out.write(&line);
        }
    })
}
