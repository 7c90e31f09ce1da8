//! Default mode's k-mer counting on a GPU (`seqshim_ec_count` and
//! `seqshim_ec_solid` in `kernels/ec.cu`): all reads of a call into one
//! open-addressing table of canonical codes and counts in device memory,
//! then the solid codes listed. Only the reads go up and only the solid
//! codes come back.
//!
//! Launch image: the reads, their offsets and two flag words, uploaded
//! straight from the job's buffers (no pinned mirror); the table after
//! them. The solid codes are listed over the reads, which are no longer
//! needed (room for one code per 8 read bytes: a set with more solid k-mers
//! than that is counted on the CPU instead, as is one whose table would not
//! fit), and come back through a pinned mirror of just the list.

use std::ops::Range;

use super::table::EMPTY_SLOT;
use crate::engine::device::{Arena, Arg, DeviceError, Gpu, Kernel};

const ALIGN: usize = 256;
const BLOCK: u32 = 128;

fn align(at: usize) -> usize {
    at.next_multiple_of(ALIGN)
}

/// Where the parts of a counting launch lie.
pub struct CountImage {
    pub reads: Range<usize>,
    pub offsets: Range<usize>,
    pub flags: Range<usize>,
    pub keys: usize,
    pub counts: usize,
    pub slots: u64,
    pub end: usize,
    /// Solid codes the listing has room for (over the reads).
    pub room: u32,
}

impl CountImage {
    /// The image for `read_bytes` bytes of `reads` reads whose windows
    /// number `windows`: a table of a power of two slots at least
    /// `windows` (so at most half full unless nearly every window is a new
    /// k-mer), at least 2^16.
    pub fn new(read_bytes: usize, reads: usize, windows: u64) -> CountImage {
        let reads_part = 0..read_bytes;
        let offsets_at = align(read_bytes.max(8));
        let offsets = offsets_at..offsets_at + 4 * (reads + 1);
        let flags_at = align(offsets.end);
        let flags = flags_at..flags_at + 8;
        let slots = windows.max(1 << 16).next_power_of_two();
        let keys = align(flags.end);
        let counts = keys + 8 * slots as usize;
        let end = counts + 4 * slots as usize;
        CountImage {
            room: u32::try_from(offsets_at / 8).unwrap_or(u32::MAX),
            reads: reads_part,
            offsets,
            flags,
            keys,
            counts,
            slots,
            end,
        }
    }

    /// The offsets as the device reads them (little-endian words).
    pub fn offset_bytes(offsets: &[u32]) -> Vec<u8> {
        offsets.iter().flat_map(|o| o.to_le_bytes()).collect()
    }

    /// The inputs as the runner uploads them, into a whole image: the
    /// reads, the offsets, the flags zeroed (for the host emulation).
    #[cfg(test)]
    pub fn pack(&self, image: &mut [u8], reads: &[u8], offsets: &[u32]) {
        image[self.reads.clone()].copy_from_slice(reads);
        image[self.offsets.clone()].copy_from_slice(&Self::offset_bytes(offsets));
        image[self.flags.clone()].fill(0);
    }

    /// The kernels' arguments: clear, count, solid.
    pub fn args(&self, reads: u32, k: usize, min_mult: u32) -> [Vec<Arg>; 3] {
        let mask = self.slots - 1;
        [
            vec![
                Arg::Offset(self.keys),
                Arg::Offset(self.counts),
                Arg::U64(self.slots),
            ],
            vec![
                Arg::Offset(self.reads.start),
                Arg::Offset(self.offsets.start),
                Arg::U32(reads),
                Arg::Offset(self.keys),
                Arg::Offset(self.counts),
                Arg::U64(mask),
                Arg::I32(k as i32),
                Arg::Offset(self.flags.start),
            ],
            vec![
                Arg::Offset(self.keys),
                Arg::Offset(self.counts),
                Arg::U64(self.slots),
                Arg::U32(min_mult),
                Arg::Offset(self.reads.start),
                Arg::U32(self.room),
                Arg::Offset(self.flags.start),
            ],
        ]
    }

