//! Striped DP fill of one tile (spec §4.1), written so that the compiler
//! auto-vectorises it on plain SSE2 / NEON without `unsafe` or intrinsics.
//!
//! Layout: the DP runs row by row over the reference (i, outer) and across
//! the query (j, inner). The query row is cut into `L` lanes of `seg`
//! consecutive columns each (Farrar's striped layout): slot `(t, l)` holds
//! column `j = l * seg + t + 1`. A "vector" is the L slots of one `t`, one
//! value per lane, so stepping `t` advances every lane by one column.
//!
//! Per row (see `row_ops`):
//! * `M` for the whole row from the previous row's H (`add_rows`);
//! * per lane, the horizontal gap chain `D` as if nothing entered the lane
//!   from the left (`gap_chain`, keeping only each lane's end);
//! * a carry over the `L` lanes that turns those lane-local ends into the
//!   exact `D` entering each lane (max-plus algebra is associative, so this
//!   is exact, not a heuristic like Farrar's lazy-F loop);
//! * the exact `D` chain of the row, then `I`, `H`, the direction code and
//!   the row maximum, element-wise (`finish_row`).
//!
//! The direction code of a cell is upstream's, 4 bits: bits 0-1 the state
//! (Z0 D1 I2 M3), bit 2 "D opened here", bit 3 "I opened here". The row
//! pass writes codes at lane width into a scratch row (narrowing inside the
//! main loop would cost a shuffle per comparison), and a second small pass
//! packs them two per byte.

use super::lane::Lane;
use super::row_ops::{RowScalars, add_rows, finish_row, gap_chain, narrow_codes};
use super::scoring::Params;

/// Direction-code flag bits (see the module comment).
pub(super) const D_OPENED: u8 = 4;
pub(super) const I_OPENED: u8 = 8;

/// The state (Z0 D1 I2 M3) stored in a direction code.
#[inline]
pub(super) fn state_of(code: u8) -> u8 {
    code & 3
}

/// Where to read a cell's direction code (1-based DP coordinates).
pub(super) trait DirSource {
    fn dir_at(&self, i: usize, j: usize) -> u8;
}

/// What the fill reports besides the direction codes.
#[derive(Debug, Clone, Copy)]
pub(super) struct FillOutcome {
    pub max_score: i32,
    pub max_i: usize,
    pub max_j: usize,
    /// H at the requested traceback start (0 when it lies on the border).
    pub pos_score: i32,
}

/// Reusable buffers for tiles of up to `MAX_TILE_LEN` per side.
///
/// Row buffers are flat: slot (t, l) of a row lives at `t * L + l`. The
/// buffers named `*_ext` carry one extra vector in front (`[0..L]`) holding
/// the value of column j-1 for the first slot of every lane, so that the
/// "left neighbour" of flat index x is simply index x of the same buffer
/// while the cell itself is at `L + x`. That keeps every pass a plain
/// element-wise loop, which is what the auto-vectoriser handles best.
pub(super) struct StripedDp<T: Lane, const L: usize> {
    seg: usize,
    /// `profile[rc * row_len + x]`: score of the query base in slot x against
    /// reference code `rc`; padding slots score 0.
    profile: Vec<T>,
    /// H of the previous row; the element-wise pass overwrites it.
    h_ext: Vec<T>,
    /// M of the current row and of the previous row (swapped every row).
    m_ext: Vec<T>,
    m_prev_ext: Vec<T>,
    /// D of the current row.
    d_row: Vec<T>,
    i_prev: Vec<T>,
    /// H of the last row whose maximum reached the best so far, and that
    /// row (1-based) and value: enough to find upstream's maximum cell
    /// without per-cell bookkeeping.
    best_row_h: Vec<T>,
    /// All bits set for slots holding a query column, 0 for padding.
    real_slot: Vec<T>,
    best_row: usize,
    best_val: i32,
    /// Direction codes, 4 bits per cell, row by row (see `narrow_codes`).
    dir: Vec<u8>,
    /// Direction codes of the current row at lane width, narrowed into `dir`
    /// by a separate pass (narrowing inside the main pass costs a shuffle per
    /// comparison).
    code_row: Vec<T>,
    /// Rows before this one (1-based) have no direction codes: the
    /// traceback cannot reach them.
    dir_from_row: usize,
}

