//! ABEA on a GPU: the band fill runs in `kernels/abea.cu` (one block per
//! read), the end-cell search, backtrack and QC run here on the host with the
//! CPU path's own code, so the two paths share everything but the fill.
//!
//! Device memory is one arena reserved once when the runner starts (f5c's
//! lesson: per-batch allocation can cost more than the kernels). A batch
//! larger than the arena runs as several launches; a read that alone does not
//! fit goes back to the CPU.

use std::sync::Arc;

use super::cpu::{self, Penalties, Shape, Traceback};
use super::emission::KmerEmission;
use super::{ALN_BANDWIDTH, AlignJob, AlignedPair};
use crate::engine::device::{Arena, Arg, DeviceError, Gpu, Kernel, KernelSource};
use crate::engine::scheduler::BatchRunner;

pub const SOURCE: KernelSource = KernelSource {
    name: "abea",
    code: include_str!("../../kernels/abea.cu"),
    options: &[
        "--fmad=false",
        "--ftz=false",
        "--prec-div=true",
        "--prec-sqrt=true",
    ],
};

/// Bytes of `AbeaRead` in kernels/abea.cu.
const DESC_BYTES: usize = 80;
/// Threads per block: the 100 band offsets rounded up to whole warps.
const BLOCK: u32 = 128;
/// Largest arena, so that the pinned host twin stays modest; about 10 M
/// read bases at f5c's typical 2 events per base.
const MAX_ARENA: usize = 1 << 30;
/// Share of free device memory the arena may take (f5c's default 0.9).
const MEM_FRAC: f64 = 0.9;

fn align16(n: usize) -> usize {
    n.next_multiple_of(16)
}

/// Where one read's arrays sit in the arena.
struct Placed {
    job: usize,
    shape: Shape,
    n_events: usize,
    penalties: Penalties,
    kmer_emission: Vec<KmerEmission>,
    means: usize,
    kmers: usize,
    ll_event: usize,
    last_col: usize,
    trace: usize,
}

impl Placed {
    fn input_bytes(n_events: usize, n_kmers: usize) -> usize {
        align16(4 * n_events) + align16(12 * n_kmers)
    }

    fn output_bytes(n_events: usize, n_bands: usize) -> usize {
        align16(4 * n_bands) + align16(4 * n_events) + align16(ALN_BANDWIDTH * n_bands)
    }

    fn total_bytes(n_events: usize, shape: &Shape) -> usize {
        DESC_BYTES
            + Self::input_bytes(n_events, shape.n_kmers)
            + Self::output_bytes(n_events, shape.n_bands)
    }
}

pub struct AbeaRunner {
    gpu: Arc<Gpu>,
    kernel: Kernel,
    arena: Arena,
    ranks: Vec<u32>,
    launches: u64,
}

impl AbeaRunner {
    /// Compiles (or loads from the cache) the kernel and reserves the arena.
    pub fn new(gpu: Arc<Gpu>) -> Result<Self, DeviceError> {
        let kernel = gpu.kernel(&SOURCE, "seqshim_abea_fill")?;
        let mut arena = gpu.arena(0);
        let free = gpu.memory().map(|(free, _)| free).unwrap_or(0);
        let mut bytes = ((free as f64 * MEM_FRAC) as usize).min(MAX_ARENA);
        // A busy device may refuse the first size; settle for less.
        loop {
            match arena.reserve(bytes) {
                Ok(()) => break,
                Err(e) if bytes > 64 << 20 => {
                    crate::log_debug!("ABEA arena of {bytes} bytes refused ({e}); halving");
                    bytes /= 2;
                }
                Err(e) => return Err(e),
            }
        }
        crate::log_info!(
            "ABEA: GPU {} arena of {} MiB",
            gpu.info().ordinal,
            arena.capacity() >> 20
        );
        Ok(AbeaRunner {
            gpu,
            kernel,
            arena,
            ranks: Vec::new(),
            launches: 0,
        })
    }

