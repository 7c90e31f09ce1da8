//! `seqshim_wfa_*`: seqshim's own batch API for wavefront alignment
//! (declared in `include/seqshim.h`). A batch holds many pairs aligned with
//! one configuration; `seqshim_wfa_batch_run` sends the pairs a GPU can
//! align exactly to the GPU executors while the CPU pool aligns the rest,
//! and every result equals what `wavefront_align` gives for that pair on an
//! aligner made with the same attributes.
#![allow(non_camel_case_types)]

use std::ffi::c_char;
use std::sync::Arc;

use super::handle::{self, BatchState};
use super::status::*;
use crate::engine::scheduler::CPU_PATH_PANICKED;
use crate::ffi_guard;
use crate::wfa::batch::{self, Batch, Lent, Slot};
use crate::wfa::job::{PairResult, PairSource};
use crate::wfa::{
    Affine2pPenalties, AffinePenalties, AlignerAttributes, AlignmentForm, AlignmentScope,
    AlignmentSpan, Heuristic, LinearPenalties, MemoryMode, Penalties, WfaError,
};

/// `metric`: the values of WFA2-lib's `distance_metric_t`.
pub const SEQSHIM_WFA_METRIC_INDEL: i32 = 0;
pub const SEQSHIM_WFA_METRIC_EDIT: i32 = 1;
pub const SEQSHIM_WFA_METRIC_GAP_LINEAR: i32 = 2;
pub const SEQSHIM_WFA_METRIC_GAP_AFFINE: i32 = 3;
pub const SEQSHIM_WFA_METRIC_GAP_AFFINE_2P: i32 = 4;
/// `span`: global alignment.
pub const SEQSHIM_WFA_SPAN_END_TO_END: i32 = 0;
/// `span`: ends-free alignment with the four `*_free` lengths.
pub const SEQSHIM_WFA_SPAN_ENDS_FREE: i32 = 1;
/// `scope`: score only (no CIGAR).
pub const SEQSHIM_WFA_SCOPE_SCORE: i32 = 0;
/// `scope`: score and CIGAR.
pub const SEQSHIM_WFA_SCOPE_ALIGNMENT: i32 = 1;
/// `heuristic`: exact alignment.
pub const SEQSHIM_WFA_HEURISTIC_NONE: i32 = 0;
/// `heuristic`: wf-adaptive (`min_wavefront_length`,
/// `max_distance_threshold`, `steps_between_cutoffs`); WFA2-lib's default.
pub const SEQSHIM_WFA_HEURISTIC_WFADAPTIVE: i32 = 1;
/// `heuristic`: wf-mash (same parameters as wf-adaptive).
pub const SEQSHIM_WFA_HEURISTIC_WFMASH: i32 = 2;
/// `heuristic`: x-drop (`drop`, `steps_between_cutoffs`).
pub const SEQSHIM_WFA_HEURISTIC_XDROP: i32 = 3;
/// `heuristic`: z-drop (`drop`, `steps_between_cutoffs`).
pub const SEQSHIM_WFA_HEURISTIC_ZDROP: i32 = 4;
/// `heuristic`: static band (`band_min_k`, `band_max_k`; `band_min_k >
/// band_max_k` is refused with `SEQSHIM_E_ARG`).
pub const SEQSHIM_WFA_HEURISTIC_BANDED_STATIC: i32 = 5;
/// `heuristic`: adaptive band (`band_min_k`, `band_max_k`,
/// `steps_between_cutoffs`; an inverted band as for the static one).
pub const SEQSHIM_WFA_HEURISTIC_BANDED_ADAPTIVE: i32 = 6;
/// `memory_mode`: the values of WFA2-lib's `wavefront_memory_t`.
pub const SEQSHIM_WFA_MEMORY_HIGH: i32 = 0;
pub const SEQSHIM_WFA_MEMORY_MED: i32 = 1;
pub const SEQSHIM_WFA_MEMORY_LOW: i32 = 2;
/// BiWFA: refused by batches (`SEQSHIM_E_OPTION`); use
/// `wavefront_align` for it.
pub const SEQSHIM_WFA_MEMORY_ULTRALOW: i32 = 3;
/// `device`: every pair on the CPU pool.
pub const SEQSHIM_WFA_DEVICE_CPU: i32 = -1;
/// `device`: the GPUs seqshim uses (SEQSHIM_DEVICES), the CPU pool for the
/// rest. A value ≥ 0 means the same: the GPU set is chosen per process.
pub const SEQSHIM_WFA_DEVICE_ANY: i32 = -2;

