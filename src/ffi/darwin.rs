//! Darwin's GACT (classic `yatisht/darwin@16bdb81`) as plain C exports:
//! `AlignWithBT` as `seqshim_gact_align_tile`, `GACT` as
//! `seqshim_gact_extend`, and their batch variants (spec `gact.md` §10.1).
//! Declared for C in `include/seqshim/gact.h`, written by hand; cbindgen
//! leaves these names out of `seqshim.h` (see cbindgen.toml). The C++ glue
//! in `integrations/darwin/` gives them Darwin's own names and types.
//!
//! This file only checks arguments, views caller memory and turns the
//! family's typed errors into `seqshim_status` values; the return type is
//! `int32_t` as the spec has it.

use std::collections::HashMap;
use std::ffi::c_char;
use std::mem::{align_of, offset_of, size_of};
use std::sync::Arc;

use crate::ffi_guard;
use crate::gact::{
    self, Alignment, ExtendJob, ExtendOptions, GactError, MAX_TILE_LEN, Params, TileJob,
    TileOptions, TileResult,
};

use super::guard::{bytes, bytes_mut};
use super::status::{
    SEQSHIM_E_ARG, SEQSHIM_E_BUFFER, SEQSHIM_E_INTERNAL, SEQSHIM_E_LIMIT, SEQSHIM_E_NULL,
    SEQSHIM_E_OPTION, SEQSHIM_E_REFUSED, SEQSHIM_OK, seqshim_status,
};

/// The result of one tile (`AlignWithBT`'s queue without the states).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct seqshim_gact_tile_result_t {
    pub score: i32,
    pub max_i: i32,
    pub max_j: i32,
    pub ref_steps: i32,
    pub query_steps: i32,
    pub n_ops: u32,
}

/// The input-dependent fields of `GACT`'s `Alignment`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
#[allow(non_camel_case_types)]
pub struct seqshim_gact_aln_t {
    pub ref_start: u32,
    pub query_start: u32,
    pub aligned_ref_len: u32,
    pub aligned_query_len: u32,
    pub score: i32,
    pub n_cols: u32,
}

/// One request of [`seqshim_gact_align_tile_batch`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct seqshim_gact_tile_req_t {
    pub ref_seq: *const c_char,
    pub query_seq: *const c_char,
    /// -1: an idle slot.
    pub ref_len: i64,
    pub query_len: i64,
    pub query_pos: i32,
    pub ref_pos: i32,
    pub reverse: bool,
    pub first: bool,
    pub early_terminate: i32,
}

/// One request of [`seqshim_gact_extend_batch`].
#[repr(C)]
#[derive(Clone, Copy, Debug)]
#[allow(non_camel_case_types)]
pub struct seqshim_gact_extend_req_t {
    pub ref_str: *const c_char,
    pub query_str: *const c_char,
    pub ref_length: u32,
    pub query_length: u32,
    pub ref_pos: i32,
    pub query_pos: i32,
    pub aligned_ref: *mut c_char,
    pub aligned_query: *mut c_char,
    pub cap: u32,
}

