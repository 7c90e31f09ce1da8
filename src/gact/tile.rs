//! One tile: Darwin's `AlignWithBT` (spec §2.2, §4.1).

use super::error::GactError;
use super::kernel::{FillOutcome, StripedDp};
use super::lane::Lane;
use super::scoring::{Params, base_code};
use super::traceback::{Steps, trace};
use super::{MAX_TILE_LEN, TileOptions, TileSummary};

/// Lanes per vector: 16 x i16 and 8 x i32 are both 256 bits, two SSE2
/// registers or one AVX2 register.
const NARROW_LANES: usize = 16;
const WIDE_LANES: usize = 8;

/// Reusable working memory for tiles; keeps allocations out of the hot path.
pub struct TileAligner {
    narrow: StripedDp<i16, NARROW_LANES>,
    wide: StripedDp<i32, WIDE_LANES>,
    ref_codes: Vec<u8>,
    query_codes: Vec<u8>,
}

impl Default for TileAligner {
    fn default() -> Self {
        TileAligner::new()
    }
}

impl TileAligner {
    pub fn new() -> TileAligner {
        TileAligner {
            narrow: StripedDp::new(),
            wide: StripedDp::new(),
            ref_codes: Vec::with_capacity(MAX_TILE_LEN),
            query_codes: Vec::with_capacity(MAX_TILE_LEN),
        }
    }

    /// `AlignWithBT`: appends the traceback states (`OP_M`/`OP_I`/`OP_D`, in
    /// traceback order) to `ops` and returns the rest of the result queue.
    pub fn align_append(
        &mut self,
        ref_: &[u8],
        query: &[u8],
        params: &Params,
        opts: TileOptions,
        ops: &mut Vec<u8>,
    ) -> Result<TileSummary, GactError> {
        let (m, n) = (ref_.len(), query.len());
        if m > MAX_TILE_LEN || n > MAX_TILE_LEN {
            return Err(GactError::TileTooLong {
                ref_len: m,
                query_len: n,
            });
        }
        params.validate()?;
        let start_pos = if opts.first {
            (0, 0)
        } else {
            let inside = |p: i32, len: usize| p >= 0 && p as usize <= len;
            if !inside(opts.ref_pos, m) || !inside(opts.query_pos, n) {
                return Err(GactError::TracebackStartOutsideTile {
                    ref_pos: opts.ref_pos,
                    query_pos: opts.query_pos,
                    ref_len: m,
                    query_len: n,
                });
            }
            (opts.ref_pos as usize, opts.query_pos as usize)
        };

        if m == 0 || n == 0 {
            // No cell is computed: score 0, max cell (0, 0), no state.
            return Ok(TileSummary {
                score: 0,
                max_i: 0,
                max_j: 0,
                ref_steps: 0,
                query_steps: 0,
                n_ops: 0,
            });
        }

        encode_into(&mut self.ref_codes, ref_, opts.reverse);
        encode_into(&mut self.query_codes, query, opts.reverse);
        let ops_before = ops.len();
        let (fill, steps) = if params.fits_i16(m, n) {
            run(
                &mut self.narrow,
                &self.ref_codes,
                &self.query_codes,
                params,
                start_pos,
                opts,
                ops,
            )
        } else {
            run(
                &mut self.wide,
                &self.ref_codes,
                &self.query_codes,
                params,
                start_pos,
                opts,
                ops,
            )
        };
        Ok(TileSummary {
            score: if opts.first {
                fill.max_score
            } else {
                fill.pos_score
            },
            max_i: fill.max_i,
            max_j: fill.max_j,
            ref_steps: steps.ref_steps,
            query_steps: steps.query_steps,
            n_ops: ops.len() - ops_before,
        })
    }
}

fn run<T: Lane, const L: usize>(
    dp: &mut StripedDp<T, L>,
    ref_codes: &[u8],
    query_codes: &[u8],
    params: &Params,
    start_pos: (usize, usize),
    opts: TileOptions,
    ops: &mut Vec<u8>,
) -> (FillOutcome, Steps) {
    // The traceback moves at most `early_terminate` rows up from its start,
    // so rows above that need no direction codes (unknown start if `first`).
    let dir_from_row = if opts.first {
        1
    } else {
        (start_pos.0 as i64 - opts.early_terminate.max(0) as i64 - 1).max(1) as usize
    };
    let fill = dp.fill(
        ref_codes,
        query_codes,
        params,
        start_pos,
        opts.first,
        dir_from_row,
    );
    let start = if opts.first {
        (fill.max_i, fill.max_j)
    } else {
        start_pos
    };
    let steps = trace(dp, start, opts.early_terminate, ops);
    (fill, steps)
}

/// Base codes in DP order: `reverse` tiles are read from their last base.
fn encode_into(out: &mut Vec<u8>, seq: &[u8], reverse: bool) {
    out.clear();
    if reverse {
        out.extend(seq.iter().rev().map(|&b| base_code(b)));
    } else {
        out.extend(seq.iter().map(|&b| base_code(b)));
    }
}
