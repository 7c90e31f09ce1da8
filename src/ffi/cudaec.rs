//! CUDA-EC (spec `cudaec.md` §9) at the C boundary:
//!
//! - `seqshim_cudaec_run_test`: v1's `runTest` with v1's 28-byte `Param`,
//!   declared in the hand-written `include/seqshim_cudaec.h` (cbindgen
//!   leaves it and its `Param` out of `seqshim.h`, see cbindgen.toml); the
//!   glue in `integrations/cudaec/` names it `runTest`.
//! - the native `seqshim_ec_*` API in `seqshim.h`, with seqshim's one status
//!   type in place of the spec's separate `SEQSHIM_EC_E_*` codes.
//!
//! This file only checks arguments, views caller memory and turns the
//! family's typed errors into `seqshim_status` values; the message of the
//! last failure on a thread is kept for `seqshim_ec_last_error`.

use std::cell::RefCell;
use std::ffi::{CStr, CString, c_char, c_int, c_short, c_uint, c_void};
use std::mem::{align_of, offset_of, size_of};
use std::os::unix::ffi::OsStrExt;
use std::path::Path;

use crate::ec::{self, EcError, Mode, Params, ReadStatus, Spectrum, V1Param};
use crate::ffi_guard;

use super::guard::{bytes, slice, slice_mut};
use super::handle::{self, BatchState};
use super::status::{
    SEQSHIM_E_ARG, SEQSHIM_E_FORMAT, SEQSHIM_E_IO, SEQSHIM_E_LIMIT, SEQSHIM_E_NOMEM,
    SEQSHIM_E_NULL, SEQSHIM_E_STATE, SEQSHIM_OK, seqshim_status,
};

/// v1's `Param` (spec §3), layout-identical: 28 bytes, align 4.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types, non_snake_case)]
pub struct seqshim_cudaec_Param {
    pub doTrim: c_short,
    pub doDeletion: c_short,
    pub doInsertion: c_short,
    pub maxMods: c_short,
    pub minVotes: c_short,
    pub maxTrim: c_short,
    pub numTuples: c_int,
    pub numSearch: c_short,
    pub tupleSize: c_short,
    pub NUM_OF_READS: c_int,
    pub readLen: c_short,
}

/// A read was neither changed nor trimmed.
pub const SEQSHIM_EC_UNCHANGED: u8 = 0;
/// A read was corrected at full length.
pub const SEQSHIM_EC_FIXED: u8 = 1;
/// A read was trimmed (and possibly corrected); it now starts at offset 0.
pub const SEQSHIM_EC_TRIMMED: u8 = 2;
/// A read was discarded.
pub const SEQSHIM_EC_DISCARDED: u8 = 3;
/// `seqshim_ec_params.flags`: byte-identical to CUDA-EC v1.0.x.
pub const SEQSHIM_EC_EXACT_V1: u32 = 0x1;

/// Correction parameters (spec §9.2); fill with `seqshim_ec_params_default`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct seqshim_ec_params {
    /// `sizeof(seqshim_ec_params)`.
    pub size: u32,
    /// `SEQSHIM_EC_EXACT_V1` or 0 (default mode).
    pub flags: u32,
    /// k-mer size: exact-v1 1..read_len, default 1..32.
    pub k: u16,
    /// exact-v1: level stride (threshold stays 6); default: solid iff count >= min_mult.
    pub min_mult: u16,
    /// A fix qualifies with votes > min_votes.
    pub min_votes: i16,
    pub max_trim: u16,
    /// 1 or 2.
    pub num_search: u16,
    pub do_trim: u16,
    pub max_mods: i16,
    /// exact-v1: the read length L; default: 0 (variable lengths).
    pub read_len: u16,
    /// 0 = mode default (65,536-round watchdog / read length).
    pub max_rounds: u32,
    /// Must be 0.
    pub reserved: u32,
}

/// Counters of a `seqshim_ec_correct_file` run.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct seqshim_ec_stats {
    pub reads: u64,
    pub unchanged: u64,
    pub fixed: u64,
    pub trimmed: u64,
    pub discarded: u64,
    pub solid_kmers: u64,
    pub watchdog_hits: u64,
}

