//! Pure-Rust wavefront alignment that reproduces WFA2-lib 2.3.3 results bit for bit.
//!
//! The types mirror the knobs of `wavefront_aligner_attr_t` so that a C-ABI layer can map
//! onto them one to one, but nothing here depends on that layer.

pub mod batch;
pub mod checks;
pub mod cigar_ops;
mod cpu;
pub mod gpu;
mod heuristic;
pub mod job;
pub mod operations;
mod penalties;
pub mod profiler;
pub mod transparent;

pub use heuristic::Heuristic;
pub use operations::Operations;

/// A custom match function (`match_funct(v, h, arguments)` upstream): true when
/// pattern position `v` matches text position `h`. It replaces the byte comparison
/// during extension, so it alone stops a run at the sequence ends.
pub type MatchFunction = std::sync::Arc<cpu::MatchFn>;
pub use penalties::{
    Affine2pPenalties, AffinePenalties, DistanceMetric, LinearPenalties, Penalties,
};

/// What the aligner computes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlignmentScope {
    ComputeScore = 0,
    ComputeAlignment = 1,
}

/// Global (end-to-end) or ends-free alignment.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlignmentSpan {
    EndToEnd = 0,
    EndsFree = 1,
}

/// Span plus the four ends-free lengths. The lengths are kept even when `span` is
/// end-to-end because upstream still reads the begin-free values then.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlignmentForm {
    pub span: AlignmentSpan,
    pub pattern_begin_free: i32,
    pub pattern_end_free: i32,
    pub text_begin_free: i32,
    pub text_end_free: i32,
}

impl AlignmentForm {
    pub const END_TO_END: AlignmentForm = AlignmentForm {
        span: AlignmentSpan::EndToEnd,
        pattern_begin_free: 0,
        pattern_end_free: 0,
        text_begin_free: 0,
        text_end_free: 0,
    };
}

/// Memory mode. `Med`/`Low` give the same CIGARs as `High`; `Ultralow` is BiWFA upstream.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum MemoryMode {
    High = 0,
    Med = 1,
    Low = 2,
    Ultralow = 3,
}

/// Outcome of one alignment, with upstream's numeric codes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AlignStatus {
    Successful = 0,
    Unfeasible = -1,
    MaxScoreReached = -2,
    Oom = -3,
}

impl AlignStatus {
    pub fn code(self) -> i32 {
        self as i32
    }
}

/// Configuration errors that upstream turns into `exit(1)`.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum WfaError {
    /// Penalties rejected by `wavefront_penalties_set_*`.
    InvalidPenalties(String),
    /// Ends-free lengths larger than the sequences.
    EndsFreeTooLarge,
    /// x-drop / z-drop requested with edit or indel.
    DropWithEditOrIndel,
    /// BiWFA (ultralow) with non-zero ends-free lengths.
    BiwfaEndsFree,
    /// High-memory alignment ran past the wavefront table upstream sizes from the
    /// sequence lengths ("Maximum allocated wavefronts reached"; only reachable with
    /// heuristics that make the end unreachable). Upstream calls `exit(1)`.
    WavefrontsExhausted,
    /// `resume` without a paused (score-limited, non-BiWFA) alignment.
    NotResumable,
    /// A configuration this crate does not reproduce yet.
    Unsupported(&'static str),
}

/// Everything `wavefront_aligner_new` reads from its attributes.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AlignerAttributes {
    pub penalties: Penalties,
    pub scope: AlignmentScope,
    pub form: AlignmentForm,
    pub memory_mode: MemoryMode,
    pub heuristic: Heuristic,
    pub max_alignment_score: i32,
}

impl Default for AlignerAttributes {
    /// Upstream's `wavefront_aligner_attr_default`: gap-affine (0,4,6,2), full alignment,
    /// end-to-end, high memory and — notably — the wf-adaptive(10,50,1) heuristic.
    fn default() -> Self {
        AlignerAttributes {
            penalties: Penalties::GapAffine(AffinePenalties {
                match_score: 0,
                mismatch: 4,
                gap_opening: 6,
                gap_extension: 2,
            }),
            scope: AlignmentScope::ComputeAlignment,
            form: AlignmentForm::END_TO_END,
            memory_mode: MemoryMode::High,
            heuristic: Heuristic::wfadaptive(10, 50, 1),
            max_alignment_score: i32::MAX,
        }
    }
}

/// CIGAR as upstream leaves it in `cigar_t`: a buffer of `'M' 'X' 'I' 'D'` bytes of which
/// `[begin_offset, end_offset)` is valid, plus `cigar->score`.
#[derive(Clone, Debug, Default)]
pub struct Cigar {
    pub(crate) ops: Vec<u8>,
    pub(crate) max_operations: i32,
    pub begin_offset: i32,
    pub end_offset: i32,
    /// Score in upstream's client convention (`cigar->score`, see spec §4.5).
    pub score: i32,
}

impl Cigar {
    /// The valid operations (`[begin_offset, end_offset)`).
    pub fn operations(&self) -> &[u8] {
        if self.end_offset > self.begin_offset {
            &self.ops[self.begin_offset as usize..self.end_offset as usize]
        } else {
            &[]
        }
    }

    pub(crate) fn new(max_operations: i32) -> Cigar {
        Cigar {
            ops: vec![0; max_operations.max(0) as usize],
            max_operations,
            begin_offset: 0,
            end_offset: 0,
            score: i32::MIN,
        }
    }