// LP64 layouts (x86-64, aarch64); ffi-tests/gact/ asserts the same numbers
// from C against include/seqshim/gact.h.
const _: () = {
    assert!(size_of::<seqshim_gact_tile_result_t>() == 24);
    assert!(align_of::<seqshim_gact_tile_result_t>() == 4);
    assert!(offset_of!(seqshim_gact_tile_result_t, score) == 0);
    assert!(offset_of!(seqshim_gact_tile_result_t, max_i) == 4);
    assert!(offset_of!(seqshim_gact_tile_result_t, max_j) == 8);
    assert!(offset_of!(seqshim_gact_tile_result_t, ref_steps) == 12);
    assert!(offset_of!(seqshim_gact_tile_result_t, query_steps) == 16);
    assert!(offset_of!(seqshim_gact_tile_result_t, n_ops) == 20);

    assert!(size_of::<seqshim_gact_aln_t>() == 24);
    assert!(align_of::<seqshim_gact_aln_t>() == 4);
    assert!(offset_of!(seqshim_gact_aln_t, ref_start) == 0);
    assert!(offset_of!(seqshim_gact_aln_t, query_start) == 4);
    assert!(offset_of!(seqshim_gact_aln_t, aligned_ref_len) == 8);
    assert!(offset_of!(seqshim_gact_aln_t, aligned_query_len) == 12);
    assert!(offset_of!(seqshim_gact_aln_t, score) == 16);
    assert!(offset_of!(seqshim_gact_aln_t, n_cols) == 20);

    assert!(size_of::<seqshim_gact_tile_req_t>() == 48);
    assert!(align_of::<seqshim_gact_tile_req_t>() == 8);
    assert!(offset_of!(seqshim_gact_tile_req_t, ref_seq) == 0);
    assert!(offset_of!(seqshim_gact_tile_req_t, query_seq) == 8);
    assert!(offset_of!(seqshim_gact_tile_req_t, ref_len) == 16);
    assert!(offset_of!(seqshim_gact_tile_req_t, query_len) == 24);
    assert!(offset_of!(seqshim_gact_tile_req_t, query_pos) == 32);
    assert!(offset_of!(seqshim_gact_tile_req_t, ref_pos) == 36);
    assert!(offset_of!(seqshim_gact_tile_req_t, reverse) == 40);
    assert!(offset_of!(seqshim_gact_tile_req_t, first) == 41);
    assert!(offset_of!(seqshim_gact_tile_req_t, early_terminate) == 44);

    assert!(size_of::<seqshim_gact_extend_req_t>() == 56);
    assert!(align_of::<seqshim_gact_extend_req_t>() == 8);
    assert!(offset_of!(seqshim_gact_extend_req_t, ref_str) == 0);
    assert!(offset_of!(seqshim_gact_extend_req_t, query_str) == 8);
    assert!(offset_of!(seqshim_gact_extend_req_t, ref_length) == 16);
    assert!(offset_of!(seqshim_gact_extend_req_t, query_length) == 20);
    assert!(offset_of!(seqshim_gact_extend_req_t, ref_pos) == 24);
    assert!(offset_of!(seqshim_gact_extend_req_t, query_pos) == 28);
    assert!(offset_of!(seqshim_gact_extend_req_t, aligned_ref) == 32);
    assert!(offset_of!(seqshim_gact_extend_req_t, aligned_query) == 40);
    assert!(offset_of!(seqshim_gact_extend_req_t, cap) == 48);
};

fn code(status: seqshim_status) -> i32 {
    status as i32
}

/// The status a typed error of the family maps to.
fn status_of(error: &GactError) -> seqshim_status {
    match error {
        GactError::TileTooLong { .. } => SEQSHIM_E_LIMIT,
        GactError::InvalidTileSize { tile_size } if *tile_size > MAX_TILE_LEN as i32 => {
            SEQSHIM_E_LIMIT
        }
        GactError::InvalidTileSize { .. }
        | GactError::PositiveGapScore { .. }
        | GactError::ScoreOutOfRange
        | GactError::TracebackStartOutsideTile { .. }
        | GactError::AnchorOutOfRange { .. } => SEQSHIM_E_ARG,
        GactError::OutputTooSmall { .. } => SEQSHIM_E_BUFFER,
        GactError::NonAdvancingFirstTile { .. } => SEQSHIM_E_REFUSED,
        GactError::NotRun(_) => SEQSHIM_E_INTERNAL,
    }
}

fn fail(error: &GactError) -> i32 {
    crate::log_debug!("GACT: {error}");
    code(status_of(error))
}

/// The 25 scores and the gap scores.
///
/// # Safety
/// `sub_mat` must be null or valid for 25 reads.
unsafe fn params(sub_mat: *const i32, gap_open: i32, gap_extend: i32) -> Result<Params, i32> {
    if sub_mat.is_null() {
        return Err(code(SEQSHIM_E_NULL));
    }
    // SAFETY: non-null and valid for 25 `int32_t` per the caller's contract;
    // an `int32_t` array is aligned for `i32`.
    let sub = unsafe { std::slice::from_raw_parts(sub_mat, 25) };
    Ok(Params {
        sub_mat: sub.try_into().expect("25 entries"),
        gap_open,
        gap_extend,
    })
}

/// A tile side as a slice of caller memory: E_ARG for a negative length,
/// E_LIMIT beyond 511, E_NULL for a null pointer with bases.
///
/// # Safety
/// `ptr` must be null or valid for `len` reads.
unsafe fn tile_side<'a>(ptr: *const c_char, len: i64) -> Result<&'a [u8], i32> {
    if len < 0 {
        return Err(code(SEQSHIM_E_ARG));
    }
    if len > MAX_TILE_LEN as i64 {
        return Err(code(SEQSHIM_E_LIMIT));
    }
    // SAFETY: forwarded from this function's contract; len <= 511.
    unsafe { bytes(ptr.cast(), len as usize) }.ok_or(code(SEQSHIM_E_NULL))
}

