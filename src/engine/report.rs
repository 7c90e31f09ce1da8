//! The backend report: which backend runs, on which GPUs, and why the CPU
//! when that is what runs. `seqshim_backend_info` hands it to C callers and
//! the tests print it when they skip GPU checks.

use super::{config, cpu, device};

/// The text `seqshim_backend_info` reports: which backend, which GPUs, and
/// why the CPU when that is what runs.
pub fn backend_report() -> String {
    let config = config::get();
    let mut text = String::new();
    match device::availability() {
        device::Availability::Gpus(gpus) => {
            text.push_str("backend: cuda\n");
            for gpu in gpus {
                let info = gpu.info();
                text.push_str(&format!(
                    "gpu {}: {} (sm_{}{}, {} MiB)\n",
                    info.ordinal,
                    info.name,
                    info.compute_capability.0,
                    info.compute_capability.1,
                    info.total_memory >> 20
                ));
                let ledger = gpu.ledger();
                let usage = ledger.usage();
                text.push_str(&format!(
                    "gpu {} memory: cap {} MiB ({}), in use {} MiB, peak {} MiB, pinned host {} MiB\n",
                    info.ordinal,
                    ledger.cap() >> 20,
                    match config.gpu_memory {
                        Some(_) => "SEQSHIM_GPU_MEMORY",
                        None => "default: half the free memory at start, at most a quarter of the GPU",
                    },
                    usage.device >> 20,
                    usage.peak >> 20,
                    usage.pinned >> 20,
                ));
            }
            if let Ok((major, minor)) = device::nvrtc_version() {
                text.push_str(&format!("nvrtc: {major}.{minor}\n"));
            }
        }
        device::Availability::CpuOnly { reason } => {
            text.push_str("backend: cpu\n");
            text.push_str(&format!("reason: {reason}\n"));
        }
    }
    text.push_str(&format!("cpu threads: {}\n", cpu::threads()));
    let (compiled, cached) = device::kernel_counters();
    let cache_dir = config
        .kernel_cache_dir()
        .map(|p| p.display().to_string())
        .unwrap_or_else(|| "none".into());
    text.push_str(&format!(
        "kernel cache: {cache_dir} ({compiled} compiled, {cached} loaded from cache)\n"
    ));
    if config.strict {
        text.push_str("strict: on\n");
    }
    for warning in &config.warnings {
        text.push_str(&format!("config warning: {warning}\n"));
    }
    text
}
