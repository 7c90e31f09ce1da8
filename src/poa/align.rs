//! Graph-to-graph dynamic programming of POA v2 (`align_lpo_po`, the `*2.c`
//! variant BOA builds).
//!
//! Gap costs depend on a per-cell gap-length state (0..=M, plus M+1 for the
//! untouched origin), read through the matrix's penalty arrays. Every
//! comparison, loop order and tie rule below mirrors upstream because the
//! chosen path decides which nodes fuse, and therefore the MSA columns.

use super::graph::{INVALID, Lpo};
use super::matrix::ScoreMatrix;

const MIN_SCORE: i32 = -999_999;
/// Predecessors of one y node resolved without a heap allocation.
const PREDS_ON_STACK: usize = 4;

/// Result of one pairwise alignment.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Alignment {
    /// For each x node, the aligned y node or −1.
    pub x_to_y: Vec<i32>,
    /// For each y node, the aligned x node or −1.
    pub y_to_x: Vec<i32>,
    /// Score of the chosen end cell.
    pub score: i32,
}

#[derive(Clone, Copy, Default)]
struct Cell {
    score: i32,
    gap_x: i16,
    gap_y: i16,
}

/// Per-node predecessor lists as the DP sees them, plus start/end flags.
struct Preds {
    /// Concatenated predecessor (ipos, link score) pairs.
    flat: Vec<(i32, i32)>,
    /// `start[k]..start[k+1]` indexes node k's list in `flat`.
    start: Vec<usize>,
    /// `flat` with each ipos shifted by one (the DP's row/column slot).
    slots: Vec<(u32, i32)>,
    /// `(start[k], start[k+1])` packed for the inner loop.
    ranges: Vec<(u32, u32)>,
    is_final: Vec<bool>,
}

impl Preds {
    fn build(g: &Lpo) -> Self {
        let n = g.letters.len();
        let mut flat = Vec::with_capacity(n * 2);
        let mut start = Vec::with_capacity(n + 1);
        let mut is_final = vec![false; n];
        for (i, l) in g.letters.iter().enumerate() {
            let mut initial = false;
            // Upstream stops scanning sources at the first negative iseq.
            for s in l.source.iter().take_while(|s| s.iseq >= 0) {
                if s.ipos == 0 {
                    initial = true;
                }
                if s.ipos == g.sources[s.iseq as usize].length - 1 {
                    is_final[i] = true;
                }
            }
            start.push(flat.len());
            // A node with no left link still has upstream's empty head entry
            // (ipos −1), which the DP loops visit; an initial node with real
            // left links gets an extra −1 link in front so any sequence start
            // may open the alignment.
            if l.left.is_empty() || initial {
                flat.push((INVALID, 0));
            }
            flat.extend(l.left.iter().map(|k| (k.ipos, k.score)));
        }
        start.push(flat.len());
        let slots = flat.iter().map(|&(p, sc)| ((p + 1) as u32, sc)).collect();
        let ranges = start
            .windows(2)
            .map(|r| (r[0] as u32, r[1] as u32))
            .collect();
        Preds {
            flat,
            start,
            slots,
            ranges,
            is_final,
        }
    }

    #[inline]
    fn slots_of(&self, k: usize) -> &[(u32, i32)] {
        let (a, b) = self.ranges[k];
        &self.slots[a as usize..b as usize]
    }

    #[inline]
    fn of(&self, k: usize) -> &[(i32, i32)] {
        &self.flat[self.start[k]..self.start[k + 1]]
    }
}

/// Gap-penalty and next-state tables for one alignment mode. Upstream
/// writes the M+1 entries into the shared matrix on every call; here they
/// live in a private copy, and [`gap_tables`] exposes the values for a C
/// layer that must reproduce the write.
pub struct GapTables {
    pub pen_x: Vec<i32>,
    pub pen_y: Vec<i32>,
    pub next: Vec<i16>,
    pub next_perp: Vec<i16>,
}

/// The tables `align_lpo_po` uses for `global` / local alignment.
pub fn gap_tables(m: &ScoreMatrix, global: bool) -> GapTables {
    let mg = m.max_gap_length as usize;
    let mut pen_x = m.gap_penalty_x.clone();
    let mut pen_y = m.gap_penalty_y.clone();
    let mut next: Vec<i16> = (0..=mg)
        .map(|i| if i < mg { i as i16 + 1 } else { i as i16 })
        .collect();
    next.push(0);
    if global {
        pen_x[mg + 1] = pen_x[0];
        pen_y[mg + 1] = pen_y[0];
        next[mg + 1] = next[0];
    } else {
        // Local: the leading gap is free and never leaves the initial state.
        pen_x[mg + 1] = 0;
        pen_y[mg + 1] = 0;
        next[mg + 1] = mg as i16 + 1;
    }
    // Upstream's DOUBLE_GAP_SCORING is off, so a perpendicular gap advances
    // exactly like a parallel one.
    let next_perp = next.clone();
    GapTables {
        pen_x,
        pen_y,
        next,
        next_perp,
    }
}