impl<T: Lane, const L: usize> StripedDp<T, L> {
    pub(super) fn new() -> Self {
        StripedDp {
            seg: 1,
            profile: Vec::new(),
            h_ext: Vec::new(),
            m_ext: Vec::new(),
            m_prev_ext: Vec::new(),
            d_row: Vec::new(),
            i_prev: Vec::new(),
            best_row_h: Vec::new(),
            real_slot: Vec::new(),
            best_row: 0,
            best_val: -1,
            dir: Vec::new(),
            code_row: Vec::new(),
            dir_from_row: 1,
        }
    }

    /// Fills the tile. `ref_codes`/`query_codes` are base codes in DP order
    /// (already reversed for `reverse` tiles), both non-empty. `pos` is the
    /// 1-based cell whose H is reported as `pos_score`. Direction codes are
    /// only computed from row `dir_from_row` (1-based) on.
    pub(super) fn fill(
        &mut self,
        ref_codes: &[u8],
        query_codes: &[u8],
        params: &Params,
        pos: (usize, usize),
        track_max: bool,
        dir_from_row: usize,
    ) -> FillOutcome {
        self.dir_from_row = dir_from_row.max(1);
        debug_assert!(!ref_codes.is_empty() && !query_codes.is_empty());
        let n = query_codes.len();
        self.prepare(ref_codes.len(), query_codes, params);
        let go = T::from_i32(params.gap_open);
        let ge = T::from_i32(params.gap_extend);
        let pos_score = if track_max {
            self.fill_rows::<true>(ref_codes, go, ge, pos)
        } else {
            self.fill_rows::<false>(ref_codes, go, ge, pos)
        };
        let (max_score, max_i, max_j) = if track_max {
            self.locate_max(n)
        } else {
            (0, 0, 0)
        };
        FillOutcome {
            max_score,
            max_i,
            max_j,
            pos_score,
        }
    }

    fn prepare(&mut self, m: usize, query_codes: &[u8], params: &Params) {
        let n = query_codes.len();
        let seg = n.div_ceil(L);
        let row_len = seg * L;
        self.seg = seg;
        let zero = T::default();
        self.profile.clear();
        for rc in 0..5 {
            for t in 0..seg {
                for l in 0..L {
                    let j0 = l * seg + t;
                    self.profile.push(if j0 < n {
                        T::from_i32(params.sub_mat[5 * query_codes[j0] as usize + rc])
                    } else {
                        zero
                    });
                }
            }
        }
        // Row 0: H = M = 0, I = -inf (spec §4.1 boundary).
        reset(&mut self.h_ext, L + row_len, zero);
        reset(&mut self.m_ext, L + row_len, zero);
        reset(&mut self.m_prev_ext, L + row_len, zero);
        reset(&mut self.d_row, row_len, zero);
        reset(&mut self.i_prev, row_len, T::NEG_INF);
        // -1 so that the first row's H (always >= 0) registers.
        reset(&mut self.best_row_h, row_len, zero);
        self.real_slot.clear();
        self.real_slot
            .extend((0..row_len).map(|x| T::mask((x % L) * seg + x / L < n)));
        self.best_row = 0;
        self.best_val = -1;
        // Every entry is overwritten by the fill, no need to clear.
        self.dir.resize(m * row_len / 2, 0);
        reset(&mut self.code_row, row_len, zero);
    }

