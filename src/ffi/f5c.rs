//! f5c's ABEA entry points under `seqshim_f5c_*` names, with f5c's exact
//! signatures (`event_table` and `scalings_t` by value), and seqshim's ABEA
//! batch entry. Declared for C in `include/seqshim/f5c.h`, which is written
//! by hand because these types are f5c's, not seqshim's; cbindgen leaves
//! them out of `seqshim.h` (see cbindgen.toml).
//!
//! f5c has no error channel in `align()`: it returns the number of pairs, 0
//! when the read fails QC. Arguments f5c would crash on (null pointers,
//! negative lengths, unusable k-mer sizes) get that same 0 here.

use std::ffi::c_char;
use std::mem::{align_of, offset_of, size_of};
use std::sync::Arc;

use crate::abea::{self, AlignedPair, BatchOptions, BatchRead, Event, Model, Scalings};
use crate::ffi_guard;

use super::guard::{slice, slice_mut};
use super::handle::{self, BatchState};
use super::status::{
    SEQSHIM_E_ARG, SEQSHIM_E_DEVICE, SEQSHIM_E_INDEX, SEQSHIM_E_NULL, SEQSHIM_E_STATE, SEQSHIM_OK,
    seqshim_status,
};

/// f5c's `event_table`: 32 bytes, passed by value. f5c's `align()` reads
/// `n` and `event` only.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct EventTable {
    pub n: usize,
    pub start: usize,
    pub end: usize,
    pub event: *mut Event,
}

/// f5c's `MAX_KMER_SIZE`. Larger k would still rank (up to 16), but no f5c
/// model has it, and 4^k entries past 9 are more memory than any caller has.
pub const F5C_MAX_KMER_SIZE: u32 = 9;

/// `seqshim_abea_batch_opt_t` flag: align every read on the CPU pool.
pub const SEQSHIM_ABEA_FORCE_CPU: u32 = 1;

/// Options of [`seqshim_abea_align_batch`]; field meanings and defaults in
/// `include/seqshim/f5c.h`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct AbeaBatchOpt {
    pub models: *const Model,
    pub kmer_size: u32,
    pub max_lf: f32,
    pub max_epk: f32,
    pub avg_epk: f32,
    pub skip_epk: f32,
    pub mem_frac: f32,
    pub n_cpu_threads: i32,
    pub flags: u32,
}

// The layouts f5c's compiler gives these types (x86-64 and aarch64 LP64);
// the same numbers are asserted from C in ffi-tests/f5c/.
const _: () = {
    assert!(size_of::<Event>() == 24 && align_of::<Event>() == 8);
    assert!(offset_of!(Event, start) == 0);
    assert!(offset_of!(Event, length) == 8);
    assert!(offset_of!(Event, mean) == 12);
    assert!(offset_of!(Event, stdv) == 16);

    assert!(size_of::<EventTable>() == 32 && align_of::<EventTable>() == 8);
    assert!(offset_of!(EventTable, n) == 0);
    assert!(offset_of!(EventTable, start) == 8);
    assert!(offset_of!(EventTable, end) == 16);
    assert!(offset_of!(EventTable, event) == 24);

    assert!(size_of::<Model>() == 12 && align_of::<Model>() == 4);
    assert!(offset_of!(Model, level_mean) == 0);
    assert!(offset_of!(Model, level_stdv) == 4);
    assert!(offset_of!(Model, level_log_stdv) == 8);

    assert!(size_of::<Scalings>() == 16 && align_of::<Scalings>() == 4);
    assert!(offset_of!(Scalings, scale) == 0);
    assert!(offset_of!(Scalings, shift) == 4);
    assert!(offset_of!(Scalings, var) == 8);
    assert!(offset_of!(Scalings, log_var) == 12);

    assert!(size_of::<AlignedPair>() == 8 && align_of::<AlignedPair>() == 4);
    assert!(offset_of!(AlignedPair, ref_pos) == 0);
    assert!(offset_of!(AlignedPair, read_pos) == 4);

    assert!(size_of::<AbeaBatchOpt>() == 40 && align_of::<AbeaBatchOpt>() == 8);
    assert!(offset_of!(AbeaBatchOpt, models) == 0);
    assert!(offset_of!(AbeaBatchOpt, kmer_size) == 8);
    assert!(offset_of!(AbeaBatchOpt, max_lf) == 12);
    assert!(offset_of!(AbeaBatchOpt, max_epk) == 16);
    assert!(offset_of!(AbeaBatchOpt, avg_epk) == 20);
    assert!(offset_of!(AbeaBatchOpt, skip_epk) == 24);
    assert!(offset_of!(AbeaBatchOpt, mem_frac) == 28);
    assert!(offset_of!(AbeaBatchOpt, n_cpu_threads) == 32);
    assert!(offset_of!(AbeaBatchOpt, flags) == 36);
};

