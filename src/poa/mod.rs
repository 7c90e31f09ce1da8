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
//! The window helpers at the bottom chain these the way CONSENT does;
//! [`batch`] holds many windows and runs them together.

pub mod align;
pub mod batch;
pub mod build;
pub mod bundle;
pub mod consensus;
pub mod fuse;
pub mod gpu;
pub mod graph;
pub mod matrix;
pub mod msa;
pub mod replay;
pub mod routed;
pub mod routing;

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

// ------------------------------------------------------------------ batches

/// How a window's consensus is formed.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ConsensusRule {
    /// CONSENT/BMEAN: a lone read or identical reads are returned as they
    /// are, otherwise the column majority of the MSA ([`column_majority`]).
    ColumnMajority,
    /// The first heaviest bundle (`generate_lpo_bundles` at 0.9, `CONSENS0`).
    HeaviestBundle,
}

/// Everything a batch of windows shares: the scoring and the options.
#[derive(Debug, Clone)]
pub struct BatchConfig {
    pub matrix: ScoreMatrix,
    pub global: bool,
    pub consensus: ConsensusRule,
    pub max_seqs: usize,
    pub want_msa: bool,
    /// The reads are symbol codes already (a BOA call's initialised
    /// sequences, none empty) and the result is the window's whole graph
    /// ([`WindowResult::graph`]) instead of a consensus: how a BOA call
    /// reaches a device.
    pub want_graph: bool,
}

impl BatchConfig {
    /// A DNA matrix in BOA's form: `match_score` on the A, C, G, T diagonal,
    /// `mismatch` everywhere else (N included), and a gap of `gap_open` for
    /// its first position, `gap_extend` for each further one, tracked up to
    /// `trunc` positions (scores are negative costs, as in the C API).
    pub fn dna_matrix(
        match_score: i32,
        mismatch: i32,
        gap_open: i32,
        gap_extend: i32,
        trunc: i32,
    ) -> Result<ScoreMatrix, MatrixError> {
        let mut text = format!(
            "GAP-PENALTIES={} {} {}\nGAP-TRUNCATION-LENGTH={trunc}\nGAP-DECAY-LENGTH=0\n",
            -(gap_open as i64),
            -(gap_extend as i64),
            -(gap_extend as i64)
        );
        for &c in matrix::POA_SYMBOLS {
            text.push(' ');
            text.push(c as char);
        }
        text.push('\n');
        for &r in matrix::POA_SYMBOLS {
            text.push(r as char);
            for &c in matrix::POA_SYMBOLS {
                let v = if r == c && b"ACGT".contains(&r) {
                    match_score
                } else {
                    mismatch
                };
                text.push_str(&format!(" {v}"));
            }
            text.push('\n');
        }
        ScoreMatrix::parse(text.as_bytes())
    }
}

/// The size classes CONSENT-GPU buckets windows into: (at most 8, 16 or 32
/// reads) × (longest read at most 31, 63, 127 or 255 bases); anything larger
/// is [`Bucket::Cpu`]. A device runner takes whole buckets; the CPU takes
/// everything.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Bucket {
    Sized { max_reads: u16, max_len: u16 },
    Cpu,
}

impl Bucket {
    pub fn of(nreads: usize, longest: usize) -> Bucket {
        let max_reads = [8u16, 16, 32].into_iter().find(|&w| nreads <= w as usize);
        let max_len = [31u16, 63, 127, 255]
            .into_iter()
            .find(|&l| longest <= l as usize);
        match (max_reads, max_len) {
            (Some(max_reads), Some(max_len)) => Bucket::Sized { max_reads, max_len },
            _ => Bucket::Cpu,
        }
    }
}

/// Per-window outcome of a batch.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum WindowStatus {
    Ok,
    /// No non-empty read.
    Empty,
    /// Fusion stopped at upstream's memory bound; no result.
    GraphTooLarge,
    /// A device could not run the window and strict mode forbade the CPU.
    Device,
}

/// What one window produced.
#[derive(Debug, Clone, PartialEq)]
pub struct WindowResult {
    pub status: WindowStatus,
    pub consensus: Vec<u8>,
    /// Rows of the used reads (input order, empty reads skipped), `-` gaps,
    /// concatenated row-major; empty unless MSAs were asked for.
    pub msa: Vec<u8>,
    pub nrows: usize,
    pub ncols: usize,
    /// With [`BatchConfig::want_graph`]: the letters of the window's final
    /// graph, exactly as [`buildup_progressive`] leaves them (`None` when
    /// the memory bound stopped the fusion).
    pub graph: Option<Vec<Letter>>,
}

