//! A batch of POA windows: windows are added one by one (copied), run all
//! at once through the family's scheduler ([`run_windows`]: bucketed by read
//! count and longest read, as CONSENT-GPU buckets them) and keep their
//! results until the batch is reset. Windows added after a run are run by
//! the next one. The native C API (`seqshim_poa_batch_*`) is a thin layer
//! over this type.

use std::sync::Arc;

use super::{BatchConfig, ConsensusRule, WindowJob, WindowResult, run_windows};

/// Largest magnitude of a score: the aligner's sums are `i32` with a
/// −999,999 floor (POA v2's `MINUS_INFINITY`), and scores beyond this bound
/// could overflow or sink below it and give a wrong consensus.
pub const MAX_SCORE: u32 = 10_000;
/// Largest gap truncation length (gap-length states tracked).
pub const MAX_GAP_TRUNCATION: i32 = 4096;
/// Most windows a creation hint reserves room for.
const MAX_RESERVED_WINDOWS: usize = 1 << 16;

/// Why a batch configuration is refused.
#[derive(Debug, Clone, PartialEq, Eq)]
pub enum ConfigError {
    /// A score beyond ±[`MAX_SCORE`].
    ScoreOutOfRange,
    /// A gap truncation length outside 1..=[`MAX_GAP_TRUNCATION`].
    GapTruncation,
    /// `max_seqs` is 0.
    NoReads,
    /// The matrix could not be built from these scores.
    Matrix(String),
}

/// The scoring and options of a DNA batch, as the C API gives them.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct DnaOptions {
    /// Score of an A/C/G/T match.
    pub match_score: i32,
    /// Score of every other pair, N included.
    pub mismatch: i32,
    /// Score of a gap's first position.
    pub gap_open: i32,
    /// Score of each further gap position.
    pub gap_extend: i32,
    /// Gap-length states tracked (POA v2's `TRUNCATE_GAP_LENGTH`).
    pub gap_truncation: i32,
    /// Global (true) or local alignment.
    pub global: bool,
    pub consensus: ConsensusRule,
    /// Reads past this many non-empty ones are ignored.
    pub max_seqs: usize,
    /// Keep MSA rows with the results.
    pub want_msa: bool,
}

impl BatchConfig {
    /// The configuration of a DNA batch ([`BatchConfig::dna_matrix`]), or
    /// why these options are refused.
    pub fn dna(o: &DnaOptions) -> Result<BatchConfig, ConfigError> {
        if o.max_seqs < 1 {
            return Err(ConfigError::NoReads);
        }
        if !(1..=MAX_GAP_TRUNCATION).contains(&o.gap_truncation) {
            return Err(ConfigError::GapTruncation);
        }
        let scores = [o.match_score, o.mismatch, o.gap_open, o.gap_extend];
        if scores.iter().any(|v| v.unsigned_abs() > MAX_SCORE) {
            return Err(ConfigError::ScoreOutOfRange);
        }
        let matrix = BatchConfig::dna_matrix(
            o.match_score,
            o.mismatch,
            o.gap_open,
            o.gap_extend,
            o.gap_truncation,
        )
        .map_err(|e| ConfigError::Matrix(e.to_string()))?;
        Ok(BatchConfig {
            matrix,
            global: o.global,
            consensus: o.consensus,
            max_seqs: o.max_seqs,
            want_msa: o.want_msa,
            want_graph: false,
        })
    }
}

/// Why a window has no result to give.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub enum ResultError {
    /// No window has this id.
    UnknownWindow,
    /// The window was added but no run has run it yet.
    NotRun,
}

struct Window {
    /// The reads until the window has run (then dropped).
    reads: Vec<Vec<u8>>,
    result: Option<WindowResult>,
}

/// Windows sharing one configuration, with their results.
pub struct Batch {
    config: Arc<BatchConfig>,
    windows: Vec<Window>,
}

impl Batch {
    /// An empty batch; `expected_windows` reserves room (a hint, capped).
    pub fn new(config: BatchConfig, expected_windows: usize) -> Batch {
        Batch {
            config: Arc::new(config),
            // A hint only: a wild value must not become an allocation the
            // process cannot survive.
            windows: Vec::with_capacity(expected_windows.min(MAX_RESERVED_WINDOWS)),
        }
    }

    pub fn config(&self) -> &BatchConfig {
        &self.config
    }

    /// Adds a window and returns its id (0, 1, ... in order of addition).
    pub fn add_window(&mut self, reads: Vec<Vec<u8>>) -> u64 {
        let id = self.windows.len() as u64;
        self.windows.push(Window {
            reads,
            result: None,
        });
        id
    }

