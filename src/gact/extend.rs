//! Whole extension from a seed: Darwin's `GACT` (spec §2.3, §4.2).
//!
//! An [`Extension`] is the loop of upstream's `GACT` turned inside out: it
//! names the next tile to align, takes that tile's result, and ends with
//! the alignment. [`extend_with`] runs one extension tile after tile on the
//! caller's thread; [`extend_by`] does the same with tiles aligned by its
//! caller (a synchronous call routes each tile, see `call`); the batch path (`batch::extend_lockstep`) advances many
//! extensions one tile per round, each round's tiles aligned together (on
//! the GPUs when in use). Both drive the same state machine, so their
//! results are the same whenever the tiles' are.

use std::ops::Range;

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
    extend_by(ref_, query, params, opts, |r, q, tile_opts, ops| {
        let res = aligner.align_append(r, q, params, tile_opts, ops)?;
        Ok((res.max_i, res.max_j))
    })
}

/// One extension tile after tile, each tile aligned by `align_tile`: it
/// appends the tile's states to the (empty) buffer it is given and returns
/// the tile's maximum cell, as `AlignWithBT` would. The result equals
/// [`extend_with`]'s whenever `align_tile` returns what the CPU path does.
pub(super) fn extend_by(
    ref_: &[u8],
    query: &[u8],
    params: &Params,
    opts: ExtendOptions,
    mut align_tile: impl FnMut(
        &[u8],
        &[u8],
        TileOptions,
        &mut Vec<u8>,
    ) -> Result<(usize, usize), GactError>,
) -> Result<Alignment, GactError> {
    let mut ext = Extension::new(ref_, query, params, opts)?;
    let mut ops = Vec::with_capacity(2 * MAX_TILE_LEN);
    while let Some(tile) = ext.next_tile() {
        ops.clear();
        let (max_i, max_j) = align_tile(
            &ref_[tile.ref_range.clone()],
            &query[tile.query_range.clone()],
            tile.opts,
            &mut ops,
        )?;
        ext.apply(ref_, query, &tile, max_i, max_j, &ops)?;
    }
    Ok(ext.finish(params))
}

/// The next tile of an extension: slices of its sequences and the flags.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct TileRequest {
    pub ref_range: Range<usize>,
    pub query_range: Range<usize>,
    pub opts: TileOptions,
}

#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum Phase {
    Left,
    Right,
    Done,
}

/// One extension between tiles (see the module comment).
pub(super) struct Extension {
    tile: usize,
    early_terminate: i32,
    /// Where the right extension stops (the sequences' own lengths).
    ref_len: usize,
    query_len: usize,
    phase: Phase,
    /// No state emitted yet: the next tile traces from its maximum cell.
    first: bool,
    rp: usize,
    qp: usize,
    anchor: (usize, usize),
    /// Bases the last tile consumed (0 stops the extension in its
    /// direction).
    ref_used: usize,
    query_used: usize,
    /// Gapped columns of the left part, right to left, then of the whole.
    left_ref: Vec<u8>,
    left_query: Vec<u8>,
    aligned_ref: Vec<u8>,
    aligned_query: Vec<u8>,
    aligned_ref_len: usize,
    aligned_query_len: usize,
    start: (usize, usize),
}

impl Extension {
    /// Checks the inputs as upstream's `GACT` would need them.
    pub(super) fn new(
        ref_: &[u8],
        query: &[u8],
        params: &Params,
        opts: ExtendOptions,
    ) -> Result<Extension, GactError> {
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
        let (rp, qp) = (opts.ref_pos as usize, opts.query_pos as usize);
        Ok(Extension {
            tile: opts.tile_size as usize,
            early_terminate: opts.tile_size.saturating_sub(opts.tile_overlap),
            // The right extension stops at the sequences' own lengths; the
            // left one reads whatever the slices hold up to the anchor.
            ref_len: opts.ref_len.unwrap_or(ref_.len()).min(ref_.len()),
            query_len: opts.query_len.unwrap_or(query.len()).min(query.len()),
            phase: Phase::Left,
            first: true,
            rp,
            qp,
            anchor: (rp, qp),
            ref_used: 0,
            query_used: 0,
            left_ref: Vec::new(),
            left_query: Vec::new(),
            aligned_ref: Vec::new(),
            aligned_query: Vec::new(),
            aligned_ref_len: 0,
            aligned_query_len: 0,
            start: (0, 0),
        })
    }