/// One window as a scheduler job.
pub struct WindowJob {
    pub reads: Vec<Vec<u8>>,
    pub config: std::sync::Arc<BatchConfig>,
}

impl WindowJob {
    pub fn bucket(&self) -> Bucket {
        let used = self
            .reads
            .iter()
            .filter(|r| !r.is_empty())
            .count()
            .min(self.config.max_seqs);
        let longest = self.reads.iter().map(|r| r.len()).max().unwrap_or(0);
        Bucket::of(used, longest)
    }

    /// The options `align_window` runs this window with.
    pub fn window_options(&self) -> WindowOptions {
        let c = &*self.config;
        WindowOptions {
            global: c.global,
            case: CaseSwitch::Keep,
            max_seqs: c.max_seqs,
            heaviest_bundle: (c.consensus == ConsensusRule::HeaviestBundle).then_some(0.9),
            gap: b'-',
        }
    }

    /// Whether every read is the same non-empty byte string (BMEAN then
    /// returns the first read as the consensus).
    fn identical_reads(&self) -> bool {
        let r = &self.reads;
        !r.is_empty() && !r[0].is_empty() && r.iter().all(|x| *x == r[0])
    }

    /// Whether the window's result needs no alignment at all: identical
    /// reads under the column-majority rule without MSAs.
    pub fn needs_no_alignment(&self) -> bool {
        !self.config.want_graph
            && self.config.consensus == ConsensusRule::ColumnMajority
            && !self.config.want_msa
            && self.identical_reads()
    }

    /// The window on the CPU, exactly as the per-window C ABI path computes it.
    pub fn compute(&self) -> WindowResult {
        if self.config.want_graph {
            return self.compute_graph();
        }
        if self.needs_no_alignment() {
            // Aligning first would only cost time (and could hit the graph
            // bound).
            return self.finish(None);
        }
        let refs: Vec<&[u8]> = self.reads.iter().map(|r| r.as_slice()).collect();
        let w = align_window(&refs, &self.config.matrix, &self.window_options());
        self.finish(w)
    }

    /// A graph window on the CPU: the reads (symbol codes) fused in order,
    /// as `buildup_progressive_lpo` fuses a BOA call's sequences.
    fn compute_graph(&self) -> WindowResult {
        let seqs: Vec<Lpo> = self
            .reads
            .iter()
            .map(|r| Lpo {
                letters: graph::linear_letters(r),
                sources: vec![SourceInfo {
                    name: String::new(),
                    title: String::new(),
                    length: r.len() as i32,
                    istart: 0,
                    weight: 1,
                    bundle_id: graph::NO_BUNDLE,
                }],
                ..Lpo::default()
            })
            .collect();
        let n = seqs.len();
        let graph = buildup_progressive_counted(seqs, &self.config.matrix, self.config.global)
            .filter(|&(_, fused)| fused + 1 == n)
            .map(|(g, _)| g.letters);
        self.graph_result(graph)
    }

    /// The result of a graph window whose letters are `graph`.
    pub fn graph_result(&self, graph: Option<Vec<Letter>>) -> WindowResult {
        WindowResult {
            status: if graph.is_some() {
                WindowStatus::Ok
            } else {
                WindowStatus::GraphTooLarge
            },
            consensus: Vec::new(),
            msa: Vec::new(),
            nrows: 0,
            ncols: 0,
            graph,
        }
    }

