//! Linearised partial-order graph ("LPO"), kept structurally identical to
//! upstream's `LPOSequence_T` so a C layer can copy it out field by field.
//!
//! Indices are `i32` because upstream uses −1 as "no letter" in links, sources
//! and traceback, and list order matters: the DP breaks ties by the position
//! of a predecessor in its node's link list.

use super::matrix::{ScoreMatrix, is_c_space};

/// Upstream's `INVALID_LETTER_POSITION`.
pub const INVALID: i32 = -1;
/// Upstream's `NO_BUNDLE`.
pub const NO_BUNDLE: i32 = -1;
/// Upstream's `SEQUENCE_NAME_MAX` (name buffer size including the NUL).
pub const SEQUENCE_NAME_MAX: usize = 128;

/// One edge. `score` exists because upstream is built with weighted links;
/// nothing on the CONSENT path ever sets it, so it stays 0.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Link {
    pub ipos: i32,
    pub score: i32,
}

/// "Sequence `iseq` passes through this node at its position `ipos`."
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct SourceRef {
    pub iseq: i32,
    pub ipos: i32,
}

/// Entries a [`NodeList`] holds without a heap allocation.
const NODE_LIST_INLINE: usize = 2;

/// A node's link or source list. Most nodes have one or two of each (every
/// node of a read's linear graph has exactly one), so the first two live
/// inline: a window then costs no allocation per node, where a `Vec` per
/// list made the allocator the largest cost after the DP (CONSENT calls
/// this path hundreds of thousands of times). Longer lists move to the heap
/// whole, keeping order, which the DP's tie rules depend on.
#[derive(Clone, Default)]
pub struct NodeList<T: Copy + Default> {
    inline_len: u8,
    inline: [T; NODE_LIST_INLINE],
    /// Every entry once the list outgrew `inline`; empty until then.
    spilled: Vec<T>,
}

impl<T: Copy + Default> NodeList<T> {
    pub fn push(&mut self, v: T) {
        if !self.spilled.is_empty() {
            self.spilled.push(v);
        } else if (self.inline_len as usize) < NODE_LIST_INLINE {
            self.inline[self.inline_len as usize] = v;
            self.inline_len += 1;
        } else {
            let mut heap = Vec::with_capacity(2 * NODE_LIST_INLINE);
            heap.extend_from_slice(&self.inline);
            heap.push(v);
            self.spilled = heap;
        }
    }
}

impl<T: Copy + Default> std::ops::Deref for NodeList<T> {
    type Target = [T];
    #[inline]
    fn deref(&self) -> &[T] {
        if self.spilled.is_empty() {
            &self.inline[..self.inline_len as usize]
        } else {
            &self.spilled
        }
    }
}

impl<T: Copy + Default> std::ops::DerefMut for NodeList<T> {
    #[inline]
    fn deref_mut(&mut self) -> &mut [T] {
        if self.spilled.is_empty() {
            &mut self.inline[..self.inline_len as usize]
        } else {
            &mut self.spilled
        }
    }
}

impl<T: Copy + Default> Extend<T> for NodeList<T> {
    fn extend<I: IntoIterator<Item = T>>(&mut self, iter: I) {
        for v in iter {
            self.push(v);
        }
    }
}

impl<T: Copy + Default> FromIterator<T> for NodeList<T> {
    fn from_iter<I: IntoIterator<Item = T>>(iter: I) -> Self {
        let mut l = NodeList::default();
        l.extend(iter);
        l
    }
}

impl<'a, T: Copy + Default> IntoIterator for &'a NodeList<T> {
    type Item = &'a T;
    type IntoIter = std::slice::Iter<'a, T>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

impl<T: Copy + Default + PartialEq> PartialEq for NodeList<T> {
    fn eq(&self, other: &Self) -> bool {
        **self == **other
    }
}

impl<T: Copy + Default + PartialEq, const N: usize> PartialEq<[T; N]> for NodeList<T> {
    fn eq(&self, other: &[T; N]) -> bool {
        **self == *other
    }
}

impl<T: Copy + Default + std::fmt::Debug> std::fmt::Debug for NodeList<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_list().entries(self.iter()).finish()
    }
}

/// One graph node. Empty `left`/`right`/`source` lists stand for upstream's
/// head entry holding −1.
#[derive(Debug, Clone, PartialEq)]
pub struct Letter {
    pub left: NodeList<Link>,
    pub right: NodeList<Link>,
    pub source: NodeList<SourceRef>,
    /// Next node on this node's alignment ring (circular list of aligned nodes).
    pub align_ring: i32,
    /// Smallest node index on the ring; equal ids in a row form one MSA column.
    pub ring_id: i32,
    /// Unused by alignment; carried for layout parity.
    pub score: f32,
    /// Symbol index into the score matrix (not ASCII).
    pub letter: u8,
}