/// Number of model entries f5c indexes for k (4^k), when k is usable.
fn model_count(kmer_size: u32) -> Option<usize> {
    (1..=F5C_MAX_KMER_SIZE)
        .contains(&kmer_size)
        .then(|| 1usize << (2 * kmer_size))
}

/// f5c's `align()`: aligns the events of `events` to the k-mers of the read
/// `sequence` and writes the pairs to `out_2` in ascending order. Returns the
/// number of pairs, 0 when the read fails f5c's QC. `sample_rate`,
/// `scaling.var` and `scaling.log_var` are unused, as in f5c.
///
/// Also 0, with nothing written, where f5c would crash or read out of
/// bounds: a null `out_2`, `sequence` or `models`, `sequence_len < 0`, a null
/// `events.event` with `events.n > 0`, `kmer_size` outside 1..=9, and
/// reads with fewer bases than `kmer_size` or no events.
///
/// # Safety
/// - `sequence` must be valid for reads of `sequence_len` bytes;
/// - `events.event` must be valid for reads of `events.n` `event_t`s;
/// - `models` must hold 4^`kmer_size` `model_t`s;
/// - `out_2` must have room for `events.n + sequence_len` `AlignedPair`s
///   (f5c's own allocation) and must not overlap the inputs.
#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_f5c_align(
    out_2: *mut AlignedPair,
    sequence: *mut c_char,
    sequence_len: i32,
    events: EventTable,
    models: *mut Model,
    kmer_size: u32,
    scaling: Scalings,
    _sample_rate: f32,
) -> i32 {
    ffi_guard!(0, {
        let Ok(len) = usize::try_from(sequence_len) else {
            return 0;
        };
        let Some(n_models) = model_count(kmer_size) else {
            return 0;
        };
        if out_2.is_null() || sequence.is_null() || models.is_null() {
            return 0;
        }
        let Some(capacity) = events.n.checked_add(len) else {
            return 0;
        };
        // SAFETY: per this function's contract for each pointer; nulls with
        // a non-zero length and misaligned pointers were rejected by the
        // helpers.
        let (Some(seq), Some(evs), Some(mods)) = (unsafe {
            (
                slice(sequence.cast::<u8>().cast_const(), len),
                slice(events.event.cast_const(), events.n),
                slice(models.cast_const(), n_models),
            )
        }) else {
            return 0;
        };
        // Only the pairs actually produced are viewed as caller memory:
        // older f5c releases allocate `2 * n_events`, less than `capacity`.
        let emit = |pairs: &[AlignedPair]| {
            if pairs.len() > capacity {
                return 0;
            }
            // SAFETY: `out_2` is non-null and, per the contract, has room for
            // `capacity` pairs, of which `pairs.len()` are written here.
            match unsafe { slice_mut(out_2, pairs.len()) } {
                Some(out) => abea::copy_pairs(out, pairs),
                None => 0,
            }
        };
        let n = abea::align_call(seq, evs, mods, kmer_size, scaling, emit);
        i32::try_from(n).unwrap_or(0)
    })
}