fn summary(res: &TileResult) -> seqshim_gact_tile_result_t {
    seqshim_gact_tile_result_t {
        score: res.score,
        max_i: res.max_i as i32,
        max_j: res.max_j as i32,
        ref_steps: res.ref_steps as i32,
        query_steps: res.query_steps as i32,
        n_ops: res.ops.len() as u32,
    }
}

/// Writes a tile result and its states into caller memory.
fn write_tile(
    res: &TileResult,
    ops: &mut [u8],
    out: &mut seqshim_gact_tile_result_t,
) -> Result<(), i32> {
    if res.ops.len() > ops.len() {
        return Err(code(SEQSHIM_E_BUFFER));
    }
    ops[..res.ops.len()].copy_from_slice(&res.ops);
    *out = summary(res);
    Ok(())
}

/// Writes an alignment's strings and fields into caller memory.
fn write_aln(
    aln: &Alignment,
    aligned_ref: &mut [u8],
    aligned_query: &mut [u8],
    out: &mut seqshim_gact_aln_t,
) -> Result<(), i32> {
    let cols = aln.aligned_ref.len();
    if cols > aligned_ref.len() || cols > aligned_query.len() {
        return Err(code(SEQSHIM_E_BUFFER));
    }
    aligned_ref[..cols].copy_from_slice(&aln.aligned_ref);
    aligned_query[..cols].copy_from_slice(&aln.aligned_query);
    *out = seqshim_gact_aln_t {
        ref_start: aln.ref_start as u32,
        query_start: aln.query_start as u32,
        aligned_ref_len: aln.aligned_ref_len as u32,
        aligned_query_len: aln.aligned_query_len as u32,
        score: aln.score,
        n_cols: cols as u32,
    };
    Ok(())
}

/// `first_tile_score_threshold`: <= 0 disables the test, as yatisht's
/// classic `GACT` always does. darwin-gpu's test (> 0) is not implemented.
fn check_threshold(threshold: i32) -> Result<(), i32> {
    if threshold > 0 {
        Err(code(SEQSHIM_E_OPTION))
    } else {
        Ok(())
    }
}

fn extend_options(
    tile_size: i32,
    tile_overlap: i32,
    (ref_pos, ref_length): (i32, u32),
    (query_pos, query_length): (i32, u32),
) -> ExtendOptions {
    ExtendOptions {
        tile_size,
        tile_overlap,
        ref_pos,
        query_pos,
        ref_len: Some(ref_length as usize),
        query_len: Some(query_length as usize),
    }
}

/// How many bytes of a sequence an extension may read: its length, or up to
/// the seed when the seed lies past it (Darwin's `read_overlaps` seeds into
/// its padded reference buffer, and the left extension reads up to there).
fn readable(length: u32, pos: i32) -> usize {
    (length as usize).max(usize::try_from(pos).unwrap_or(0))
}

