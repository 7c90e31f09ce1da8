//! The runtime every family shares: configuration, logging, the CPU pool, the
//! CUDA device layer and the scheduler that routes jobs between them.
//! Nothing in here knows about a particular kernel family.

pub mod config;
pub mod cost_model;
pub mod cpu;
#[allow(unsafe_code)]
pub mod device;
pub mod family;
pub mod fork;
pub mod log;
pub mod panic;
pub mod report;
pub mod scheduler;