    /// Kernel launches so far (a batch larger than the arena takes several).
    pub fn launches(&self) -> u64 {
        self.launches
    }

    /// Bytes a read needs in the arena, or `None` for inputs the CPU path
    /// refuses (those go back to the CPU, which returns 0 for them).
    pub fn bytes_for(job: &AlignJob) -> Option<usize> {
        let shape = Shape::new(
            job.sequence.len(),
            job.means.len(),
            job.models.len(),
            job.kmer_size,
        )?;
        Some(Placed::total_bytes(job.means.len(), &shape))
    }

    fn run(&mut self, jobs: &[AlignJob]) -> Result<Vec<Option<Vec<AlignedPair>>>, DeviceError> {
        let capacity = self.arena.capacity();
        let mut results: Vec<Option<Vec<AlignedPair>>> = jobs.iter().map(|_| None).collect();
        let mut chunk: Vec<(usize, Shape)> = Vec::new();
        let mut chunk_bytes = 0;
        for (index, job) in jobs.iter().enumerate() {
            let Some(bytes) = Self::bytes_for(job) else {
                continue;
            };
            if bytes > capacity {
                continue;
            }
            if chunk_bytes + bytes > capacity {
                self.run_chunk(jobs, &chunk, &mut results)?;
                chunk.clear();
                chunk_bytes = 0;
            }
            let shape = Shape::new(
                job.sequence.len(),
                job.means.len(),
                job.models.len(),
                job.kmer_size,
            );
            if let Some(shape) = shape {
                chunk.push((index, shape));
                chunk_bytes += bytes;
            }
        }
        if !chunk.is_empty() {
            self.run_chunk(jobs, &chunk, &mut results)?;
        }
        Ok(results)
    }