/// Darwin's `AlignWithBT` on one tile: Smith-Waterman with affine gaps and a
/// traceback, from the maximum cell (`first`) or from (`ref_pos`,
/// `query_pos`). The states (1 = D, 2 = I, 3 = M) go to `ops` in traceback
/// order; the score, max cell, steps and state count to `*out`.
///
/// With a GPU in use the tile runs there when the routing expects its
/// result back sooner than this thread would compute it (concurrent
/// callers' tiles share launches); the result is the same either way.
///
/// Returns 0, or a negative `seqshim_status`: `SEQSHIM_E_NULL` (null
/// `sub_mat`/`out`, or a null sequence or `ops` with a non-zero length),
/// `SEQSHIM_E_LIMIT` (a side beyond 511), `SEQSHIM_E_ARG` (negative
/// length, positive gap score, scores beyond ±2^19, a traceback start
/// outside the tile), `SEQSHIM_E_BUFFER` (more states than `ops_cap`),
/// `SEQSHIM_E_INTERNAL` (the GPU failed and `SEQSHIM_STRICT=1`). On
/// an error `*out` is zeroed (when `out` is not null) and `ops` may hold
/// nothing useful.
///
/// # Safety
/// `ref_seq` must be valid for `ref_len` reads and `query_seq` for
/// `query_len` reads (either may be null when its length is 0); `sub_mat`
/// for 25 reads; `ops` for `ops_cap` writes (null when `ops_cap` is 0);
/// `out` for one write. `ops` must not overlap the inputs.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_gact_align_tile(
    ref_seq: *const c_char,
    ref_len: i64,
    query_seq: *const c_char,
    query_len: i64,
    sub_mat: *const i32,
    gap_open: i32,
    gap_extend: i32,
    query_pos: i32,
    ref_pos: i32,
    reverse: bool,
    first: bool,
    early_terminate: i32,
    ops: *mut u8,
    ops_cap: u32,
    out: *mut seqshim_gact_tile_result_t,
) -> i32 {
    ffi_guard!({
        if out.is_null() {
            return code(SEQSHIM_E_NULL);
        }
        // SAFETY: `out` is non-null and valid for one write per the contract.
        let out = unsafe { &mut *out };
        *out = seqshim_gact_tile_result_t::default();
        // SAFETY: every pointer is valid for the lengths given, per the
        // contract; null is accepted only with a zero length.
        let viewed = unsafe {
            (|| {
                let params = params(sub_mat, gap_open, gap_extend)?;
                let r = tile_side(ref_seq, ref_len)?;
                let q = tile_side(query_seq, query_len)?;
                let ops = bytes_mut(ops, ops_cap as usize).ok_or(code(SEQSHIM_E_NULL))?;
                Ok::<_, i32>((params, r, q, ops))
            })()
        };
        let (params, r, q, ops) = match viewed {
            Ok(v) => v,
            Err(status) => return status,
        };
        let opts = TileOptions {
            ref_pos,
            query_pos,
            reverse,
            first,
            early_terminate,
        };
        let res = match gact::align_tile_call(r, q, &params, opts) {
            Ok(res) => res,
            Err(e) => return fail(&e),
        };
        match write_tile(&res, ops, out) {
            Ok(()) => code(SEQSHIM_OK),
            Err(status) => status,
        }
    })
}

/// Darwin's classic `GACT`: extends the seed at (`ref_pos`, `query_pos`)
/// tile by tile to the left and to the right and rescores the result. The
/// gapped strings (`-` for gaps, no terminating NUL) go to `aligned_ref` and
/// `aligned_query`, `out->n_cols` bytes each; the other fields to `*out`.
///
/// With a GPU in use each tile of the extension runs there when the
/// routing expects its result back sooner than this thread would compute
/// it (concurrent callers' tiles share launches); the result is the same
/// either way.
///
/// `first_tile_score_threshold` <= 0 disables the first-tile test (classic
/// Darwin ignores the value; pass 0). A positive value (darwin-gpu's test)
/// is not supported and returns `SEQSHIM_E_OPTION`.
///
/// Returns 0, or a negative `seqshim_status`: `SEQSHIM_E_NULL`,
/// `SEQSHIM_E_LIMIT` (`tile_size` > 511), `SEQSHIM_E_ARG` (`tile_size` < 1,
/// a negative seed position, positive gap score, scores beyond ±2^19),
/// `SEQSHIM_E_OPTION`, `SEQSHIM_E_BUFFER` (more than `cap` columns; at most
/// `ref_length + query_length` are ever written), `SEQSHIM_E_REFUSED` (the
/// first tile emits no state and does not move the anchor: upstream would
/// loop forever), `SEQSHIM_E_INTERNAL` (the GPU failed and
/// `SEQSHIM_STRICT=1`). On an error `*out` is zeroed (when `out` is not
/// null).
///
/// # Safety
/// `ref_str` must be valid for `max(ref_length, ref_pos)` reads and
/// `query_str` for `max(query_length, query_pos)` reads (null when that is
/// 0): as Darwin's `GACT`, the left extension reads up to a seed placed past
/// a sequence's length; `sub_mat` for 25
/// reads; `aligned_ref` and `aligned_query` each for `cap` writes (null
/// when `cap` is 0), not overlapping each other or the inputs; `out` for one
/// write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_gact_extend(
    ref_str: *const c_char,
    query_str: *const c_char,
    sub_mat: *const i32,
    gap_open: i32,
    gap_extend: i32,
    tile_size: i32,
    tile_overlap: i32,
    ref_pos: i32,
    query_pos: i32,
    ref_length: u32,
    query_length: u32,
    first_tile_score_threshold: i32,
    aligned_ref: *mut c_char,
    aligned_query: *mut c_char,
    cap: u32,
    out: *mut seqshim_gact_aln_t,
) -> i32 {
    ffi_guard!({
        if out.is_null() {
            return code(SEQSHIM_E_NULL);
        }
        // SAFETY: `out` is non-null and valid for one write per the contract.
        let out = unsafe { &mut *out };
        *out = seqshim_gact_aln_t::default();
        if let Err(status) = check_threshold(first_tile_score_threshold) {
            return status;
        }
        // SAFETY: every pointer is valid for the lengths given, per the
        // contract; null is accepted only with a zero length.
        let viewed = unsafe {
            (|| {
                let params = params(sub_mat, gap_open, gap_extend)?;
                let null = code(SEQSHIM_E_NULL);
                let r = bytes(ref_str.cast(), readable(ref_length, ref_pos)).ok_or(null)?;
                let q = bytes(query_str.cast(), readable(query_length, query_pos)).ok_or(null)?;
                let ar = bytes_mut(aligned_ref.cast(), cap as usize).ok_or(null)?;
                let aq = bytes_mut(aligned_query.cast(), cap as usize).ok_or(null)?;
                Ok::<_, i32>((params, r, q, ar, aq))
            })()
        };
        let (params, r, q, ar, aq) = match viewed {
            Ok(v) => v,
            Err(status) => return status,
        };
        let opts = extend_options(
            tile_size,
            tile_overlap,
            (ref_pos, ref_length),
            (query_pos, query_length),
        );
        let aln = match gact::extend_call(r, q, &params, opts) {
            Ok(aln) => aln,
            Err(e) => return fail(&e),
        };
        match write_aln(&aln, ar, aq, out) {
            Ok(()) => code(SEQSHIM_OK),
            Err(status) => status,
        }
    })
}