impl Letter {
    /// A node with no links and no sources that sits alone on its ring.
    pub fn blank(self_index: i32) -> Self {
        Letter {
            left: NodeList::default(),
            right: NodeList::default(),
            source: NodeList::default(),
            align_ring: self_index,
            ring_id: self_index,
            score: 0.0,
            letter: 0,
        }
    }
}

/// Per-sequence bookkeeping (`LPOSourceInfo_T` without the index caches).
#[derive(Debug, Clone, PartialEq)]
pub struct SourceInfo {
    pub name: String,
    pub title: String,
    pub length: i32,
    pub istart: i32,
    pub weight: i32,
    pub bundle_id: i32,
}

/// A partial-order graph together with the sequences it contains.
#[derive(Debug, Clone, PartialEq, Default)]
pub struct Lpo {
    pub name: String,
    pub title: String,
    /// The residues as read (after case switching and whitespace removal).
    /// [`Lpo::initialize`] rewrites it in place into symbol indices, as
    /// upstream's `limit_residues` + `index_symbols` do.
    pub sequence: Vec<u8>,
    pub letters: Vec<Letter>,
    pub sources: Vec<SourceInfo>,
}

/// Case handling of `create_seq` (upstream's `do_switch_case`).
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub enum CaseSwitch {
    #[default]
    Keep,
    Lower,
    Upper,
}

/// Upstream's `add_lpo_link`: append unless already present.
pub(crate) fn add_link(list: &mut NodeList<Link>, ipos: i32) {
    if !list.iter().any(|l| l.ipos == ipos) {
        list.push(Link { ipos, score: 0 });
    }
}

/// Upstream's `limit_residues`: every residue missing from `allowed`
/// becomes `allowed[0]` (0 when the list is empty).
pub fn limit_residues(residues: &mut [u8], allowed: &[u8]) {
    let first = allowed.first().copied().unwrap_or(0);
    for c in residues.iter_mut() {
        if !allowed.contains(c) {
            *c = first;
        }
    }
}

/// Upstream's symbol lookup (`index_symbols`, `lpo_index_symbols`): the
/// last position of `c` in `symbols`, the last symbol's for a residue that
/// is none of them (0 when the list is empty).
#[inline]
pub fn symbol_index(symbols: &[u8], c: u8) -> u8 {
    symbols
        .iter()
        .rposition(|&s| s == c)
        .unwrap_or(symbols.len().saturating_sub(1)) as u8
}

/// Upstream's `index_symbols`: every residue becomes its [`symbol_index`].
pub fn index_symbols(residues: &mut [u8], symbols: &[u8]) {
    for c in residues.iter_mut() {
        *c = symbol_index(symbols, *c);
    }
}

/// Upstream's `lpo_init`: the letters of a linear graph of `codes` (symbol
/// indices), letter `i` linked to `i − 1` and `i + 1`, passed by sequence 0
/// at position `i`, alone on its alignment ring.
pub fn linear_letters(codes: &[u8]) -> Vec<Letter> {
    let n = codes.len() as i32;
    (0..n)
        .map(|i| Letter {
            left: (i > 0)
                .then_some(Link {
                    ipos: i - 1,
                    score: 0,
                })
                .into_iter()
                .collect(),
            right: (i + 1 < n)
                .then_some(Link {
                    ipos: i + 1,
                    score: 0,
                })
                .into_iter()
                .collect(),
            source: std::iter::once(SourceRef { iseq: 0, ipos: i }).collect(),
            align_ring: i,
            ring_id: i,
            score: 0.0,
            letter: codes[i as usize],
        })
        .collect()
}

impl Lpo {
    pub fn len(&self) -> usize {
        self.letters.len()
    }

    pub fn is_empty(&self) -> bool {
        self.letters.is_empty()
    }

