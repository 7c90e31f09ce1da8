//! `seqshim_poa_*`: seqshim's own batch API for POA windows (declared in
//! `include/seqshim.h`). A batch copies its windows in, runs them all at
//! once on the CPU pool through the `poa` family's scheduler (bucketed by
//! read count and longest read, as CONSENT-GPU buckets them), and keeps
//! per-window results until it is reset or destroyed. The batch itself is
//! [`crate::poa::batch::Batch`]; this module checks arguments, converts C
//! memory and maps outcomes to `seqshim_status`.
#![allow(non_camel_case_types)]

use std::ffi::c_char;
use std::ptr;

use super::handle::{self, BatchState};
use super::status::*;
use crate::ffi_guard;
use crate::poa::batch::{Batch, DnaOptions, ResultError};
use crate::poa::{BatchConfig, ConsensusRule, WindowResult, WindowStatus};

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
/// Largest magnitude of a score in `seqshim_poa_params_t` (beyond it,
/// create returns `SEQSHIM_E_OPTION`).
pub const SEQSHIM_POA_MAX_SCORE: u32 = 10_000;
/// Most reads one window may hold (more: `SEQSHIM_E_LIMIT`).
pub const SEQSHIM_POA_MAX_READS: u32 = 1 << 20;
/// Longest read a window may hold (longer: `SEQSHIM_E_LIMIT`).
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
    /// −1 or ≥ 0 (a CUDA ordinal), accepted alike: windows the POA kernel takes
    /// run on every GPU in use (SEQSHIM_BACKEND, SEQSHIM_DEVICES), the rest on
    /// the CPU pool.
    pub device: i32,
    /// Reserved: the CPU pool size is set by SEQSHIM_THREADS; 0 = all cores.
    pub cpu_threads: i32,
}

/// An opaque batch of windows: the family's batch and, for C callers, each
/// run window's consensus with a NUL after it.
pub struct seqshim_poa_batch_t {
    batch: Batch,
    consensus_c: Vec<Vec<u8>>,
}

impl BatchState for seqshim_poa_batch_t {
    fn len(&self) -> usize {
        self.batch.len()
    }

    /// Removes every window and result; the options stay and ids start at
    /// 0 again.
    fn reset(&mut self) {
        self.batch.reset();
        self.consensus_c.clear();
    }
}

impl seqshim_poa_batch_t {
    /// Keeps a NUL-terminated copy of each consensus that has none yet.
    /// Results only come from runs, which run every pending window, so the
    /// windows with results are always the first ones.
    fn store_consensus(&mut self) {
        while let Ok(r) = self.batch.result(self.consensus_c.len() as u64) {
            let mut c = Vec::with_capacity(r.consensus.len() + 1);
            c.extend_from_slice(&r.consensus);
            c.push(0);
            self.consensus_c.push(c);
        }
    }
}

/// The family configuration of `p`, or the status saying what is wrong.
fn config_from(p: &seqshim_poa_params_t) -> Result<BatchConfig, seqshim_status> {
    let consensus = match p.consensus_mode {
        SEQSHIM_POA_CONS_COLUMN_MAJORITY => ConsensusRule::ColumnMajority,
        SEQSHIM_POA_CONS_HEAVIEST_BUNDLE => ConsensusRule::HeaviestBundle,
        _ => return Err(SEQSHIM_E_OPTION),
    };
    let global = match p.align_mode {
        SEQSHIM_POA_ALIGN_GLOBAL => true,
        SEQSHIM_POA_ALIGN_LOCAL => false,
        _ => return Err(SEQSHIM_E_OPTION),
    };
    let (Ok(max_seqs), true) = (usize::try_from(p.max_seqs_per_window), p.device >= -1) else {
        return Err(SEQSHIM_E_OPTION);
    };
    BatchConfig::dna(&DnaOptions {
        match_score: p.match_score,
        mismatch: p.mismatch,
        gap_open: p.gap_open,
        gap_extend: p.gap_extend,
        gap_truncation: p.gap_trunc_len,
        global,
        consensus,
        max_seqs,
        want_msa: p.want_msa != 0,
    })
    // Every refusal is an option out of range.
    .map_err(|_| SEQSHIM_E_OPTION)
}