/// f5c's `estimate_scalings_using_mom`: method-of-moments `scale` and
/// `shift` of the events against the model levels of the read's k-mers.
/// f5c leaves `var` and `log_var` uninitialised; they are 1 and 0 here.
/// Where f5c would read out of bounds (null pointers, `sequence_len < 0`,
/// `kmer_size` outside 1..=9) `scale` and `shift` are NaN.
///
/// # Safety
/// `sequence` must be valid for reads of `sequence_len` bytes, `et.event`
/// for `et.n` `event_t`s and `pore_model` for 4^`kmer_size` `model_t`s.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_f5c_estimate_scalings_using_mom(
    sequence: *mut c_char,
    sequence_len: i32,
    pore_model: *mut Model,
    kmer_size: u32,
    et: EventTable,
) -> Scalings {
    let failed = Scalings {
        scale: f32::NAN,
        shift: f32::NAN,
        var: 1.0,
        log_var: 0.0,
    };
    ffi_guard!(failed, {
        let (Ok(len), Some(n_models)) = (usize::try_from(sequence_len), model_count(kmer_size))
        else {
            return failed;
        };
        if sequence.is_null() || pore_model.is_null() {
            return failed;
        }
        // SAFETY: per this function's contract for each pointer.
        let (Some(seq), Some(evs), Some(mods)) = (unsafe {
            (
                slice(sequence.cast::<u8>().cast_const(), len),
                slice(et.event.cast_const(), et.n),
                slice(pore_model.cast_const(), n_models),
            )
        }) else {
            return failed;
        };
        abea::estimate_scalings_using_mom(seq, mods, kmer_size, evs)
    })
}

/// Fills `opt` with f5c's defaults (`max_lf` 3, `max_epk` 5, `avg_epk` 2,
/// `skip_epk` 15, `mem_frac` 0.9, no flags); `models` null and `kmer_size` 0,
/// which the caller must set.
///
/// # Safety
/// `opt` must be null (then nothing happens) or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_abea_batch_opt_init(opt: *mut AbeaBatchOpt) {
    ffi_guard!((), {
        let defaults = BatchOptions::default();
        let value = AbeaBatchOpt {
            models: std::ptr::null(),
            kmer_size: 0,
            max_lf: defaults.max_lf,
            max_epk: defaults.max_epk,
            avg_epk: 2.0,
            skip_epk: defaults.skip_epk,
            mem_frac: 0.9,
            n_cpu_threads: 0,
            flags: 0,
        };
        // SAFETY: `opt` is valid for one write per the contract, or null.
        if let Some(slot) = unsafe { opt.as_mut() } {
            *slot = value;
        }
    })
}

/// The batch options `opt` asks for, or `None` when a threshold is not a
/// positive number, `avg_epk` is beyond what the GPU sizing takes,
/// `mem_frac` is outside (0, 1] or a flag is unknown.
fn batch_options(opt: &AbeaBatchOpt) -> Option<BatchOptions> {
    let thresholds = [opt.max_lf, opt.max_epk, opt.skip_epk, opt.avg_epk];
    if thresholds.iter().any(|t| !(t.is_finite() && *t > 0.0))
        || f64::from(opt.avg_epk) > abea::MAX_AVG_EPK
        || !(opt.mem_frac > 0.0 && opt.mem_frac <= 1.0)
        || opt.flags & !SEQSHIM_ABEA_FORCE_CPU != 0
    {
        return None;
    }
    Some(BatchOptions {
        max_lf: opt.max_lf,
        max_epk: opt.max_epk,
        skip_epk: opt.skip_epk,
        force_cpu: opt.flags & SEQSHIM_ABEA_FORCE_CPU != 0,
        sizing: abea::Sizing {
            mem_frac: f64::from(opt.mem_frac),
            avg_epk: f64::from(opt.avg_epk),
        },
    })
}