/// A k-mer spectrum: new → add → finalize → contains / export / correct → free.
#[allow(non_camel_case_types)]
pub struct seqshim_ec_spectrum {
    params: Params,
    n_reads: u64,
    added: u64,
    spectrum: Spectrum,
}

impl BatchState for seqshim_ec_spectrum {
    fn len(&self) -> usize {
        self.added as usize
    }
    fn reset(&mut self) {
        if let Ok(fresh) = Spectrum::new(&self.params, self.n_reads) {
            self.spectrum = fresh;
            self.added = 0;
        }
    }
}

// x86-64 / aarch64 layouts; ffi-tests/cudaec/ asserts the same numbers from C.
const _: () = {
    assert!(size_of::<seqshim_cudaec_Param>() == 28);
    assert!(align_of::<seqshim_cudaec_Param>() == 4);
    assert!(offset_of!(seqshim_cudaec_Param, doTrim) == 0);
    assert!(offset_of!(seqshim_cudaec_Param, doDeletion) == 2);
    assert!(offset_of!(seqshim_cudaec_Param, doInsertion) == 4);
    assert!(offset_of!(seqshim_cudaec_Param, maxMods) == 6);
    assert!(offset_of!(seqshim_cudaec_Param, minVotes) == 8);
    assert!(offset_of!(seqshim_cudaec_Param, maxTrim) == 10);
    assert!(offset_of!(seqshim_cudaec_Param, numTuples) == 12);
    assert!(offset_of!(seqshim_cudaec_Param, numSearch) == 16);
    assert!(offset_of!(seqshim_cudaec_Param, tupleSize) == 18);
    assert!(offset_of!(seqshim_cudaec_Param, NUM_OF_READS) == 20);
    assert!(offset_of!(seqshim_cudaec_Param, readLen) == 24);

    assert!(size_of::<seqshim_ec_params>() == 32);
    assert!(align_of::<seqshim_ec_params>() == 4);
    assert!(offset_of!(seqshim_ec_params, size) == 0);
    assert!(offset_of!(seqshim_ec_params, flags) == 4);
    assert!(offset_of!(seqshim_ec_params, k) == 8);
    assert!(offset_of!(seqshim_ec_params, min_mult) == 10);
    assert!(offset_of!(seqshim_ec_params, min_votes) == 12);
    assert!(offset_of!(seqshim_ec_params, max_trim) == 14);
    assert!(offset_of!(seqshim_ec_params, num_search) == 16);
    assert!(offset_of!(seqshim_ec_params, do_trim) == 18);
    assert!(offset_of!(seqshim_ec_params, max_mods) == 20);
    assert!(offset_of!(seqshim_ec_params, read_len) == 22);
    assert!(offset_of!(seqshim_ec_params, max_rounds) == 24);
    assert!(offset_of!(seqshim_ec_params, reserved) == 28);

    assert!(size_of::<seqshim_ec_stats>() == 56);
    assert!(align_of::<seqshim_ec_stats>() == 8);
    assert!(offset_of!(seqshim_ec_stats, reads) == 0);
    assert!(offset_of!(seqshim_ec_stats, unchanged) == 8);
    assert!(offset_of!(seqshim_ec_stats, fixed) == 16);
    assert!(offset_of!(seqshim_ec_stats, trimmed) == 24);
    assert!(offset_of!(seqshim_ec_stats, discarded) == 32);
    assert!(offset_of!(seqshim_ec_stats, solid_kmers) == 40);
    assert!(offset_of!(seqshim_ec_stats, watchdog_hits) == 48);
};

thread_local! {
    /// The message of the last failed `seqshim_ec_*` call on this thread.
    static LAST_ERROR: RefCell<CString> = RefCell::new(CString::default());
}

fn set_last_error(message: &str) {
    let text = CString::new(message.replace('\0', "\\0")).unwrap_or_default();
    LAST_ERROR.with(|e| *e.borrow_mut() = text);
}

/// Records `message` for `seqshim_ec_last_error` and returns `status`.
fn fail(status: seqshim_status, message: &str) -> seqshim_status {
    set_last_error(message);
    status
}

