//! Moving BOA data between caller memory and the `poa` family's Rust types,
//! with upstream's allocation discipline: everything a BOA client later
//! frees (or that `free_lpo_sequence` frees) comes from libc `calloc`,
//! `malloc` or `realloc`, one heap node per extra link or source entry, so
//! that upstream-style code can walk and free what we build and we can free
//! what it built.

use std::ffi::{CStr, c_char, c_int};
use std::ptr;

use super::types::{
    LpoLetter, LpoLetterLink, LpoLetterSource, LpoNumericData, LpoSequence, LpoSourceInfo,
    NAME_MAX, ResidueScoreMatrix, SYMBOL_MAX,
};
use crate::poa::graph::NodeList;
use crate::poa::{Letter, Link, Lpo, ScoreMatrix, SourceInfo, SourceRef};

/// Upstream's `SOURCE_SEQ_BUFFER_CHUNK`: `source_seq` grows by this many.
const SOURCE_CHUNK: usize = 16;

/// Upstream aborts when an allocation fails; a panic here is contained by
/// the export's guard and becomes the function's failure value instead.
fn out_of_memory(what: &str) -> ! {
    panic!("out of memory allocating {what}")
}

/// `n` zeroed elements from libc `calloc`; null for `n == 0`, as upstream's
/// `CALLOC` allocates nothing for an empty request.
///
/// # Safety
/// `T` must be valid when all-zero (plain C data and raw pointers).
pub unsafe fn calloc_array<T>(n: usize) -> *mut T {
    if n == 0 {
        return ptr::null_mut();
    }
    // SAFETY: calloc has no preconditions; the result is checked for null.
    let p = unsafe { libc::calloc(n, size_of::<T>()) }.cast::<T>();
    if p.is_null() {
        out_of_memory("an array");
    }
    p
}

/// A `malloc`ed NUL-terminated copy of `bytes`.
pub fn strdup_bytes(bytes: &[u8]) -> *mut c_char {
    // SAFETY: malloc has no preconditions; the copy stays inside the block.
    unsafe {
        let p = libc::malloc(bytes.len() + 1).cast::<u8>();
        if p.is_null() {
            out_of_memory("a string");
        }
        ptr::copy_nonoverlapping(bytes.as_ptr(), p, bytes.len());
        *p.add(bytes.len()) = 0;
        p.cast()
    }
}

/// The bytes of a C string, without its NUL; empty for null.
///
/// # Safety
/// `p` must be null or point to a NUL-terminated string that outlives `'a`.
pub unsafe fn c_str<'a>(p: *const c_char) -> &'a [u8] {
    if p.is_null() {
        return &[];
    }
    // SAFETY: NUL-terminated per this function's contract.
    unsafe { CStr::from_ptr(p) }.to_bytes()
}

/// At most `max` bytes of a C string, stopping at its NUL: like upstream's
/// `strncpy` into a fixed buffer, never reads past `max` bytes.
///
/// # Safety
/// `p` must be null, or readable up to its NUL or `max` bytes, whichever
/// comes first, for `'a`.
pub unsafe fn c_str_bounded<'a>(p: *const c_char, max: usize) -> &'a [u8] {
    if p.is_null() {
        return &[];
    }
    // SAFETY: strnlen reads at most `max` bytes, all readable per the contract.
    let n = unsafe { libc::strnlen(p, max) };
    // SAFETY: the `n` bytes were just read by strnlen.
    unsafe { std::slice::from_raw_parts(p.cast(), n) }
}

/// A fixed name buffer up to its first NUL (all of it if there is none).
pub fn name_bytes(name: &[c_char; NAME_MAX]) -> Vec<u8> {
    name.iter()
        .take_while(|&&c| c != 0)
        .map(|&c| c as u8)
        .collect()
}

/// Upstream's `STRNCPY(dst, src, 128)`: `strncpy` (copy, then pad with NULs)
/// and force the last byte to NUL, so at most 127 bytes survive.
pub fn set_name(dst: &mut [c_char; NAME_MAX], src: &[u8]) {
    let src = match src.iter().position(|&c| c == 0) {
        Some(z) => &src[..z],
        None => src,
    };
    for (i, d) in dst.iter_mut().enumerate() {
        *d = src.get(i).map_or(0, |&c| c as c_char);
    }
    dst[NAME_MAX - 1] = 0;
}

/// C's `isspace` in the "C" locale.
pub fn is_c_space(c: u8) -> bool {
    matches!(c, b' ' | b'\t' | b'\n' | 0x0b | 0x0c | b'\r')
}

// ------------------------------------------------------------------ reading

