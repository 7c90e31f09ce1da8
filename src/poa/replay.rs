//! The whole graph of a window from its final nodes alone.
//!
//! A device returns, for each node of a window's final graph, its letter,
//! its ring id and the reads through it. The BOA ABI returns more than
//! that: every node's link and source lists and its alignment ring, in the
//! order the progressive fusion left them. Those follow from the alignment
//! of each read against the graph of the reads before it, and that
//! alignment can be read back from the final nodes:
//!
//! - a read position on a node an earlier read passes through was aligned
//!   to that node (same letter, fused);
//! - a position on a node of its own whose ring holds exactly one node of
//!   an earlier read was aligned to that node (another letter);
//! - a position on a node of its own alone on its ring (apart from nodes of
//!   later reads) was not aligned.
//!
//! The fusion is then replayed with the CPU path's own [`fuse_lpo`], which
//! gives every list in the CPU path's order. Whatever cannot be read back
//! without doubt (a node of its own in a ring of two or more earlier nodes:
//! which one it was aligned to decides the ring's order) or does not come
//! out exactly as the device's nodes say, is refused (`None`), and the
//! caller builds the window on the CPU instead.

use super::fuse::{fuse_lpo, reindex_fusion};
use super::graph::{Letter, Lpo, SourceInfo, linear_letters};

/// One node of a final graph as a device returns it.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct FinalNode {
    /// Symbol index.
    pub letter: u8,
    /// Smallest node index on the node's alignment ring.
    pub ring: i32,
    /// Bit `k`: read `k` passes through the node.
    pub reads: u32,
}

/// The final nodes of a graph built on the CPU (for tests, and to check a
/// replay): `None` when a node is passed by a read beyond the 32 a mask
/// holds.
pub fn final_nodes(letters: &[Letter]) -> Option<Vec<FinalNode>> {
    letters
        .iter()
        .map(|l| {
            let mut reads = 0u32;
            for s in l.source.iter() {
                reads |= 1u32.checked_shl(u32::try_from(s.iseq).ok()?)?;
            }
            Some(FinalNode {
                letter: l.letter,
                ring: l.ring_id,
                reads,
            })
        })
        .collect()
}

