//! Two lanes of device memory reserved once, for a runner whose launches
//! alternate between them: while the GPU works on one lane, the host packs
//! the next launch into the other. Sized from what the process's
//! device-memory budget has left (a fifth each), never from all free memory,
//! so processes sharing a GPU each keep to their share.

use std::sync::Arc;

use super::{Arena, DeviceError, Gpu};

/// How large a family's lanes may be.
#[derive(Clone, Copy, Debug)]
pub struct LaneSizes {
    /// Largest lane worth reserving.
    pub most: usize,
    /// Smallest lane worth a runner; below it the family stays on the CPU.
    pub least: usize,
    /// One byte in `host_share` of a lane is mirrored in pinned host memory.
    pub host_share: usize,
}

/// Reserves the two lanes, halving their size while the device refuses it.
pub fn reserve_two(
    gpu: &Arc<Gpu>,
    family: &str,
    sizes: LaneSizes,
) -> Result<[Arena; 2], DeviceError> {
    let free = gpu.ledger().available();
    let mut lane = (free / 5).min(sizes.most);
    loop {
        if lane < sizes.least {
            return Err(DeviceError(format!(
                "only {} MiB of this process's device-memory budget left for {family}",
                free >> 20
            )));
        }
        let mut lanes = [gpu.arena(0), gpu.arena(1)];
        let host = lane / sizes.host_share.max(1);
        match lanes
            .iter_mut()
            .try_for_each(|a| a.reserve_split(lane, host))
        {
            Ok(()) => {
                crate::log_info!(
                    "{family}: GPU {} reserved 2 lanes of {} MiB ({} MiB pinned each)",
                    gpu.info().ordinal,
                    lanes[0].capacity() >> 20,
                    lanes[0].host_capacity() >> 20
                );
                return Ok(lanes);
            }
            Err(e) => {
                crate::log_debug!("{family} lanes of {lane} bytes refused ({e}); halving");
                lane /= 2;
            }
        }
    }
}

/// The room of one launch in either lane: (device bytes, mirrored bytes),
/// less `slack` for the alignment of the launch's parts.
pub fn rooms(lanes: &[Arena; 2], slack: usize) -> (usize, usize) {
    let device = lanes.iter().map(Arena::capacity).min().unwrap_or(0);
    let host = lanes.iter().map(Arena::host_capacity).min().unwrap_or(0);
    (device.saturating_sub(slack), host.saturating_sub(slack))
}