/// The status of a family error (README "CUDA-EC": the status mapping).
fn status_of(err: &EcError) -> seqshim_status {
    match err {
        EcError::KOutOfRange { .. } | EcError::InvalidParam(_) => SEQSHIM_E_ARG,
        EcError::Domain(_) | EcError::ReadTooLong { .. } | EcError::BatchReadTooLong { .. } => {
            SEQSHIM_E_LIMIT
        }
        EcError::State(_) => SEQSHIM_E_STATE,
        EcError::Io { .. } => SEQSHIM_E_IO,
        EcError::Format { .. } => SEQSHIM_E_FORMAT,
        EcError::OutOfMemory(_) => SEQSHIM_E_NOMEM,
    }
}

fn fail_with(err: EcError) -> seqshim_status {
    fail(status_of(&err), &err.to_string())
}

fn status_code(r: Result<(), EcError>) -> seqshim_status {
    match r {
        Ok(()) => SEQSHIM_OK,
        Err(e) => fail_with(e),
    }
}

/// The family's parameters from the C struct.
fn params_from(p: &seqshim_ec_params) -> Result<Params, seqshim_status> {
    if p.size as usize != size_of::<seqshim_ec_params>() {
        return Err(fail(
            SEQSHIM_E_ARG,
            &format!(
                "params.size = {} (expected sizeof(seqshim_ec_params) = {})",
                p.size,
                size_of::<seqshim_ec_params>()
            ),
        ));
    }
    if p.flags & !SEQSHIM_EC_EXACT_V1 != 0 || p.reserved != 0 {
        return Err(fail(
            SEQSHIM_E_ARG,
            &format!(
                "params.flags = {:#x} / reserved = {} (only SEQSHIM_EC_EXACT_V1 and 0 are known)",
                p.flags, p.reserved
            ),
        ));
    }
    let num_search = u8::try_from(p.num_search).unwrap_or(0);
    let params = Params {
        mode: if p.flags & SEQSHIM_EC_EXACT_V1 != 0 {
            Mode::ExactV1
        } else {
            Mode::Default
        },
        k: usize::from(p.k),
        min_mult: u32::from(p.min_mult),
        min_votes: p.min_votes,
        max_trim: p.max_trim,
        num_search,
        do_trim: p.do_trim != 0,
        max_mods: p.max_mods,
        read_len: usize::from(p.read_len),
        max_rounds: p.max_rounds,
    };
    params.validate().map_err(fail_with)?;
    Ok(params)
}

/// # Safety
/// `p` must be null or point to a readable `seqshim_ec_params`.
unsafe fn read_params(p: *const seqshim_ec_params) -> Result<Params, seqshim_status> {
    if p.is_null() {
        return Err(fail(SEQSHIM_E_NULL, "params is NULL"));
    }
    if !p.is_aligned() {
        return Err(fail(SEQSHIM_E_ARG, "params is misaligned"));
    }
    // SAFETY: non-null, aligned and readable per this function's contract.
    params_from(unsafe { &*p })
}

/// # Safety
/// `path` must be null or a NUL-terminated string.
unsafe fn path_arg<'a>(path: *const c_char, what: &str) -> Result<&'a Path, seqshim_status> {
    if path.is_null() {
        return Err(fail(SEQSHIM_E_NULL, &format!("{what} is NULL")));
    }
    // SAFETY: non-null and NUL-terminated per this function's contract.
    let bytes = unsafe { CStr::from_ptr(path) }.to_bytes();
    Ok(Path::new(std::ffi::OsStr::from_bytes(bytes)))
}

/// The read views of a batch: read i is `lens[i]` bytes at `seqs + i*stride`.
///
/// # Safety
/// As the batch calls' contracts: `lens` valid for `n` reads, every read
/// valid for `lens[i]` bytes.
unsafe fn read_views<'a>(
    seqs: *const c_char,
    stride: usize,
    lens: &[u32],
) -> Result<Vec<&'a [u8]>, seqshim_status> {
    let mut views = Vec::with_capacity(lens.len());
    for (i, &len) in lens.iter().enumerate() {
        let len = len as usize;
        if len > stride {
            return Err(fail(
                SEQSHIM_E_ARG,
                &format!("lens[{i}] = {len} is larger than the stride {stride}"),
            ));
        }
        if len > 0 && seqs.is_null() {
            return Err(fail(SEQSHIM_E_NULL, "seqs is NULL"));
        }
        let start = seqs.cast::<u8>().wrapping_add(i * stride);
        // SAFETY: read i spans `len` bytes at `seqs + i*stride` per the
        // caller's contract (a zero-length read is never dereferenced).
        let view = unsafe { bytes(start, len) };
        views.push(view.ok_or_else(|| fail(SEQSHIM_E_ARG, &format!("read {i} is not viewable")))?);
    }
    Ok(views)
}