/// Aligns a batch of reads the way f5c's GPU build does (see
/// `include/seqshim/f5c.h`): returns `SEQSHIM_OK` with `out_n_pairs[i]` set
/// for every read, or a negative ``seqshim_status`` with nothing written.
///
/// # Safety
/// `opt` must be valid for one read and `opt.models` hold 4^`kmer_size`
/// `model_t`s; every array argument must hold `n_reads` elements; for each
/// read i, `sequences[i]` must be valid for `sequence_lens[i]` bytes,
/// `events[i].event` for `events[i].n` events, and `out_pairs[i]` must have
/// room for `events[i].n + sequence_lens[i]` pairs, not overlapping any input.
#[allow(clippy::too_many_arguments)]
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_abea_align_batch(
    opt: *const AbeaBatchOpt,
    n_reads: i32,
    sequences: *const *mut c_char,
    sequence_lens: *const i32,
    events: *const EventTable,
    scalings: *const Scalings,
    out_pairs: *const *mut AlignedPair,
    out_n_pairs: *mut i32,
) -> seqshim_status {
    ffi_guard!({
        let Ok(n) = usize::try_from(n_reads) else {
            return SEQSHIM_E_ARG;
        };
        if n == 0 {
            return SEQSHIM_OK;
        }
        // SAFETY: `opt` is valid for one read per the contract, or null.
        let Some(opt) = (unsafe { opt.as_ref() }) else {
            return SEQSHIM_E_NULL;
        };
        let Some(n_models) = model_count(opt.kmer_size) else {
            return SEQSHIM_E_ARG;
        };
        if opt.models.is_null()
            || sequences.is_null()
            || sequence_lens.is_null()
            || events.is_null()
            || scalings.is_null()
            || out_pairs.is_null()
            || out_n_pairs.is_null()
        {
            return SEQSHIM_E_NULL;
        }
        let Some(options) = batch_options(opt) else {
            return SEQSHIM_E_ARG;
        };
        // SAFETY: every array holds `n_reads` elements and the model table
        // 4^k entries, per the contract; none is null (checked above).
        let (Some(seqs), Some(lens), Some(tables), Some(scales), Some(outs), Some(models)) = (unsafe {
            (
                slice(sequences, n),
                slice(sequence_lens, n),
                slice(events, n),
                slice(scalings, n),
                slice(out_pairs, n),
                slice(opt.models, n_models),
            )
        }) else {
            return SEQSHIM_E_ARG;
        };
        if !out_n_pairs.is_aligned() {
            return SEQSHIM_E_ARG;
        }
        // Validate every read before touching any output: all or nothing.
        let mut reads = Vec::with_capacity(n);
        for i in 0..n {
            let Ok(len) = usize::try_from(lens[i]) else {
                return SEQSHIM_E_ARG;
            };
            if seqs[i].is_null() || (tables[i].event.is_null() && tables[i].n > 0) {
                return SEQSHIM_E_NULL;
            }
            if outs[i].is_null() {
                return SEQSHIM_E_NULL;
            }
            if !outs[i].is_aligned() {
                return SEQSHIM_E_ARG;
            }
            // SAFETY: per the contract for read i.
            let (Some(seq), Some(evs)) = (unsafe {
                (
                    slice(seqs[i].cast::<u8>().cast_const(), len),
                    slice(tables[i].event.cast_const(), tables[i].n),
                )
            }) else {
                return SEQSHIM_E_ARG;
            };
            if tables[i].n.checked_add(len).is_none() {
                return SEQSHIM_E_ARG;
            }
            reads.push(BatchRead {
                sequence: seq.to_vec(),
                means: evs.iter().map(|e| e.mean).collect(),
                scaling: scales[i],
            });
        }
        let models: Arc<[Model]> = abea::shared_models(models);
        let results = abea::align_batch(models, opt.kmer_size, reads, &options);

        if results.iter().any(|r| r.is_err()) {
            for r in results.iter().filter_map(|r| r.as_ref().err()) {
                crate::log_warn!("ABEA batch: {r}");
            }
            return SEQSHIM_E_DEVICE;
        }
        // SAFETY: `out_n_pairs` holds `n_reads` elements per the contract.
        let Some(counts) = (unsafe { slice_mut(out_n_pairs, n) }) else {
            return SEQSHIM_E_ARG;
        };
        for (i, result) in results.into_iter().enumerate() {
            let pairs = result.unwrap_or_default();
            let capacity = tables[i].n + lens[i] as usize;
            let written = if pairs.len() <= capacity && !pairs.is_empty() {
                // SAFETY: `out_pairs[i]` has room for `capacity` pairs per
                // the contract and was checked non-null above.
                match unsafe { slice_mut(outs[i], pairs.len()) } {
                    Some(dst) => {
                        dst.copy_from_slice(&pairs);
                        pairs.len()
                    }
                    None => 0,
                }
            } else {
                0
            };
            counts[i] = i32::try_from(written).unwrap_or(0);
        }
        SEQSHIM_OK
    })
}

/// An opaque ABEA batch (`seqshim_abea_batch_create`).
#[allow(non_camel_case_types)]
pub struct seqshim_abea_batch_t(abea::batch::Batch);

impl BatchState for seqshim_abea_batch_t {
    fn len(&self) -> usize {
        self.0.len()
    }
    fn reset(&mut self) {
        self.0.reset();
    }
}

