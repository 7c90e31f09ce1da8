//! Is there a CUDA driver and an NVRTC library, and which GPUs do we use
//! (all visible ones, or those `SEQSHIM_DEVICES` names)?

use std::sync::Arc;

use cudarc::driver::CudaContext;
use cudarc::nvrtc::sys as nvrtc_sys;

use super::context::{err, shielded};
use super::{DeviceError, Gpu};

/// Whether an NVRTC library can be loaded at all.
pub fn nvrtc_present() -> bool {
    // SAFETY: `is_culib_present` only tries `dlopen` on candidate file names
    // and closes what it opens; it touches no CUDA state.
    crate::engine::panic::expecting(|| unsafe { nvrtc_sys::is_culib_present() }).unwrap_or(false)
}

/// Whether a CUDA driver library can be loaded at all.
pub(super) fn driver_present() -> bool {
    // SAFETY: `is_culib_present` only tries `dlopen` on candidate names.
    crate::engine::panic::expecting(|| unsafe { cudarc::driver::sys::is_culib_present() })
        .unwrap_or(false)
}

pub(super) fn probe(wanted: Option<&[usize]>) -> Result<Vec<Arc<Gpu>>, DeviceError> {
    if !driver_present() {
        return Err(DeviceError(
            "no CUDA driver library (libcuda.so.1) could be loaded".into(),
        ));
    }
    if !nvrtc_present() {
        return Err(DeviceError(
            "CUDA driver found but no NVRTC library (libnvrtc.so.13 or .12) to compile kernels"
                .into(),
        ));
    }
    // NVRTC's exit handlers go ahead of the exit wait (see `nvrtc::prime`).
    super::nvrtc::load();
    super::hook_exit();
    let count = shielded("CUDA initialisation", || {
        CudaContext::device_count().map_err(|e| err("cuInit/cuDeviceGetCount failed", e))
    })?;
    super::hook_exit();
    if count <= 0 {
        return Err(DeviceError("the CUDA driver reports no GPU".into()));
    }
    let ordinals: Vec<usize> = match wanted {
        Some(list) => list.to_vec(),
        None => (0..count as usize).collect(),
    };
    let mut gpus = Vec::new();
    let mut skipped = Vec::new();
    for ordinal in ordinals {
        if ordinal >= count as usize {
            let why = format!("GPU {ordinal}: not present ({count} visible)");
            crate::log_warn!("not using {why}");
            skipped.push(why);
            continue;
        }
        match Gpu::open(ordinal) {
            Ok(gpu) => gpus.push(Arc::new(gpu)),
            Err(e) if e.driver_shutting_down() => {
                crate::log_info!("not using GPU {ordinal}: the process is exiting ({e})");
                skipped.push(format!("GPU {ordinal}: {e}"));
            }
            Err(e) => {
                crate::log_warn!("not using GPU {ordinal}: {e}");
                skipped.push(format!("GPU {ordinal}: {e}"));
            }
        }
    }
    super::hook_exit();
    if gpus.is_empty() {
        return Err(DeviceError(format!(
            "no usable GPU ({})",
            skipped.join("; ")
        )));
    }
    Ok(gpus)
}