/// [`seqshim_gact_align_tile`] on `n` tiles with one scoring, run on
/// every GPU in use and seqshim's CPU pool. Request `k` writes its states to `ops_arena + k *
/// ops_stride` (at most `ops_stride`) and its result to `results[k]`. A
/// request with `ref_len == -1` is an idle slot: skipped, its result zeroed.
///
/// Returns 0 when every request succeeded; otherwise the status of the
/// first failing request (its result zeroed; every other result is still
/// written), or a call-level error: `SEQSHIM_E_NULL` (null `sub_mat`, or
/// null `reqs`/`results`/`ops_arena` with work to do), `SEQSHIM_E_LIMIT`
/// (`n * ops_stride` beyond the address space). Results equal those of
/// `seqshim_gact_align_tile` on each request.
///
/// # Safety
/// `reqs` and `results` must be valid for `n` elements (null when `n` is
/// 0), `ops_arena` for `n * ops_stride` writes, `sub_mat` for 25 reads;
/// every request's sequences as in `seqshim_gact_align_tile`. Outputs must
/// not overlap inputs or each other.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_gact_align_tile_batch(
    reqs: *const seqshim_gact_tile_req_t,
    n: u32,
    sub_mat: *const i32,
    gap_open: i32,
    gap_extend: i32,
    ops_arena: *mut u8,
    ops_stride: u32,
    results: *mut seqshim_gact_tile_result_t,
) -> i32 {
    ffi_guard!({
        // SAFETY: `sub_mat` is null or valid for 25 reads per the contract.
        let params = match unsafe { params(sub_mat, gap_open, gap_extend) } {
            Ok(p) => p,
            Err(status) => return status,
        };
        let n = n as usize;
        if n == 0 {
            return code(SEQSHIM_OK);
        }
        if reqs.is_null() || results.is_null() {
            return code(SEQSHIM_E_NULL);
        }
        let Some(arena_len) = n.checked_mul(ops_stride as usize) else {
            return code(SEQSHIM_E_LIMIT);
        };
        // SAFETY: non-null and valid for `n` elements per the contract.
        let reqs = unsafe { std::slice::from_raw_parts(reqs, n) };
        // SAFETY: non-null, valid for `n` writes and unaliased per the contract.
        let results = unsafe { std::slice::from_raw_parts_mut(results, n) };
        // SAFETY: valid for `n * ops_stride` writes per the contract (null
        // only with a zero stride).
        let Some(arena) = (unsafe { bytes_mut(ops_arena, arena_len) }) else {
            results.fill(seqshim_gact_tile_result_t::default());
            return code(SEQSHIM_E_NULL);
        };

        // Per request: an early status, or the index of its job.
        let mut slots: Vec<Result<usize, i32>> = Vec::with_capacity(n);
        let mut jobs = Vec::with_capacity(n);
        for req in reqs {
            if req.ref_len == -1 {
                slots.push(Err(code(SEQSHIM_OK)));
                continue;
            }
            // SAFETY: each request's sequences are valid for their lengths
            // per the contract.
            let sides = unsafe {
                tile_side(req.ref_seq, req.ref_len)
                    .and_then(|r| tile_side(req.query_seq, req.query_len).map(|q| (r, q)))
            };
            match sides {
                Ok((r, q)) => {
                    slots.push(Ok(jobs.len()));
                    jobs.push(TileJob {
                        ref_: r.to_vec(),
                        query: q.to_vec(),
                        params,
                        opts: TileOptions {
                            ref_pos: req.ref_pos,
                            query_pos: req.query_pos,
                            reverse: req.reverse,
                            first: req.first,
                            early_terminate: req.early_terminate,
                        },
                    });
                }
                Err(status) => slots.push(Err(status)),
            }
        }
        let outputs = gact::align_tiles(jobs);

        let mut first_error = code(SEQSHIM_OK);
        let stride = ops_stride as usize;
        let chunks: Box<dyn Iterator<Item = &mut [u8]>> = if stride == 0 {
            Box::new(std::iter::repeat_with(|| &mut [][..]).take(n))
        } else {
            Box::new(arena.chunks_mut(stride))
        };
        for ((slot, result), ops) in slots.iter().zip(results.iter_mut()).zip(chunks) {
            *result = seqshim_gact_tile_result_t::default();
            let status = match slot {
                Err(status) => *status,
                Ok(index) => match &outputs[*index] {
                    Ok(res) => write_tile(res, ops, result).err().unwrap_or(0),
                    Err(e) => fail(e),
                },
            };
            if status != 0 {
                *result = seqshim_gact_tile_result_t::default();
                if first_error == 0 {
                    first_error = status;
                }
            }
        }
        first_error
    })
}

