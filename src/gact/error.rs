//! Typed errors of the GACT family.

use std::fmt;

/// Why a tile or an extension was refused.
///
/// Every variant is an input that upstream Darwin (`yatisht/darwin@16bdb81`)
/// either aborts on, hangs on, or handles with undefined behaviour; inputs that
/// upstream handles well-definedly are never refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum GactError {
    /// A tile side exceeds [`super::MAX_TILE_LEN`] (upstream `assert(len < 512)`).
    TileTooLong { ref_len: usize, query_len: usize },
    /// `gap_open > 0` or `gap_extend > 0`: upstream's traceback then walks
    /// outside its direction matrix (spec fixtures README, exclusion 2).
    PositiveGapScore { gap_open: i32, gap_extend: i32 },
    /// A substitution or gap score so large that the DP could overflow `i32`
    /// (upstream overflows silently). Limit: |score| <= [`super::MAX_ABS_SCORE`].
    ScoreOutOfRange,
    /// `first == false` with a traceback start outside `0..=ref_len` x
    /// `0..=query_len` (upstream reads never-written cells).
    TracebackStartOutsideTile {
        ref_pos: i32,
        query_pos: i32,
        ref_len: usize,
        query_len: usize,
    },
    /// A caller-provided output buffer cannot hold the result.
    OutputTooSmall { needed: usize, capacity: usize },
    /// `tile_size` outside `1..=MAX_TILE_LEN`.
    InvalidTileSize { tile_size: i32 },
    /// The seed anchor lies outside its sequence.
    AnchorOutOfRange {
        ref_pos: i32,
        query_pos: i32,
        ref_len: usize,
        query_len: usize,
    },
    /// The first tile of an extension emitted no state and left the anchor
    /// where it was, so upstream would recompute the same tile forever
    /// (spec §4.5). Typical causes: no positive cell near the anchor, or
    /// `tile_overlap >= tile_size`.
    NonAdvancingFirstTile { ref_pos: usize, query_pos: usize },
    /// The job of a batch did not run to a result: a bug caught as a panic,
    /// or a device failure where strict mode forbade the CPU fallback.
    NotRun(String),
}

impl fmt::Display for GactError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            GactError::TileTooLong { ref_len, query_len } => write!(
                f,
                "tile {ref_len}x{query_len} exceeds the limit of {} per side",
                super::MAX_TILE_LEN
            ),
            GactError::PositiveGapScore {
                gap_open,
                gap_extend,
            } => write!(
                f,
                "gap scores must be <= 0 (gap_open {gap_open}, gap_extend {gap_extend})"
            ),
            GactError::ScoreOutOfRange => write!(
                f,
                "a substitution or gap score exceeds +-{}",
                super::MAX_ABS_SCORE
            ),
            GactError::TracebackStartOutsideTile {
                ref_pos,
                query_pos,
                ref_len,
                query_len,
            } => write!(
                f,
                "traceback start (ref {ref_pos}, query {query_pos}) outside the {ref_len}x{query_len} tile"
            ),
            GactError::OutputTooSmall { needed, capacity } => {
                write!(f, "output needs {needed} entries, capacity is {capacity}")
            }
            GactError::InvalidTileSize { tile_size } => write!(
                f,
                "tile_size {tile_size} outside 1..={}",
                super::MAX_TILE_LEN
            ),
            GactError::AnchorOutOfRange {
                ref_pos,
                query_pos,
                ref_len,
                query_len,
            } => write!(
                f,
                "anchor (ref {ref_pos}, query {query_pos}) outside sequences of length {ref_len}/{query_len}"
            ),
            GactError::NonAdvancingFirstTile { ref_pos, query_pos } => write!(
                f,
                "first tile at (ref {ref_pos}, query {query_pos}) emitted no state and does not advance"
            ),
            GactError::NotRun(why) => write!(f, "the job did not run: {why}"),
        }
    }
}

impl std::error::Error for GactError {}