/// Creates a batch of reads aligned with `opt`'s model table (copied) and
/// options; `expected_reads` reserves room (a hint, capped). Returns
/// `SEQSHIM_OK` with the batch in `*out`, or `SEQSHIM_E_NULL` /
/// `SEQSHIM_E_ARG` for the cases `seqshim_abea_align_batch` refuses.
///
/// # Safety
/// `opt` null or valid for one read with `opt.models` holding 4^`kmer_size`
/// `model_t`s; `out` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_abea_batch_create(
    opt: *const AbeaBatchOpt,
    expected_reads: usize,
    out: *mut *mut seqshim_abea_batch_t,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or valid per the contract.
        let Some(opt) = (unsafe { opt.as_ref() }) else {
            return SEQSHIM_E_NULL;
        };
        if out.is_null() || opt.models.is_null() {
            return SEQSHIM_E_NULL;
        }
        let (Some(n_models), Some(options)) = (model_count(opt.kmer_size), batch_options(opt))
        else {
            return SEQSHIM_E_ARG;
        };
        // SAFETY: 4^k models per the contract; non-null (checked above).
        let Some(models) = (unsafe { slice(opt.models, n_models) }) else {
            return SEQSHIM_E_ARG;
        };
        let mut batch =
            abea::batch::Batch::new(abea::shared_models(models), opt.kmer_size, options);
        // A hint only: capped so a wild value cannot become an allocation
        // the process does not survive.
        batch.try_reserve(expected_reads.min(1 << 20));
        // SAFETY: `out` is non-null and writable per the contract.
        unsafe { handle::create(seqshim_abea_batch_t(batch), out) }
    })
}

/// Copies one read (its bases and its events' means) into the batch and
/// writes its index to `out_index` (optional). Returns `SEQSHIM_OK`,
/// `SEQSHIM_E_NULL` (batch, or a sequence / events with a non-zero length),
/// `SEQSHIM_E_ARG` (a negative length, misaligned events).
///
/// # Safety
/// `b` null or a live batch used by this thread alone; `sequence` valid for
/// `sequence_len` bytes, `events` for `n_events` events; `out_index` null
/// or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_abea_batch_add(
    b: *mut seqshim_abea_batch_t,
    sequence: *const c_char,
    sequence_len: i32,
    events: *const Event,
    n_events: usize,
    scaling: Scalings,
    out_index: *mut usize,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or a live batch per the contract.
        let b = match unsafe { handle::state_mut(b) } {
            Ok(b) => b,
            Err(status) => return status,
        };
        let Ok(len) = usize::try_from(sequence_len) else {
            return SEQSHIM_E_ARG;
        };
        if (sequence.is_null() && len > 0) || (events.is_null() && n_events > 0) {
            return SEQSHIM_E_NULL;
        }
        // SAFETY: valid for these lengths per the contract.
        let (Some(seq), Some(evs)) =
            (unsafe { (slice(sequence.cast::<u8>(), len), slice(events, n_events)) })
        else {
            return SEQSHIM_E_ARG;
        };
        let index = b.0.add(BatchRead {
            sequence: seq.to_vec(),
            means: evs.iter().map(|e| e.mean).collect(),
            scaling,
        });
        // SAFETY: null or writable per the contract.
        if let Some(slot) = unsafe { out_index.as_mut() } {
            *slot = index;
        }
        SEQSHIM_OK
    })
}

/// Aligns every read added since the last run: GPU and CPU pool at once,
/// by f5c's rules. Returns `SEQSHIM_OK` or `SEQSHIM_E_NULL`; reads the GPU
/// failed in strict mode report `SEQSHIM_E_DEVICE` from
/// `seqshim_abea_batch_result`.
///
/// # Safety
/// `b` null or a live batch used by this thread alone.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_abea_batch_run(b: *mut seqshim_abea_batch_t) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or a live batch per the contract.
        match unsafe { handle::state_mut(b) } {
            Ok(b) => {
                b.0.run();
                SEQSHIM_OK
            }
            Err(status) => status,
        }
    })
}