/// The letters of the graph that fusing `reads` (symbol codes, none empty,
/// at most 32) in order builds, given its final nodes; `None` when they
/// cannot be recovered without doubt (see the module's text).
pub fn rebuild(reads: &[&[u8]], nodes: &[FinalNode]) -> Option<Vec<Letter>> {
    let n = reads.len();
    if n == 0 || n > 32 || reads.iter().any(|r| r.is_empty()) {
        return None;
    }
    // Each read's path through the final graph, in node order (the graph
    // is in topological order, and a read runs left to right).
    let mut paths: Vec<Vec<usize>> = vec![Vec::new(); n];
    let mut owner = vec![0usize; nodes.len()];
    for (k, node) in nodes.iter().enumerate() {
        if node.reads == 0 || (n < 32 && node.reads >> n != 0) {
            return None;
        }
        let ring = usize::try_from(node.ring).ok()?;
        if ring > k {
            return None;
        }
        owner[k] = node.reads.trailing_zeros() as usize;
        let mut bits = node.reads;
        while bits != 0 {
            paths[bits.trailing_zeros() as usize].push(k);
            bits &= bits - 1;
        }
    }
    for (read, path) in reads.iter().zip(&paths) {
        if path.len() != read.len() || path.iter().zip(*read).any(|(&k, &c)| nodes[k].letter != c) {
            return None;
        }
    }
    // Ring members by ring id, in node order.
    let mut members: Vec<Vec<usize>> = vec![Vec::new(); nodes.len()];
    for (k, node) in nodes.iter().enumerate() {
        members[node.ring as usize].push(k);
    }

    let source = |length: usize| SourceInfo {
        name: String::new(),
        title: String::new(),
        length: length as i32,
        istart: 0,
        weight: 1,
        bundle_id: -1,
    };
    let mut graph = Lpo {
        letters: linear_letters(reads[0]),
        sources: vec![source(reads[0].len())],
        ..Lpo::default()
    };
    // The final node of each node of the graph being built.
    let mut final_of: Vec<usize> = paths[0].clone();
    let mut built_of = vec![-1i32; nodes.len()];
    for (k, read) in reads.iter().enumerate().skip(1) {
        built_of.fill(-1);
        for (i, &f) in final_of.iter().enumerate() {
            built_of[f] = i as i32;
        }
        let mut y_to_x = vec![-1i32; read.len()];
        let mut last = -1i32;
        for (p, &f) in paths[k].iter().enumerate() {
            let aligned = if owner[f] < k {
                built_of[f]
            } else {
                let ring = &members[nodes[f].ring as usize];
                let mut earlier = ring.iter().filter(|&&m| owner[m] < k);
                match (earlier.next(), earlier.next()) {
                    (None, _) => -1,
                    (Some(&m), None) if nodes[m].letter != nodes[f].letter => built_of[m],
                    // Another letter would have fused, and two earlier
                    // nodes leave the partner in doubt.
                    _ => return None,
                }
            };
            if aligned >= 0 {
                if aligned <= last {
                    return None;
                }
                last = aligned;
            } else if owner[f] < k {
                return None;
            }
            y_to_x[p] = aligned;
        }
        let mut x_to_y = vec![-1i32; graph.letters.len()];
        for (p, &x) in y_to_x.iter().enumerate() {
            if x >= 0 {
                x_to_y[x as usize] = p as i32;
            }
        }
        let y = Lpo {
            letters: linear_letters(read),
            sources: vec![source(read.len())],
            ..Lpo::default()
        };
        let (new_x, new_y, len) = reindex_fusion(&graph.letters, &y.letters, &x_to_y, &y_to_x);
        let mut next = vec![usize::MAX; len as usize];
        for (i, &f) in final_of.iter().enumerate() {
            next[new_x[i] as usize] = f;
        }
        for (p, &f) in paths[k].iter().enumerate() {
            let at = &mut next[new_y[p] as usize];
            if *at != usize::MAX && *at != f {
                return None;
            }
            *at = f;
        }
        fuse_lpo(&mut graph, &y, &x_to_y, &y_to_x);
        final_of = next;
    }
    // The replay must land on the device's graph node for node.
    let same = graph.letters.len() == nodes.len()
        && final_of.iter().enumerate().all(|(i, &f)| f == i)
        && final_nodes(&graph.letters).as_deref() == Some(nodes);
    same.then_some(graph.letters)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poa::{ScoreMatrix, buildup_progressive};

    fn codes(reads: &[&[u8]], m: &ScoreMatrix) -> Vec<Lpo> {
        reads
            .iter()
            .enumerate()
            .map(|(i, r)| Lpo::from_read(&format!("s{i}"), r, Default::default(), m))
            .collect()
    }

    /// Replaying from the CPU graph's own final nodes gives the CPU graph
    /// (or is refused), on windows of 2-32 reads at 5-20 % errors, global
    /// and local.
    #[test]
    fn replay_of_cpu_graphs() {
        // BOA's DNA matrix (a mismatch costs as much as two gaps, so reads
        // are rarely aligned to another letter) and one with cheap
        // mismatches, whose rings grow.
        let matrices = [
            ScoreMatrix::boa_dna(),
            crate::poa::BatchConfig::dna_matrix(2, -3, -4, -1, 6).unwrap(),
        ];
        let mut state = 0x9e3779b97f4a7c15u64;
        let mut next = move |n: u64| {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state % n
        };
        let (mut same, mut refused, mut refused_boa, mut big_rings) = (0, 0, 0, 0);
        for w in 0..400 {
            let len = 8 + next(if w % 4 == 0 { 250 } else { 60 }) as usize;
            let base: Vec<u8> = (0..len).map(|_| b"ACGT"[next(4) as usize]).collect();
            let nreads = 2 + next(if w % 2 == 0 { 31 } else { 8 }) as usize;
            // Errors in 1 of `every` positions, a third of each kind.
            let every = [20, 10, 7, 5][w % 4] * 3;
            let reads: Vec<Vec<u8>> = (0..nreads)
                .map(|_| {
                    let mut r = Vec::new();
                    for &c in &base {
                        match next(every) {
                            0..3 => {}
                            3..6 => r.extend([c, b"ACGT"[next(4) as usize]]),
                            6..9 => r.push(b"ACGT"[next(4) as usize]),
                            _ => r.push(c),
                        }
                    }
                    if r.is_empty() {
                        r.push(b'A');
                    }
                    r
                })
                .collect();
            let refs: Vec<&[u8]> = reads.iter().map(|r| r.as_slice()).collect();
            let m = &matrices[w % 5 / 3];
            let lpos = codes(&refs, m);
            let coded: Vec<Vec<u8>> = lpos.iter().map(|l| l.sequence.clone()).collect();
            let (graph, truncated) = buildup_progressive(lpos, m, w % 3 != 2).unwrap();
            assert!(!truncated);
            let nodes = final_nodes(&graph.letters).unwrap();
            let mut size = std::collections::HashMap::new();
            for n in &nodes {
                *size.entry(n.ring).or_insert(0) += 1;
            }
            big_rings += size.values().filter(|&&s| s >= 3).count();
            let coded: Vec<&[u8]> = coded.iter().map(|c| c.as_slice()).collect();
            match rebuild(&coded, &nodes) {
                Some(letters) => {
                    assert_eq!(letters, graph.letters, "window {w}");
                    same += 1;
                }
                None => {
                    refused += 1;
                    refused_boa += usize::from(w % 5 < 3);
                }
            }
        }
        eprintln!(
            "replayed {same}, refused {refused} (BOA's matrix: {refused_boa}), rings of 3 or more nodes {big_rings}"
        );
        assert!(crate::poa::routed::mismatches_cost_two_gaps(&matrices[0]));
        assert!(!crate::poa::routed::mismatches_cost_two_gaps(&matrices[1]));
        assert_eq!(refused_boa, 0);
        assert!(
            same >= 200 && big_rings > 0,
            "replayed {same}, refused {refused}"
        );
    }

    #[test]
    fn inconsistent_nodes_are_refused() {
        let m = ScoreMatrix::boa_dna();
        let reads: [&[u8]; 2] = [b"ACGTACGT", b"ACGAACGT"];
        let lpos = codes(&reads, &m);
        let coded: Vec<Vec<u8>> = lpos.iter().map(|l| l.sequence.clone()).collect();
        let (graph, _) = buildup_progressive(lpos, &m, true).unwrap();
        let mut nodes = final_nodes(&graph.letters).unwrap();
        let coded: Vec<&[u8]> = coded.iter().map(|c| c.as_slice()).collect();
        assert_eq!(rebuild(&coded, &nodes).unwrap(), graph.letters);
        nodes[3].ring = 0;
        assert!(rebuild(&coded, &nodes).is_none());
        assert!(rebuild(&coded[..1], &final_nodes(&graph.letters).unwrap()).is_none());
    }
}