    /// `create_seq`: drops whitespace, truncates at a NUL byte (the C string
    /// ends there) and applies the case switch. The graph is not built yet.
    pub fn create_seq(name: &str, title: Option<&str>, raw: &[u8], case: CaseSwitch) -> Self {
        let raw = match raw.iter().position(|&c| c == 0) {
            Some(z) => &raw[..z],
            None => raw,
        };
        let mut seq: Vec<u8> = raw.iter().copied().filter(|&c| !is_c_space(c)).collect();
        match case {
            CaseSwitch::Keep => {}
            CaseSwitch::Lower => seq.make_ascii_lowercase(),
            CaseSwitch::Upper => seq.make_ascii_uppercase(),
        }
        let mut name = name.to_string();
        // STRNCPY into a 128-byte buffer keeps at most 127 bytes.
        if name.len() >= SEQUENCE_NAME_MAX {
            let mut cut = SEQUENCE_NAME_MAX - 1;
            while !name.is_char_boundary(cut) {
                cut -= 1;
            }
            name.truncate(cut);
        }
        Lpo {
            name,
            title: title.unwrap_or("untitled").to_string(),
            sequence: seq,
            letters: Vec::new(),
            sources: Vec::new(),
        }
    }

    /// `initialize_seqs_as_lpo` for one sequence: residues outside the symbol
    /// list become `symbol[0]`, every residue becomes its symbol index, and a
    /// linear graph with one source is built.
    pub fn initialize(&mut self, m: &ScoreMatrix) {
        limit_residues(&mut self.sequence, &m.symbols);
        index_symbols(&mut self.sequence, &m.symbols);
        self.letters = linear_letters(&self.sequence);
        self.sources.clear();
        self.sources.push(SourceInfo {
            name: self.name.clone(),
            title: self.title.clone(),
            length: self.sequence.len() as i32,
            istart: 0,
            weight: 1,
            bundle_id: NO_BUNDLE,
        });
    }

    /// Convenience: `create_seq` followed by `initialize`.
    pub fn from_read(name: &str, raw: &[u8], case: CaseSwitch, m: &ScoreMatrix) -> Self {
        let mut l = Self::create_seq(name, None, raw, case);
        l.initialize(m);
        l
    }

    /// Upstream's `save_lpo_source`; returns the new source index.
    pub fn push_source(&mut self, info: SourceInfo) -> i32 {
        self.sources.push(info);
        (self.sources.len() - 1) as i32
    }

    /// `add_path_sequence`: registers a new zero-weight source that walks `path`.
    pub fn add_path_sequence(&mut self, path: &[i32], name: &str, title: &str) -> i32 {
        let iseq = self.push_source(SourceInfo {
            name: name.to_string(),
            title: title.to_string(),
            length: path.len() as i32,
            istart: 0,
            weight: 0,
            bundle_id: NO_BUNDLE,
        });
        for (i, &node) in path.iter().enumerate() {
            self.letters[node as usize].source.push(SourceRef {
                iseq,
                ipos: i as i32,
            });
        }
        iseq
    }

    /// Number of MSA columns (`nring` of `xlate_lpo_to_al`).
    pub fn column_count(&self) -> usize {
        let mut current = 0;
        let mut n = 0;
        for l in &self.letters {
            if l.ring_id != current {
                current = l.ring_id;
                n += 1;
            }
        }
        n + 1
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// The routines the BOA ABI's `initialize_seqs_as_lpo` shares: limiting,
    /// last-place lookup (unknown → last symbol), and the linear graph.
    #[test]
    fn linear_initialisation() {
        let symbols = b"ACGTA?";
        let mut residues = b"ACxGTN".to_vec();
        limit_residues(&mut residues, symbols);
        assert_eq!(residues, b"ACAGTA");
        residues.push(b'z');
        index_symbols(&mut residues, symbols);
        assert_eq!(residues, [4, 1, 4, 2, 3, 4, 5]);
        assert_eq!(symbol_index(b"", b'A'), 0);
        let letters = linear_letters(&[7, 8, 9]);
        assert_eq!(letters.len(), 3);
        assert!(letters[0].left.is_empty());
        assert_eq!(letters[1].left, [Link { ipos: 0, score: 0 }]);
        assert_eq!(letters[1].right, [Link { ipos: 2, score: 0 }]);
        assert!(letters[2].right.is_empty());
        assert_eq!(letters[2].source, [SourceRef { iseq: 0, ipos: 2 }]);
        assert_eq!((letters[2].ring_id, letters[2].align_ring), (2, 2));
        assert_eq!(letters[1].letter, 8);
        let m = ScoreMatrix::boa_dna();
        let mut l = Lpo::create_seq("r", None, b"AC GT", CaseSwitch::Keep);
        l.initialize(&m);
        assert_eq!(l.letters, linear_letters(&l.sequence));
        assert_eq!(l.sources.len(), 1);
        assert_eq!(l.sources[0].length, 4);
    }
}