/// Read `index`'s aligned pairs: `*pairs` points into the batch (valid until
/// the next reset or destroy) and `*n_pairs` counts them (0 for a read f5c
/// skips). Returns `SEQSHIM_OK`, `SEQSHIM_E_NULL`, `SEQSHIM_E_INDEX`,
/// `SEQSHIM_E_STATE` (not run yet) or `SEQSHIM_E_DEVICE` (strict mode).
///
/// # Safety
/// `b` null or a live batch; `pairs` and `n_pairs` null or writable.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_abea_batch_result(
    b: *const seqshim_abea_batch_t,
    index: usize,
    pairs: *mut *const AlignedPair,
    n_pairs: *mut usize,
) -> seqshim_status {
    ffi_guard!({
        // SAFETY: null or a live batch per the contract.
        let b = match unsafe { handle::state(b) } {
            Ok(b) => b,
            Err(status) => return status,
        };
        if pairs.is_null() || n_pairs.is_null() {
            return SEQSHIM_E_NULL;
        }
        let found = match b.0.slot(index) {
            None => return SEQSHIM_E_INDEX,
            Some(abea::batch::ReadSlot::Pending) => return SEQSHIM_E_STATE,
            Some(abea::batch::ReadSlot::Failed(_)) => return SEQSHIM_E_DEVICE,
            Some(abea::batch::ReadSlot::Done(found)) => found,
        };
        // SAFETY: both non-null and writable per the contract.
        unsafe {
            *pairs = found.as_ptr();
            *n_pairs = found.len();
        }
        SEQSHIM_OK
    })
}

/// Reads in the batch (0 for null).
///
/// # Safety
/// `b` null or a live batch.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_abea_batch_size(b: *const seqshim_abea_batch_t) -> usize {
    // SAFETY: null or a live batch per the contract.
    ffi_guard!({ unsafe { handle::len(b) } })
}

/// Forgets every read and result; the models and options stay. Returns
/// `SEQSHIM_OK` or `SEQSHIM_E_NULL`.
///
/// # Safety
/// `b` null or a live batch used by this thread alone; pointers from
/// `seqshim_abea_batch_result` are invalid afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_abea_batch_reset(b: *mut seqshim_abea_batch_t) -> seqshim_status {
    // SAFETY: null or a live batch per the contract.
    ffi_guard!({ unsafe { handle::reset(b) } })
}

/// Frees a batch. Null is ignored, and so is a second destroy (with a
/// warning).
///
/// # Safety
/// `b` null or a batch from `seqshim_abea_batch_create`, not used afterwards.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_abea_batch_destroy(b: *mut seqshim_abea_batch_t) {
    // SAFETY: null or a batch from create per the contract.
    ffi_guard!({ unsafe { handle::destroy(b) } })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn model_counts() {
        assert_eq!(model_count(0), None);
        assert_eq!(model_count(5), Some(1024));
        assert_eq!(model_count(6), Some(4096));
        assert_eq!(model_count(9), Some(262_144));
        assert_eq!(model_count(10), None);
    }

    /// A misaligned array is refused with 0 pairs instead of aborting the
    /// process (slice construction checks alignment before anything else).
    #[test]
    fn misaligned_arrays_are_refused() {
        let models = vec![Model::default(); 4096 + 1];
        let mut events = vec![Event::default(); 8];
        let mut out = vec![AlignedPair::default(); 64];
        let mut seq = b"ACGTACGTACGTACGT".to_vec();
        // Pointers one, two and four bytes past an element boundary are
        // misaligned for 4- and 8-byte-aligned types.
        let bytes = models.as_ptr().cast::<u8>();
        // SAFETY: the offsets stay inside the allocations; the resulting
        // pointers are only checked for alignment, never dereferenced.
        let (bad_models, bad_out) = unsafe {
            (
                bytes.add(1).cast::<Model>().cast_mut(),
                out.as_mut_ptr().cast::<u8>().add(2).cast::<AlignedPair>(),
            )
        };
        let table = EventTable {
            n: events.len(),
            start: 0,
            end: events.len(),
            event: events.as_mut_ptr(),
        };
        // SAFETY: valid, sized buffers except for the deliberate misalignment.
        let n = unsafe {
            seqshim_f5c_align(
                out.as_mut_ptr(),
                seq.as_mut_ptr().cast(),
                seq.len() as i32,
                table,
                bad_models,
                6,
                Scalings::default(),
                4000.0,
            )
        };
        assert_eq!(n, 0);
        // SAFETY: as above; `bad_out` is only checked, never written.
        assert!(unsafe { slice_mut(bad_out, 4) }.is_none());
        let misaligned_events = EventTable {
            event: events
                .as_mut_ptr()
                .cast::<u8>()
                .wrapping_add(4)
                .cast::<Event>(),
            ..table
        };
        // SAFETY: as above.
        assert!(unsafe { slice(misaligned_events.event.cast_const(), 2) }.is_none());
    }
}
