//! `seqshim_poa_*`: seqshim's own batch API for POA windows (declared in
//! `include/seqshim.h`). A batch copies its windows in, runs them all at
//! once on the CPU pool through the `poa` family's scheduler (bucketed by
//! read count and longest read, as CONSENT-GPU buckets them), and keeps
//! per-window results until it is reset or destroyed.
#![allow(non_camel_case_types)]

use std::ffi::c_char;
use std::ptr;
use std::sync::Arc;

use crate::ffi_guard;
use crate::poa::{BatchConfig, ConsensusRule, WindowJob, WindowResult, WindowStatus};

/// Status of a batch call or of one window.
pub type seqshim_poa_status_t = i32;
/// Success; the window has results.
pub const SEQSHIM_POA_OK: seqshim_poa_status_t = 0;
/// A null pointer, an unknown window id, or an option out of range (a score
/// beyond ±`SEQSHIM_POA_MAX_SCORE` included).
pub const SEQSHIM_POA_E_ARG: seqshim_poa_status_t = 1;
/// A window with more than `SEQSHIM_POA_MAX_READS` reads.
pub const SEQSHIM_POA_E_TOO_MANY_SEQS: seqshim_poa_status_t = 2;
/// A read longer than `SEQSHIM_POA_MAX_READ_LEN` bases.
pub const SEQSHIM_POA_E_SEQ_TOO_LONG: seqshim_poa_status_t = 3;
/// Fusion stopped at POA v2's memory bound (`POA_MAX_ALLOC`); no result.
pub const SEQSHIM_POA_E_GRAPH_TOO_LARGE: seqshim_poa_status_t = 4;
/// No consensus: the window has no non-empty read, or (heaviest-bundle
/// rule) POA v2 made no bundle because the heaviest path is under 10 nodes.
/// The consensus is the empty string.
pub const SEQSHIM_POA_E_EMPTY: seqshim_poa_status_t = 5;
/// The window was added but `seqshim_poa_batch_run` has not run it yet.
pub const SEQSHIM_POA_E_NOT_RUN: seqshim_poa_status_t = 6;
/// A device failed and SEQSHIM_STRICT forbade the CPU fallback.
pub const SEQSHIM_POA_E_DEVICE: seqshim_poa_status_t = 7;

/// `align_mode`: global alignment (CONSENT).
pub const SEQSHIM_POA_ALIGN_GLOBAL: i32 = 0;
/// `align_mode`: local alignment (POA v2 without `-do_global`).
pub const SEQSHIM_POA_ALIGN_LOCAL: i32 = 1;
/// `align_mode`: semi-global; not implemented, rejected by create.
pub const SEQSHIM_POA_ALIGN_SEMIGLOBAL: i32 = 2;
/// `consensus_mode`: CONSENT's column majority (a lone read or identical
/// reads are returned unchanged).
pub const SEQSHIM_POA_CONS_COLUMN_MAJORITY: i32 = 0;
/// `consensus_mode`: POA v2's first heaviest bundle (`CONSENS0` of `-hb`).
pub const SEQSHIM_POA_CONS_HEAVIEST_BUNDLE: i32 = 1;
/// Largest magnitude of a score in `seqshim_poa_params_t`.
pub const SEQSHIM_POA_MAX_SCORE: u32 = 10_000;
/// Most reads one window may hold.
pub const SEQSHIM_POA_MAX_READS: u32 = 1 << 20;
/// Longest read a window may hold.
pub const SEQSHIM_POA_MAX_READ_LEN: u32 = 1 << 20;

/// Options of a batch. `seqshim_poa_params_default` fills CONSENT's.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct seqshim_poa_params_t {
    /// Score of an A/C/G/T match (CONSENT: 5). Every score is within
    /// ±`SEQSHIM_POA_MAX_SCORE`.
    pub match_score: i32,
    /// Score of every other pair, N included (CONSENT: −10).
    pub mismatch: i32,
    /// Score of a gap's first position (CONSENT: −5).
    pub gap_open: i32,
    /// Score of each further gap position (CONSENT: −5).
    pub gap_extend: i32,
    /// Gap-length states tracked (POA v2's TRUNCATE_GAP_LENGTH: 16).
    pub gap_trunc_len: i32,
    /// `SEQSHIM_POA_ALIGN_*` (CONSENT: global).
    pub align_mode: i32,
    /// `SEQSHIM_POA_CONS_*` (CONSENT: column majority).
    pub consensus_mode: i32,
    /// Reads past this many non-empty ones are ignored (CONSENT maxMSA: 150).
    pub max_seqs_per_window: i32,
    /// Non-zero: keep MSA rows for `seqshim_poa_batch_get_msa`.
    pub want_msa: i32,
    /// −1: CPU only; ≥ 0: CUDA ordinal (windows run on the CPU until the POA
    /// kernels land).
    pub device: i32,
    /// Reserved: the CPU pool size is set by SEQSHIM_THREADS; 0 = all cores.
    pub cpu_threads: i32,
}