    /// (table overflowed, solid codes) from the two flag words.
    pub fn flags_of(flags: &[u8; 8]) -> (bool, u32) {
        let word = |at: usize| u32::from_le_bytes(flags[at..at + 4].try_into().expect("4 bytes"));
        (word(0) != 0, word(4))
    }

    /// The listed solid codes.
    pub fn codes(&self, image: &[u8], solid: u32) -> Vec<u64> {
        image[..8 * solid as usize]
            .chunks_exact(8)
            .map(|c| u64::from_le_bytes(c.try_into().expect("8 bytes")))
            .inspect(|&c| debug_assert_ne!(c, EMPTY_SLOT))
            .collect()
    }
}

/// The counting kernels of one GPU. Each call takes device memory for its
/// table and gives it back at the end: a process counts once, and the
/// table (often gigabytes) must not stay reserved while it corrects.
pub struct Counter {
    pub(super) clear: Kernel,
    pub(super) count: Kernel,
    pub(super) solid: Kernel,
}

impl Counter {
    /// Counts the reads; `Ok(None)` when the table or the list would not
    /// fit (the caller counts on the CPU).
    pub fn run(
        &self,
        gpu: &std::sync::Arc<Gpu>,
        reads: &[u8],
        offsets: &[u32],
        k: usize,
        min_mult: u32,
        windows: u64,
    ) -> Result<Option<Vec<u64>>, DeviceError> {
        let n = offsets.len().saturating_sub(1);
        let image = CountImage::new(reads.len(), n, windows);
        if image.end > gpu.ledger().available() {
            crate::log_info!(
                "EC: counting {} reads needs {} MiB of device memory; counting on the CPU",
                n,
                image.end >> 20
            );
            return Ok(None);
        }
        let n32 = u32::try_from(n).map_err(|_| DeviceError("EC: too many reads".into()))?;
        let started = std::time::Instant::now();
        let mut arena: Arena = gpu.arena(0);
        // Device memory only at first: the reads go up straight from the
        // job's buffer (a pinned mirror of 2 GB of reads took a second to
        // allocate), and only the flag words and the solid codes come back.
        arena.reserve_split(image.end, 0)?;
        let reserved = started.elapsed();
        arena.upload_unstaged(reads, image.reads.start)?;
        arena.upload_unstaged(&CountImage::offset_bytes(offsets), image.offsets.start)?;
        arena.upload_unstaged(&[0; 8], image.flags.start)?;
        let uploaded = started.elapsed();
        let [clear, count, solid] = image.args(n32, k, min_mult);
        let slot_blocks = u32::try_from(image.slots.div_ceil(u64::from(BLOCK)))
            .map_err(|_| DeviceError("EC: counting table too large".into()))?;
        arena.launch(&self.clear, slot_blocks, BLOCK, 0, &clear)?;
        arena.launch(&self.count, n32.div_ceil(BLOCK).max(1), BLOCK, 0, &count)?;
        arena.launch(&self.solid, slot_blocks, BLOCK, 0, &solid)?;
        let mut flags = [0u8; 8];
        arena.download_unstaged(image.flags.start, &mut flags)?;
        let (overflow, listed) = CountImage::flags_of(&flags);
        if overflow || listed > image.room {
            crate::log_info!(
                "EC: the GPU's counting table was too small ({} slots, {listed} solid); counting on the CPU",
                image.slots
            );
            return Ok(None);
        }
        let counted = started.elapsed();
        // The list lies at the start of the arena: a pinned mirror of just
        // it brings it back at full speed (into ordinary memory, 240 MB of
        // codes took 0.4 s).
        let list_bytes = 8 * listed as usize;
        if list_bytes == 0 {
            return Ok(Some(Vec::new()));
        }
        arena.reserve_split(image.end, list_bytes)?;
        arena.download(0..list_bytes)?;
        let codes = image.codes(arena.staging()?, listed);
        crate::log_debug!(
            "EC counting: reserve {:?}, upload {:?}, kernels {:?}, list {:?}",
            reserved,
            uploaded - reserved,
            counted - uploaded,
            started.elapsed() - counted
        );
        Ok(Some(codes))
    }
}
