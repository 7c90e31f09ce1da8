//! Merging an aligned graph `y` into graph `x` (`fuse_lpo` and helpers).
//!
//! Node renumbering decides the MSA column order, so the index walk of
//! `reindex_lpo_fusion` is reproduced step by step, including its handling of
//! multi-node rings in x and in y.

use super::graph::{Letter, Lpo, SourceRef, add_link};

/// Joins the alignment rings of nodes `a` and `b` (`crosslink_rings`): the
/// ring with the larger id takes the smaller id, then the two circular lists
/// are spliced by swapping successors.
pub fn crosslink_rings(a: i32, b: i32, seq: &mut [Letter]) {
    let (au, bu) = (a as usize, b as usize);
    if seq[au].ring_id == seq[bu].ring_id {
        return;
    }
    let (relabel_from, new_id) = if seq[au].ring_id < seq[bu].ring_id {
        (b, seq[au].ring_id)
    } else {
        (a, seq[bu].ring_id)
    };
    let mut k = relabel_from;
    loop {
        seq[k as usize].ring_id = new_id;
        k = seq[k as usize].align_ring;
        if k == relabel_from {
            break;
        }
    }
    let tmp = seq[au].align_ring;
    seq[au].align_ring = seq[bu].align_ring;
    seq[bu].align_ring = tmp;
}

/// New indices for every x and y node (`reindex_lpo_fusion`). Only aligned
/// pairs with identical letters share an index.
pub fn reindex_fusion(
    x: &[Letter],
    y: &[Letter],
    x_to_y: &[i32],
    y_to_x: &[i32],
) -> (Vec<i32>, Vec<i32>, i32) {
    let (lx, ly) = (x.len() as i32, y.len() as i32);
    let do_fuse: Vec<bool> = (0..ly as usize)
        .map(|iy| {
            let ix = y_to_x[iy];
            ix >= 0 && x[ix as usize].letter == y[iy].letter
        })
        .collect();
    let mut new_x = vec![0i32; lx as usize];
    let mut new_y = vec![0i32; ly as usize];
    let mut new_len = 0i32;
    let mut i_y = 0i32;
    // Persists across x positions, as upstream's does.
    let mut end_of_ring = -1i32;

    for i_x in 0..lx {
        // If some node of x's ring (from here on) is aligned, emit the y
        // nodes that come before its partner now so the ring stays together.
        let mut i_ring = i_x;
        while i_ring < lx && x[i_ring as usize].ring_id == x[i_x as usize].ring_id {
            let partner = x_to_y[i_ring as usize];
            if partner >= 0 {
                while i_y < partner {
                    new_y[i_y as usize] = new_len;
                    i_y += 1;
                    new_len += 1;
                }
                break;
            }
            i_ring += 1;
        }

        if x_to_y[i_x as usize] >= 0 && i_y < ly {
            let mut r = y[i_y as usize].align_ring;
            while r != i_y {
                if r > end_of_ring {
                    end_of_ring = r;
                }
                r = y[r as usize].align_ring;
            }
            if do_fuse[i_y as usize] {
                new_y[i_y as usize] = new_len;
            } else {
                new_y[i_y as usize] = new_len;
                new_len += 1;
            }
            i_y += 1;
        }
        new_x[i_x as usize] = new_len;
        new_len += 1;

        while i_y <= end_of_ring {
            new_y[i_y as usize] = new_len;
            i_y += 1;
            new_len += 1;
        }
    }
    while i_y < ly {
        new_y[i_y as usize] = new_len;
        i_y += 1;
        new_len += 1;
    }
    (new_x, new_y, new_len)
}

/// Fuses `y` into `x` in place (`fuse_lpo`); `y`'s sources are appended to
/// `x`'s source list.
pub fn fuse_lpo(x: &mut Lpo, y: &Lpo, x_to_y: &[i32], y_to_x: &[i32]) {
    let (new_x, new_y, new_len) = reindex_fusion(&x.letters, &y.letters, x_to_y, y_to_x);
    let new_len = new_len as usize;

    // Relocate x's nodes, translating every stored index (upstream's
    // translate_lpo does this with realloc + memmove).
    let old = std::mem::take(&mut x.letters);
    let mut slots: Vec<Option<Letter>> = (0..new_len).map(|_| None).collect();
    for (ix, mut l) in old.into_iter().enumerate() {
        l.align_ring = new_x[l.align_ring as usize];
        l.ring_id = new_x[l.ring_id as usize];
        for k in l.left.iter_mut().chain(l.right.iter_mut()) {
            k.ipos = new_x[k.ipos as usize];
        }
        slots[new_x[ix] as usize] = Some(l);
    }

    // Every y node that did not land on its aligned x node gets a fresh
    // blank slot (overwriting whatever was there, as upstream's memset does).
    for iy in 0..y.letters.len() {
        let ix = y_to_x[iy];
        if ix >= 0 && new_x[ix as usize] == new_y[iy] {
            continue;
        }
        let k = new_y[iy];
        slots[k as usize] = Some(Letter::blank(k));
    }
    let mut letters: Vec<Letter> = slots
        .into_iter()
        .enumerate()
        // Unreachable for consistent alignments: every index is an x or y node.
        .map(|(k, s)| s.unwrap_or_else(|| Letter::blank(k as i32)))
        .collect();

    let base = x.sources.len() as i32;
    x.sources.extend(y.sources.iter().cloned());

    for (iy, yl) in y.letters.iter().enumerate() {
        let dst = &mut letters[new_y[iy] as usize];
        dst.letter = yl.letter;
        dst.source.extend(yl.source.iter().map(|s| SourceRef {
            iseq: base + s.iseq,
            ipos: s.ipos,
        }));
        for k in &yl.left {
            add_link(&mut dst.left, new_y[k.ipos as usize]);
        }
        for k in &yl.right {
            add_link(&mut dst.right, new_y[k.ipos as usize]);
        }
    }

    for iy in 0..y.letters.len() as i32 {
        let mut p = iy;
        loop {
            let next = y.letters[p as usize].align_ring;
            if next == iy {
                break;
            }
            crosslink_rings(new_y[p as usize], new_y[next as usize], &mut letters);
            p = next;
        }
    }
    for (ix, &iy) in x_to_y.iter().enumerate() {
        if iy >= 0 {
            crosslink_rings(new_x[ix], new_y[iy as usize], &mut letters);
        }
    }
    x.letters = letters;
}