    /// Runs every window added since the last run; returns how many ran.
    pub fn run(&mut self) -> usize {
        let pending: Vec<usize> = (0..self.windows.len())
            .filter(|&i| self.windows[i].result.is_none())
            .collect();
        // The reads stay until their results are stored, so a run that
        // fails (a panic caught at the boundary) can be run again.
        let jobs = pending
            .iter()
            .map(|&i| WindowJob {
                reads: self.windows[i].reads.clone(),
                config: self.config.clone(),
            })
            .collect();
        let results = run_windows(jobs);
        for (&i, r) in pending.iter().zip(results) {
            let w = &mut self.windows[i];
            w.reads = Vec::new();
            w.result = Some(r);
        }
        pending.len()
    }

    /// The result of window `id`.
    pub fn result(&self, id: u64) -> Result<&WindowResult, ResultError> {
        let w = usize::try_from(id)
            .ok()
            .and_then(|i| self.windows.get(i))
            .ok_or(ResultError::UnknownWindow)?;
        w.result.as_ref().ok_or(ResultError::NotRun)
    }

    /// Windows added since creation or the last reset.
    pub fn len(&self) -> usize {
        self.windows.len()
    }

    pub fn is_empty(&self) -> bool {
        self.windows.is_empty()
    }

    /// Removes every window and result; the configuration stays and ids
    /// start at 0 again.
    pub fn reset(&mut self) {
        self.windows.clear();
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::poa::{ScoreMatrix, WindowStatus, easy_consensus};

    fn consent() -> DnaOptions {
        DnaOptions {
            match_score: 5,
            mismatch: -10,
            gap_open: -5,
            gap_extend: -5,
            gap_truncation: 16,
            global: true,
            consensus: ConsensusRule::ColumnMajority,
            max_seqs: 150,
            want_msa: true,
        }
    }

    #[test]
    fn consent_options_give_boas_matrix() {
        let c = BatchConfig::dna(&consent()).unwrap();
        assert_eq!(c.matrix, ScoreMatrix::boa_dna());
    }

    #[test]
    fn out_of_range_options_are_refused() {
        let refused = |edit: &dyn Fn(&mut DnaOptions), want: ConfigError| {
            let mut o = consent();
            edit(&mut o);
            assert_eq!(BatchConfig::dna(&o).unwrap_err(), want, "{o:?}");
        };
        refused(&|o| o.max_seqs = 0, ConfigError::NoReads);
        refused(&|o| o.gap_truncation = 0, ConfigError::GapTruncation);
        refused(
            &|o| o.gap_truncation = MAX_GAP_TRUNCATION + 1,
            ConfigError::GapTruncation,
        );
        refused(
            &|o| o.match_score = MAX_SCORE as i32 + 1,
            ConfigError::ScoreOutOfRange,
        );
        refused(&|o| o.gap_open = -1_000_000, ConfigError::ScoreOutOfRange);
        let mut o = consent();
        o.mismatch = -(MAX_SCORE as i32);
        assert!(BatchConfig::dna(&o).is_ok());
    }

    #[test]
    fn lifecycle_and_results() {
        let mut b = Batch::new(BatchConfig::dna(&consent()).unwrap(), usize::MAX);
        assert!(b.is_empty());
        let windows: Vec<Vec<Vec<u8>>> = vec![
            vec![
                b"ACGTACGTAAGGTTCCAGT".to_vec(),
                b"ACGTTCGTAAGGTCCAGTT".to_vec(),
                b"ACGAACGTAAGGTTCAGT".to_vec(),
            ],
            vec![Vec::new(), b" ".to_vec()],
            vec![b"ACGT".to_vec()],
        ];
        for (i, w) in windows.iter().enumerate() {
            assert_eq!(b.add_window(w.clone()), i as u64);
        }
        assert_eq!(b.len(), 3);
        assert_eq!(b.result(0), Err(ResultError::NotRun));
        assert_eq!(b.result(3), Err(ResultError::UnknownWindow));
        assert_eq!(b.result(u64::MAX), Err(ResultError::UnknownWindow));
        assert_eq!(b.run(), 3);
        let m = &b.config().matrix;
        for (i, w) in windows.iter().enumerate() {
            let r = b.result(i as u64).unwrap();
            let refs: Vec<&[u8]> = w.iter().map(|r| r.as_slice()).collect();
            if i == 1 {
                assert_eq!(r.status, WindowStatus::Empty);
                assert!(r.consensus.is_empty());
            } else {
                assert_eq!(r.status, WindowStatus::Ok);
                assert_eq!(r.consensus, easy_consensus(&refs, m, 150), "window {i}");
            }
        }
        assert_eq!(b.result(0).unwrap().nrows, 3);
        // A window added after a run is run by the next run, alone.
        assert_eq!(b.add_window(vec![b"AAAA".to_vec(), b"AAAA".to_vec()]), 3);
        assert_eq!(b.result(3), Err(ResultError::NotRun));
        assert_eq!(b.run(), 1);
        assert_eq!(b.result(3).unwrap().consensus, b"AAAA");
        assert_eq!(b.run(), 0);
        b.reset();
        assert_eq!(b.len(), 0);
        assert_eq!(b.result(0), Err(ResultError::UnknownWindow));
        assert_eq!(b.add_window(vec![b"ACGT".to_vec()]), 0);
    }
}
