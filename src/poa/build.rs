//! Progressive construction (`buildup_progressive_lpo` without a pair-score
//! file and without progressive ordering: sequence i is fused into the graph
//! of 0..i−1, in input order).

use super::align::align_lpo_po;
use super::fuse::fuse_lpo;
use super::graph::Lpo;
use super::matrix::ScoreMatrix;

/// Upstream's `POA_MAX_ALLOC`.
pub const POA_MAX_ALLOC: i64 = 300_000_000;
/// `sizeof(LPOLetter_T)` on x86-64, used by the memory guard.
const LETTER_BYTES: i64 = 64;

/// Aligns and fuses `y` into `x` (`buildup_pairwise_lpo` without aggressive
/// fusion). Returns the alignment score, or `None`, leaving `x` as it was,
/// when the alignment's memory cannot be had (see [`align_lpo_po`]).
pub fn buildup_pairwise(x: &mut Lpo, y: &Lpo, m: &ScoreMatrix, global: bool) -> Option<i32> {
    let al = align_lpo_po(x, y, m, global)?;
    fuse_lpo(x, y, &al.x_to_y, &al.y_to_x);
    Some(al.score)
}

/// Fuses `seqs[1..]` into `seqs[0]` one by one and returns the fused graph
/// (`None` for no input). Like upstream, fusion stops early (keeping what
/// was built) once `graph_len * (64 + seq_len)` exceeds `POA_MAX_ALLOC`,
/// and also where an alignment's memory cannot be allocated (upstream ends
/// the process there); the returned flag says whether either happened.
pub fn buildup_progressive(seqs: Vec<Lpo>, m: &ScoreMatrix, global: bool) -> Option<(Lpo, bool)> {
    let n = seqs.len();
    buildup_progressive_counted(seqs, m, global).map(|(g, fused)| (g, fused + 1 < n))
}

/// [`buildup_progressive`] reporting how many of `seqs[1..]` were fused
/// (all of them unless the memory bound stopped fusion).
pub fn buildup_progressive_counted(
    mut seqs: Vec<Lpo>,
    m: &ScoreMatrix,
    global: bool,
) -> Option<(Lpo, usize)> {
    if seqs.is_empty() {
        return None;
    }
    let rest = seqs.split_off(1);
    let mut graph = seqs.pop()?;
    let mut max_alloc: i64 = 0;
    let mut fused = 0;
    for y in &rest {
        // Upstream stores the size_t product in an int.
        let total =
            (graph.letters.len() as i64 * (LETTER_BYTES + y.letters.len() as i64)) as i32 as i64;
        if total > max_alloc {
            max_alloc = total;
            if max_alloc > POA_MAX_ALLOC {
                break;
            }
        }
        // Where the alignment's memory cannot be had, fusion stops as at
        // the size guard: the graph built so far is kept.
        if buildup_pairwise(&mut graph, y, m, global).is_none() {
            break;
        }
        fused += 1;
    }
    Some((graph, fused))
}