struct Window {
    reads: Vec<Vec<u8>>,
    result: Option<WindowResult>,
    /// The consensus with a NUL after it, for C callers.
    consensus_c: Vec<u8>,
}

/// An opaque batch of windows.
pub struct seqshim_poa_batch_t {
    config: Arc<BatchConfig>,
    windows: Vec<Window>,
}

fn config_from(p: &seqshim_poa_params_t) -> Option<BatchConfig> {
    let consensus = match p.consensus_mode {
        SEQSHIM_POA_CONS_COLUMN_MAJORITY => ConsensusRule::ColumnMajority,
        SEQSHIM_POA_CONS_HEAVIEST_BUNDLE => ConsensusRule::HeaviestBundle,
        _ => return None,
    };
    let global = match p.align_mode {
        SEQSHIM_POA_ALIGN_GLOBAL => true,
        SEQSHIM_POA_ALIGN_LOCAL => false,
        _ => return None,
    };
    if p.max_seqs_per_window < 1 || !(1..=4096).contains(&p.gap_trunc_len) || p.device < -1 {
        return None;
    }
    // The aligner's sums are `i32` with a −999,999 floor (POA v2's
    // MINUS_INFINITY): scores beyond this bound would overflow or sink
    // below it and give a wrong consensus with status OK.
    let scores = [p.match_score, p.mismatch, p.gap_open, p.gap_extend];
    if scores
        .iter()
        .any(|v| v.unsigned_abs() > SEQSHIM_POA_MAX_SCORE)
    {
        return None;
    }
    let matrix = BatchConfig::dna_matrix(
        p.match_score,
        p.mismatch,
        p.gap_open,
        p.gap_extend,
        p.gap_trunc_len,
    )
    .ok()?;
    Some(BatchConfig {
        matrix,
        global,
        consensus,
        max_seqs: p.max_seqs_per_window as usize,
        want_msa: p.want_msa != 0,
    })
}

/// Fills `params` with CONSENT's settings: 5 / −10 / −5 / −5, truncation 16,
/// global, column majority, 150 reads, MSA kept, CPU. Returns
/// `SEQSHIM_POA_E_ARG` for a null pointer.
///
/// # Safety
/// `params` must be null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_params_default(
    params: *mut seqshim_poa_params_t,
) -> seqshim_poa_status_t {
    ffi_guard!(SEQSHIM_POA_E_ARG, {
        // SAFETY: null or writable per the contract.
        let Some(p) = (unsafe { params.as_mut() }) else {
            return SEQSHIM_POA_E_ARG;
        };
        *p = seqshim_poa_params_t {
            match_score: 5,
            mismatch: -10,
            gap_open: -5,
            gap_extend: -5,
            gap_trunc_len: 16,
            align_mode: SEQSHIM_POA_ALIGN_GLOBAL,
            consensus_mode: SEQSHIM_POA_CONS_COLUMN_MAJORITY,
            max_seqs_per_window: 150,
            want_msa: 1,
            device: -1,
            cpu_threads: 0,
        };
        SEQSHIM_POA_OK
    })
}

/// A new empty batch, or null when `params` is null or out of range (an
/// unknown mode, semi-global alignment, `max_seqs_per_window < 1`,
/// `gap_trunc_len` outside 1..4096). `expected_windows` reserves room.
///
/// # Safety
/// `params` must be null or point to a `seqshim_poa_params_t`. Free the
/// batch with `seqshim_poa_batch_destroy`. A batch may be used from one
/// thread at a time; different batches from any threads at once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_create(
    params: *const seqshim_poa_params_t,
    expected_windows: usize,
) -> *mut seqshim_poa_batch_t {
    ffi_guard!(ptr::null_mut(), {
        // SAFETY: null or valid per the contract.
        let Some(p) = (unsafe { params.as_ref() }) else {
            return ptr::null_mut();
        };
        let Some(config) = config_from(p) else {
            crate::log_warn!("seqshim_poa_batch_create: parameters out of range: {p:?}");
            return ptr::null_mut();
        };
        Box::into_raw(Box::new(seqshim_poa_batch_t {
            config: Arc::new(config),
            // A hint only: a wild value must not become an allocation the
            // process cannot survive.
            windows: Vec::with_capacity(expected_windows.min(1 << 16)),
        }))
    })
}