/// Fills `params` with CONSENT's settings: 5 / −10 / −5 / −5, truncation 16,
/// global, column majority, 150 reads, MSA kept, CPU. Returns `SEQSHIM_OK`,
/// or `SEQSHIM_E_NULL` for a null pointer.
///
/// # Safety
/// `params` must be null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_params_default(
    params: *mut seqshim_poa_params_t,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or writable per the contract.
        let Some(p) = (unsafe { params.as_mut() }) else {
            return SEQSHIM_E_NULL;
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
        SEQSHIM_OK
    })
}

/// Creates an empty batch with these parameters and stores it in `*out`
/// (left untouched on failure). `expected_windows` reserves room (a hint,
/// capped). Returns `SEQSHIM_OK`, `SEQSHIM_E_NULL` (`params` or `out`
/// null) or `SEQSHIM_E_OPTION` (an unknown mode, semi-global alignment,
/// `max_seqs_per_window < 1`, `gap_trunc_len` outside 1..4096, `device <
/// −1`, or a score beyond ±`SEQSHIM_POA_MAX_SCORE`), each failure with one
/// warning line.
///
/// # Safety
/// `params` must be null or point to a `seqshim_poa_params_t`; `out` null
/// or writable. Free the batch with `seqshim_poa_batch_destroy`. A batch
/// may be used from one thread at a time; different batches from any
/// threads at once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_create(
    params: *const seqshim_poa_params_t,
    expected_windows: usize,
    out: *mut *mut seqshim_poa_batch_t,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or valid per the contract.
        let (Some(p), false) = (unsafe { params.as_ref() }, out.is_null()) else {
            return SEQSHIM_E_NULL;
        };
        let config = match config_from(p) {
            Ok(c) => c,
            Err(status) => {
                crate::log_warn!("seqshim_poa_batch_create: parameters out of range: {p:?}");
                return status;
            }
        };
        let state = seqshim_poa_batch_t {
            batch: Batch::new(config, expected_windows),
            consensus_c: Vec::new(),
        };
        // SAFETY: `out` is non-null (checked above) and writable per the
        // contract.
        unsafe { handle::create(state, out) }
    })
}

/// Copies a window of `nseq` reads into the batch and writes its id (0, 1,
/// ... in order of addition) to `out_window_id` when that is not null.
/// `lens` may be null for NUL-terminated reads; a null read with length 0 is
/// an empty read. Returns `SEQSHIM_OK`, `SEQSHIM_E_NULL` (a null batch, a
/// null `seqs` with `nseq > 0`, a null read with a length) or
/// `SEQSHIM_E_LIMIT` (more than `SEQSHIM_POA_MAX_READS` reads, or a read
/// longer than `SEQSHIM_POA_MAX_READ_LEN` bases); on failure nothing is
/// added.
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
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or a live batch per the contract.
        let b = match unsafe { handle::state_mut(b) } {
            Ok(b) => b,
            Err(status) => return status,
        };
        if nseq > SEQSHIM_POA_MAX_READS {
            return SEQSHIM_E_LIMIT;
        }
        if nseq > 0 && seqs.is_null() {
            return SEQSHIM_E_NULL;
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
                    None => return SEQSHIM_E_NULL,
                }
            };
            if read.len() > SEQSHIM_POA_MAX_READ_LEN as usize {
                return SEQSHIM_E_LIMIT;
            }
            reads.push(read.to_vec());
        }
        let id = b.batch.add_window(reads);
        // SAFETY: null or writable per the contract.
        if let Some(out) = unsafe { out_window_id.as_mut() } {
            *out = id;
        }
        SEQSHIM_OK
    })
}

