//! Every CUDA kernel source embedded in the library, for the compile check
//! that CI runs with NVRTC on machines without a GPU. A family adds its
//! `KernelSource` here when it adds a file to `kernels/`.

use crate::engine::device::KernelSource;

pub fn all() -> Vec<KernelSource> {
    vec![
        crate::selftest::KERNEL,
        crate::abea::KERNEL,
        crate::wfa::gpu::KERNEL,
    ]
}