/// Copies a window of `nseq` reads into the batch and writes its id (0, 1,
/// ... in order of addition) to `out_window_id` when that is not null.
/// `lens` may be null for NUL-terminated reads; a null read with length 0 is
/// an empty read.
///
/// # Safety
/// `b` must be null or a live batch; `seqs` must be valid for `nseq`
/// pointers, each valid for `lens[i]` bytes (or NUL-terminated when `lens`
/// is null); `lens` null or valid for `nseq` entries.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_add_window(
    b: *mut seqshim_poa_batch_t,
    nseq: u32,
    seqs: *const *const c_char,
    lens: *const u32,
    out_window_id: *mut u64,
) -> seqshim_poa_status_t {
    ffi_guard!(SEQSHIM_POA_E_ARG, {
        // SAFETY: null or a live batch per the contract.
        let Some(batch) = (unsafe { b.as_mut() }) else {
            return SEQSHIM_POA_E_ARG;
        };
        if nseq > SEQSHIM_POA_MAX_READS {
            return SEQSHIM_POA_E_TOO_MANY_SEQS;
        }
        if nseq > 0 && seqs.is_null() {
            return SEQSHIM_POA_E_ARG;
        }
        let mut reads = Vec::with_capacity(nseq as usize);
        for i in 0..nseq as usize {
            // SAFETY: valid for nseq entries per the contract.
            let p = unsafe { *seqs.add(i) };
            let read = if lens.is_null() {
                // SAFETY: NUL-terminated (or null) per the contract.
                unsafe { super::boa::convert::c_str(p) }
            } else {
                // SAFETY: lens valid for nseq; the read for lens[i] bytes.
                match unsafe { super::guard::bytes(p.cast(), *lens.add(i) as usize) } {
                    Some(r) => r,
                    None => return SEQSHIM_POA_E_ARG,
                }
            };
            if read.len() > SEQSHIM_POA_MAX_READ_LEN as usize {
                return SEQSHIM_POA_E_SEQ_TOO_LONG;
            }
            reads.push(read.to_vec());
        }
        let id = batch.windows.len() as u64;
        batch.windows.push(Window {
            reads,
            result: None,
            consensus_c: Vec::new(),
        });
        // SAFETY: null or writable per the contract.
        if let Some(out) = unsafe { out_window_id.as_mut() } {
            *out = id;
        }
        SEQSHIM_POA_OK
    })
}

/// Runs every window added since the last run, in parallel on the CPU pool.
/// Returns `SEQSHIM_POA_OK` (per-window outcomes come from
/// `seqshim_poa_batch_window_status`) or `SEQSHIM_POA_E_ARG` for null.
///
/// # Safety
/// `b` must be null or a live batch, not used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_run(
    b: *mut seqshim_poa_batch_t,
) -> seqshim_poa_status_t {
    ffi_guard!(SEQSHIM_POA_E_ARG, {
        // SAFETY: null or a live batch per the contract.
        let Some(batch) = (unsafe { b.as_mut() }) else {
            return SEQSHIM_POA_E_ARG;
        };
        let pending: Vec<usize> = (0..batch.windows.len())
            .filter(|&i| batch.windows[i].result.is_none())
            .collect();
        // The reads stay until their results are stored, so a run that
        // fails (a panic caught at the boundary) can be run again.
        let jobs = pending
            .iter()
            .map(|&i| WindowJob {
                reads: batch.windows[i].reads.clone(),
                config: batch.config.clone(),
            })
            .collect();
        let results = crate::poa::run_windows(jobs);
        for (&i, r) in pending.iter().zip(results) {
            let w = &mut batch.windows[i];
            w.reads = Vec::new();
            w.consensus_c = r.consensus.clone();
            w.consensus_c.push(0);
            w.result = Some(r);
        }
        SEQSHIM_POA_OK
    })
}

fn window(b: &seqshim_poa_batch_t, id: u64) -> Result<&WindowResult, seqshim_poa_status_t> {
    let w = usize::try_from(id)
        .ok()
        .and_then(|i| b.windows.get(i))
        .ok_or(SEQSHIM_POA_E_ARG)?;
    w.result.as_ref().ok_or(SEQSHIM_POA_E_NOT_RUN)
}