/// Options of a batch. `seqshim_wfa_options_default` fills WFA2-lib's
/// `wavefront_aligner_attr_default`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct seqshim_wfa_options_t {
    /// `SEQSHIM_WFA_METRIC_*` (default: gap-affine).
    pub metric: i32,
    /// Score of a match, ≤ 0 (default 0); unused by indel and edit.
    pub match_score: i32,
    /// Mismatch penalty (default 4); unused by indel and edit.
    pub mismatch: i32,
    /// Gap-linear: penalty per inserted or deleted base (default 2).
    pub indel: i32,
    /// Gap-affine (and the first piece of affine-2p): gap opening (default 6).
    pub gap_opening: i32,
    /// Gap-affine (and the first piece of affine-2p): extension (default 2).
    pub gap_extension: i32,
    /// Gap-affine-2p: second piece's opening (default 24).
    pub gap_opening2: i32,
    /// Gap-affine-2p: second piece's extension (default 1).
    pub gap_extension2: i32,
    /// `SEQSHIM_WFA_SPAN_*` (default: end to end).
    pub span: i32,
    /// Ends-free lengths (used when `span` is ends-free; each ≥ 0 and no
    /// larger than its sequence).
    pub pattern_begin_free: i32,
    pub pattern_end_free: i32,
    pub text_begin_free: i32,
    pub text_end_free: i32,
    /// `SEQSHIM_WFA_SCOPE_*` (default: alignment).
    pub scope: i32,
    /// `SEQSHIM_WFA_HEURISTIC_*` (default: wf-adaptive 10, 50, 1).
    pub heuristic: i32,
    pub min_wavefront_length: i32,
    pub max_distance_threshold: i32,
    pub steps_between_cutoffs: i32,
    /// X-drop or Z-drop threshold.
    pub drop: i32,
    pub band_min_k: i32,
    pub band_max_k: i32,
    /// `SEQSHIM_WFA_MEMORY_*` (default: high).
    pub memory_mode: i32,
    /// Stop at this score (status −2); `INT32_MAX` (default) for none.
    pub max_alignment_score: i32,
    /// `SEQSHIM_WFA_DEVICE_CPU`, `SEQSHIM_WFA_DEVICE_ANY` (default) or a
    /// GPU ordinal (treated as ANY).
    pub device: i32,
}

/// Largest `expected_pairs` hint that reserves room.
const MAX_RESERVED_PAIRS: usize = 1 << 22;

/// A borrowed pair: caller memory, read when the batch runs. Kept small
/// (lengths from the `int` arguments): for short pairs, the fresh memory a
/// batch touches per pair added is most of what adding costs.
struct Borrowed {
    slot: usize,
    pattern: *const u8,
    text: *const u8,
    pattern_len: u32,
    text_len: u32,
}

/// The borrowed pairs of one run, lent to the batch's jobs (which read them
/// on the pool and GPU executor threads, without copying them first).
struct LentPairs(Vec<Borrowed>);

// SAFETY: the pointers are only read through `PairSource`, by the jobs of
// the one `seqshim_wfa_batch_run` they are lent to. The caller may not
// overlap that run with any other use of the batch and keeps the bytes
// valid and unchanged until it returns (the contract of
// `seqshim_wfa_batch_add_borrowed`), and `Batch::run_with` does not return,
// even by unwinding, before every job reading them is done.
unsafe impl Send for LentPairs {}
// SAFETY: as for `Send`: shared reads of memory nobody writes meanwhile.
unsafe impl Sync for LentPairs {}

impl LentPairs {
    fn bytes(&self, pointer: *const u8, len: u32) -> &[u8] {
        // SAFETY: non-null or empty (checked at add time) and readable for
        // the run (see the `Send` impl); `bytes` only refuses what add
        // refused, which cannot reach here.
        unsafe { super::guard::bytes(pointer, len as usize) }.unwrap_or_default()
    }
}

impl PairSource for LentPairs {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn lengths(&self, index: usize) -> (usize, usize) {
        let pair = &self.0[index];
        (pair.pattern_len as usize, pair.text_len as usize)
    }
    fn pattern(&self, index: usize) -> &[u8] {
        let pair = &self.0[index];
        self.bytes(pair.pattern, pair.pattern_len)
    }
    fn text(&self, index: usize) -> &[u8] {
        let pair = &self.0[index];
        self.bytes(pair.text, pair.text_len)
    }
}

impl Lent for LentPairs {
    fn slot(&self, index: usize) -> usize {
        self.0[index].slot
    }
}

/// An opaque batch of pairs.
pub struct seqshim_wfa_batch_t {
    batch: Batch,
    borrowed: Vec<Borrowed>,
}

impl BatchState for seqshim_wfa_batch_t {
    fn len(&self) -> usize {
        self.batch.len()
    }

    /// Removes every pair and result (borrowed pairs are forgotten); the
    /// options and the room reserved stay.
    fn reset(&mut self) {
        self.batch.reset();
        self.borrowed.clear();
    }
}

