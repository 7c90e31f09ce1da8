//! The launch image of one EC chunk: where the spectrum, inputs and
//! outputs lie in the runner's arena, the kernel's arguments, and how the
//! inputs are packed and the outputs read back. The same image drives the
//! GPU and the host emulation of the kernels in tests.

use std::ops::Range;

use super::super::correct_default::Verdict;
use super::super::family::{DefaultChunk, DefaultChunkOut, V1Chunk, V1ChunkOut};
#[cfg(test)]
use super::ProbeTable;
use crate::engine::device::{Arg, DeviceError};

/// Longest read (exact-v1: the record length L) the kernels take; their
/// per-thread arrays are this long (`EC_MAX_LEN` in `kernels/ec.cu`).
/// Longer reads stay on the CPU.
pub const GPU_MAX_LEN: usize = 256;
/// Launch parts start at multiples of this.
const ALIGN: usize = 256;

fn align(at: usize) -> usize {
    at.next_multiple_of(ALIGN)
}

pub fn u32_of(value: usize, what: &str) -> Result<u32, DeviceError> {
    u32::try_from(value).map_err(|_| DeviceError(format!("EC: {what} beyond 4 GiB")))
}

/// The solid set's table as the device reads it (little-endian words).
#[cfg(test)]
pub fn table_bytes(table: &ProbeTable) -> Vec<u8> {
    let mut bytes = vec![0; 8 * table.slot_count()];
    table.write_words(&mut bytes);
    bytes
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum KernelName {
    V1Fix,
    DefaultFix,
}

impl KernelName {
    pub fn symbol(self) -> &'static str {
        match self {
            KernelName::V1Fix => "seqshim_ec_v1_fix",
            KernelName::DefaultFix => "seqshim_ec_default_fix",
        }
    }
}

/// One launch: the spectrum at offset 0, then the inputs, then the outputs.
pub struct Image<'a> {
    pub kernel: KernelName,
    /// One thread per read.
    pub threads: usize,
    pub args: Vec<Arg>,
    /// Bytes uploaded (after the spectrum).
    pub inputs: Range<usize>,
    /// Bytes downloaded (the edited reads and the per-read outputs).
    pub outputs: Range<usize>,
    pub end: usize,
    parts: Parts<'a>,
}

/// The job's inputs, borrowed: packing copies them once, into the arena.
enum Parts<'a> {
    V1 {
        records: &'a [u8],
        records_at: usize,
        outs_at: usize,
    },
    Default {
        reads: &'a [u8],
        offsets: &'a [u32],
        reads_at: usize,
        offsets_at: usize,
        verdicts_at: usize,
    },
}