fn status_of(r: &WindowResult) -> seqshim_poa_status_t {
    match r.status {
        WindowStatus::Ok => SEQSHIM_POA_OK,
        WindowStatus::Empty => SEQSHIM_POA_E_EMPTY,
        WindowStatus::GraphTooLarge => SEQSHIM_POA_E_GRAPH_TOO_LARGE,
        WindowStatus::Device => SEQSHIM_POA_E_DEVICE,
    }
}

/// The outcome of window `id`: `SEQSHIM_POA_OK`, `_E_EMPTY`,
/// `_E_GRAPH_TOO_LARGE`, `_E_DEVICE`, `_E_NOT_RUN` before the run, `_E_ARG`
/// for an unknown id or a null batch.
///
/// # Safety
/// `b` must be null or a live batch.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_window_status(
    b: *const seqshim_poa_batch_t,
    id: u64,
) -> seqshim_poa_status_t {
    ffi_guard!(SEQSHIM_POA_E_ARG, {
        // SAFETY: null or a live batch per the contract.
        let Some(batch) = (unsafe { b.as_ref() }) else {
            return SEQSHIM_POA_E_ARG;
        };
        match window(batch, id) {
            Ok(r) => status_of(r),
            Err(e) => e,
        }
    })
}

/// The consensus of window `id`, NUL-terminated, borrowed until the batch is
/// reset or destroyed; `len` (optional) gets its length. An empty window
/// gives `""` with `SEQSHIM_POA_E_EMPTY`. Other failures leave the outputs
/// untouched.
///
/// # Safety
/// `b` must be null or a live batch; `cons` and `len` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_get_consensus(
    b: *const seqshim_poa_batch_t,
    id: u64,
    cons: *mut *const c_char,
    len: *mut u32,
) -> seqshim_poa_status_t {
    ffi_guard!(SEQSHIM_POA_E_ARG, {
        // SAFETY: null or a live batch per the contract.
        let Some(batch) = (unsafe { b.as_ref() }) else {
            return SEQSHIM_POA_E_ARG;
        };
        if cons.is_null() {
            return SEQSHIM_POA_E_ARG;
        }
        let r = match window(batch, id) {
            Ok(r) => r,
            Err(e) => return e,
        };
        let status = status_of(r);
        if status != SEQSHIM_POA_OK && status != SEQSHIM_POA_E_EMPTY {
            return status;
        }
        let w = &batch.windows[id as usize];
        // SAFETY: writable per the contract.
        unsafe {
            *cons = w.consensus_c.as_ptr().cast();
            if let Some(l) = len.as_mut() {
                *l = r.consensus.len() as u32;
            }
        }
        status
    })
}

/// The MSA of window `id`: `nrows` rows (the used reads, in input order,
/// empty reads skipped) of `ncols` bytes each, row-major, `-` for gaps, not
/// NUL-terminated, borrowed until reset or destroy. `SEQSHIM_POA_E_ARG` when
/// the batch was created with `want_msa = 0`.
///
/// # Safety
/// `b` must be null or a live batch; the outputs must be writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_get_msa(
    b: *const seqshim_poa_batch_t,
    id: u64,
    nrows: *mut u32,
    ncols: *mut u32,
    rows_rowmajor: *mut *const c_char,
) -> seqshim_poa_status_t {
    ffi_guard!(SEQSHIM_POA_E_ARG, {
        // SAFETY: null or a live batch per the contract.
        let Some(batch) = (unsafe { b.as_ref() }) else {
            return SEQSHIM_POA_E_ARG;
        };
        if nrows.is_null() || ncols.is_null() || rows_rowmajor.is_null() || !batch.config.want_msa {
            return SEQSHIM_POA_E_ARG;
        }
        let r = match window(batch, id) {
            Ok(r) => r,
            Err(e) => return e,
        };
        let status = status_of(r);
        if status != SEQSHIM_POA_OK {
            return status;
        }
        // SAFETY: writable per the contract.
        unsafe {
            *nrows = r.nrows as u32;
            *ncols = r.ncols as u32;
            *rows_rowmajor = r.msa.as_ptr().cast();
        }
        SEQSHIM_POA_OK
    })
}

/// Number of windows in the batch (0 for null).
///
/// # Safety
/// `b` must be null or a live batch.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_size(b: *const seqshim_poa_batch_t) -> usize {
    ffi_guard!(0, {
        // SAFETY: null or a live batch per the contract.
        unsafe { b.as_ref() }.map_or(0, |b| b.windows.len())
    })
}

