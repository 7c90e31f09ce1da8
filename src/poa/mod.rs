//! Pure-Rust reimplementation of POA v2 as forked by BOA (`Malfoy/BOA@09c1be1`)
//! and driven by CONSENT/BMEAN.
//!
//! Layers, bottom up:
//! - [`matrix`]: score-matrix files (`read_score_matrix`).
//! - [`graph`]: the linearised partial-order graph (`LPOSequence_T`),
//!   `create_seq` + `initialize_seqs_as_lpo`.
//! - [`align`]: `align_lpo_po`; [`fuse`]: `fuse_lpo`; [`build`]:
//!   `buildup_progressive_lpo`.
//! - [`msa`]: `xlate_lpo_to_al`; [`bundle`]: `heaviest_bundle` /
//!   `generate_lpo_bundles`; [`consensus`]: BMEAN's column majority.
//!
//! The window helpers at the bottom chain these the way CONSENT does.

pub mod align;
pub mod build;
pub mod bundle;
pub mod consensus;
pub mod fuse;
pub mod graph;
pub mod matrix;
pub mod msa;

pub use align::{Alignment, align_lpo_po};
pub use build::{buildup_pairwise, buildup_progressive, buildup_progressive_counted};
pub use bundle::{generate_lpo_bundles, heaviest_bundle};
pub use consensus::column_majority;
pub use fuse::fuse_lpo;
pub use graph::{CaseSwitch, Letter, Link, Lpo, SourceInfo, SourceRef};
pub use matrix::{MatrixError, ScoreMatrix};
pub use msa::{Msa, xlate_lpo_to_al};

/// How a window is aligned and summarised.
#[derive(Debug, Clone, Copy, PartialEq)]
pub struct WindowOptions {
    /// `use_global_alignment` (CONSENT: true).
    pub global: bool,
    /// `create_seq` case switch (CONSENT: keep).
    pub case: CaseSwitch,
    /// BMEAN `maxMSA`: reads past this many non-empty ones are ignored.
    pub max_seqs: usize,
    /// Run `generate_lpo_bundles` with this threshold (poa `-hb`: 0.9) and
    /// append the `CONSENS<k>` rows to the MSA.
    pub heaviest_bundle: Option<f32>,
    /// Gap byte in MSA rows (BMEAN: `-`; poa's PIR output: `.`).
    pub gap: u8,
}

impl Default for WindowOptions {
    /// CONSENT's settings.
    fn default() -> Self {
        WindowOptions {
            global: true,
            case: CaseSwitch::Keep,
            max_seqs: 150,
            heaviest_bundle: None,
            gap: b'-',
        }
    }
}

/// Outcome of [`align_window`].
#[derive(Debug, Clone, PartialEq)]
pub struct WindowMsa {
    /// One row per used read (input order, empty reads skipped), then one per
    /// heaviest-bundle consensus when requested.
    pub msa: Msa,
    /// Names of the rows (`s<input index>` for reads, `CONSENS<k>`).
    pub names: Vec<String>,
    /// Input index of each read row.
    pub read_index: Vec<usize>,
    /// Fusion stopped at upstream's memory bound; later reads are absent.
    pub truncated: bool,
}

/// Builds the window's graph progressively in input order and flattens it,
/// as BMEAN's `consensus_POA` (or `poa -read_fasta`) does: empty reads are
/// skipped, at most `max_seqs` reads are used. `None` when no read is used.
pub fn align_window(reads: &[&[u8]], m: &ScoreMatrix, opt: &WindowOptions) -> Option<WindowMsa> {
    let mut seqs = Vec::new();
    let mut read_index = Vec::new();
    for (i, r) in reads.iter().enumerate() {
        if seqs.len() >= opt.max_seqs {
            break;
        }
        let l = Lpo::create_seq(&format!("s{i}"), None, r, opt.case);
        if l.sequence.is_empty() {
            continue;
        }
        seqs.push(l);
        read_index.push(i);
    }
    for s in seqs.iter_mut() {
        s.initialize(m);
    }
    let (mut lpo, truncated) = buildup_progressive(seqs, m, opt.global)?;
    if let Some(frac) = opt.heaviest_bundle {
        generate_lpo_bundles(&mut lpo, frac);
    }
    let msa = xlate_lpo_to_al(&lpo, Some(&m.symbols), opt.gap);
    let names = lpo.sources.iter().map(|s| s.name.clone()).collect();
    Some(WindowMsa {
        msa,
        names,
        read_index,
        truncated,
    })
}

/// BMEAN's `easy_consensus` on one sub-window with CONSENT's settings: a
/// single read, or all reads identical, is returned as is; otherwise POA
/// (global, input order) followed by [`column_majority`].
pub fn easy_consensus(reads: &[&[u8]], m: &ScoreMatrix, max_seqs: usize) -> Vec<u8> {
    if reads.is_empty() {
        return Vec::new();
    }
    if reads.len() == 1 || reads.iter().all(|r| *r == reads[0]) {
        return reads[0].to_vec();
    }
    let opt = WindowOptions {
        max_seqs,
        ..WindowOptions::default()
    };
    match align_window(reads, m, &opt) {
        Some(w) => column_majority(&w.msa.rows),
        None => Vec::new(),
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Golden output of BOA 09c1be1 (CONSENT call sequence, BOA's DNA matrix).
    #[test]
    fn small_window_matches_boa_golden() {
        let reads: [&[u8]; 3] = [
            b"ACGTACGTAAGGTTCCAGT",
            b"ACGTTCGTAAGGTCCAGTT",
            b"ACGAACGTAAGGTTCAGT",
        ];
        let m = ScoreMatrix::boa_dna();
        let w = align_window(&reads, &m, &WindowOptions::default()).unwrap();
        let rows: Vec<&[u8]> = w.msa.rows.iter().map(|r| r.as_slice()).collect();
        assert_eq!(
            rows,
            [
                &b"ACGTA--CGTAAGGTTCCAGT-"[..],
                b"ACGT-T-CGTAAGGT-CCAGTT",
                b"ACG-A-ACGTAAGGTTC-AGT-",
            ]
        );
        assert_eq!(
            easy_consensus(&reads, &m, 150),
            b"ACGTACGTAAGGTTCCAGT".to_vec()
        );
    }

    #[test]
    fn trivial_windows() {
        let m = ScoreMatrix::boa_dna();
        assert!(align_window(&[b"".as_slice()], &m, &WindowOptions::default()).is_none());
        assert_eq!(
            easy_consensus(&[b"ACGT".as_slice(), b"ACGT"], &m, 150),
            b"ACGT"
        );
        let w = align_window(&[b"AC GT\n".as_slice()], &m, &WindowOptions::default()).unwrap();
        assert_eq!(w.msa.rows, vec![b"ACGT".to_vec()]);
    }
}
