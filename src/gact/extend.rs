//! Whole extension from a seed: Darwin's `GACT` (spec §2.3, §4.2).

use super::error::GactError;
use super::rescore::rescore;
use super::scoring::Params;
use super::tile::TileAligner;
use super::{Alignment, ExtendOptions, MAX_TILE_LEN, OP_D, OP_I, OP_M, TileOptions};

/// Runs the left extension (tiles ending at the anchor, read forward) and
/// then the right extension (tiles starting at the anchor, read reversed).
pub(super) fn extend_with(
    aligner: &mut TileAligner,
    ref_: &[u8],
    query: &[u8],
    params: &Params,
    opts: ExtendOptions,
) -> Result<Alignment, GactError> {
    if opts.tile_size < 1 || opts.tile_size as usize > MAX_TILE_LEN {
        return Err(GactError::InvalidTileSize {
            tile_size: opts.tile_size,
        });
    }
    params.validate()?;
    let inside = |p: i32, len: usize| p >= 0 && p as usize <= len;
    if !inside(opts.ref_pos, ref_.len()) || !inside(opts.query_pos, query.len()) {
        return Err(GactError::AnchorOutOfRange {
            ref_pos: opts.ref_pos,
            query_pos: opts.query_pos,
            ref_len: ref_.len(),
            query_len: query.len(),
        });
    }
    // The right extension stops at the sequences' own lengths; the left one
    // reads whatever the slices hold up to the anchor.
    let ref_len = opts.ref_len.unwrap_or(ref_.len()).min(ref_.len());
    let query_len = opts.query_len.unwrap_or(query.len()).min(query.len());
    let tile = opts.tile_size as usize;
    let early_terminate = opts.tile_size.saturating_sub(opts.tile_overlap);

    let mut first = true;
    let mut ops = Vec::with_capacity(2 * MAX_TILE_LEN);
    let (mut aligned_ref_len, mut aligned_query_len) = (0usize, 0usize);

    // Left extension; columns are collected right-to-left and flipped later.
    let mut left_ref = Vec::new();
    let mut left_query = Vec::new();
    let (mut rp, mut qp) = (opts.ref_pos as usize, opts.query_pos as usize);
    let mut anchor = (rp, qp);
    let (mut ref_used, mut query_used) = (0usize, 0usize);
    while rp > 0 && qp > 0 && ((ref_used > 0 && query_used > 0) || first) {
        let rl = tile.min(rp);
        let ql = tile.min(qp);
        ops.clear();
        let res = aligner.align_append(
            &ref_[rp - rl..rp],
            &query[qp - ql..qp],
            params,
            TileOptions {
                ref_pos: rl as i32,
                query_pos: ql as i32,
                reverse: false,
                first,
                early_terminate,
            },
            &mut ops,
        )?;
        if first {
            // The anchor moves to the first tile's maximum cell.
            let before = (rp, qp);
            rp = rp - rl + res.max_i;
            qp = qp - ql + res.max_j;
            anchor = (rp, qp);
            check_advances(&ops, before, (rp, qp))?;
        }
        (ref_used, query_used) = (0, 0);
        for &op in &ops {
            first = false;
            let r = if op == OP_D {
                b'-'
            } else {
                ref_[rp - ref_used - 1]
            };
            let q = if op == OP_I {
                b'-'
            } else {
                query[qp - query_used - 1]
            };
            left_ref.push(r);
            left_query.push(q);
            ref_used += (op != OP_D) as usize;
            query_used += (op != OP_I) as usize;
        }
        rp -= ref_used;
        qp -= query_used;
        aligned_ref_len += ref_used;
        aligned_query_len += query_used;
    }
    let (ref_start, query_start) = (rp, qp);
    left_ref.reverse();
    left_query.reverse();
    let mut aligned_ref = left_ref;
    let mut aligned_query = left_query;

    // Right extension from the anchor.
    (rp, qp) = anchor;
    (ref_used, query_used) = (tile, tile);
    while rp < ref_len && qp < query_len && ((ref_used > 0 && query_used > 0) || first) {
        let rl = if rp + tile < ref_len {
            tile
        } else {
            ref_len - rp
        };
        let ql = if qp + tile < query_len {
            tile
        } else {
            query_len - qp
        };
        ops.clear();
        let res = aligner.align_append(
            &ref_[rp..rp + rl],
            &query[qp..qp + ql],
            params,
            TileOptions {
                ref_pos: rl as i32,
                query_pos: ql as i32,
                reverse: true,
                first,
                early_terminate,
            },
            &mut ops,
        )?;
        if first {
            // Only reached when the left extension emitted no state.
            let before = (rp, qp);
            rp = rp + rl - res.max_i;
            qp = qp + ql - res.max_j;
            check_advances(&ops, before, (rp, qp))?;
        }
        (ref_used, query_used) = (0, 0);
        for &op in &ops {
            first = false;
            debug_assert!(op == OP_M || op == OP_I || op == OP_D);
            let r = if op == OP_D {
                b'-'
            } else {
                ref_[rp + ref_used]
            };
            let q = if op == OP_I {
                b'-'
            } else {
                query[qp + query_used]
            };
            aligned_ref.push(r);
            aligned_query.push(q);
            ref_used += (op != OP_D) as usize;
            query_used += (op != OP_I) as usize;
        }
        rp += ref_used;
        qp += query_used;
        aligned_ref_len += ref_used;
        aligned_query_len += query_used;
    }

    let score = rescore(&aligned_ref, &aligned_query, params);
    Ok(Alignment {
        ref_start,
        query_start,
        aligned_ref_len,
        aligned_query_len,
        score,
        aligned_ref,
        aligned_query,
    })
}

/// A first tile that emits nothing is recomputed by upstream at the moved
/// anchor; the anchor only moves toward the sequence end being approached,
/// so an unmoved anchor means upstream would loop forever.
fn check_advances(
    ops: &[u8],
    before: (usize, usize),
    after: (usize, usize),
) -> Result<(), GactError> {
    if ops.is_empty() && before == after {
        return Err(GactError::NonAdvancingFirstTile {
            ref_pos: after.0,
            query_pos: after.1,
        });
    }
    Ok(())
}

impl TileAligner {
    /// [`super::extend`] with this aligner's working memory (for callers
    /// that manage one aligner per thread themselves).
    pub fn extend(
        &mut self,
        ref_: &[u8],
        query: &[u8],
        params: &Params,
        opts: ExtendOptions,
    ) -> Result<Alignment, GactError> {
        extend_with(self, ref_, query, params, opts)
    }
}