    /// `cigar_clear`.
    pub(crate) fn clear(&mut self) {
        self.begin_offset = 0;
        self.end_offset = 0;
        self.score = i32::MIN;
    }

    /// `cigar_resize`: grows only, always clears.
    pub(crate) fn resize(&mut self, max_operations: i32) {
        if max_operations > self.max_operations {
            self.max_operations = max_operations;
            self.ops.resize(max_operations as usize, 0);
        }
        self.clear();
    }
}

/// Reusable aligner (one per thread); buffers survive across calls.
pub struct Aligner {
    pub(crate) core: cpu::Core,
}

impl Aligner {
    /// `wavefront_aligner_new`.
    pub fn new(attributes: &AlignerAttributes) -> Result<Aligner, WfaError> {
        Ok(Aligner {
            core: cpu::Core::new(attributes)?,
        })
    }

    /// `wavefront_align`: returns the status (also kept in [`Aligner::status`]).
    pub fn align(&mut self, pattern: &[u8], text: &[u8]) -> Result<AlignStatus, WfaError> {
        self.out_of_memory_contained(|core| core.align(pattern, text))
    }

    /// Runs an alignment step; memory for wavefronts running out ends it
    /// with [`AlignStatus::Oom`] (as `max_memory_abort` does) and gives the
    /// wavefronts' memory back, where the allocator would abort the host.
    fn out_of_memory_contained(
        &mut self,
        step: impl FnOnce(&mut cpu::Core) -> Result<AlignStatus, WfaError>,
    ) -> Result<AlignStatus, WfaError> {
        match crate::engine::panic::catching(|| step(&mut self.core)) {
            Ok(outcome) => outcome,
            Err(payload) if payload.is::<crate::engine::panic::OutOfMemory>() => {
                self.core.out_of_memory();
                Ok(AlignStatus::Oom)
            }
            Err(payload) => std::panic::resume_unwind(payload),
        }
    }

    /// Forgets how large earlier pairs made the wavefront table (see
    /// `cpu::Core::forget_table_growth`), so that the next alignment's
    /// outcome depends on its pair and configuration only.
    pub fn forget_table_growth(&mut self) {
        self.core.forget_table_growth();
    }

    /// `wavefront_align_resume`: continues after [`AlignStatus::MaxScoreReached`]
    /// (typically after raising the limit with [`Aligner::set_max_alignment_score`]).
    pub fn resume(&mut self) -> Result<AlignStatus, WfaError> {
        self.out_of_memory_contained(cpu::Core::resume)
    }

    pub fn status(&self) -> AlignStatus {
        self.core.status
    }

    pub fn cigar(&self) -> &Cigar {
        &self.core.cigar
    }

    /// Shortcut for `cigar().score`.
    pub fn score(&self) -> i32 {
        self.core.cigar.score
    }

    /// `wavefront_aligner_set_alignment_end_to_end`: only the span changes (the stale
    /// begin-free lengths keep influencing wavefront 0, as upstream).
    pub fn set_alignment_end_to_end(&mut self) {
        self.core.form.span = AlignmentSpan::EndToEnd;
    }

    /// `wavefront_aligner_set_alignment_free_ends`.
    pub fn set_alignment_free_ends(
        &mut self,
        pattern_begin_free: i32,
        pattern_end_free: i32,
        text_begin_free: i32,
        text_end_free: i32,
    ) {
        self.core.form = AlignmentForm {
            span: AlignmentSpan::EndsFree,
            pattern_begin_free,
            pattern_end_free,
            text_begin_free,
            text_end_free,
        };
    }

    /// Heuristic currently configured; the `set_*` methods of [`Heuristic`] OR strategies
    /// together exactly as the `wavefront_aligner_set_heuristic_*` functions do.
    pub fn heuristic_mut(&mut self) -> &mut Heuristic {
        &mut self.core.heuristic
    }

    /// `wavefront_aligner_set_match_funct`. The sequences passed to [`Aligner::align`]
    /// then only give the lengths. Memory mode ultralow supports it only where 2.3.3
    /// does not crash: full alignments of pairs of at most 100 bases.
    pub fn set_match_function(&mut self, match_function: Option<MatchFunction>) {
        self.core.match_fn = match_function;
    }

    /// `wavefront_aligner_set_max_memory`'s abort limit, probed every
    /// `probe_interval` scores (upstream's `probe_interval_global`, 3000 by default):
    /// past it the alignment stops with [`AlignStatus::Oom`]. The memory compared is
    /// [`Aligner::memory_used`].
    pub fn set_max_memory(&mut self, max_memory_abort: u64, probe_interval: i32) {
        self.core.max_memory_abort = max_memory_abort;
        self.core.probe_interval = probe_interval;
    }

    /// Bytes of wavefront storage the aligner holds.
    pub fn memory_used(&self) -> u64 {
        self.core.memory_used()
    }

    /// `wavefront_aligner_set_max_alignment_score`.
    pub fn set_max_alignment_score(&mut self, max_alignment_score: i32) {
        self.core.max_alignment_score = max_alignment_score;
    }

    /// Internal (rescaled) penalties as upstream stores them in `wf_aligner->penalties`.
    pub fn internal_penalties(&self) -> penalties::WfPenalties {
        self.core.pen
    }
}

pub use penalties::WfPenalties;