    fn fill_rows<const TRACK_MAX: bool>(
        &mut self,
        ref_codes: &[u8],
        go: T,
        ge: T,
        pos: (usize, usize),
    ) -> i32 {
        let seg = self.seg;
        let row_len = seg * L;
        let zero = T::default();
        let (go_i, ge_i) = (go.to_i32(), ge.to_i32());
        let StripedDp {
            profile,
            h_ext,
            m_ext,
            m_prev_ext,
            d_row,
            i_prev,
            best_row_h,
            real_slot,
            best_row,
            best_val,
            dir,
            code_row,
            dir_from_row: self_dir_from_row,
            ..
        } = self;
        let self_dir_from_row = *self_dir_from_row;
        let mut pos_score = 0;
        for (row, &rc) in ref_codes.iter().enumerate() {
            let prof = &profile[rc as usize * row_len..][..row_len];

            // M(i, j) = H(i-1, j-1) + s, where H(i-1, 0) = 0.
            set_left_vector::<T, L>(h_ext, zero);
            add_rows(&h_ext[..row_len], prof, &mut m_ext[L..]);

            // Lane-local D chain: D at every lane's last slot, ignoring what
            // enters the lane from the left (-inf when a lane has one slot).
            let d_local_end =
                gap_chain::<T, L, false>(&m_ext[L..row_len], [T::NEG_INF; L], &mut [], go, ge);

            // Carry over lanes: the exact D(i, j-1) entering slot t = 0 of
            // every lane. With A(l) the true D at lane l's last slot,
            //   A(l) = max(B(l), A(l-1) + seg * ge),
            //   B(l) = max(local end of lane l, M at lane l-1's last slot
            //              + go + (seg-1) * ge),
            // where lane -1 is column 0 (M = 0, D = -inf). Max-plus algebra
            // makes this exact; as a prefix maximum of B(l) - l * seg * ge it
            // is a 1-cycle dependency per lane.
            let lane_step = ge_i * seg as i32;
            let open_across = go_i + ge_i * (seg as i32 - 1);
            let m_last = &m_ext[row_len..row_len + L];
            let mut shifted_b = [0i32; L];
            for l in 0..L {
                let m_before = if l == 0 { 0 } else { m_last[l - 1].to_i32() };
                shifted_b[l] =
                    d_local_end[l].to_i32().max(m_before + open_across) - l as i32 * lane_step;
            }
            let mut running = i32::MIN / 2;
            for v in shifted_b.iter_mut() {
                running = running.max(*v);
                *v = running;
            }
            let mut d_enter = [T::NEG_INF; L];
            for l in 1..L {
                d_enter[l] = T::from_i32(shifted_b[l - 1] + (l as i32 - 1) * lane_step);
            }

            // Exact D for the whole row.
            set_left_vector::<T, L>(m_ext, zero);
            gap_chain::<T, L, true>(&m_ext[..row_len], d_enter, d_row, go, ge);

            // Element-wise: I, H, direction codes, running maximum.
            let finish = if row + 1 >= self_dir_from_row {
                finish_row::<T, TRACK_MAX, true>
            } else {
                finish_row::<T, TRACK_MAX, false>
            };
            let row_max = finish(
                &m_ext[..row_len],
                &m_ext[L..],
                d_row,
                &m_prev_ext[L..],
                i_prev,
                &mut h_ext[L..],
                code_row,
                real_slot,
                RowScalars { go, ge },
            );
            if row + 1 >= self_dir_from_row {
                narrow_codes::<T, L>(code_row, &mut dir[row * row_len / 2..][..row_len / 2]);
            }
            if TRACK_MAX {
                // '>=': upstream keeps the last row reaching the maximum.
                let row_max = row_max.to_i32();
                if row_max >= *best_val {
                    *best_val = row_max;
                    *best_row = row + 1;
                    best_row_h.copy_from_slice(&h_ext[L..]);
                }
            }
            std::mem::swap(m_ext, m_prev_ext);

            if row + 1 == pos.0 && pos.1 >= 1 {
                let j0 = pos.1 - 1;
                pos_score = h_ext[L + (j0 % seg) * L + j0 / seg].to_i32();
            }
        }
        pos_score
    }

    /// Upstream keeps the row-major last maximum: the largest H, ties broken
    /// by the largest i, then the largest j. The row is known; the column is
    /// the last one of that row holding the maximum.
    fn locate_max(&self, n: usize) -> (i32, usize, usize) {
        let seg = self.seg;
        let j = (1..=n)
            .rev()
            .find(|&j| {
                let x = ((j - 1) % seg) * L + (j - 1) / seg;
                self.best_row_h[x].to_i32() == self.best_val
            })
            .unwrap_or(0);
        (self.best_val, self.best_row, j)
    }
}

impl<T: Lane, const L: usize> DirSource for StripedDp<T, L> {
    #[inline]
    fn dir_at(&self, i: usize, j: usize) -> u8 {
        if i < self.dir_from_row || j == 0 {
            return 0;
        }
        let seg = self.seg;
        let (t, l) = ((j - 1) % seg, (j - 1) / seg);
        let byte = self.dir[((i - 1) * seg * L + t * L) / 2 + l % (L / 2)];
        if l < L / 2 { byte & 15 } else { byte >> 4 }
    }
}

/// Fills the leading vector of a row buffer with its last vector moved one
/// lane up (lane l gets lane l-1, lane 0 gets `first`): the column j-1
/// values seen by the first slot of every lane.
#[inline(always)]
fn set_left_vector<T: Copy, const L: usize>(ext: &mut [T], first: T) {
    let len = ext.len();
    ext.copy_within(len - L..len - 1, 1);
    ext[0] = first;
}

fn reset<V: Copy>(buf: &mut Vec<V>, len: usize, value: V) {
    buf.clear();
    buf.resize(len, value);
}