/// A link list as upstream walks it: from the head, stopping at the first
/// negative position.
///
/// # Safety
/// Every `more` pointer reachable from `head` must be null or valid.
unsafe fn read_links(head: &LpoLetterLink) -> NodeList<Link> {
    let mut out = NodeList::default();
    let mut link: *const LpoLetterLink = head;
    // SAFETY: each pointer is the head or a `more` node, valid per contract.
    while let Some(l) = unsafe { link.as_ref() } {
        if l.ipos < 0 {
            break;
        }
        out.push(Link {
            ipos: l.ipos,
            score: l.score,
        });
        link = l.more;
    }
    out
}

/// A source list; a blank head (position −1) means no sources.
///
/// # Safety
/// Every `more` pointer reachable from `head` must be null or valid.
unsafe fn read_sources(head: &LpoLetterSource) -> NodeList<SourceRef> {
    let mut out = NodeList::default();
    let mut src: *const LpoLetterSource = head;
    // SAFETY: each pointer is the head or a `more` node, valid per contract.
    while let Some(s) = unsafe { src.as_ref() } {
        if s.ipos < 0 || s.iseq < 0 {
            break;
        }
        out.push(SourceRef {
            iseq: s.iseq,
            ipos: s.ipos,
        });
        src = s.more;
    }
    out
}

/// # Safety
/// `letter` must be null with `len == 0`, or valid for `len` letters whose
/// lists are well formed.
pub unsafe fn read_letters(letter: *const LpoLetter, len: usize) -> Vec<Letter> {
    if letter.is_null() || len == 0 {
        return Vec::new();
    }
    // SAFETY: valid for `len` letters per contract.
    let letters = unsafe { std::slice::from_raw_parts(letter, len) };
    letters
        .iter()
        .map(|l| Letter {
            // SAFETY: the letters' lists are well formed per contract.
            left: unsafe { read_links(&l.left) },
            // SAFETY: as above.
            right: unsafe { read_links(&l.right) },
            // SAFETY: as above.
            source: unsafe { read_sources(&l.source) },
            align_ring: l.align_ring,
            ring_id: l.ring_id,
            score: l.score,
            letter: l.letter as u8,
        })
        .collect()
}

/// # Safety
/// `info` must be null with `n == 0`, or valid for `n` entries whose titles
/// are null or NUL-terminated.
pub unsafe fn read_source_infos(info: *const LpoSourceInfo, n: usize) -> Vec<SourceInfo> {
    if info.is_null() || n == 0 {
        return Vec::new();
    }
    // SAFETY: valid for `n` entries per contract.
    let infos = unsafe { std::slice::from_raw_parts(info, n) };
    infos
        .iter()
        .map(|s| SourceInfo {
            name: String::from_utf8_lossy(&name_bytes(&s.name)).into_owned(),
            // SAFETY: null or NUL-terminated per contract.
            title: String::from_utf8_lossy(unsafe { c_str(s.title) }).into_owned(),
            length: s.length,
            istart: s.istart,
            weight: s.weight,
            bundle_id: s.bundle_id,
        })
        .collect()
}

/// The graph and sources of `seq` (the residue string is not needed by the
/// algorithms once letters exist).
///
/// # Safety
/// `seq` must be a well-formed LPO: `letter` valid for `length` letters (or
/// null), `source_seq` valid for `nsource_seq` entries (or null).
pub unsafe fn read_lpo(seq: &LpoSequence) -> Lpo {
    let len = usize::try_from(seq.length).unwrap_or(0);
    let nsrc = usize::try_from(seq.nsource_seq).unwrap_or(0);
    Lpo {
        name: String::new(),
        title: String::new(),
        sequence: Vec::new(),
        // SAFETY: forwarded from this function's contract.
        letters: unsafe { read_letters(seq.letter, len) },
        // SAFETY: forwarded from this function's contract.
        sources: unsafe { read_source_infos(seq.source_seq, nsrc) },
    }
}

/// The caller's matrix as the family's Rust type. Only what alignment reads
/// is copied (`best_match` and the frequency table are not used by it).
pub fn matrix_from_c(m: &ResidueScoreMatrix) -> Result<ScoreMatrix, String> {
    let n = usize::try_from(m.nsymbol).unwrap_or(0);
    if n == 0 || n >= SYMBOL_MAX {
        return Err(format!(
            "score matrix has {} symbols (expected 1 to 127; was read_score_matrix successful?)",
            m.nsymbol
        ));
    }
    let max_gap = m.max_gap_length;
    if !(0..=crate::poa::matrix::MAX_GAP_LENGTH).contains(&max_gap) {
        return Err(format!("score matrix has max_gap_length {max_gap}"));
    }
    if m.gap_penalty_x.is_null() || m.gap_penalty_y.is_null() {
        return Err("score matrix has no gap penalty arrays".into());
    }
    let gaps = max_gap as usize + 2;
    // SAFETY: read_score_matrix allocates max_gap_length + 2 entries for each.
    let (gx, gy) = unsafe {
        (
            std::slice::from_raw_parts(m.gap_penalty_x, gaps).to_vec(),
            std::slice::from_raw_parts(m.gap_penalty_y, gaps).to_vec(),
        )
    };
    let mut score = Vec::with_capacity(n * n);
    for row in &m.score[..n] {
        score.extend_from_slice(&row[..n]);
    }
    Ok(ScoreMatrix {
        symbols: m.symbol[..n].iter().map(|&c| c as u8).collect(),
        score,
        best_match: Vec::new(),
        gap_penalty_set: m.gap_penalty_set,
        trunc_gap_length: m.trunc_gap_length,
        decay_gap_length: m.decay_gap_length,
        max_gap_length: max_gap,
        gap_penalty_x: gx,
        gap_penalty_y: gy,
    })
}