fn options_default() -> seqshim_wfa_options_t {
    seqshim_wfa_options_t {
        metric: SEQSHIM_WFA_METRIC_GAP_AFFINE,
        match_score: 0,
        mismatch: 4,
        indel: 2,
        gap_opening: 6,
        gap_extension: 2,
        gap_opening2: 24,
        gap_extension2: 1,
        span: SEQSHIM_WFA_SPAN_END_TO_END,
        pattern_begin_free: 0,
        pattern_end_free: 0,
        text_begin_free: 0,
        text_end_free: 0,
        scope: SEQSHIM_WFA_SCOPE_ALIGNMENT,
        heuristic: SEQSHIM_WFA_HEURISTIC_WFADAPTIVE,
        min_wavefront_length: 10,
        max_distance_threshold: 50,
        steps_between_cutoffs: 1,
        drop: 0,
        band_min_k: 0,
        band_max_k: 0,
        memory_mode: SEQSHIM_WFA_MEMORY_HIGH,
        max_alignment_score: i32::MAX,
        device: SEQSHIM_WFA_DEVICE_ANY,
    }
}

/// The aligner attributes of `o`, or the status saying what is wrong.
fn attributes_of(o: &seqshim_wfa_options_t) -> Result<AlignerAttributes, seqshim_status> {
    let penalties = match o.metric {
        SEQSHIM_WFA_METRIC_INDEL => Penalties::Indel,
        SEQSHIM_WFA_METRIC_EDIT => Penalties::Edit,
        SEQSHIM_WFA_METRIC_GAP_LINEAR => Penalties::GapLinear(LinearPenalties {
            match_score: o.match_score,
            mismatch: o.mismatch,
            indel: o.indel,
        }),
        SEQSHIM_WFA_METRIC_GAP_AFFINE => Penalties::GapAffine(AffinePenalties {
            match_score: o.match_score,
            mismatch: o.mismatch,
            gap_opening: o.gap_opening,
            gap_extension: o.gap_extension,
        }),
        SEQSHIM_WFA_METRIC_GAP_AFFINE_2P => Penalties::GapAffine2p(Affine2pPenalties {
            match_score: o.match_score,
            mismatch: o.mismatch,
            gap_opening1: o.gap_opening,
            gap_extension1: o.gap_extension,
            gap_opening2: o.gap_opening2,
            gap_extension2: o.gap_extension2,
        }),
        _ => return Err(SEQSHIM_E_OPTION),
    };
    let form = match o.span {
        SEQSHIM_WFA_SPAN_END_TO_END => AlignmentForm::END_TO_END,
        SEQSHIM_WFA_SPAN_ENDS_FREE => {
            let lengths = [
                o.pattern_begin_free,
                o.pattern_end_free,
                o.text_begin_free,
                o.text_end_free,
            ];
            if lengths.iter().any(|&l| l < 0) {
                return Err(SEQSHIM_E_OPTION);
            }
            AlignmentForm {
                span: AlignmentSpan::EndsFree,
                pattern_begin_free: o.pattern_begin_free,
                pattern_end_free: o.pattern_end_free,
                text_begin_free: o.text_begin_free,
                text_end_free: o.text_end_free,
            }
        }
        _ => return Err(SEQSHIM_E_OPTION),
    };
    let scope = match o.scope {
        SEQSHIM_WFA_SCOPE_SCORE => AlignmentScope::ComputeScore,
        SEQSHIM_WFA_SCOPE_ALIGNMENT => AlignmentScope::ComputeAlignment,
        _ => return Err(SEQSHIM_E_OPTION),
    };
    let steps = o.steps_between_cutoffs;
    let heuristic = match o.heuristic {
        SEQSHIM_WFA_HEURISTIC_NONE => Heuristic::none(),
        SEQSHIM_WFA_HEURISTIC_WFADAPTIVE => {
            Heuristic::wfadaptive(o.min_wavefront_length, o.max_distance_threshold, steps)
        }
        SEQSHIM_WFA_HEURISTIC_WFMASH => {
            Heuristic::wfmash(o.min_wavefront_length, o.max_distance_threshold, steps)
        }
        SEQSHIM_WFA_HEURISTIC_XDROP => Heuristic::xdrop(o.drop, steps),
        SEQSHIM_WFA_HEURISTIC_ZDROP => Heuristic::zdrop(o.drop, steps),
        // A band with no diagonal in it is a caller's mistake: 2.3.3
        // crashes on it with edit and indel.
        SEQSHIM_WFA_HEURISTIC_BANDED_STATIC | SEQSHIM_WFA_HEURISTIC_BANDED_ADAPTIVE
            if o.band_min_k > o.band_max_k =>
        {
            return Err(SEQSHIM_E_ARG);
        }
        SEQSHIM_WFA_HEURISTIC_BANDED_STATIC => Heuristic::banded_static(o.band_min_k, o.band_max_k),
        SEQSHIM_WFA_HEURISTIC_BANDED_ADAPTIVE => {
            Heuristic::banded_adaptive(o.band_min_k, o.band_max_k, steps)
        }
        _ => return Err(SEQSHIM_E_OPTION),
    };
    let memory_mode = match o.memory_mode {
        SEQSHIM_WFA_MEMORY_HIGH => MemoryMode::High,
        SEQSHIM_WFA_MEMORY_MED => MemoryMode::Med,
        SEQSHIM_WFA_MEMORY_LOW => MemoryMode::Low,
        // BiWFA's CIGARs and scores follow rules of their own in
        // `wavefront_align`; a batch offers the unidirectional modes only.
        _ => return Err(SEQSHIM_E_OPTION),
    };
    if o.max_alignment_score < 1 || o.device < SEQSHIM_WFA_DEVICE_ANY {
        return Err(SEQSHIM_E_OPTION);
    }
    Ok(AlignerAttributes {
        penalties,
        scope,
        form,
        memory_mode,
        heuristic,
        max_alignment_score: o.max_alignment_score,
    })
}