/// Aligns graph `y` onto graph `x` (`align_lpo_po` with
/// `matrix_scoring_function`). `global` selects upstream's
/// `use_global_alignment`. `None` when the traceback matrix (two bytes a
/// cell, `x` × `y` cells) cannot be allocated: upstream's size guard
/// (`POA_MAX_ALLOC`, see `build`) keeps its product in an `int`, which
/// wraps for long reads and lets through windows no memory can hold, where
/// upstream's allocation fails and the process ends.
pub fn align_lpo_po(x: &Lpo, y: &Lpo, m: &ScoreMatrix, global: bool) -> Option<Alignment> {
    let lx = x.letters.len();
    let ly = y.letters.len();
    let mut moves: Vec<[u8; 2]> = Vec::new();
    moves.try_reserve_exact(ly.checked_mul(lx)?).ok()?;
    moves.resize(ly * lx, [0; 2]);
    let px = Preds::build(x);
    let py = Preds::build(y);
    let t = gap_tables(m, global);
    let nsym = m.nsymbol();

    // Rows are indexed by DP row + 1 (slot 0 is the virtual row −1) and
    // columns by DP column + 1 (slot 0 is the virtual column −1). Like
    // upstream, a row is released once every y node that links back to it
    // has been computed; released buffers are reused, so for a linear y only
    // two rows are live and the working set stays in cache.
    let w = lx + 1;
    let mut rows: Vec<Vec<Cell>> = vec![Vec::new(); ly + 1];
    let mut pool: Vec<Vec<Cell>> = Vec::new();
    let mut refs_from_right = vec![0u32; ly];
    for l in &y.letters {
        for k in &l.left {
            refs_from_right[k.ipos as usize] += 1;
        }
    }

    let origin = Cell {
        score: 0,
        gap_x: m.max_gap_length as i16 + 1,
        gap_y: m.max_gap_length as i16 + 1,
    };
    let mut top = vec![Cell::default(); w];
    top[0] = origin;
    for j in 0..lx {
        let mut best = MIN_SCORE;
        let mut cell = Cell::default();
        for &(p, ls) in px.of(j) {
            let prev = top[(p + 1) as usize];
            let tryv = prev.score + ls - t.pen_x[prev.gap_x as usize];
            if tryv > best {
                best = tryv;
                cell.gap_x = t.next[prev.gap_x as usize];
                cell.gap_y = t.next_perp[prev.gap_x as usize];
            }
        }
        cell.score = best;
        top[j + 1] = cell;
    }
    rows[0] = top;
    let mut init_col = vec![Cell::default(); ly + 1];
    init_col[0] = origin;
    for i in 0..ly {
        let mut best = MIN_SCORE;
        let mut cell = Cell::default();
        for &(q, ls) in py.of(i) {
            let prev = init_col[(q + 1) as usize];
            let tryv = prev.score + ls - t.pen_y[prev.gap_y as usize];
            if tryv > best {
                best = tryv;
                cell.gap_x = t.next_perp[prev.gap_y as usize];
                cell.gap_y = t.next[prev.gap_y as usize];
            }
        }
        cell.score = best;
        init_col[i + 1] = cell;
    }

    let mut best_score = MIN_SCORE;
    let mut best_x: i32 = -1;
    let mut best_y: i32 = -1;
    let xletters: Vec<usize> = x.letters.iter().map(|l| l.letter as usize * nsym).collect();

    for i in 0..ly {
        let srow = &m.score[y.letters[i].letter as usize..];
        // Resolve the predecessor rows once per row, not once per cell. A
        // read (CONSENT's y) has one predecessor per node, so the list
        // lives on the stack; only a wide y graph needs the heap.
        let ypreds = py.of(i);
        let mut prev_buf: [(&[Cell], i32); PREDS_ON_STACK] = [(&[], 0); PREDS_ON_STACK];
        let prev_heap: Vec<(&[Cell], i32)>;
        let prevs: &[(&[Cell], i32)] = if ypreds.len() <= PREDS_ON_STACK {
            for (slot, &(q, yls)) in prev_buf.iter_mut().zip(ypreds) {
                *slot = (rows[(q + 1) as usize].as_slice(), yls);
            }
            &prev_buf[..ypreds.len()]
        } else {
            prev_heap = ypreds
                .iter()
                .map(|&(q, yls)| (rows[(q + 1) as usize].as_slice(), yls))
                .collect();
            &prev_heap
        };
        let mut cur = pool.pop().unwrap_or_default();
        cur.clear();
        cur.resize(w, Cell::default());
        cur[0] = init_col[i + 1];
        let final_y = py.is_final[i];
        let mrow = &mut moves[i * lx..(i + 1) * lx];
        for j in 0..lx {
            let mut match_score = if global { MIN_SCORE } else { 0 };
            let (mut match_x, mut match_y) = (0usize, 0usize);
            let mut ins_x = MIN_SCORE;
            let mut ins_y = MIN_SCORE;
            let (mut ins_x_x, mut ins_y_y) = (0usize, 0usize);
            let (mut ins_x_gap, mut ins_y_gap) = (0i16, 0i16);
            let xpreds = px.slots_of(j);

            if let ([(slot, xls)], [(prev, yls)]) = (xpreds, prevs) {
                // One x and one y predecessor (most cells): the loops below
                // reduced to a single iteration each, same comparisons.
                let (slot, xls, yls) = (*slot as usize, *xls, *yls);
                let up = prev[j + 1];
                let tryv = up.score + yls - t.pen_y[up.gap_y as usize];
                if tryv > ins_y {
                    ins_y = tryv;
                    ins_y_y = 1;
                    ins_y_gap = up.gap_y;
                }
                let tryv = prev[slot].score + xls + yls;
                if tryv > match_score {
                    match_score = tryv;
                    match_x = 1;
                    match_y = 1;
                }
                let left = cur[slot];
                let tryv = left.score + xls - t.pen_x[left.gap_x as usize];
                if tryv > ins_x {
                    ins_x = tryv;
                    ins_x_x = 1;
                    ins_x_gap = left.gap_x;
                }
            } else {
                for (yc, &(prev, yls)) in prevs.iter().enumerate() {
                    let up = prev[j + 1];
                    let tryv = up.score + yls - t.pen_y[up.gap_y as usize];
                    if tryv > ins_y {
                        ins_y = tryv;
                        ins_y_y = yc + 1;
                        ins_y_gap = up.gap_y;
                    }
                    for (xc, &(slot, xls)) in xpreds.iter().enumerate() {
                        let tryv = prev[slot as usize].score + xls + yls;
                        if tryv > match_score {
                            match_score = tryv;
                            match_x = xc + 1;
                            match_y = yc + 1;
                        }
                    }
                }
                for (xc, &(slot, xls)) in xpreds.iter().enumerate() {
                    let left = cur[slot as usize];
                    let tryv = left.score + xls - t.pen_x[left.gap_x as usize];
                    if tryv > ins_x {
                        ins_x = tryv;
                        ins_x_x = xc + 1;
                        ins_x_gap = left.gap_x;
                    }
                }
            }
            match_score += srow[xletters[j]];

            // Moves are stored in unsigned chars upstream; keep the same width.
            let (cell, mv) = if match_score > ins_y && match_score > ins_x {
                (
                    Cell {
                        score: match_score,
                        gap_x: 0,
                        gap_y: 0,
                    },
                    [match_x as u8, match_y as u8],
                )
            } else if ins_x > ins_y {
                (
                    Cell {
                        score: ins_x,
                        gap_x: t.next[ins_x_gap as usize],
                        gap_y: t.next_perp[ins_x_gap as usize],
                    },
                    [ins_x_x as u8, 0],
                )
            } else {
                (
                    Cell {
                        score: ins_y,
                        gap_x: t.next_perp[ins_y_gap as usize],
                        gap_y: t.next[ins_y_gap as usize],
                    },
                    [0, ins_y_y as u8],
                )
            };
            cur[j + 1] = cell;
            mrow[j] = mv;

            if (!global || (final_y && px.is_final[j])) && cell.score >= best_score {
                let (ji, ii) = (j as i32, i as i32);
                // Ties go to the smallest x, then the smallest y.
                if cell.score > best_score || (ji == best_x && ii < best_y) || ji < best_x {
                    best_score = cell.score;
                    best_x = ji;
                    best_y = ii;
                }
            }
        }
        rows[i + 1] = cur;
        for k in &y.letters[i].left {
            let q = k.ipos as usize;
            refs_from_right[q] -= 1;
            if refs_from_right[q] == 0 {
                pool.push(std::mem::take(&mut rows[q + 1]));
            }
        }
        if refs_from_right[i] == 0 {
            pool.push(std::mem::take(&mut rows[i + 1]));
        }
    }

    let mut x_to_y = vec![INVALID; lx];
    let mut y_to_x = vec![INVALID; ly];
    let (mut bx, mut by) = (best_x, best_y);
    while bx >= 0 && by >= 0 {
        let [xm, ym] = moves[by as usize * lx + bx as usize];
        if xm > 0 && ym > 0 {
            x_to_y[bx as usize] = by;
            y_to_x[by as usize] = bx;
        }
        if xm == 0 && ym == 0 {
            x_to_y[bx as usize] = by;
            y_to_x[by as usize] = bx;
            break;
        }
        if xm > 0 {
            bx = px.of(bx as usize)[xm as usize - 1].0;
        }
        if ym > 0 {
            by = py.of(by as usize)[ym as usize - 1].0;
        }
    }

    Some(Alignment {
        x_to_y,
        y_to_x,
        score: best_score,
    })
}