// ------------------------------------------------------------------ freeing

/// Frees the heap nodes of every letter's lists (not the array itself),
/// as upstream's `free_lpo_letters` does.
///
/// # Safety
/// `letter` must be null or valid for `len` letters whose `more` nodes were
/// allocated with libc and are owned by these letters.
pub unsafe fn free_letter_lists(letter: *mut LpoLetter, len: usize) {
    if letter.is_null() {
        return;
    }
    for i in 0..len {
        // SAFETY: i < len; the nodes are libc allocations owned by the letter.
        unsafe {
            let l = &mut *letter.add(i);
            let mut link = l.left.more;
            while !link.is_null() {
                let next = (*link).more;
                libc::free(link.cast());
                link = next;
            }
            let mut link = l.right.more;
            while !link.is_null() {
                let next = (*link).more;
                libc::free(link.cast());
                link = next;
            }
            let mut src = l.source.more;
            while !src.is_null() {
                let next = (*src).more;
                libc::free(src.cast());
                src = next;
            }
            l.left.more = ptr::null_mut();
            l.right.more = ptr::null_mut();
            l.source.more = ptr::null_mut();
        }
    }
}

/// Frees what each source entry owns (title, residue copy, index maps,
/// numeric data), as upstream's `free_lpo_sourceinfo` does.
///
/// # Safety
/// `info` must be null or valid for `n` entries whose pointers are null or
/// libc allocations they own.
pub unsafe fn free_source_infos(info: *mut LpoSourceInfo, n: usize) {
    if info.is_null() {
        return;
    }
    for i in 0..n {
        // SAFETY: i < n; owned libc allocations per contract.
        unsafe {
            let s = &mut *info.add(i);
            libc::free(s.title.cast());
            libc::free(s.sequence.cast());
            libc::free(s.seq_to_po.cast());
            libc::free(s.po_to_seq.cast());
            if !s.data.is_null() {
                for k in 0..usize::try_from(s.ndata).unwrap_or(0) {
                    let d: &mut LpoNumericData = &mut *s.data.add(k);
                    libc::free(d.title.cast());
                    libc::free(d.data.cast());
                }
                libc::free(s.data.cast());
            }
            s.title = ptr::null_mut();
            s.sequence = ptr::null_mut();
            s.seq_to_po = ptr::null_mut();
            s.po_to_seq = ptr::null_mut();
            s.data = ptr::null_mut();
        }
    }
}

// ------------------------------------------------------------------ writing

fn write_links(head: &mut LpoLetterLink, links: &[Link]) {
    head.more = ptr::null_mut();
    let Some((first, rest)) = links.split_first() else {
        head.ipos = -1;
        head.score = 0;
        return;
    };
    head.ipos = first.ipos;
    head.score = first.score;
    let mut tail: *mut LpoLetterLink = head;
    for l in rest {
        // SAFETY: a zeroed link node is valid; tail is the head or a node we
        // just allocated.
        unsafe {
            let node = calloc_array::<LpoLetterLink>(1);
            (*node).ipos = l.ipos;
            (*node).score = l.score;
            (*tail).more = node;
            tail = node;
        }
    }
}

fn write_sources(head: &mut LpoLetterSource, sources: &[SourceRef]) {
    head.more = ptr::null_mut();
    let Some((first, rest)) = sources.split_first() else {
        head.iseq = 0;
        head.ipos = -1;
        return;
    };
    head.iseq = first.iseq;
    head.ipos = first.ipos;
    let mut tail: *mut LpoLetterSource = head;
    for s in rest {
        // SAFETY: a zeroed source node is valid; tail is the head or a node
        // we just allocated.
        unsafe {
            let node = calloc_array::<LpoLetterSource>(1);
            (*node).iseq = s.iseq;
            (*node).ipos = s.ipos;
            (*tail).more = node;
            tail = node;
        }
    }
}

