//! Darwin GACT (classic API of `yatisht/darwin@16bdb81`), pure-Rust CPU
//! implementation, bit-exact with upstream (spec `specs/gact.md` §2, §4).
//!
//! * [`align_tile`] is `AlignWithBT`: Smith-Waterman with affine gaps over one
//!   tile and a traceback from the maximum cell (`first`) or a given cell.
//! * [`extend`] is `GACT`: tile-by-tile extension left and right of a seed,
//!   then rescoring of the gapped strings.
//!
//! Points where upstream is undefined and this module picks the
//! well-defined equivalent:
//! * minus infinity is a finite sentinel below every reachable DP value
//!   instead of `-INT_MAX`, so `gap_extend < -1` no longer overflows; results
//!   equal upstream's wherever upstream's arithmetic is defined (§4.5);
//! * a first tile that emits no state at an unmoved anchor is an error
//!   ([`GactError::NonAdvancingFirstTile`]) instead of an endless loop;
//! * positive gap scores, tiles longer than 511, traceback starts outside the
//!   tile and scores beyond ±2^19 are refused with a [`GactError`].
//!
//! Every byte is a valid base: like upstream's `NtChar2Int`, A/C/G/T in
//! either case get codes 0-3 and any other byte code 4.

mod batch;
mod call;
mod error;
mod extend;
mod gpu;
mod kernel;
mod lane;
mod rescore;
mod row_ops;
mod scoring;
mod tile;
mod traceback;

use std::cell::RefCell;

pub use batch::{
    ExtendJob, GactExtensions, GactTiles, TileJob, align_tiles, extend_all, tile_routing,
};
pub use call::{align_tile_call, extend_call};
pub use error::GactError;
pub use gpu::{BatchTiming, TileRunner};
pub use scoring::{MAX_ABS_SCORE, Params, base_code};
pub use tile::TileAligner;

/// Largest tile side upstream accepts (`assert(len < MAX_TILE_SIZE = 512)`).
pub const MAX_TILE_LEN: usize = 511;

/// Traceback state: a query base against a gap (consumes query).
pub const OP_D: u8 = 1;
/// Traceback state: a reference base against a gap (consumes reference).
pub const OP_I: u8 = 2;
/// Traceback state: a reference base against a query base.
pub const OP_M: u8 = 3;

/// The per-call flags of `AlignWithBT`.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileOptions {
    /// 1-based traceback start when `first` is false; ignored when `first`.
    pub ref_pos: i32,
    pub query_pos: i32,
    /// Run the DP over both tiles read backwards (`seq[len - i]`).
    pub reverse: bool,
    /// Start the traceback at the maximum cell and report it.
    pub first: bool,
    /// The traceback stops, before emitting a state, once this many bases of
    /// either sequence have been consumed (<= 0: no state at all).
    pub early_terminate: i32,
}

/// The `AlignWithBT` result queue without the states.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct TileSummary {
    /// The maximum H if `first`, else H at the traceback start.
    pub score: i32,
    /// 1-based maximum cell (reference, query), in reversed coordinates for
    /// `reverse` tiles; only computed when `first` (0 otherwise).
    pub max_i: usize,
    pub max_j: usize,
    /// Reference bases consumed by the traceback (M and I states).
    pub ref_steps: usize,
    /// Query bases consumed by the traceback (M and D states).
    pub query_steps: usize,
    /// Number of states emitted.
    pub n_ops: usize,
}

/// A tile result with its states.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct TileResult {
    pub score: i32,
    pub max_i: usize,
    pub max_j: usize,
    pub ref_steps: usize,
    pub query_steps: usize,
    /// [`OP_M`] / [`OP_I`] / [`OP_D`] in traceback order (from the start cell
    /// toward the tile origin).
    pub ops: Vec<u8>,
}

impl TileSummary {
    /// The full result, with the states this summary counted.
    pub fn with_ops(self, ops: Vec<u8>) -> TileResult {
        TileResult {
            score: self.score,
            max_i: self.max_i,
            max_j: self.max_j,
            ref_steps: self.ref_steps,
            query_steps: self.query_steps,
            ops,
        }
    }
}

impl TileResult {
    /// The result without its states.
    pub fn summary(&self) -> TileSummary {
        TileSummary {
            score: self.score,
            max_i: self.max_i,
            max_j: self.max_j,
            ref_steps: self.ref_steps,
            query_steps: self.query_steps,
            n_ops: self.ops.len(),
        }
    }
}