/// Runs every window added since the last run, in parallel on the CPU pool.
/// Returns `SEQSHIM_OK` (per-window outcomes come from
/// `seqshim_poa_batch_window_status`) or `SEQSHIM_E_NULL` for null.
///
/// # Safety
/// `b` must be null or a live batch, not used by another thread meanwhile.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_run(b: *mut seqshim_poa_batch_t) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or a live batch per the contract.
        let b = match unsafe { handle::state_mut(b) } {
            Ok(b) => b,
            Err(status) => return status,
        };
        b.batch.run();
        b.store_consensus();
        SEQSHIM_OK
    })
}

/// The result of window `id`, or the status saying why there is none.
fn window(b: &seqshim_poa_batch_t, id: u64) -> Result<&WindowResult, seqshim_status> {
    b.batch.result(id).map_err(|e| match e {
        ResultError::UnknownWindow => SEQSHIM_E_INDEX,
        ResultError::NotRun => SEQSHIM_E_STATE,
    })
}

fn status_of(r: &WindowResult) -> seqshim_status {
    match r.status {
        WindowStatus::Ok => SEQSHIM_OK,
        WindowStatus::Empty => SEQSHIM_E_EMPTY,
        WindowStatus::GraphTooLarge => SEQSHIM_E_LIMIT,
        WindowStatus::Device => SEQSHIM_E_DEVICE,
    }
}

/// The outcome of window `id`: `SEQSHIM_OK`; `SEQSHIM_E_EMPTY` (no
/// non-empty read, or, heaviest-bundle rule, POA v2 made no bundle because
/// the heaviest path is under 10 nodes); `SEQSHIM_E_LIMIT` (fusion stopped
/// at POA v2's memory bound, `POA_MAX_ALLOC`: no result); `SEQSHIM_E_DEVICE`
/// (a device failed and SEQSHIM_STRICT forbade the CPU fallback);
/// `SEQSHIM_E_STATE` before the window has run; `SEQSHIM_E_INDEX` for an
/// unknown id; `SEQSHIM_E_NULL` for a null batch.
///
/// # Safety
/// `b` must be null or a live batch.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_window_status(
    b: *const seqshim_poa_batch_t,
    id: u64,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or a live batch per the contract.
        let b = match unsafe { handle::state(b) } {
            Ok(b) => b,
            Err(status) => return status,
        };
        match window(b, id) {
            Ok(r) => status_of(r),
            Err(e) => e,
        }
    })
}

/// The consensus of window `id`, NUL-terminated, borrowed until the batch is
/// reset or destroyed; `len` (optional) gets its length. An empty window
/// gives `""` with `SEQSHIM_E_EMPTY`. Other failures (the statuses of
/// `seqshim_poa_batch_window_status`, `SEQSHIM_E_NULL` for a null `cons`)
/// leave the outputs untouched.
///
/// # Safety
/// `b` must be null or a live batch; `cons` and `len` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_get_consensus(
    b: *const seqshim_poa_batch_t,
    id: u64,
    cons: *mut *const c_char,
    len: *mut u32,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or a live batch per the contract.
        let b = match unsafe { handle::state(b) } {
            Ok(b) => b,
            Err(status) => return status,
        };
        if cons.is_null() {
            return SEQSHIM_E_NULL;
        }
        let r = match window(b, id) {
            Ok(r) => r,
            Err(e) => return e,
        };
        let status = status_of(r);
        if status != SEQSHIM_OK && status != SEQSHIM_E_EMPTY {
            return status;
        }
        // Every window with a result has its C copy (stored by the run).
        let Some(c) = b.consensus_c.get(id as usize) else {
            return SEQSHIM_E_INTERNAL;
        };
        // SAFETY: writable per the contract.
        unsafe {
            *cons = c.as_ptr().cast();
            if let Some(l) = len.as_mut() {
                *l = r.consensus.len() as u32;
            }
        }
        status
    })
}

