//! seqshim: one shared library that speaks the C ABIs of genomics kernels and
//! runs their calls on the GPU in batches when one is present, on the CPU
//! otherwise, with identical results.
//!
//! Folders say what a module may touch: `engine` is the runtime every family
//! shares and knows no family; `ffi` is the C boundary and holds no algorithm.
//! `unsafe` is allowed only in `ffi` and `engine::device`, and every block
//! says why it is sound (`tests/layering.rs` checks both rules).

#![deny(unsafe_code)]
#![deny(clippy::undocumented_unsafe_blocks)]

pub mod abea;
/// CUDA-EC spectrum error correction; C sees it through `ffi::cudaec`
/// (`seqshim_ec_*` in `seqshim.h`, `seqshim_cudaec_run_test` in the
/// hand-written `include/seqshim_cudaec.h`).
///
/// cbindgen:ignore
pub mod ec;
pub mod engine;
#[allow(unsafe_code)]
pub mod ffi;
/// Darwin's GACT; C sees it only through `ffi::darwin` and its hand-written
/// header `include/seqshim/gact.h`.
///
/// cbindgen:ignore
pub mod gact;
pub mod poa;
pub mod selftest;
/// The pure-Rust wavefront algorithm; C sees it only through `ffi::wfa2`.
///
/// cbindgen:ignore
pub mod wfa;