fn status_of_error(e: &WfaError) -> seqshim_status {
    match e {
        WfaError::InvalidPenalties(_) => SEQSHIM_E_OPTION,
        WfaError::EndsFreeTooLarge => SEQSHIM_E_LIMIT,
        _ => SEQSHIM_E_OPTION,
    }
}

/// Fills `options` with WFA2-lib's defaults: gap-affine (0, 4, 6, 2), end
/// to end, full CIGAR, wf-adaptive (10, 50, 1), high memory, no score limit,
/// and `SEQSHIM_WFA_DEVICE_ANY`. Returns `SEQSHIM_E_NULL` for null.
///
/// # Safety
/// `options` must be null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_wfa_options_default(
    options: *mut seqshim_wfa_options_t,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or writable per the contract.
        let Some(o) = (unsafe { options.as_mut() }) else {
            return SEQSHIM_E_NULL;
        };
        *o = options_default();
        SEQSHIM_OK
    })
}

/// Creates an empty batch with these options and stores it in `*out`
/// (left untouched on failure). `expected_pairs` reserves room for that
/// many result slots and borrowed pairs (a hint, up to 4 M pairs; adding
/// short pairs into room already there is faster).
/// Returns `SEQSHIM_OK`, `SEQSHIM_E_NULL`, `SEQSHIM_E_OPTION` or
/// `SEQSHIM_E_ARG` (a band with `band_min_k > band_max_k`), each failure
/// with one warning line saying what is wrong.
///
/// # Safety
/// `options` must be null or point to a `seqshim_wfa_options_t`; `out` null
/// or writable. Free the batch with `seqshim_wfa_batch_destroy`. A batch
/// may be used by one thread at a time; different batches by any threads
/// at once.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_wfa_batch_create(
    options: *const seqshim_wfa_options_t,
    expected_pairs: usize,
    out: *mut *mut seqshim_wfa_batch_t,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or valid per the contract.
        let (Some(o), false) = (unsafe { options.as_ref() }, out.is_null()) else {
            return SEQSHIM_E_NULL;
        };
        let attributes = match attributes_of(o) {
            Ok(a) => a,
            Err(status) => {
                crate::log_warn!("seqshim_wfa_batch_create: unknown or out-of-range option: {o:?}");
                return status;
            }
        };
        let batch = match Batch::new(attributes, o.device != SEQSHIM_WFA_DEVICE_CPU) {
            Ok(b) => b,
            Err(e) => {
                crate::log_warn!("seqshim_wfa_batch_create: {e:?}");
                return status_of_error(&e);
            }
        };
        let mut b = Box::new(seqshim_wfa_batch_t {
            batch,
            borrowed: Vec::new(),
        });
        // A hint only: a wild value must not become an allocation the
        // process cannot survive, so it is capped and may be refused. Room
        // reserved up front spares a million-pair batch the copies and
        // page faults of growing one pair at a time.
        let hint = expected_pairs.min(MAX_RESERVED_PAIRS);
        let borrowed_room = b.borrowed.try_reserve(hint).is_ok();
        if !(b.batch.try_reserve(hint) && borrowed_room) {
            crate::log_debug!("seqshim_wfa_batch_create: no room reserved for {hint} pairs");
        }
        // SAFETY: `out` is non-null (checked above) and writable per the
        // contract.
        unsafe { handle::create(*b, out) }
    })
}

/// Checks one pair's arguments; the lengths as `usize`.
fn check_pair(
    b: &seqshim_wfa_batch_t,
    pattern: *const c_char,
    pattern_len: i32,
    text: *const c_char,
    text_len: i32,
) -> Result<(usize, usize), seqshim_status> {
    if pattern_len < 0 || text_len < 0 {
        return Err(SEQSHIM_E_LIMIT);
    }
    if (pattern.is_null() && pattern_len > 0) || (text.is_null() && text_len > 0) {
        return Err(SEQSHIM_E_NULL);
    }
    let (p, t) = (pattern_len as usize, text_len as usize);
    b.batch.check_lengths(p, t).map_err(|_| SEQSHIM_E_LIMIT)?;
    Ok((p, t))
}

/// Writes `value` to an optional `size_t` output.
///
/// # Safety
/// `out` must be null or writable.
unsafe fn write_size(out: *mut usize, value: usize) {
    // SAFETY: null or writable per the contract.
    if let Some(out) = unsafe { out.as_mut() } {
        *out = value;
    }
}

