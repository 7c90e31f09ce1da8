//! Heaviest-bundle consensus (`heaviest_bundle`, `generate_lpo_bundles`).

use super::graph::{INVALID, Letter, Lpo, SourceInfo};

/// Heaviest path through the graph by weighted source overlap
/// (`heaviest_bundle`). Returns node indices from the start of the path.
///
/// Reproduced quirks: the "source is at position p+1 in the right node" test
/// uses an array reset to 0, so any weighted source sitting at position 0 of
/// a right neighbour also counts as adjacent; a right move must beat overlap
/// 0 *and* score 0 to be taken at all; the path starts at the last (highest
/// index) node among those with the best score.
pub fn heaviest_bundle(letters: &[Letter], sources: &[SourceInfo]) -> Vec<i32> {
    let len = letters.len();
    let mut path = vec![INVALID; len];
    let mut score = vec![0i32; len];
    let mut contains_pos = vec![0i32; sources.len()];
    let mut best_score = -999_999;
    let mut ibest: i32 = -1;

    for i in (0..len).rev() {
        contains_pos.iter_mut().for_each(|c| *c = 0);
        for s in &letters[i].source {
            if sources[s.iseq as usize].weight > 0 {
                contains_pos[s.iseq as usize] = s.ipos + 1;
            }
        }
        let mut right_score = 0;
        let mut right_overlap = 0;
        let mut best_right = INVALID;
        for r in &letters[i].right {
            let mut overlap = 0;
            for s in &letters[r.ipos as usize].source {
                if contains_pos[s.iseq as usize] == s.ipos {
                    overlap += sources[s.iseq as usize].weight;
                }
            }
            let rs = score[r.ipos as usize];
            if overlap > right_overlap || (overlap == right_overlap && rs > right_score) {
                right_overlap = overlap;
                right_score = rs;
                best_right = r.ipos;
            }
        }
        path[i] = best_right;
        score[i] = right_score + right_overlap;
        if score[i] > best_score {
            ibest = i as i32;
            best_score = score[i];
        }
    }

    let mut out = Vec::new();
    while ibest >= 0 {
        out.push(ibest);
        ibest = path[ibest as usize];
    }
    out
}

/// Assigns every unbundled source covering at least `minimum_fraction` of its
/// length on `path` to `bundle_id` and zeroes its weight; returns how many.
fn assign_bundle(path: &[i32], lpo: &mut Lpo, bundle_id: i32, minimum_fraction: f32) -> i32 {
    let mut count = vec![0i32; lpo.sources.len()];
    for &p in path {
        for s in &lpo.letters[p as usize].source {
            count[s.iseq as usize] += 1;
        }
    }
    let mut n = 0;
    for (s, &c) in lpo.sources.iter_mut().zip(&count) {
        // int * float is evaluated in single precision upstream.
        if s.bundle_id < 0 && (s.length as f32) * minimum_fraction <= c as f32 {
            s.bundle_id = bundle_id;
            s.weight = 0;
            n += 1;
        }
    }
    n
}

/// Repeated heaviest-bundle extraction (`generate_lpo_bundles`). Each bundle
/// adds a zero-weight source `CONSENS<k>` following its path. Stops when a
/// path is shorter than 10 nodes or a bundle gains no member.
pub fn generate_lpo_bundles(lpo: &mut Lpo, minimum_fraction: f32) {
    let mut nbundled = 0usize;
    let mut ibundle = 0;
    while nbundled < lpo.sources.len() {
        let path = heaviest_bundle(&lpo.letters, &lpo.sources);
        if path.len() < 10 {
            break;
        }
        let count = assign_bundle(&path, lpo, ibundle, minimum_fraction);
        let title = format!("consensus produced by heaviest_bundle, containing {count} seqs");
        let iseq = lpo.add_path_sequence(&path, &format!("CONSENS{ibundle}"), &title);
        lpo.sources[iseq as usize].bundle_id = ibundle;
        ibundle += 1;
        nbundled += count as usize;
        if count < 1 {
            break;
        }
    }
}