    /// The next tile to align, or `None` when the extension is complete.
    pub(super) fn next_tile(&mut self) -> Option<TileRequest> {
        let tile = self.tile;
        let going_on = |s: &Extension| (s.ref_used > 0 && s.query_used > 0) || s.first;
        if self.phase == Phase::Left {
            if self.rp > 0 && self.qp > 0 && going_on(self) {
                let rl = tile.min(self.rp);
                let ql = tile.min(self.qp);
                return Some(TileRequest {
                    ref_range: self.rp - rl..self.rp,
                    query_range: self.qp - ql..self.qp,
                    opts: self.tile_opts(rl, ql, false),
                });
            }
            // The left part is complete: the right one starts at the anchor.
            self.start = (self.rp, self.qp);
            self.left_ref.reverse();
            self.left_query.reverse();
            self.aligned_ref = std::mem::take(&mut self.left_ref);
            self.aligned_query = std::mem::take(&mut self.left_query);
            (self.rp, self.qp) = self.anchor;
            (self.ref_used, self.query_used) = (tile, tile);
            self.phase = Phase::Right;
        }
        if self.phase == Phase::Right {
            if self.rp < self.ref_len && self.qp < self.query_len && going_on(self) {
                let rl = if self.rp + tile < self.ref_len {
                    tile
                } else {
                    self.ref_len - self.rp
                };
                let ql = if self.qp + tile < self.query_len {
                    tile
                } else {
                    self.query_len - self.qp
                };
                return Some(TileRequest {
                    ref_range: self.rp..self.rp + rl,
                    query_range: self.qp..self.qp + ql,
                    opts: self.tile_opts(rl, ql, true),
                });
            }
            self.phase = Phase::Done;
        }
        None
    }

    fn tile_opts(&self, rl: usize, ql: usize, reverse: bool) -> TileOptions {
        TileOptions {
            ref_pos: rl as i32,
            query_pos: ql as i32,
            reverse,
            first: self.first,
            early_terminate: self.early_terminate,
        }
    }

    /// Takes the result of the tile [`Extension::next_tile`] named: its
    /// maximum cell (used while `first`) and its states. `ref_`/`query`
    /// are the sequences given to [`Extension::new`].
    pub(super) fn apply(
        &mut self,
        ref_: &[u8],
        query: &[u8],
        tile: &TileRequest,
        max_i: usize,
        max_j: usize,
        ops: &[u8],
    ) -> Result<(), GactError> {
        let (rl, ql) = (tile.ref_range.len(), tile.query_range.len());
        let left = self.phase == Phase::Left;
        if self.first {
            // The anchor moves to the first tile's maximum cell (on the
            // right only when the left part emitted no state).
            let before = (self.rp, self.qp);
            if left {
                self.rp = self.rp - rl + max_i;
                self.qp = self.qp - ql + max_j;
                self.anchor = (self.rp, self.qp);
            } else {
                self.rp = self.rp + rl - max_i;
                self.qp = self.qp + ql - max_j;
            }
            check_advances(ops, before, (self.rp, self.qp))?;
        }
        let (mut ref_used, mut query_used) = (0, 0);
        for &op in ops {
            self.first = false;
            debug_assert!(op == OP_M || op == OP_I || op == OP_D);
            let (r, q) = if left {
                (
                    if op == OP_D {
                        b'-'
                    } else {
                        ref_[self.rp - ref_used - 1]
                    },
                    if op == OP_I {
                        b'-'
                    } else {
                        query[self.qp - query_used - 1]
                    },
                )
            } else {
                (
                    if op == OP_D {
                        b'-'
                    } else {
                        ref_[self.rp + ref_used]
                    },
                    if op == OP_I {
                        b'-'
                    } else {
                        query[self.qp + query_used]
                    },
                )
            };
            let (cols_ref, cols_query) = if left {
                (&mut self.left_ref, &mut self.left_query)
            } else {
                (&mut self.aligned_ref, &mut self.aligned_query)
            };
            cols_ref.push(r);
            cols_query.push(q);
            ref_used += (op != OP_D) as usize;
            query_used += (op != OP_I) as usize;
        }
        if left {
            self.rp -= ref_used;
            self.qp -= query_used;
        } else {
            self.rp += ref_used;
            self.qp += query_used;
        }
        (self.ref_used, self.query_used) = (ref_used, query_used);
        self.aligned_ref_len += ref_used;
        self.aligned_query_len += query_used;
        Ok(())
    }

    /// The alignment, once [`Extension::next_tile`] returned `None`.
    pub(super) fn finish(self, params: &Params) -> Alignment {
        debug_assert_eq!(self.phase, Phase::Done);
        let score = rescore(&self.aligned_ref, &self.aligned_query, params);
        Alignment {
            ref_start: self.start.0,
            query_start: self.start.1,
            aligned_ref_len: self.aligned_ref_len,
            aligned_query_len: self.aligned_query_len,
            score,
            aligned_ref: self.aligned_ref,
            aligned_query: self.aligned_query,
        }
    }
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