/// Fills `*p` with the defaults of a mode: v1's command-line defaults (k 20,
/// min_mult 6, min_votes 2, max_trim 20, num_search 1, do_trim 1, max_mods
/// 999), `read_len` 35 (v1's `-r` default) with `SEQSHIM_EC_EXACT_V1`, 0
/// (variable lengths) without. Unknown flags: `SEQSHIM_E_ARG`.
///
/// # Safety
/// `p` must be null (`SEQSHIM_E_NULL`) or valid for writing a `seqshim_ec_params`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_ec_params_default(
    p: *mut seqshim_ec_params,
    flags: u32,
) -> seqshim_status {
    ffi_guard!({
        if p.is_null() {
            return fail(SEQSHIM_E_NULL, "params is NULL");
        }
        if !p.is_aligned() {
            return fail(SEQSHIM_E_ARG, "params is misaligned");
        }
        if flags & !SEQSHIM_EC_EXACT_V1 != 0 {
            return fail(SEQSHIM_E_ARG, &format!("unknown flags {flags:#x}"));
        }
        let exact = flags & SEQSHIM_EC_EXACT_V1 != 0;
        let value = seqshim_ec_params {
            size: size_of::<seqshim_ec_params>() as u32,
            flags,
            k: 20,
            min_mult: 6,
            min_votes: 2,
            max_trim: 20,
            num_search: 1,
            do_trim: 1,
            max_mods: 999,
            read_len: if exact { 35 } else { 0 },
            max_rounds: 0,
            reserved: 0,
        };
        // SAFETY: non-null, aligned and writable per the contract.
        unsafe { p.write(value) };
        SEQSHIM_OK
    })
}

/// Creates a spectrum. exact-v1: `n_reads` must be the exact number of reads
/// to be added (it sizes v1's counting array); default: a hint, 0 allowed.
/// Bad parameters: `SEQSHIM_E_ARG`; an exact-v1 counting array of 2^32 bytes
/// or more: `SEQSHIM_E_LIMIT`; no memory: `SEQSHIM_E_NOMEM`.
///
/// # Safety
/// `p` must be null or point to a readable `seqshim_ec_params`; `out` must
/// be null or valid for writing a pointer. Free the spectrum with
/// `seqshim_ec_spectrum_free`.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_ec_spectrum_new(
    p: *const seqshim_ec_params,
    n_reads: u64,
    out: *mut *mut seqshim_ec_spectrum,
) -> seqshim_status {
    ffi_guard!({
        if out.is_null() {
            return fail(SEQSHIM_E_NULL, "out is NULL");
        }
        // SAFETY: `p` per the contract.
        let params = match unsafe { read_params(p) } {
            Ok(params) => params,
            Err(status) => return status,
        };
        let spectrum = match Spectrum::new(&params, n_reads) {
            Ok(s) => s,
            Err(e) => return fail_with(e),
        };
        let state = seqshim_ec_spectrum {
            params,
            n_reads,
            added: 0,
            spectrum,
        };
        // SAFETY: `out` is non-null and writable per the contract.
        unsafe { handle::create(state, out) }
    })
}