/// Fills `dst` (whose lists must already be free) from `l`.
pub fn write_letter(dst: &mut LpoLetter, l: &Letter) {
    write_links(&mut dst.left, &l.left);
    write_links(&mut dst.right, &l.right);
    write_sources(&mut dst.source, &l.source);
    dst.align_ring = l.align_ring;
    dst.ring_id = l.ring_id;
    dst.score = l.score;
    dst.letter = l.letter as c_char;
}

/// Upstream's `save_lpo_source`: grows `source_seq` the way its `REBUFF`
/// does (16 zeroed entries at a time) and fills the new entry.
///
/// # Safety
/// `holder.source_seq` must be null (with `nsource_seq == 0`) or a libc
/// allocation holding at least `nsource_seq` entries and sized as `REBUFF`
/// sizes it.
pub unsafe fn push_source(
    holder: &mut LpoSequence,
    name: &[u8],
    title: &[u8],
    length: c_int,
    weight: c_int,
    bundle_id: c_int,
) -> c_int {
    let n = usize::try_from(holder.nsource_seq).unwrap_or(0);
    if n == 0 {
        // SAFETY: zeroed source entries are valid.
        holder.source_seq = unsafe { calloc_array::<LpoSourceInfo>(SOURCE_CHUNK) };
    } else if n % SOURCE_CHUNK == 0 {
        let bytes = (n + SOURCE_CHUNK) * size_of::<LpoSourceInfo>();
        // SAFETY: source_seq is a libc allocation per contract; the new
        // chunk is zeroed before use.
        unsafe {
            let p = libc::realloc(holder.source_seq.cast(), bytes).cast::<LpoSourceInfo>();
            if p.is_null() {
                out_of_memory("source_seq");
            }
            ptr::write_bytes(p.add(n), 0, SOURCE_CHUNK);
            holder.source_seq = p;
        }
    }
    // SAFETY: entry n lies inside the allocation per the REBUFF sizing.
    let entry = unsafe { &mut *holder.source_seq.add(n) };
    entry.title = strdup_bytes(title);
    entry.length = length;
    entry.weight = weight;
    entry.bundle_id = bundle_id;
    set_name(&mut entry.name, name);
    holder.nsource_seq += 1;
    n as c_int
}

/// Replaces the graph in `holder` by `lpo`, the way upstream's in-place
/// fusion leaves it: the letter array is `realloc`ed to the new length and
/// rewritten, existing source entries keep their strings and get their
/// counters updated, new source entries are appended with
/// [`push_source`]. `origins[k]`, when present, is the C entry source `k`
/// came from, whose name and title bytes are copied exactly.
///
/// # Safety
/// `holder` must be a well-formed LPO (see [`read_lpo`]) whose allocations
/// came from libc; each `origins` pointer must be valid.
pub unsafe fn store_lpo(holder: &mut LpoSequence, lpo: &Lpo, origins: &[*const LpoSourceInfo]) {
    let old_len = usize::try_from(holder.length).unwrap_or(0);
    let new_len = lpo.letters.len();
    // SAFETY: holder's letters own their nodes per contract.
    unsafe { free_letter_lists(holder.letter, old_len) };
    if new_len == 0 {
        // SAFETY: a libc allocation or null per contract.
        unsafe { libc::free(holder.letter.cast()) };
        holder.letter = ptr::null_mut();
    } else {
        // SAFETY: realloc of a libc allocation (or null); every entry is
        // zeroed before it is written.
        unsafe {
            let p = libc::realloc(holder.letter.cast(), new_len * size_of::<LpoLetter>())
                .cast::<LpoLetter>();
            if p.is_null() {
                out_of_memory("letters");
            }
            ptr::write_bytes(p, 0, new_len);
            holder.letter = p;
            for (i, l) in lpo.letters.iter().enumerate() {
                write_letter(&mut *p.add(i), l);
            }
        }
    }
    holder.length = new_len as c_int;

    let old_sources = usize::try_from(holder.nsource_seq).unwrap_or(0);
    for (k, s) in lpo.sources.iter().enumerate() {
        if k < old_sources {
            // SAFETY: k < nsource_seq.
            let e = unsafe { &mut *holder.source_seq.add(k) };
            e.length = s.length;
            e.weight = s.weight;
            e.bundle_id = s.bundle_id;
            continue;
        }
        // SAFETY: origins are valid per contract.
        let (name, title) = match origins.get(k).and_then(|p| unsafe { p.as_ref() }) {
            Some(o) if o.title.is_null() => (name_bytes(&o.name), b"untitled".to_vec()),
            // SAFETY: the origin's title is NUL-terminated.
            Some(o) => (name_bytes(&o.name), unsafe { c_str(o.title) }.to_vec()),
            None => (s.name.as_bytes().to_vec(), s.title.as_bytes().to_vec()),
        };
        // SAFETY: holder's source_seq follows upstream's sizing per contract.
        unsafe { push_source(holder, &name, &title, s.length, s.weight, s.bundle_id) };
    }
}