/// The MSA of window `id`: `nrows` rows (the used reads, in input order,
/// empty reads skipped) of `ncols` bytes each, row-major, `-` for gaps, not
/// NUL-terminated, borrowed until reset or destroy. Returns `SEQSHIM_OK`,
/// `SEQSHIM_E_NULL` (a null batch or output), `SEQSHIM_E_OPTION` when the
/// batch was created with `want_msa = 0`, or the window's failure as
/// `seqshim_poa_batch_window_status` gives it (`SEQSHIM_E_EMPTY` included).
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
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or a live batch per the contract.
        let b = match unsafe { handle::state(b) } {
            Ok(b) => b,
            Err(status) => return status,
        };
        if nrows.is_null() || ncols.is_null() || rows_rowmajor.is_null() {
            return SEQSHIM_E_NULL;
        }
        if !b.batch.config().want_msa {
            return SEQSHIM_E_OPTION;
        }
        let r = match window(b, id) {
            Ok(r) => r,
            Err(e) => return e,
        };
        let status = status_of(r);
        if status != SEQSHIM_OK {
            return status;
        }
        // SAFETY: writable per the contract.
        unsafe {
            *nrows = r.nrows as u32;
            *ncols = r.ncols as u32;
            *rows_rowmajor = r.msa.as_ptr().cast();
        }
        SEQSHIM_OK
    })
}

/// Number of windows in the batch (0 for null).
///
/// # Safety
/// `b` must be null or a live batch.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_size(b: *const seqshim_poa_batch_t) -> usize {
    // SAFETY: null or a live batch per the contract.
    ffi_guard!({ unsafe { handle::len(b) } })
}

/// Removes every window and result, keeping the options; ids start at 0
/// again. Pointers from the getters become invalid. Returns `SEQSHIM_OK`
/// or `SEQSHIM_E_NULL`.
///
/// # Safety
/// `b` must be null or a live batch.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_reset(b: *mut seqshim_poa_batch_t) -> seqshim_status {
    // SAFETY: null or a live batch per the contract.
    ffi_guard!({ unsafe { handle::reset(b) } })
}

/// Frees the batch. Null is ignored, and so is a second destroy of the same
/// batch (with a warning).
///
/// # Safety
/// `b` must be null or a batch from `seqshim_poa_batch_create`; it must not
/// be used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_batch_destroy(b: *mut seqshim_poa_batch_t) {
    // SAFETY: null or a batch from `seqshim_poa_batch_create` per the
    // contract; a second destroy is recognised and ignored.
    ffi_guard!({ unsafe { handle::destroy(b) } })
}