/// Counts `n` reads, in order (exact-v1 counting is order dependent): read i
/// is `lens[i]` bytes at `seqs + i*stride` (`lens[i] <= stride`). exact-v1:
/// at most `read_len` bytes a read (`SEQSHIM_E_LIMIT`), bytes after a NUL
/// count as NUL, and at most the `n_reads` announced (`SEQSHIM_E_STATE`).
/// After `finalize`: `SEQSHIM_E_STATE`. On error nothing was counted.
///
/// # Safety
/// `s` must be null or a live spectrum used by no other thread; `lens` must
/// be valid for `n` reads and each read for `lens[i]` bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_ec_spectrum_add(
    s: *mut seqshim_ec_spectrum,
    seqs: *const c_char,
    stride: usize,
    lens: *const u32,
    n: usize,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: `s` per the contract.
        let state = match unsafe { handle::state_mut(s) } {
            Ok(state) => state,
            Err(status) => return fail(status, "spectrum is NULL or misaligned"),
        };
        // SAFETY: `lens` valid for `n` elements per the contract.
        let Some(lens) = (unsafe { slice(lens, n) }) else {
            return fail(SEQSHIM_E_NULL, "lens is NULL or misaligned");
        };
        // SAFETY: every read valid per the contract.
        let views = match unsafe { read_views(seqs, stride, lens) } {
            Ok(v) => v,
            Err(status) => return status,
        };
        match state.spectrum.add(&views) {
            Ok(()) => {
                state.added += n as u64;
                SEQSHIM_OK
            }
            Err(e) => fail_with(e),
        }
    })
}

/// Ends counting: builds the exact-v1 Bloom table (§4.4) or the default
/// mode's solid set. Twice: `SEQSHIM_E_STATE`.
///
/// # Safety
/// `s` must be null or a live spectrum used by no other thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_ec_spectrum_finalize(
    s: *mut seqshim_ec_spectrum,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: `s` per the contract.
        match unsafe { handle::state_mut(s) } {
            Ok(state) => status_code(state.spectrum.finalize()),
            Err(status) => fail(status, "spectrum is NULL or misaligned"),
        }
    })
}

/// Solid strings (exact-v1: list entries, both strands) or solid canonical
/// k-mers (default, after `finalize`); a negative `seqshim_status` on error.
///
/// # Safety
/// `s` must be null or a live spectrum not being changed by another thread.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_ec_spectrum_num_solid(s: *const seqshim_ec_spectrum) -> i64 {
    ffi_guard!({
        // SAFETY: `s` per the contract.
        match unsafe { handle::state(s) } {
            Ok(state) => match state.spectrum.num_solid() {
                Ok(n) => i64::try_from(n).unwrap_or(i64::MAX),
                Err(e) => fail_with(e) as i64,
            },
            Err(status) => fail(status, "spectrum is NULL or misaligned") as i64,
        }
    })
}

/// Whether the k bytes at `kmer` are solid: 1 or 0; a negative
/// `seqshim_status` on error (`SEQSHIM_E_STATE` before `finalize`).
/// exact-v1 answers from the Bloom bits, false positives included.
///
/// # Safety
/// `s` must be null or a live spectrum not being changed by another thread;
/// `kmer` must be null or valid for k bytes.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_ec_spectrum_contains(
    s: *const seqshim_ec_spectrum,
    kmer: *const c_char,
) -> i32 {
    ffi_guard!({
        // SAFETY: `s` per the contract.
        let state = match unsafe { handle::state(s) } {
            Ok(state) => state,
            Err(status) => return fail(status, "spectrum is NULL or misaligned") as i32,
        };
        if kmer.is_null() {
            return fail(SEQSHIM_E_NULL, "kmer is NULL") as i32;
        }
        // SAFETY: non-null and valid for k bytes per the contract.
        let Some(key) = (unsafe { bytes(kmer.cast(), state.params.k) }) else {
            return fail(SEQSHIM_E_ARG, "kmer is not viewable") as i32;
        };
        match state.spectrum.contains(key) {
            Ok(found) => i32::from(found),
            Err(e) => fail_with(e) as i32,
        }
    })
}