/// Copies a pair into the batch and writes its index (0, 1, ... in order of
/// addition, borrowed pairs included) to `out_index` when not null. A null
/// sequence with length 0 is empty. Returns `SEQSHIM_OK`, `SEQSHIM_E_NULL` or
/// `SEQSHIM_E_LIMIT` (the pair is then not added).
///
/// # Safety
/// `b` null or a live batch; each sequence readable for its length;
/// `out_index` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_wfa_batch_add(
    b: *mut seqshim_wfa_batch_t,
    pattern: *const c_char,
    pattern_len: i32,
    text: *const c_char,
    text_len: i32,
    out_index: *mut usize,
) -> seqshim_status {
    // SAFETY: forwarded contract.
    unsafe { add_pair(b, pattern, pattern_len, text, text_len, out_index, false) }
}

/// Adds a pair without copying it: the batch keeps the two pointers and
/// reads the sequences during `seqshim_wfa_batch_run`. Otherwise as
/// `seqshim_wfa_batch_add`.
///
/// # Safety
/// As `seqshim_wfa_batch_add`, and the caller's memory must stay valid and
/// unchanged until `seqshim_wfa_batch_run` has returned (or until the batch
/// is reset or destroyed, if it never runs).
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_wfa_batch_add_borrowed(
    b: *mut seqshim_wfa_batch_t,
    pattern: *const c_char,
    pattern_len: i32,
    text: *const c_char,
    text_len: i32,
    out_index: *mut usize,
) -> seqshim_status {
    // SAFETY: forwarded contract.
    unsafe { add_pair(b, pattern, pattern_len, text, text_len, out_index, true) }
}

/// The two add functions: checks the pair, then copies it or keeps its
/// pointers for the run.
///
/// # Safety
/// As `seqshim_wfa_batch_add`, and for `borrow` as
/// `seqshim_wfa_batch_add_borrowed`.
unsafe fn add_pair(
    b: *mut seqshim_wfa_batch_t,
    pattern: *const c_char,
    pattern_len: i32,
    text: *const c_char,
    text_len: i32,
    out_index: *mut usize,
    borrow: bool,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or a live batch per the contract.
        let b = match unsafe { handle::state_mut(b) } {
            Ok(b) => b,
            Err(status) => return status,
        };
        let (p, t) = match check_pair(b, pattern, pattern_len, text, text_len) {
            Ok(lengths) => lengths,
            Err(status) => return status,
        };
        let index = if borrow {
            let slot = b.batch.reserve();
            b.borrowed.push(Borrowed {
                slot,
                pattern: pattern.cast(),
                pattern_len: p as u32,
                text: text.cast(),
                text_len: t as u32,
            });
            slot
        } else {
            // SAFETY: readable for their lengths per the contract.
            let (Some(ps), Some(ts)) = (unsafe {
                (
                    super::guard::bytes(pattern.cast(), p),
                    super::guard::bytes(text.cast(), t),
                )
            }) else {
                return SEQSHIM_E_NULL;
            };
            b.batch.add(ps, ts)
        };
        // SAFETY: null or writable per the contract.
        unsafe { write_size(out_index, index) };
        SEQSHIM_OK
    })
}

/// Aligns every pair added since the last run: pairs a GPU can align
/// exactly go to the GPUs while the CPU pool aligns the others (all of
/// them with `SEQSHIM_WFA_DEVICE_CPU` or without a GPU). Returns
/// `SEQSHIM_OK` (per-pair outcomes come from `seqshim_wfa_batch_result`)
/// or `SEQSHIM_E_NULL` for null. With `SEQSHIM_LOG=info` it logs one line before
/// and one after. Should a run fail inside seqshim (`SEQSHIM_E_INTERNAL`), the
/// pairs it did not align stay without a result (`SEQSHIM_E_STATE`), and
/// borrowed pairs are not read again in any case once the run returns.
///
/// # Safety
/// `b` must be null or a live batch, not used by another thread meanwhile;
/// borrowed pairs must still be valid.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_wfa_batch_run(b: *mut seqshim_wfa_batch_t) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or a live batch per the contract.
        let b = match unsafe { handle::state_mut(b) } {
            Ok(b) => b,
            Err(status) => return status,
        };
        // Taken now: after this call returns, however it returns, the
        // caller's memory is never read again.
        let borrowed = std::mem::take(&mut b.borrowed);
        let lent = Arc::new(LentPairs(borrowed));
        b.batch.run_with(Some(lent.clone()));
        // Emptied, its room kept for the next pairs (unless an executor
        // still holds a finished job for a moment).
        if let Ok(LentPairs(mut borrowed)) = Arc::try_unwrap(lent) {
            borrowed.clear();
            b.borrowed = borrowed;
        }
        SEQSHIM_OK
    })
}

/// The result of pair `index`, or the status saying why there is none.
///
/// # Safety
/// `b` must be null or a live batch that outlives the returned borrow.
unsafe fn result_of<'a>(
    b: *const seqshim_wfa_batch_t,
    index: usize,
) -> Result<&'a PairResult, seqshim_status> {
    // SAFETY: null or a live batch per the contract.
    let b = unsafe { handle::state(b) }?;
    match b.batch.slot(index) {
        None => Err(SEQSHIM_E_INDEX),
        Some(Slot::Pending) => Err(SEQSHIM_E_STATE),
        Some(Slot::Failed(why)) if why.starts_with(CPU_PATH_PANICKED) => Err(SEQSHIM_E_INTERNAL),
        Some(Slot::Failed(_)) => Err(SEQSHIM_E_DEVICE),
        Some(Slot::Done(r)) => Ok(r),
    }
}

