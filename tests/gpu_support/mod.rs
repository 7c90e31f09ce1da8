//! Shared by the GPU tests (`tests/<family>_gpu.rs`): the GPU or a skip,
//! and the random generator.
#![allow(dead_code)]

pub mod rng;

use std::sync::Arc;

pub use rng::Rng;
use seqshim::engine::device::{self, Gpu};

/// The first GPU in use, or `None` after printing `SKIP` and the reason.
/// With `SEQSHIM_REQUIRE_GPU=1` (the device bundle sets it) a missing GPU
/// fails the test instead.
pub fn first_gpu() -> Option<Arc<Gpu>> {
    let required = std::env::var("SEQSHIM_REQUIRE_GPU").as_deref() == Ok("1");
    if let Some(gpu) = device::gpus().first() {
        return Some(gpu.clone());
    }
    let why = match device::availability() {
        device::Availability::CpuOnly { reason } => reason.clone(),
        device::Availability::Gpus(_) => "no GPU".into(),
    };
    assert!(!required, "SEQSHIM_REQUIRE_GPU=1 but no GPU: {why}");
    eprintln!("SKIP: no usable GPU ({why})");
    None
}

/// `n` random bases.
pub fn random_seq(rng: &mut Rng, n: usize) -> Vec<u8> {
    (0..n).map(|_| b"ACGT"[rng.below(4) as usize]).collect()
}
