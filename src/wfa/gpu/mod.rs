//! WFA on a GPU (kernels/wfa.cu): the same results as the CPU path, pair for
//! pair, for the configurations listed below; everything else is routed to
//! the CPU path by [`crate::wfa::job::gpu_may_take`].
//!
//! # Design
//!
//! A launch starts a pool of block-resident workers; each takes pairs from an
//! atomic counter and aligns one pair at a time with its threads spread over
//! the diagonals of the wavefront, one barrier per phase of a score step (a
//! warp sync where the worker is one warp, as it is for pairs up to a few
//! kbp).
//! Sequences arrive packed 2 bits per base, so extension compares 16 bases per
//! 32-bit word. Each worker keeps a ring of the last `max_score_scope`
//! wavefronts (M, I, D): in shared memory when it is small, else in its
//! slice of global memory (on an H200 rings of up to 40 KiB in shared memory
//! ran no faster than in global memory, which stays in L1/L2, and cost
//! occupancy). That ring is all score-only alignment needs.
//!
//! For full alignment every computed cell also gets a 4-bit backtrace code:
//! the source the CPU backtrace would pick in M (mismatch, then deletion, then
//! insertion among equal offsets), and whether I and D extend or open (extend
//! wins ties). That choice depends only on the cells, so the forward pass can
//! make it. After the end is found one thread walks the codes back to score 0
//! and writes one tag per X/I/D operation, then re-extends the path forward
//! to recover the matches and replays the CPU backtrace loop over it, which
//! reproduces its CIGAR, end padding included, as runs of one operation.
//! The host keeps those runs as the pair's CIGAR ([`crate::wfa::Operations`]:
//! letters are made when asked for); where the runs found no room it replays
//! the tags itself (`replay.rs`, the Rust twin of the kernel's replay).
//!
//! Codes take 4 bits per cell in the worker's preallocated slice. A pair
//! that outgrows it is launched again with a quarter of the workers (four
//! times the memory each); one that still does not fit, or whose score
//! reaches upstream's high-memory wavefront table size, or that the CPU path
//! would find unfeasible, is returned unfinished and aligned on the CPU path
//! ("rescued"); nothing is dropped.
//!
//! # On the GPU
//!
//! Metrics indel, edit, gap-linear and gap-affine; scopes score-only and full
//! alignment; spans end-to-end and ends-free; heuristics none and wf-adaptive
//! (upstream's default); memory modes high, med and low (they give the same
//! CIGAR upstream and here).
//!
//! # Routed to the CPU path, and why
//!
//! - gap-affine-2p: a second pair of gap components the kernel does not keep.
//! - ultralow memory (BiWFA): a different algorithm with its own CIGARs.
//! - heuristics other than wf-adaptive (banded, x-drop, z-drop, wfmash): not
//!   implemented in the kernel.
//! - a finite `max_alignment_score`: the paused/resumable state lives in the
//!   CPU aligner.
//! - ends-free with a negative match score: begin-free cells are injected at
//!   later scores, which the kernel does not do.
//! - penalties whose score scope exceeds 64 (the kernel's ring).
//! - begin-free lengths longer than the sequences, and pairs longer than
//!   64 kbases in all.
//! - pairs with any byte other than upper-case `A`, `C`, `G`, `T` (`N`,
//!   lower case, anything else): the CPU compares raw bytes, the kernel
//!   2-bit codes. The runner aligns these on the CPU itself.

#[cfg(test)]
mod model;
pub mod plan;
pub mod replay;
mod runner;

pub use runner::{COUNTERS, Counters, WfaRunner, counters};

#[cfg(test)]
mod tests;