/// The outcome of pair `index`: its WFA2 status (`wavefront_align`'s return
/// value: 0 done, −1 unfeasible or refused, −2 maximum score reached) in
/// `status` and `cigar->score` in `score` (each optional). Returns
/// `SEQSHIM_OK`, `SEQSHIM_E_REFUSED` (status −1 written), `SEQSHIM_E_STATE`,
/// `SEQSHIM_E_DEVICE` (the GPU failed under `SEQSHIM_STRICT=1`),
/// `SEQSHIM_E_INTERNAL` (a bug met while aligning this pair was
/// contained), `SEQSHIM_E_INDEX` or `SEQSHIM_E_NULL`; the outputs are
/// written only with OK and REFUSED.
///
/// # Safety
/// `b` null or a live batch; `status` and `score` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_wfa_batch_result(
    b: *const seqshim_wfa_batch_t,
    index: usize,
    status: *mut i32,
    score: *mut i32,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or a live batch per the contract; `r` is used only
        // within this call.
        let r = match unsafe { result_of(b, index) } {
            Ok(r) => r,
            Err(e) => return e,
        };
        // SAFETY: non-null after result_of.
        let attributes = unsafe { &*b }.batch.attributes();
        // SAFETY: null or writable per the contract.
        unsafe {
            if let Some(s) = status.as_mut() {
                *s = batch::status_code(r);
            }
            if let Some(s) = score.as_mut() {
                *s = batch::client_score(attributes, r);
            }
        }
        if r.outcome.is_err() {
            SEQSHIM_E_REFUSED
        } else {
            SEQSHIM_OK
        }
    })
}

/// The CIGAR of pair `index` in WFA2-lib's form, one letter per operation
/// (`M` match, `X` mismatch, `I` insertion, `D` deletion; what
/// `cigar->operations[begin_offset..end_offset)` holds after
/// `wavefront_align`), not NUL-terminated: `*operations` points into the
/// batch (valid until it is reset or destroyed) and `*length` gets the
/// count (0 for score-only). A GPU result keeps its CIGAR as runs of one
/// operation; its letters are written out by the first call for the pair
/// (about a microsecond for a 1 kbp pair) and kept. Safe to call from
/// several threads at once. Returns as `seqshim_wfa_batch_result`; the
/// outputs are written only with `SEQSHIM_OK`.
///
/// # Safety
/// `b` null or a live batch; `operations` and `length` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_wfa_batch_cigar(
    b: *const seqshim_wfa_batch_t,
    index: usize,
    operations: *mut *const c_char,
    length: *mut usize,
) -> seqshim_status {
    ffi_guard!({
        if operations.is_null() || length.is_null() {
            return SEQSHIM_E_NULL;
        }
        // SAFETY: null or a live batch per the contract; `r` is used only
        // within this call.
        let r = match unsafe { result_of(b, index) } {
            Ok(r) if r.outcome.is_err() => return SEQSHIM_E_REFUSED,
            Ok(r) => r,
            Err(e) => return e,
        };
        // SAFETY: both writable per the contract.
        unsafe {
            *operations = if r.operations.is_empty() {
                c"".as_ptr()
            } else {
                r.operations.letters().as_ptr().cast()
            };
            *length = r.operations.len();
        }
        SEQSHIM_OK
    })
}

/// The CIGAR of pair `index` as a SAM-style run-length string
/// (`3M1X2I1D...`; WFA2's letters are kept, so `M` counts matches only and
/// `X` mismatches), NUL-terminated, into `buffer` of `capacity` bytes. `needed` (optional)
/// gets the size including the NUL. A buffer too small (or null with
/// capacity 0, to ask the size) gets nothing and returns
/// `SEQSHIM_E_BUFFER`. Other returns as `seqshim_wfa_batch_result`.
///
/// # Safety
/// `b` null or a live batch; `buffer` null or writable for `capacity`
/// bytes; `needed` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_wfa_batch_cigar_sam(
    b: *const seqshim_wfa_batch_t,
    index: usize,
    buffer: *mut c_char,
    capacity: usize,
    needed: *mut usize,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or a live batch per the contract; `r` is used only
        // within this call.
        let r = match unsafe { result_of(b, index) } {
            Ok(r) if r.outcome.is_err() => return SEQSHIM_E_REFUSED,
            Ok(r) => r,
            Err(e) => return e,
        };
        let text = r.operations.sam();
        let size = text.len() + 1;
        // SAFETY: null or writable per the contract.
        unsafe { write_size(needed, size) };
        if buffer.is_null() || capacity < size {
            return if buffer.is_null() && capacity > 0 {
                SEQSHIM_E_NULL
            } else {
                SEQSHIM_E_BUFFER
            };
        }
        // SAFETY: writable for `capacity` ≥ `size` bytes per the contract.
        let Some(out) = (unsafe { super::guard::bytes_mut(buffer.cast(), size) }) else {
            return SEQSHIM_E_NULL;
        };
        out[..text.len()].copy_from_slice(text.as_bytes());
        out[text.len()] = 0;
        SEQSHIM_OK
    })
}