    /// Packs, launches and unpacks reads that fit in the arena together.
    fn run_chunk(
        &mut self,
        jobs: &[AlignJob],
        chunk: &[(usize, Shape)],
        results: &mut [Option<Vec<AlignedPair>>],
    ) -> Result<(), DeviceError> {
        // Layout: descriptors, then every read's inputs, then every read's
        // outputs, so one upload and one download cover them.
        let mut placed = Vec::with_capacity(chunk.len());
        let mut at = align16(DESC_BYTES * chunk.len());
        for &(job, shape) in chunk {
            let n_events = jobs[job].means.len();
            let means = at;
            let kmers = means + align16(4 * n_events);
            at = kmers + align16(12 * shape.n_kmers);
            placed.push(Placed {
                job,
                shape,
                n_events,
                penalties: Penalties::new(n_events, shape.n_kmers),
                kmer_emission: Vec::new(),
                means,
                kmers,
                ll_event: 0,
                last_col: 0,
                trace: 0,
            });
        }
        let inputs_end = at;
        for p in &mut placed {
            p.ll_event = at;
            p.last_col = p.ll_event + align16(4 * p.shape.n_bands);
            p.trace = p.last_col + align16(4 * p.n_events);
            at = p.trace + align16(ALN_BANDWIDTH * p.shape.n_bands);
        }
        let outputs_end = at;
        if outputs_end > self.arena.capacity() {
            return Err(DeviceError(format!(
                "ABEA chunk of {outputs_end} bytes exceeds the arena"
            )));
        }

        for p in &mut placed {
            let job = &jobs[p.job];
            cpu::fill_kmer_emission(
                &job.sequence,
                &job.models,
                job.kmer_size,
                &job.scaling,
                &mut self.ranks,
                &mut p.kmer_emission,
            );
        }
        let staging = self.arena.staging()?;
        for (i, p) in placed.iter().enumerate() {
            let desc = &mut staging[i * DESC_BYTES..(i + 1) * DESC_BYTES];
            let mut w = 0;
            let mut put = |bytes: &[u8]| {
                desc[w..w + bytes.len()].copy_from_slice(bytes);
                w += bytes.len();
            };
            for offset in [p.means, p.kmers, p.trace, p.ll_event, p.last_col] {
                put(&(offset as u64).to_le_bytes());
            }
            put(&(p.n_events as i32).to_le_bytes());
            put(&(p.shape.n_kmers as i32).to_le_bytes());
            let pen = &p.penalties;
            for value in [pen.lp_step, pen.lp_stay, pen.lp_skip, pen.lp_trim] {
                put(&value.to_le_bytes());
            }
            let job = &jobs[p.job];
            for (j, mean) in job.means.iter().enumerate() {
                staging[p.means + 4 * j..p.means + 4 * j + 4].copy_from_slice(&mean.to_le_bytes());
            }
            for (j, k) in p.kmer_emission.iter().enumerate() {
                let o = p.kmers + 12 * j;
                staging[o..o + 4].copy_from_slice(&k.gp_mean.to_le_bytes());
                staging[o + 4..o + 8].copy_from_slice(&k.gp_stdv.to_le_bytes());
                staging[o + 8..o + 12].copy_from_slice(&k.log_norm.to_le_bytes());
            }
        }

        self.arena.upload(0..inputs_end)?;
        let grid = u32::try_from(placed.len())
            .map_err(|_| DeviceError("too many reads for one launch".into()))?;
        self.arena.launch(
            &self.kernel,
            grid,
            BLOCK,
            0,
            &[Arg::Offset(0), Arg::U32(grid)],
        )?;
        self.launches += 1;
        self.arena.download(inputs_end..outputs_end)?;
        self.arena.synchronize()?;

        let staging = self.arena.staging()?;
        let mut ll_event = Vec::new();
        let mut last_col = Vec::new();
        for p in &placed {
            let job = &jobs[p.job];
            let n_bands = p.shape.n_bands;
            ll_event.clear();
            ll_event.extend(
                staging[p.ll_event..p.ll_event + 4 * n_bands]
                    .chunks_exact(4)
                    .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            );
            last_col.clear();
            last_col.extend(
                staging[p.last_col..p.last_col + 4 * p.n_events]
                    .chunks_exact(4)
                    .map(|c| f32::from_le_bytes([c[0], c[1], c[2], c[3]])),
            );
            let trace = &staging[p.trace..p.trace + ALN_BANDWIDTH * n_bands];
            let mut pairs = Vec::new();
            let passed = cpu::backtrack(
                &Traceback {
                    n_events: p.n_events,
                    n_kmers: p.shape.n_kmers,
                    lp_trim: p.penalties.lp_trim,
                    trace,
                    ll_event: &ll_event,
                    kmer_emission: &p.kmer_emission,
                },
                |e| job.means[e],
                |e, _, _| last_col[e],
                &mut pairs,
            );
            if !passed {
                pairs.clear();
            }
            results[p.job] = Some(pairs);
        }
        Ok(())
    }
}

impl BatchRunner<AlignJob> for AbeaRunner {
    fn label(&self) -> String {
        let info = self.gpu.info();
        format!("GPU {} ({})", info.ordinal, info.name)
    }

    fn capacity(&self) -> usize {
        // f5c's default batch is 512 reads; more per launch keeps a large GPU
        // busy, and the arena limit splits launches anyway.
        4_096
    }

    fn run_batch(&mut self, jobs: &[AlignJob]) -> Result<Vec<Option<Vec<AlignedPair>>>, String> {
        self.run(jobs).map_err(|e| e.to_string())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn descriptor_matches_the_kernel_struct() {
        // 5 offsets, 2 counts, 4 penalties: the CUDA struct has no padding.
        assert_eq!(DESC_BYTES, 5 * 8 + 2 * 4 + 4 * 8);
        assert!(SOURCE.code.contains("struct AbeaRead"));
        assert!(SOURCE.options.contains(&"--fmad=false"));
    }
}
