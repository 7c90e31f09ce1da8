//! The C boundary and nothing else: argument checks, panic containment and
//! conversion between C memory and the families' Rust types. Every export
//! documents its contract in a `# Safety` section.

pub mod boa;
pub mod cudaec;
pub mod darwin;
pub mod f5c;
pub mod fork;
pub mod guard;
pub mod handle;
pub mod native;
pub mod poa_batch;
pub mod status;
/// The WFA2-lib mirror has hand-written headers in `include/wfa2lib/`.
///
/// cbindgen:ignore
pub mod wfa2;
pub mod wfa_batch;