/// Pairs in the batch (0 for null).
///
/// # Safety
/// `b` null or a live batch.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_wfa_batch_size(b: *const seqshim_wfa_batch_t) -> usize {
    // SAFETY: null or a live batch per the contract.
    ffi_guard!({ unsafe { handle::len(b) } })
}

/// Where the last run sent its pairs: `to_gpu` pairs offered to the GPUs
/// (a GPU may still hand some back to the CPU, which aligns them the same),
/// `to_cpu` aligned by the CPU pool. Both optional. Returns `SEQSHIM_OK`
/// or `SEQSHIM_E_NULL`.
///
/// # Safety
/// `b` null or a live batch; the outputs null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_wfa_batch_routing(
    b: *const seqshim_wfa_batch_t,
    to_gpu: *mut usize,
    to_cpu: *mut usize,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or a live batch per the contract.
        let b = match unsafe { handle::state(b) } {
            Ok(b) => b,
            Err(status) => return status,
        };
        let last = b.batch.last_run();
        // SAFETY: each null or writable per the contract.
        unsafe {
            write_size(to_gpu, last.to_devices);
            write_size(to_cpu, last.to_cpu);
        }
        SEQSHIM_OK
    })
}

/// Removes every pair and result (borrowed pairs are forgotten); the
/// options stay, and so does the room for result slots and borrowed pairs,
/// so that those do not grow again when the batch is reused for batches of
/// similar size. Returns `SEQSHIM_OK` or `SEQSHIM_E_NULL`.
///
/// # Safety
/// `b` null or a live batch; pointers from `seqshim_wfa_batch_cigar` are
/// invalid afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_wfa_batch_reset(b: *mut seqshim_wfa_batch_t) -> seqshim_status {
    // SAFETY: null or a live batch per the contract.
    ffi_guard!({ unsafe { handle::reset(b) } })
}