/// One call for many windows: window `w` has `nseq[w]` reads `seqs[w][i]`
/// of `lens[w][i]` bytes (`lens` or `lens[w]` may be null for
/// NUL-terminated reads). `out_cons[w]` gets a `malloc`ed NUL-terminated
/// consensus (free it with `free`; null when the window failed),
/// `out_len[w]` its length and `out_status[w]` the window's status as
/// `seqshim_poa_batch_window_status` gives it (both optional;
/// `SEQSHIM_E_STATE` for windows not run because of an argument error).
/// Returns `SEQSHIM_OK` or the first argument error (as
/// `seqshim_poa_batch_create` and `seqshim_poa_batch_add_window` give it).
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
    out_status: *mut seqshim_status,
) -> seqshim_status {
    ffi_guard!({
        if nwin > 0 && (nseq.is_null() || seqs.is_null() || out_cons.is_null()) {
            return SEQSHIM_E_NULL;
        }
        let mut b: *mut seqshim_poa_batch_t = ptr::null_mut();
        // SAFETY: forwarded from the contract; `b` is writable.
        let status = unsafe { seqshim_poa_batch_create(p, nwin, &mut b) };
        if status != SEQSHIM_OK {
            return status;
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
                    *out_status.add(w) = SEQSHIM_E_STATE;
                }
            }
        }
        let mut status = SEQSHIM_OK;
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
            if s != SEQSHIM_OK {
                status = s;
                break;
            }
        }
        if status == SEQSHIM_OK {
            // SAFETY: b is live and used by this thread only.
            status = unsafe { seqshim_poa_batch_run(b) };
        }
        if status == SEQSHIM_OK {
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

/// Where the windows of `seqshim_poa_batch_run` (and
/// `seqshim_poa_consensus_many`) ran so far in this process: `*on_gpu` on
/// a GPU, `*on_cpu` on the CPU pool (either pointer may be null; a window
/// a GPU gave back counts as on the CPU). Returns the number of GPUs POA
/// uses: 0 when no GPU is in use (`seqshim_backend_info` says why) or the
/// POA kernel is unavailable on every GPU.
///
/// # Safety
/// `on_gpu` and `on_cpu` must each be null or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_poa_routing(on_gpu: *mut u64, on_cpu: *mut u64) -> i32 {
    ffi_guard!({
        let (gpu, cpu, devices) = crate::poa::routing::window_routing();
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

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn limits_match_the_family() {
        assert_eq!(SEQSHIM_POA_MAX_SCORE, crate::poa::batch::MAX_SCORE);
    }

    #[test]
    fn lifecycle_statuses() {
        let mut p = std::mem::MaybeUninit::<seqshim_poa_params_t>::uninit();
        let mut b: *mut seqshim_poa_batch_t = ptr::null_mut();
        // SAFETY: valid pointers, null where that is the case under test;
        // the batch is destroyed twice on purpose.
        unsafe {
            assert_eq!(seqshim_poa_params_default(p.as_mut_ptr()), SEQSHIM_OK);
            let p = p.assume_init();
            assert_eq!(
                seqshim_poa_batch_create(&p, 1, ptr::null_mut()),
                SEQSHIM_E_NULL
            );
            assert_eq!(
                seqshim_poa_batch_create(ptr::null(), 1, &mut b),
                SEQSHIM_E_NULL
            );
            let mut bad = p;
            bad.align_mode = SEQSHIM_POA_ALIGN_SEMIGLOBAL;
            assert_eq!(seqshim_poa_batch_create(&bad, 1, &mut b), SEQSHIM_E_OPTION);
            let mut bad = p;
            bad.gap_open = -(SEQSHIM_POA_MAX_SCORE as i32) - 1;
            assert_eq!(seqshim_poa_batch_create(&bad, 1, &mut b), SEQSHIM_E_OPTION);
            assert!(b.is_null());
            assert_eq!(seqshim_poa_batch_create(&p, 1, &mut b), SEQSHIM_OK);
            let reads = [
                c"ACGTACGTAAGGTTCCAGT".as_ptr(),
                c"ACGTTCGTAAGGTCCAGTT".as_ptr(),
            ];
            let mut id = 9;
            assert_eq!(
                seqshim_poa_batch_add_window(b, 2, reads.as_ptr(), ptr::null(), &mut id),
                SEQSHIM_OK
            );
            assert_eq!(id, 0);
            assert_eq!(seqshim_poa_batch_window_status(b, 0), SEQSHIM_E_STATE);
            assert_eq!(seqshim_poa_batch_window_status(b, 1), SEQSHIM_E_INDEX);
            assert_eq!(seqshim_poa_batch_run(b), SEQSHIM_OK);
            assert_eq!(seqshim_poa_batch_window_status(b, 0), SEQSHIM_OK);
            let (mut cons, mut len) = (ptr::null(), 0);
            assert_eq!(
                seqshim_poa_batch_get_consensus(b, 0, &mut cons, &mut len),
                SEQSHIM_OK
            );
            assert_eq!(
                std::ffi::CStr::from_ptr(cons).to_bytes().len(),
                len as usize
            );
            assert_eq!(seqshim_poa_batch_size(b), 1);
            assert_eq!(seqshim_poa_batch_reset(b), SEQSHIM_OK);
            assert_eq!(seqshim_poa_batch_size(b), 0);
            assert_eq!(seqshim_poa_batch_window_status(b, 0), SEQSHIM_E_INDEX);
            assert_eq!(seqshim_poa_batch_reset(ptr::null_mut()), SEQSHIM_E_NULL);
            seqshim_poa_batch_destroy(b);
            seqshim_poa_batch_destroy(b);
        }
    }
}