    /// The window's result from its aligned window (`None`: no read was
    /// used, or the alignment was skipped by [`Self::needs_no_alignment`]).
    /// Shared by the CPU path and the device runner, which builds the
    /// window's MSA on a GPU.
    pub fn finish(&self, w: Option<WindowMsa>) -> WindowResult {
        let c = &*self.config;
        let none = |status| WindowResult {
            status,
            consensus: Vec::new(),
            msa: Vec::new(),
            nrows: 0,
            ncols: 0,
            graph: None,
        };
        let trivial = self.identical_reads();
        // BMEAN returns a window of identical reads unchanged.
        let unchanged = trivial && c.consensus == ConsensusRule::ColumnMajority;
        let as_is = || WindowResult {
            status: WindowStatus::Ok,
            consensus: self.reads[0].to_vec(),
            msa: Vec::new(),
            nrows: 0,
            ncols: 0,
            graph: None,
        };
        if unchanged && !c.want_msa {
            return as_is();
        }
        let Some(w) = w else {
            // Reads POA sees as empty (whitespace only) can still be
            // identical bytes, which BMEAN returns whatever `want_msa` says.
            return if unchanged {
                as_is()
            } else {
                none(WindowStatus::Empty)
            };
        };
        if w.truncated {
            return none(WindowStatus::GraphTooLarge);
        }
        let nrows = w.read_index.len();
        let consensus = match c.consensus {
            ConsensusRule::ColumnMajority if trivial => self.reads[0].to_vec(),
            ConsensusRule::ColumnMajority => column_majority(&w.msa.rows[..nrows]),
            ConsensusRule::HeaviestBundle => {
                let Some(k) = w.names.iter().position(|n| n == "CONSENS0") else {
                    // POA v2 makes no bundle from a path under 10 nodes:
                    // there is no consensus to report.
                    return none(WindowStatus::Empty);
                };
                w.msa.rows[k]
                    .iter()
                    .copied()
                    .filter(|&b| b != b'-')
                    .collect()
            }
        };
        let msa = if c.want_msa {
            w.msa.rows[..nrows].concat()
        } else {
            Vec::new()
        };
        WindowResult {
            status: WindowStatus::Ok,
            consensus,
            msa,
            nrows: if c.want_msa { nrows } else { 0 },
            ncols: if c.want_msa { w.msa.ncols } else { 0 },
            graph: None,
        }
    }
}

impl crate::engine::scheduler::Job for WindowJob {
    type Output = WindowResult;

    fn run_cpu(&self) -> WindowResult {
        self.compute()
    }

    /// Whether the POA kernel takes the window (`gpu::kernel_takes`):
    /// column majority, at most 32 reads of at most 1,023 bases, the
    /// matrix and gap states within the kernel's tables; a window that
    /// needs no alignment stays on the CPU.
    fn gpu_eligible(&self) -> bool {
        gpu::kernel_takes(self)
    }

    fn cost(&self) -> u64 {
        let n = self.reads.len() as u64;
        let l = self.reads.iter().map(|r| r.len()).max().unwrap_or(0) as u64;
        n * l * l
    }
}

/// POA as a family of the engine: windows the kernel takes run on every
/// GPU in use (`gpu::WindowRunner`, one block per window), the others on
/// the CPU pool at the same time; a window a device could not finish is
/// rerun on the CPU.
pub struct Poa;

impl crate::engine::family::Family for Poa {
    const NAME: &'static str = "POA";
    const KERNEL: &'static str = "poa";
    type Job = WindowJob;

    fn runners(
        gpu: &std::sync::Arc<crate::engine::device::Gpu>,
    ) -> Result<
        Vec<Box<dyn crate::engine::scheduler::BatchRunner<WindowJob>>>,
        crate::engine::device::DeviceError,
    > {
        Ok(vec![Box::new(gpu::WindowRunner::new(gpu.clone())?)])
    }

    /// In this crate's unit tests, a device emulated on the host: windows
    /// are computed on the CPU and graph windows come back through the
    /// device's form (final nodes, rebuilt by [`replay`]).
    fn extra_runners() -> Vec<Box<dyn crate::engine::scheduler::BatchRunner<WindowJob>>> {
        #[cfg(test)]
        return vec![Box::new(emulated::Runner)];
        #[cfg(not(test))]
        Vec::new()
    }
}

#[cfg(test)]
mod emulated {
    use super::{WindowJob, WindowResult, replay};

    pub struct Runner;

    impl crate::engine::scheduler::BatchRunner<WindowJob> for Runner {
        fn label(&self) -> String {
            "emulated POA device".into()
        }

        fn capacity(&self) -> usize {
            64
        }

        fn run_batch(&mut self, jobs: &[WindowJob]) -> Result<Vec<Option<WindowResult>>, String> {
            Ok(jobs
                .iter()
                .map(|j| {
                    if !j.config.want_graph {
                        return Some(j.compute());
                    }
                    let nodes = replay::final_nodes(j.compute().graph.as_ref()?)?;
                    let reads: Vec<&[u8]> = j.reads.iter().map(|r| r.as_slice()).collect();
                    Some(j.graph_result(Some(replay::rebuild(&reads, &nodes)?)))
                })
                .collect())
        }
    }
}