/// exact-v1: v1's GPU Bloom table (§4.4): `*table` points to `*table_size`
/// bytes owned by the spectrum (valid until it is freed), `*num_tuples` is
/// v1's `numTuples`. Before `finalize` or on a default-mode spectrum:
/// `SEQSHIM_E_STATE`.
///
/// # Safety
/// `s` must be null or a live spectrum not being changed by another thread;
/// each out pointer must be null (`SEQSHIM_E_NULL`) or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_ec_spectrum_export_v1(
    s: *const seqshim_ec_spectrum,
    table: *mut *const u8,
    table_size: *mut c_uint,
    num_tuples: *mut c_int,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: `s` per the contract.
        let state = match unsafe { handle::state(s) } {
            Ok(state) => state,
            Err(status) => return fail(status, "spectrum is NULL or misaligned"),
        };
        if table.is_null() || table_size.is_null() || num_tuples.is_null() {
            return fail(SEQSHIM_E_NULL, "an out pointer is NULL");
        }
        let bloom = match state.spectrum.export_v1() {
            Ok(b) => b,
            Err(e) => return fail_with(e),
        };
        let Ok(size) = c_uint::try_from(bloom.bytes().len()) else {
            return fail(SEQSHIM_E_LIMIT, "the Bloom table exceeds 4 GiB");
        };
        // SAFETY: the three pointers are non-null and writable per the contract.
        unsafe {
            table.write(bloom.bytes().as_ptr());
            table_size.write(size);
            num_tuples.write(bloom.num_tuples());
        }
        SEQSHIM_OK
    })
}

/// Frees a spectrum; null and a second free are ignored.
///
/// # Safety
/// `s` must not be used by any other thread during or after the call;
/// tables from `export_v1` are invalid afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_ec_spectrum_free(s: *mut seqshim_ec_spectrum) {
    ffi_guard!({
        // SAFETY: per the contract.
        unsafe { handle::destroy(s) }
    })
}

/// Corrects `n` reads in place with a finalised spectrum whose mode, k and
/// read_len match `p`: read i is `lens[i]` bytes at `seqs + i*stride`
/// (`lens[i] <= stride`). On return read i holds its corrected bytes from
/// offset 0, `lens[i]` its new length, `status[i]` one of
/// `SEQSHIM_EC_UNCHANGED/FIXED/TRIMMED/DISCARDED`, and `trim_start[i]` (when
/// not null) the bases trimmed from its start. exact-v1 treats the batch as
/// one v1 launch (pass a whole file to match v1); a read longer than
/// `read_len`: `SEQSHIM_E_LIMIT`. On error nothing was changed.
///
/// # Safety
/// `s` must be null or a live, finalised spectrum; `p` null or readable;
/// `lens`, `status` (and `trim_start` when not null) valid for `n` elements;
/// every read valid for `stride` bytes of writing, except the last, which
/// must be valid for `lens[n-1]`; no buffer may overlap another.
#[unsafe(no_mangle)]
#[allow(clippy::too_many_arguments)]
pub unsafe extern "C" fn seqshim_ec_correct_batch(
    s: *const seqshim_ec_spectrum,
    p: *const seqshim_ec_params,
    seqs: *mut c_char,
    stride: usize,
    lens: *mut u32,
    n: usize,
    status: *mut u8,
    trim_start: *mut u32,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: `s` per the contract.
        let state = match unsafe { handle::state(s) } {
            Ok(state) => state,
            Err(st) => return fail(st, "spectrum is NULL or misaligned"),
        };
        // SAFETY: `p` per the contract.
        let params = match unsafe { read_params(p) } {
            Ok(params) => params,
            Err(st) => return st,
        };
        // SAFETY: `lens` and `status` valid for `n` elements per the contract.
        let (Some(lens), Some(status)) = (unsafe { slice_mut(lens, n) }, unsafe {
            slice_mut(status, n)
        }) else {
            return fail(SEQSHIM_E_NULL, "lens or status is NULL or misaligned");
        };
        let mut trim = if trim_start.is_null() {
            None
        } else {
            // SAFETY: valid for `n` elements per the contract when not null.
            match unsafe { slice_mut(trim_start, n) } {
                Some(t) => Some(t),
                None => return fail(SEQSHIM_E_ARG, "trim_start is misaligned"),
            }
        };
        // SAFETY: every read valid per the contract.
        let mut reads: Vec<Vec<u8>> = match unsafe { read_views(seqs, stride, lens) } {
            Ok(views) => views.into_iter().map(<[u8]>::to_vec).collect(),
            Err(st) => return st,
        };
        let results = match ec::correct_batch(&state.spectrum, &params, &mut reads) {
            Ok(r) => r,
            Err(e) => return fail_with(e),
        };
        for (i, (read, result)) in reads.iter().zip(&results).enumerate() {
            let keep = read.len().min(lens[i] as usize);
            let start = seqs.cast::<u8>().wrapping_add(i * stride);
            // SAFETY: read i's buffer holds `lens[i]` bytes (checked non-null
            // by `read_views` when `lens[i] > 0`) and `keep <= lens[i]`.
            if let Some(dst) = unsafe { super::guard::bytes_mut(start, keep) } {
                dst.copy_from_slice(&read[..keep]);
            }
            lens[i] = keep as u32;
            status[i] = match result.status {
                ReadStatus::Unchanged => SEQSHIM_EC_UNCHANGED,
                ReadStatus::Fixed => SEQSHIM_EC_FIXED,
                ReadStatus::Trimmed => SEQSHIM_EC_TRIMMED,
                ReadStatus::Discarded => SEQSHIM_EC_DISCARDED,
            };
            if let Some(t) = trim.as_deref_mut() {
                t[i] = result.trim_start;
            }
        }
        SEQSHIM_OK
    })
}