/// Removes every window and result, keeping the options; ids start at 0
/// again. Pointers from the getters become invalid.
///
/// # Safety
/// `b` must be null or a live batch.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_reset(b: *mut seqshim_poa_batch_t) {
    ffi_guard!((), {
        // SAFETY: null or a live batch per the contract.
        if let Some(batch) = unsafe { b.as_mut() } {
            batch.windows.clear();
        }
    })
}

/// Frees the batch. Null is a no-op.
///
/// # Safety
/// `b` must be null or a batch from `seqshim_poa_batch_create` not yet
/// destroyed; it must not be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_destroy(b: *mut seqshim_poa_batch_t) {
    ffi_guard!((), {
        if !b.is_null() {
            // SAFETY: made by Box::into_raw in create, destroyed once.
            drop(unsafe { Box::from_raw(b) });
        }
    })
}

/// One call for many windows: window `w` has `nseq[w]` reads `seqs[w][i]`
/// of `lens[w][i]` bytes (`lens` or `lens[w]` may be null for
/// NUL-terminated reads). `out_cons[w]` gets a `malloc`ed NUL-terminated
/// consensus (free it with `free`; null when the window failed),
/// `out_len[w]` its length and `out_status[w]` the window's status (both
/// optional). Returns `SEQSHIM_POA_OK` or the first argument error.
///
/// # Safety
/// `p` must point to parameters; `nseq`, `seqs` and `out_cons` must be
/// valid for `nwin` entries, and each window's arrays as described above;
/// `lens`, `out_len` and `out_status` null or valid for `nwin` entries.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_consensus_many(
    p: *const seqshim_poa_params_t,
    nwin: usize,
    nseq: *const u32,
    seqs: *const *const *const c_char,
    lens: *const *const u32,
    out_cons: *mut *mut c_char,
    out_len: *mut u32,
    out_status: *mut seqshim_poa_status_t,
) -> seqshim_poa_status_t {
    ffi_guard!(SEQSHIM_POA_E_ARG, {
        if nwin > 0 && (nseq.is_null() || seqs.is_null() || out_cons.is_null()) {
            return SEQSHIM_POA_E_ARG;
        }
        // SAFETY: forwarded from the contract.
        let b = unsafe { seqshim_poa_batch_create(p, nwin) };
        if b.is_null() {
            return SEQSHIM_POA_E_ARG;
        }
        // Every output is defined before anything can fail, so a caller
        // that frees `out_cons[w]` after an argument error frees nulls.
        for w in 0..nwin {
            // SAFETY: the outputs are valid for nwin entries per the contract.
            unsafe {
                *out_cons.add(w) = ptr::null_mut();
                if !out_len.is_null() {
                    *out_len.add(w) = 0;
                }
                if !out_status.is_null() {
                    *out_status.add(w) = SEQSHIM_POA_E_NOT_RUN;
                }
            }
        }
        let mut status = SEQSHIM_POA_OK;
        for w in 0..nwin {
            // SAFETY: the per-window arrays are valid per the contract.
            let s = unsafe {
                let l = if lens.is_null() {
                    ptr::null()
                } else {
                    *lens.add(w)
                };
                seqshim_poa_batch_add_window(b, *nseq.add(w), *seqs.add(w), l, ptr::null_mut())
            };
            if s != SEQSHIM_POA_OK {
                status = s;
                break;
            }
        }
        if status == SEQSHIM_POA_OK {
            // SAFETY: b is live and used by this thread only.
            unsafe { seqshim_poa_batch_run(b) };
            for w in 0..nwin {
                let mut c: *const c_char = ptr::null();
                let mut l = 0u32;
                // SAFETY: b is live; the outputs are valid for nwin entries.
                unsafe {
                    let s = seqshim_poa_batch_get_consensus(b, w as u64, &mut c, &mut l);
                    *out_cons.add(w) = if c.is_null() {
                        ptr::null_mut()
                    } else {
                        super::boa::convert::strdup_bytes(std::slice::from_raw_parts(
                            c.cast(),
                            l as usize,
                        ))
                    };
                    if !out_len.is_null() {
                        *out_len.add(w) = l;
                    }
                    if !out_status.is_null() {
                        *out_status.add(w) = s;
                    }
                }
            }
        }
        // SAFETY: b came from create and is destroyed once.
        unsafe { seqshim_poa_batch_destroy(b) };
        status
    })
}