/// Frees a batch. Null is ignored, and so is a second destroy of the same
/// batch (with a warning).
///
/// # Safety
/// `b` null or a batch from `seqshim_wfa_batch_create`, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_wfa_batch_destroy(b: *mut seqshim_wfa_batch_t) {
    // SAFETY: null or a batch from `seqshim_wfa_batch_create` per the
    // contract; a second destroy is recognised and ignored.
    ffi_guard!({ unsafe { handle::destroy(b) } })
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr;

    /// Through the unit-test build's emulated device (device jobs, rescued
    /// jobs and CPU jobs in one run): every pair equals `wavefront_align`
    /// on one aligner of the same attributes.
    #[test]
    fn batch_equals_wavefront_align_with_a_device() {
        use crate::ffi::wfa2::aligner::{
            wavefront_align, wavefront_aligner_delete, wavefront_aligner_new,
        };
        use crate::ffi::wfa2::types::{ATTR_DEFAULT, COMPUTE_SCORE};
        let _turn = crate::wfa::job::emulated::take_turn();
        let mut state = 0x5eed_u64;
        let mut next = move || {
            state = state
                .wrapping_mul(6364136223846793005)
                .wrapping_add(1442695040888963407);
            (state >> 33) as usize
        };
        let pairs: Vec<(Vec<u8>, Vec<u8>)> = (0..240)
            .map(|i| {
                let len = if i % 8 == 0 {
                    1_400 + next() % 1_400
                } else {
                    next() % 400
                };
                let p: Vec<u8> = (0..len).map(|_| b"ACGT"[next() % 4]).collect();
                let t: Vec<u8> = p
                    .iter()
                    .filter_map(|&c| match next() % 25 {
                        0 => None,
                        1 => Some(b"ACGT"[next() % 4]),
                        _ => Some(c),
                    })
                    .collect();
                (p, t)
            })
            .collect();
        for (heuristic, scope) in [
            (
                SEQSHIM_WFA_HEURISTIC_WFADAPTIVE,
                SEQSHIM_WFA_SCOPE_ALIGNMENT,
            ),
            (SEQSHIM_WFA_HEURISTIC_NONE, SEQSHIM_WFA_SCOPE_ALIGNMENT),
            (SEQSHIM_WFA_HEURISTIC_NONE, SEQSHIM_WFA_SCOPE_SCORE),
        ] {
            let mut o = options_default();
            o.heuristic = heuristic;
            o.scope = scope;
            let mut attr = ATTR_DEFAULT;
            if heuristic == SEQSHIM_WFA_HEURISTIC_NONE {
                attr.heuristic.strategy = 0;
            }
            if scope == SEQSHIM_WFA_SCOPE_SCORE {
                attr.alignment_scope = COMPUTE_SCORE;
            }
            let mut b = ptr::null_mut();
            // SAFETY: valid pointers throughout; everything is freed below.
            unsafe {
                assert_eq!(seqshim_wfa_batch_create(&o, 0, &mut b), SEQSHIM_OK);
                for (i, (p, t)) in pairs.iter().enumerate() {
                    let add = if i % 2 == 0 {
                        seqshim_wfa_batch_add
                    } else {
                        seqshim_wfa_batch_add_borrowed
                    };
                    let rc = add(
                        b,
                        p.as_ptr().cast(),
                        p.len() as i32,
                        t.as_ptr().cast(),
                        t.len() as i32,
                        ptr::null_mut(),
                    );
                    assert_eq!(rc, SEQSHIM_OK);
                }
                assert_eq!(seqshim_wfa_batch_run(b), SEQSHIM_OK);
                let (mut to_gpu, mut to_cpu) = (0, 0);
                seqshim_wfa_batch_routing(b, &mut to_gpu, &mut to_cpu);
                assert!(to_gpu > 0, "{to_gpu} / {to_cpu}");
                if crate::engine::device::gpus().is_empty() {
                    assert!(to_cpu > 0, "{to_gpu} / {to_cpu}");
                }
                let wf = wavefront_aligner_new(&mut attr);
                for (i, (p, t)) in pairs.iter().enumerate() {
                    let want = wavefront_align(
                        wf,
                        p.as_ptr().cast(),
                        p.len() as i32,
                        t.as_ptr().cast(),
                        t.len() as i32,
                    );
                    let c = &*(*wf).cigar;
                    let (mut status, mut score) = (7, 7);
                    assert_eq!(
                        seqshim_wfa_batch_result(b, i, &mut status, &mut score),
                        SEQSHIM_OK
                    );
                    assert_eq!((status, score), (want, c.score), "pair {i}");
                    let (mut ops, mut len) = (ptr::null(), 0);
                    seqshim_wfa_batch_cigar(b, i, &mut ops, &mut len);
                    let got = std::slice::from_raw_parts(ops.cast::<u8>(), len);
                    let n = (c.end_offset - c.begin_offset) as usize;
                    let expected = std::slice::from_raw_parts(
                        c.operations.add(c.begin_offset as usize).cast::<u8>(),
                        n,
                    );
                    assert_eq!(got, expected, "pair {i}");
                }
                wavefront_aligner_delete(wf);
                seqshim_wfa_batch_destroy(b);
            }
        }
    }

    #[test]
    fn defaults_are_wfa2_defaults() {
        assert_eq!(
            attributes_of(&options_default()).unwrap(),
            AlignerAttributes::default()
        );
    }

    #[test]
    fn bad_options_are_refused_with_their_code() {
        let mut out = ptr::null_mut();
        let check = |edit: &dyn Fn(&mut seqshim_wfa_options_t), want: seqshim_status| {
            let mut o = options_default();
            edit(&mut o);
            let mut out = ptr::null_mut();
            // SAFETY: valid pointers.
            let got = unsafe { seqshim_wfa_batch_create(&o, 0, &mut out) };
            assert_eq!(got, want, "{o:?}");
            assert!(out.is_null());
        };
        check(&|o| o.metric = 9, SEQSHIM_E_OPTION);
        check(&|o| o.span = 2, SEQSHIM_E_OPTION);
        check(&|o| o.scope = -1, SEQSHIM_E_OPTION);
        check(&|o| o.heuristic = 42, SEQSHIM_E_OPTION);
        check(&|o| o.memory_mode = 4, SEQSHIM_E_OPTION);
        check(&|o| o.device = -3, SEQSHIM_E_OPTION);
        check(&|o| o.max_alignment_score = 0, SEQSHIM_E_OPTION);
        check(
            &|o| {
                o.span = SEQSHIM_WFA_SPAN_ENDS_FREE;
                o.text_end_free = -1
            },
            SEQSHIM_E_OPTION,
        );
        check(&|o| o.match_score = 1, SEQSHIM_E_OPTION);
        check(&|o| o.mismatch = 0, SEQSHIM_E_OPTION);
        check(
            &|o| {
                o.metric = SEQSHIM_WFA_METRIC_EDIT;
                o.heuristic = SEQSHIM_WFA_HEURISTIC_XDROP
            },
            SEQSHIM_E_OPTION,
        );
        check(
            &|o| {
                o.memory_mode = SEQSHIM_WFA_MEMORY_ULTRALOW;
            },
            SEQSHIM_E_OPTION,
        );
        // SAFETY: null pointers are the point.
        unsafe {
            assert_eq!(
                seqshim_wfa_batch_create(ptr::null(), 0, &mut out),
                SEQSHIM_E_NULL
            );
            let o = options_default();
            assert_eq!(
                seqshim_wfa_batch_create(&o, 0, ptr::null_mut()),
                SEQSHIM_E_NULL
            );
            assert_eq!(seqshim_wfa_options_default(ptr::null_mut()), SEQSHIM_E_NULL);
        }
    }
}