/// Corrects a file: counts, finalises, corrects and writes the fixed file
/// (unchanged, fixed and trimmed reads) and the discard file, in input
/// order. exact-v1: FASTA read as v1 reads it, both outputs byte-identical
/// to v1 (`discard_path` required). Default: multi-line FASTA or FASTQ,
/// output in the input format, `discard_path` may be NULL. Outputs appear
/// only when complete. Unreadable or unwritable file: `SEQSHIM_E_IO`;
/// malformed input: `SEQSHIM_E_FORMAT`; exact-v1 sequence line longer than
/// `read_len`: `SEQSHIM_E_LIMIT` (the last error names file and line).
///
/// # Safety
/// The paths must be null or NUL-terminated strings; `p` null or readable;
/// `stats` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_ec_correct_file(
    in_path: *const c_char,
    fixed_path: *const c_char,
    discard_path: *const c_char,
    p: *const seqshim_ec_params,
    stats: *mut seqshim_ec_stats,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: `p` per the contract.
        let params = match unsafe { read_params(p) } {
            Ok(params) => params,
            Err(st) => return st,
        };
        // SAFETY: the paths per the contract.
        let (input, fixed) = match unsafe {
            (
                path_arg(in_path, "in_path"),
                path_arg(fixed_path, "fixed_path"),
            )
        } {
            (Ok(i), Ok(f)) => (i, f),
            (Err(st), _) | (_, Err(st)) => return st,
        };
        let discard = if discard_path.is_null() {
            None
        } else {
            // SAFETY: non-null and NUL-terminated per the contract.
            match unsafe { path_arg(discard_path, "discard_path") } {
                Ok(d) => Some(d),
                Err(st) => return st,
            }
        };
        if !stats.is_null() && !stats.is_aligned() {
            return fail(SEQSHIM_E_ARG, "stats is misaligned");
        }
        match ec::correct_file(input, fixed, discard, &params) {
            Ok(st) => {
                if !stats.is_null() {
                    let value = seqshim_ec_stats {
                        reads: st.reads,
                        unchanged: st.unchanged,
                        fixed: st.fixed,
                        trimmed: st.trimmed,
                        discarded: st.discarded,
                        solid_kmers: st.solid_kmers,
                        watchdog_hits: st.watchdog_hits,
                    };
                    // SAFETY: non-null, aligned and writable per the contract.
                    unsafe { stats.write(value) };
                }
                SEQSHIM_OK
            }
            Err(e) => fail_with(e),
        }
    })
}

/// The message of the last failed `seqshim_ec_*` call (or
/// `seqshim_cudaec_run_test`) on this thread, naming the file and line for
/// file errors; "" when none failed.
///
/// # Safety
/// Always safe to call. The string stays valid until the next `seqshim_ec_*`
/// call on this thread; do not free it.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_ec_last_error() -> *const c_char {
    ffi_guard!({ LAST_ERROR.with(|e| e.borrow().as_ptr()) })
}

