//! Where the batch API's windows ran, for reports (`seqshim_poa_routing`).

use crate::engine::family;

/// (windows run on a GPU, windows run on the CPU, the GPUs POA uses) since
/// the process started. A window a GPU gave back (over its node budget,
/// or its device failed) counts as run on the CPU.
pub fn window_routing() -> (u64, u64, Vec<String>) {
    let scheduler = family::scheduler::<super::Poa>();
    let s = scheduler.stats();
    (
        s.batched_jobs.saturating_sub(s.rescued_jobs),
        s.inline_jobs + s.rescued_jobs,
        scheduler.devices().to_vec(),
    )
}