/// The inputs of `GACT` other than the sequences and scoring.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct ExtendOptions {
    /// T: tile side, 1..=511.
    pub tile_size: i32,
    /// O: each tile after the first advances at most `T - O` bases.
    pub tile_overlap: i32,
    /// Seed anchor, 0-based, within the slices given.
    pub ref_pos: i32,
    pub query_pos: i32,
    /// The sequences' lengths when the slices reach past them; `None`: the
    /// slice's length. Darwin's `read_overlaps` places seeds past the end
    /// of a read within its padded reference buffer: the left extension
    /// then reads the buffer's bytes up to the seed and the right one stops
    /// at the length, as upstream does. Each is at most its slice's length.
    pub ref_len: Option<usize>,
    pub query_len: Option<usize>,
}

/// `GACT`'s `Alignment` fields that depend on the inputs.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alignment {
    /// 0-based start of the aligned part of each sequence.
    pub ref_start: usize,
    pub query_start: usize,
    /// Bases of each sequence covered by the alignment.
    pub aligned_ref_len: usize,
    pub aligned_query_len: usize,
    /// Rescored alignment score (spec §4.3).
    pub score: i32,
    /// Gapped strings: the input bytes as given, `-` for gaps.
    pub aligned_ref: Vec<u8>,
    pub aligned_query: Vec<u8>,
}

thread_local! {
    static ALIGNER: RefCell<TileAligner> = RefCell::new(TileAligner::new());
}

/// `AlignWithBT` over `ref_` and `query` (each at most [`MAX_TILE_LEN`]).
///
/// Bit-exact with upstream for every input upstream handles well-definedly.
/// Where upstream's arithmetic is undefined (`gap_extend < -1` overflows its
/// `-INT_MAX` minus infinity), the DP uses a finite minus infinity below
/// every reachable value instead: the well-defined equivalent of spec §4.5,
/// identical to upstream wherever upstream does not overflow.
pub fn align_tile(
    ref_: &[u8],
    query: &[u8],
    params: &Params,
    opts: TileOptions,
) -> Result<TileResult, GactError> {
    let mut ops = Vec::new();
    let s = ALIGNER.with(|a| {
        a.borrow_mut()
            .align_append(ref_, query, params, opts, &mut ops)
    })?;
    Ok(s.with_ops(ops))
}

/// `AlignWithBT` writing the states into a caller buffer (the C boundary's
/// shape); fails with [`GactError::OutputTooSmall`] if they do not fit.
pub fn align_tile_into(
    ref_: &[u8],
    query: &[u8],
    params: &Params,
    opts: TileOptions,
    ops_out: &mut [u8],
) -> Result<TileSummary, GactError> {
    let res = align_tile(ref_, query, params, opts)?;
    if res.ops.len() > ops_out.len() {
        return Err(GactError::OutputTooSmall {
            needed: res.ops.len(),
            capacity: ops_out.len(),
        });
    }
    ops_out[..res.ops.len()].copy_from_slice(&res.ops);
    Ok(res.summary())
}

/// `GACT`: extends the seed at (`opts.ref_pos`, `opts.query_pos`) over the
/// whole sequences `ref_` and `query`. Upstream's
/// `first_tile_score_threshold` is not a parameter: its test is commented
/// out in `16bdb81`, so the classic behaviour is to ignore it.
pub fn extend(
    ref_: &[u8],
    query: &[u8],
    params: &Params,
    opts: ExtendOptions,
) -> Result<Alignment, GactError> {
    ALIGNER.with(|a| extend::extend_with(&mut a.borrow_mut(), ref_, query, params, opts))
}

/// [`extend`] writing the gapped strings into caller buffers; returns the
/// alignment with empty `aligned_ref`/`aligned_query` and the column count.
pub fn extend_into(
    ref_: &[u8],
    query: &[u8],
    params: &Params,
    opts: ExtendOptions,
    aligned_ref_out: &mut [u8],
    aligned_query_out: &mut [u8],
) -> Result<(Alignment, usize), GactError> {
    let mut aln = extend(ref_, query, params, opts)?;
    let cols = aln.aligned_ref.len();
    let capacity = aligned_ref_out.len().min(aligned_query_out.len());
    if cols > capacity {
        return Err(GactError::OutputTooSmall {
            needed: cols,
            capacity,
        });
    }
    aligned_ref_out[..cols].copy_from_slice(&aln.aligned_ref);
    aligned_query_out[..cols].copy_from_slice(&aln.aligned_query);
    aln.aligned_ref = Vec::new();
    aln.aligned_query = Vec::new();
    Ok((aln, cols))
}

#[cfg(test)]
mod tests;