/// [`seqshim_gact_extend`] on `n` seeds with one scoring and tiling: with a
/// GPU in use and at least 1,024 seeds, all extensions advance one tile per
/// round with every round's tiles on the GPUs; otherwise each extension
/// runs on seqshim's CPU pool. Request `k` writes its gapped strings to its own
/// `aligned_ref`/`aligned_query` (at most its `cap` bytes each), its fields
/// to `out[k]` and its status to `status[k]` (0, or the negative status
/// `seqshim_gact_extend` would return; `out[k]` zeroed on an error).
///
/// Returns 0 when every request succeeded; otherwise the first failing
/// request's status, or a call-level error with no per-request output:
/// `SEQSHIM_E_NULL` (null `sub_mat`, or null `reqs`/`out`/`status` with
/// `n` > 0), `SEQSHIM_E_OPTION` (`first_tile_score_threshold` > 0). Results
/// equal those of `seqshim_gact_extend` on each request.
///
/// # Safety
/// `reqs`, `out` and `status` must be valid for `n` elements (null when
/// `n` is 0), `sub_mat` for 25 reads; every request's pointers as in
/// `seqshim_gact_extend`. Outputs must not overlap inputs or each other.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_gact_extend_batch(
    reqs: *const seqshim_gact_extend_req_t,
    n: u32,
    sub_mat: *const i32,
    gap_open: i32,
    gap_extend: i32,
    tile_size: i32,
    tile_overlap: i32,
    first_tile_score_threshold: i32,
    out: *mut seqshim_gact_aln_t,
    status: *mut i32,
) -> i32 {
    ffi_guard!({
        // SAFETY: `sub_mat` is null or valid for 25 reads per the contract.
        let params = match unsafe { params(sub_mat, gap_open, gap_extend) } {
            Ok(p) => p,
            Err(status) => return status,
        };
        if let Err(status) = check_threshold(first_tile_score_threshold) {
            return status;
        }
        let n = n as usize;
        if n == 0 {
            return code(SEQSHIM_OK);
        }
        if reqs.is_null() || out.is_null() || status.is_null() {
            return code(SEQSHIM_E_NULL);
        }
        // SAFETY: non-null and valid for `n` elements per the contract.
        let reqs = unsafe { std::slice::from_raw_parts(reqs, n) };
        // SAFETY: non-null, valid for `n` writes and unaliased per the contract.
        let out = unsafe { std::slice::from_raw_parts_mut(out, n) };
        // SAFETY: as `out`.
        let status = unsafe { std::slice::from_raw_parts_mut(status, n) };

        // Sequences shared by several requests (one reference, many seeds)
        // are copied once.
        let mut copies: HashMap<(usize, usize), Arc<[u8]>> = HashMap::new();
        let mut share = |ptr: *const c_char, len: usize| -> Result<Arc<[u8]>, i32> {
            let key = (ptr as usize, len);
            if let Some(seq) = copies.get(&key) {
                return Ok(seq.clone());
            }
            // SAFETY: each request's sequences are valid for their lengths
            // per the contract; null is accepted only with a zero length.
            let seq: Arc<[u8]> = unsafe { bytes(ptr.cast(), len) }
                .ok_or(code(SEQSHIM_E_NULL))?
                .into();
            copies.insert(key, seq.clone());
            Ok(seq)
        };
        let mut slots: Vec<Result<usize, i32>> = Vec::with_capacity(n);
        let mut jobs = Vec::with_capacity(n);
        for req in reqs {
            let outputs_ok =
                (!req.aligned_ref.is_null() && !req.aligned_query.is_null()) || req.cap == 0;
            let seqs = share(req.ref_str, readable(req.ref_length, req.ref_pos)).and_then(|r| {
                share(req.query_str, readable(req.query_length, req.query_pos)).map(|q| (r, q))
            });
            match seqs {
                Ok((r, q)) if outputs_ok => {
                    slots.push(Ok(jobs.len()));
                    jobs.push(ExtendJob {
                        ref_: r,
                        query: q,
                        params,
                        opts: extend_options(
                            tile_size,
                            tile_overlap,
                            (req.ref_pos, req.ref_length),
                            (req.query_pos, req.query_length),
                        ),
                    });
                }
                Ok(_) => slots.push(Err(code(SEQSHIM_E_NULL))),
                Err(s) => slots.push(Err(s)),
            }
        }
        let outputs = gact::extend_all(jobs);

        let mut first_error = code(SEQSHIM_OK);
        for (((slot, req), result), st) in slots
            .iter()
            .zip(reqs)
            .zip(out.iter_mut())
            .zip(status.iter_mut())
        {
            *result = seqshim_gact_aln_t::default();
            *st = match slot {
                Err(s) => *s,
                Ok(index) => match &outputs[*index] {
                    Err(e) => fail(e),
                    Ok(aln) => {
                        // SAFETY: the request's output buffers are valid for
                        // `cap` writes each and unaliased per the contract
                        // (non-null, or `cap` is 0: checked above).
                        let buffers = unsafe {
                            (
                                bytes_mut(req.aligned_ref.cast(), req.cap as usize),
                                bytes_mut(req.aligned_query.cast(), req.cap as usize),
                            )
                        };
                        match buffers {
                            (Some(ar), Some(aq)) => {
                                write_aln(aln, ar, aq, result).err().unwrap_or(0)
                            }
                            _ => code(SEQSHIM_E_NULL),
                        }
                    }
                },
            };
            if *st != 0 {
                *result = seqshim_gact_aln_t::default();
                if first_error == 0 {
                    first_error = *st;
                }
            }
        }
        first_error
    })
}

/// Where the tiles of [`seqshim_gact_align_tile_batch`] ran so far in this
/// process: `*on_gpu` tiles on a GPU, `*on_cpu` on the CPU (either pointer
/// may be null). Returns the number of GPUs that run GACT tiles: 0 when no
/// GPU is in use (`seqshim_backend_info` says why) or the GACT kernel is
/// unavailable on every GPU.
///
/// # Safety
/// `on_gpu` and `on_cpu` must each be null or valid for one write.
#[unsafe(no_mangle)]
pub unsafe extern "C" fn seqshim_gact_tile_routing(on_gpu: *mut u64, on_cpu: *mut u64) -> i32 {
    ffi_guard!({
        let (gpu, cpu, devices) = gact::tile_routing();
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