/// Runs many windows on the CPU pool through the family's scheduler and
/// returns their results in input order. Windows are grouped by [`Bucket`],
/// largest first, so that the pool is not left waiting on a big window
/// started last.
pub fn run_windows(jobs: Vec<WindowJob>) -> Vec<WindowResult> {
    let mut order: Vec<usize> = (0..jobs.len()).collect();
    let keys: Vec<(std::cmp::Reverse<Bucket>, std::cmp::Reverse<u64>)> = jobs
        .iter()
        .map(|j| {
            use crate::engine::scheduler::Job;
            (std::cmp::Reverse(j.bucket()), std::cmp::Reverse(j.cost()))
        })
        .collect();
    order.sort_by_key(|&i| keys[i]);
    let mut slots: Vec<Option<WindowJob>> = jobs.into_iter().map(Some).collect();
    let ordered: Vec<WindowJob> = order.iter().filter_map(|&i| slots[i].take()).collect();
    let results = crate::engine::family::scheduler::<Poa>().run_all(ordered);
    let mut out: Vec<Option<WindowResult>> = (0..order.len()).map(|_| None).collect();
    for (&i, r) in order.iter().zip(results) {
        // Only strict mode turns a device failure into an error.
        out[i] = Some(match r {
            Ok(r) => r,
            Err(_) => WindowResult {
                status: WindowStatus::Device,
                consensus: Vec::new(),
                msa: Vec::new(),
                nrows: 0,
                ncols: 0,
                graph: None,
            },
        });
    }
    out.into_iter()
        .map(|r| r.expect("every window has a result"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A window of identical reads that POA sees as empty (whitespace) is
    /// returned unchanged with or without MSAs, as BMEAN returns it.
    #[test]
    fn identical_whitespace_reads_do_not_depend_on_want_msa() {
        for want_msa in [false, true] {
            let config = BatchConfig {
                matrix: BatchConfig::dna_matrix(5, -10, -5, -5, 16).unwrap(),
                global: true,
                consensus: ConsensusRule::ColumnMajority,
                max_seqs: 150,
                want_msa,
                want_graph: false,
            };
            let job = WindowJob {
                reads: vec![b" \n".to_vec(), b" \n".to_vec()],
                config: std::sync::Arc::new(config),
            };
            let r = job.compute();
            assert_eq!(r.status, WindowStatus::Ok, "want_msa {want_msa}");
            assert_eq!(r.consensus, b" \n");
        }
    }

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
    fn buckets_follow_consent_gpu() {
        assert_eq!(
            Bucket::of(8, 31),
            Bucket::Sized {
                max_reads: 8,
                max_len: 31
            }
        );
        assert_eq!(
            Bucket::of(9, 32),
            Bucket::Sized {
                max_reads: 16,
                max_len: 63
            }
        );
        assert_eq!(Bucket::of(33, 10), Bucket::Cpu);
        assert_eq!(Bucket::of(3, 256), Bucket::Cpu);
    }

    #[test]
    fn batch_matches_single_windows() {
        let config = std::sync::Arc::new(BatchConfig {
            matrix: BatchConfig::dna_matrix(5, -10, -5, -5, 16).unwrap(),
            global: true,
            consensus: ConsensusRule::ColumnMajority,
            max_seqs: 150,
            want_msa: true,
            want_graph: false,
        });
        assert_eq!(config.matrix, ScoreMatrix::boa_dna());
        let windows: Vec<Vec<Vec<u8>>> = vec![
            vec![
                b"ACGTACGTAAGGTTCCAGT".to_vec(),
                b"ACGTTCGTAAGGTCCAGTT".to_vec(),
            ],
            vec![b"ACGT".to_vec()],
            vec![Vec::new()],
            vec![b"AAAA".to_vec(), b"AAAA".to_vec()],
        ];
        let jobs = windows
            .iter()
            .map(|w| WindowJob {
                reads: w.clone(),
                config: config.clone(),
            })
            .collect();
        let results = run_windows(jobs);
        for (w, r) in windows.iter().zip(&results) {
            let refs: Vec<&[u8]> = w.iter().map(|r| r.as_slice()).collect();
            if r.status == WindowStatus::Ok {
                assert_eq!(r.consensus, easy_consensus(&refs, &config.matrix, 150));
            }
        }
        assert_eq!(results[2].status, WindowStatus::Empty);
        assert_eq!(results[0].nrows, 2);
        assert_eq!(results[0].msa.len(), 2 * results[0].ncols);
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