impl<'a> Image<'a> {
    pub fn v1(job: &'a V1Chunk) -> Result<Image<'a>, DeviceError> {
        let cfg = &job.cfg;
        let stride = cfg.read_len + 2;
        let n = job.records.len() / stride;
        let bloom_len = job.bloom.bytes().len();
        let records_at = align(bloom_len.max(1));
        let outs_at = align(records_at + job.records.len());
        let end = outs_at + 8 * n;
        let args = vec![
            Arg::Offset(records_at),
            Arg::Offset(0),
            Arg::Offset(outs_at),
            Arg::U32(u32_of(n, "record count")?),
            Arg::U32(u32_of(bloom_len, "Bloom table")?),
            Arg::U32(job.bloom.modulus()),
            Arg::I32(cfg.read_len as i32),
            Arg::I32(cfg.k as i32),
            Arg::I32(i32::from(cfg.min_votes)),
            Arg::I32(i32::from(cfg.max_trim)),
            Arg::I32(i32::from(cfg.do_trim)),
            Arg::I32(i32::from(cfg.max_mods)),
            Arg::I32(i32::from(cfg.num_search)),
            Arg::U32(cfg.round_limit),
            Arg::I32(i32::from(job.pair)),
        ];
        Ok(Image {
            kernel: KernelName::V1Fix,
            threads: n,
            args,
            inputs: records_at..records_at + job.records.len(),
            outputs: records_at..end,
            end,
            parts: Parts::V1 {
                records: &job.records,
                records_at,
                outs_at,
            },
        })
    }

    pub fn default_mode(job: &'a DefaultChunk) -> Result<Image<'a>, DeviceError> {
        let n = job.offsets.len().saturating_sub(1);
        let reads_at = align(8 * job.table.slot_count());
        let offsets_at = align(reads_at + job.reads.len());
        let verdicts_at = align(offsets_at + 4 * job.offsets.len());
        let end = verdicts_at + 16 * n;
        let p = &job.params;
        let args = vec![
            Arg::Offset(reads_at),
            Arg::Offset(offsets_at),
            Arg::Offset(0),
            Arg::Offset(verdicts_at),
            Arg::U32(u32_of(n, "read count")?),
            Arg::U64(job.table.mask()),
            Arg::I32(p.k as i32),
            Arg::I32(i32::from(p.min_votes)),
            Arg::I32(i32::from(p.max_trim)),
            Arg::I32(i32::from(p.do_trim)),
            Arg::I32(i32::from(p.num_search)),
            Arg::U32(p.max_rounds),
        ];
        u32_of(offsets_at, "read bytes")?;
        Ok(Image {
            kernel: KernelName::DefaultFix,
            threads: n,
            args,
            inputs: reads_at..verdicts_at,
            outputs: reads_at..end,
            end,
            parts: Parts::Default {
                reads: &job.reads,
                offsets: &job.offsets,
                reads_at,
                offsets_at,
                verdicts_at,
            },
        })
    }

    /// Writes the inputs into `image` (the spectrum is written separately).
    pub fn pack_inputs(&self, image: &mut [u8]) {
        match &self.parts {
            Parts::V1 {
                records,
                records_at,
                ..
            } => image[*records_at..records_at + records.len()].copy_from_slice(records),
            Parts::Default {
                reads,
                offsets,
                reads_at,
                offsets_at,
                ..
            } => {
                image[*reads_at..reads_at + reads.len()].copy_from_slice(reads);
                for (slot, off) in image[*offsets_at..offsets_at + 4 * offsets.len()]
                    .chunks_exact_mut(4)
                    .zip(offsets.iter())
                {
                    slot.copy_from_slice(&off.to_le_bytes());
                }
            }
        }
    }

    pub fn unpack_v1(&self, image: &[u8]) -> V1ChunkOut {
        let Parts::V1 {
            records,
            records_at,
            outs_at,
        } = &self.parts
        else {
            unreachable!("an exact-v1 image")
        };
        let mut trim_start = Vec::with_capacity(self.threads);
        let mut watchdog = 0;
        for out in image[*outs_at..self.end].chunks_exact(8) {
            trim_start.push(word(&out[..4]));
            watchdog += u64::from(word(&out[4..]));
        }
        V1ChunkOut {
            records: image[*records_at..records_at + records.len()].to_vec(),
            trim_start,
            watchdog,
        }
    }

    pub fn unpack_default(&self, image: &[u8]) -> DefaultChunkOut {
        let Parts::Default {
            reads,
            reads_at,
            verdicts_at,
            ..
        } = &self.parts
        else {
            unreachable!("a default-mode image")
        };
        let verdicts = image[*verdicts_at..self.end]
            .chunks_exact(16)
            .map(|v| {
                let flags = word(&v[..4]);
                Verdict {
                    success: flags & 1 != 0,
                    capped: flags & 2 != 0,
                    rounds: word(&v[4..8]),
                    trim: (flags & 4 != 0)
                        .then(|| (word(&v[8..12]) as usize, word(&v[12..16]) as usize)),
                }
            })
            .collect();
        DefaultChunkOut {
            work: image[*reads_at..reads_at + reads.len()].to_vec(),
            verdicts,
        }
    }
}

fn word(b: &[u8]) -> u32 {
    u32::from_le_bytes(b.try_into().expect("4 bytes"))
}