/// Where the reads of this process's EC calls (`seqshim_ec_correct_*`,
/// `seqshim_cudaec_run_test`) were corrected so far: `*on_gpu` on a GPU,
/// `*on_cpu` on the CPU pool (either pointer may be null). Returns the
/// number of GPUs EC uses: 0 when no GPU is in use (`seqshim_backend_info`
/// says why) or no call was large enough to start them (a call of fewer
/// than 16,384 reads never does).
///
/// # Safety
/// `on_gpu` and `on_cpu` must each be null or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_ec_routing(on_gpu: *mut u64, on_cpu: *mut u64) -> i32 {
    ffi_guard!({
        let (gpu, cpu, devices) = ec::routing();
        // SAFETY: each pointer is null or valid for one write per the contract.
        unsafe {
            if let Some(out) = on_gpu.as_mut() {
                *out = gpu;
            }
            if let Some(out) = on_cpu.as_mut() {
                *out = cpu;
            }
        }
        i32::try_from(devices.len()).unwrap_or(i32::MAX)
    })
}

/// v1's `runTest` (spec §2, §9.1): the exact-v1 kernels on
/// `h_param->NUM_OF_READS` records of `readLen + 2` bytes at `reads_arr`,
/// in place, including `numSearch == 2`. The Bloom modulus comes from
/// `numTuples`; `table_size` only bounds the bytes read from `hash_table`
/// (bytes past it read as 0, so a `table_size` of 0 is an all-zero table,
/// whatever `hash_table` is). `seqOut`, `discardOut`, `argc` and `argv` are
/// ignored; `hash_table` and `*h_param` are not modified. Input outside the
/// exact-v1 domain (§5.7), a null `h_param`, or a null `hash_table` or
/// `reads_arr` with bytes to read: one log line, `reads_arr` unchanged,
/// never an exit.
///
/// # Safety
/// `h_param` must be null or readable; `hash_table` null or valid for
/// `table_size` bytes; `reads_arr` null or valid for `NUM_OF_READS *
/// (readLen + 2)` bytes of reading and writing, not overlapping the others.
#[unsafe(no_mangle)]
#[allow(non_snake_case, clippy::too_many_arguments)]
pub unsafe extern "C" fn seqshim_cudaec_run_test(
    hash_table: *mut u8,
    h_param: *mut seqshim_cudaec_Param,
    reads_arr: *mut c_char,
    table_size: c_uint,
    _seqOut: *mut c_void,
    _discardOut: *mut c_void,
    _argc: c_int,
    _argv: *mut *mut c_char,
) {
    ffi_guard!({
        let refuse = |msg: &str| {
            set_last_error(msg);
            crate::log_warn!("seqshim_cudaec_run_test: {msg}; reads left unchanged");
        };
        if h_param.is_null() || !h_param.is_aligned() {
            return refuse("h_param is NULL or misaligned");
        }
        // SAFETY: non-null, aligned and readable per the contract.
        let hp = unsafe { h_param.read() };
        let param = V1Param {
            do_trim: hp.doTrim,
            do_deletion: hp.doDeletion,
            do_insertion: hp.doInsertion,
            max_mods: hp.maxMods,
            min_votes: hp.minVotes,
            max_trim: hp.maxTrim,
            num_tuples: hp.numTuples,
            num_search: hp.numSearch,
            tuple_size: hp.tupleSize,
            num_of_reads: hp.NUM_OF_READS,
            read_len: hp.readLen,
        };
        if hp.readLen <= 0 || hp.NUM_OF_READS < 0 {
            return refuse(&format!(
                "readLen = {}, NUM_OF_READS = {}",
                hp.readLen, hp.NUM_OF_READS
            ));
        }
        let n_bytes = hp.NUM_OF_READS as usize * (hp.readLen as usize + 2);
        // SAFETY: valid for `table_size` bytes per the contract.
        let Some(table) = (unsafe { bytes(hash_table, table_size as usize) }) else {
            return refuse("hash_table is NULL");
        };
        // SAFETY: valid for reading and writing `n_bytes` per the contract,
        // overlapping neither `hash_table` nor `h_param`.
        let Some(records) = (unsafe { super::guard::bytes_mut(reads_arr.cast(), n_bytes) }) else {
            return refuse("reads_arr is NULL");
        };
        if let Err(e) = ec::run_test(table, &param, records) {
            refuse(&e.to_string());
        }
    })
}
