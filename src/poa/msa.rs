//! Flattening a graph into MSA rows (`xlate_lpo_to_al`).

use super::graph::Lpo;

/// Row-major MSA: `rows[iseq]` has `ncols` bytes, one per column, in
/// `Lpo::sources` order (input order, then any consensus paths).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Msa {
    pub ncols: usize,
    pub rows: Vec<Vec<u8>>,
}

/// Columns are maximal runs of consecutive nodes sharing a `ring_id`. Each
/// source gets its node's symbol in that column and `gap` elsewhere; letter
/// codes outside `symbols` (or when `symbols` is `None`) are written raw.
///
/// Upstream counts columns by `ring_id` changes starting from 0, so an empty
/// graph still reports one column.
pub fn xlate_lpo_to_al(lpo: &Lpo, symbols: Option<&[u8]>, gap: u8) -> Msa {
    let ncols = lpo.column_count();
    let mut rows = vec![vec![gap; ncols]; lpo.sources.len()];
    let mut current = 0;
    let mut col = 0;
    for l in &lpo.letters {
        if l.ring_id != current {
            current = l.ring_id;
            col += 1;
        }
        let c = match symbols {
            Some(s) if (l.letter as usize) < s.len() => s[l.letter as usize],
            _ => l.letter,
        };
        // A source index past the sources (a malformed graph from C) is
        // skipped rather than written out of bounds.
        for s in &l.source {
            if let Some(row) = usize::try_from(s.iseq).ok().and_then(|i| rows.get_mut(i)) {
                row[col] = c;
            }
        }
    }
    Msa { ncols, rows }
}

/// Upstream also computes, for `ibundle >= 0`, which columns contain a member
/// of that bundle; it never hands the flags back, but the PIR writer uses them
/// for `-best`.
pub fn bundle_columns(lpo: &Lpo, msa: &Msa, gap: u8, ibundle: i32) -> Vec<bool> {
    (0..msa.ncols)
        .map(|c| {
            msa.rows
                .iter()
                .zip(&lpo.sources)
                .any(|(r, s)| r[c] != gap && s.bundle_id == ibundle)
        })
        .collect()
}
