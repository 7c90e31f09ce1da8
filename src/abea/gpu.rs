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

/// Whether a read is one the GPU path takes at all: inputs the CPU path
/// accepts, and small enough for the largest arena.
pub fn fits_a_device(job: &AlignJob) -> bool {
    AbeaRunner::bytes_for(job).is_some_and(|bytes| bytes <= MAX_ARENA / 2)
}

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
        let layout = Layout::new(jobs, chunk);
        if layout.outputs_end > self.arena.capacity() {
            return Err(DeviceError(format!(
                "ABEA chunk of {} bytes exceeds the arena",
                layout.outputs_end
            )));
        }
        layout.pack(self.arena.staging()?, jobs);
        self.arena.upload(0..layout.inputs_end)?;
        let grid = u32::try_from(layout.placed.len())
            .map_err(|_| DeviceError("too many reads for one launch".into()))?;
        self.arena.launch(
            &self.kernel,
            grid,
            BLOCK,
            0,
            &[Arg::Offset(0), Arg::U32(grid)],
        )?;
        self.launches += 1;
        self.arena.download(layout.inputs_end..layout.outputs_end)?;
        self.arena.synchronize()?;
        layout.unpack(self.arena.staging()?, jobs, results);
        Ok(())
    }
}

/// The arena image of one launch: descriptors, then every read's inputs,
/// then every read's outputs, so one upload and one download cover them.
struct Layout {
    placed: Vec<Placed>,
    inputs_end: usize,
    outputs_end: usize,
}

impl Layout {
    fn new(jobs: &[AlignJob], chunk: &[(usize, Shape)]) -> Layout {
        // The emission parameters are the host's share of the packing; the
        // CPU pool computes them for all reads at once.
        let emissions: Vec<Vec<KmerEmission>> = crate::engine::cpu::install(|| {
            use rayon::prelude::*;
            chunk
                .par_iter()
                .map_init(Vec::new, |ranks, &(job, _)| {
                    let j = &jobs[job];
                    let mut out = Vec::new();
                    cpu::fill_kmer_emission(
                        &j.sequence,
                        &j.models,
                        j.kmer_size,
                        &j.scaling,
                        ranks,
                        &mut out,
                    );
                    out
                })
                .collect()
        });
        let mut placed = Vec::with_capacity(chunk.len());
        let mut at = align16(DESC_BYTES * chunk.len());
        for (&(job, shape), kmer_emission) in chunk.iter().zip(emissions) {
            let n_events = jobs[job].means.len();
            let means = at;
            let kmers = means + align16(4 * n_events);
            at = kmers + align16(12 * shape.n_kmers);
            placed.push(Placed {
                job,
                shape,
                n_events,
                penalties: Penalties::new(n_events, shape.n_kmers),
                kmer_emission,
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
        Layout {
            placed,
            inputs_end,
            outputs_end: at,
        }
    }

    /// Writes descriptors and inputs (little-endian, as the GPU reads them).
    fn pack(&self, staging: &mut [u8], jobs: &[AlignJob]) {
        for (i, p) in self.placed.iter().enumerate() {
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
            let means = &mut staging[p.means..p.means + 4 * p.n_events];
            for (dst, mean) in means.chunks_exact_mut(4).zip(&jobs[p.job].means) {
                dst.copy_from_slice(&mean.to_le_bytes());
            }
            let kmers = &mut staging[p.kmers..p.kmers + 12 * p.shape.n_kmers];
            for (dst, k) in kmers.chunks_exact_mut(12).zip(&p.kmer_emission) {
                dst[0..4].copy_from_slice(&k.gp_mean.to_le_bytes());
                dst[4..8].copy_from_slice(&k.gp_stdv.to_le_bytes());
                dst[8..12].copy_from_slice(&k.log_norm.to_le_bytes());
            }
        }
    }

    /// Reads the kernel's outputs and finishes each read with the CPU path's
    /// end-cell search, backtrack and QC, reads in parallel on the CPU pool.
    fn unpack(&self, staging: &[u8], jobs: &[AlignJob], results: &mut [Option<Vec<AlignedPair>>]) {
        let finished: Vec<(usize, Vec<AlignedPair>)> = crate::engine::cpu::install(|| {
            use rayon::prelude::*;
            self.placed
                .par_iter()
                .map(|p| (p.job, Self::finish(staging, &jobs[p.job], p)))
                .collect()
        });
        for (job, pairs) in finished {
            results[job] = Some(pairs);
        }
    }

    fn finish(staging: &[u8], job: &AlignJob, p: &Placed) -> Vec<AlignedPair> {
        let n_bands = p.shape.n_bands;
        let ll_event: Vec<i32> = staging[p.ll_event..p.ll_event + 4 * n_bands]
            .chunks_exact(4)
            .map(|c| i32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        let last_col = &staging[p.last_col..p.last_col + 4 * p.n_events];
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
            |e, _, _| {
                let c = &last_col[4 * e..4 * e + 4];
                f32::from_le_bytes([c[0], c[1], c[2], c[3]])
            },
            &mut pairs,
        );
        if !passed {
            pairs.clear();
        }
        pairs
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
    use crate::abea::{Model, Scalings, kmer};

    #[test]
    fn descriptor_matches_the_kernel_struct() {
        // 5 offsets, 2 counts, 4 penalties: the CUDA struct has no padding.
        assert_eq!(DESC_BYTES, 5 * 8 + 2 * 4 + 4 * 8);
        assert!(SOURCE.code.contains("struct AbeaRead"));
        assert!(SOURCE.options.contains(&"--fmad=false"));
    }

    fn u64_at(buf: &[u8], at: usize) -> u64 {
        u64::from_le_bytes(buf[at..at + 8].try_into().unwrap())
    }
    fn i32_at(buf: &[u8], at: usize) -> i32 {
        i32::from_le_bytes(buf[at..at + 4].try_into().unwrap())
    }
    fn f32_at(buf: &[u8], at: usize) -> f32 {
        f32::from_le_bytes(buf[at..at + 4].try_into().unwrap())
    }
    fn f64_at(buf: &[u8], at: usize) -> f64 {
        f64::from_le_bytes(buf[at..at + 8].try_into().unwrap())
    }

    /// kernels/abea.cu transcribed statement by statement, reading its
    /// descriptors and writing its outputs in the arena image, one "thread"
    /// after the other (equivalent: within a band no thread reads what
    /// another writes). Lets the packing, the kernel's logic and the
    /// unpacking be checked against the CPU path on a machine with no GPU.
    fn emulate_kernel(buf: &mut [u8], n_reads: usize) {
        const W: usize = ALN_BANDWIDTH;
        let neg_inf = f32::NEG_INFINITY;
        for r in 0..n_reads {
            let d = r * DESC_BYTES;
            let means = u64_at(buf, d) as usize;
            let kmers = u64_at(buf, d + 8) as usize;
            let trace = u64_at(buf, d + 16) as usize;
            let ll_event = u64_at(buf, d + 24) as usize;
            let last_col = u64_at(buf, d + 32) as usize;
            let n_ev = i32_at(buf, d + 40);
            let n_km = i32_at(buf, d + 44);
            let lp_step = f64_at(buf, d + 48);
            let lp_stay = f64_at(buf, d + 56);
            let lp_skip = f64_at(buf, d + 64);
            let lp_trim = f64_at(buf, d + 72);
            let n_bands = n_ev + 1 + n_km + 1;
            let mut band = [[neg_inf; W]; 3];
            for o in 0..W {
                band[0][o] = if o == 50 { 0.0 } else { neg_inf };
                band[1][o] = if o == 50 { lp_trim as f32 } else { neg_inf };
                buf[trace + o] = 0;
                buf[trace + W + o] = if o == 50 { 1 } else { 0 };
            }
            buf[ll_event..ll_event + 4].copy_from_slice(&49i32.to_le_bytes());
            buf[ll_event + 4..ll_event + 8].copy_from_slice(&50i32.to_le_bytes());
            let (mut ll_e1, mut ll_k1, mut ll_k2) = (50i32, -51i32, -51i32);
            let (mut slot2, mut slot1, mut slot) = (0usize, 1usize, 2usize);
            let at = |band: &[f32; W], o: i32| {
                if (0..W as i32).contains(&o) {
                    band[o as usize]
                } else {
                    neg_inf
                }
            };
            for b in 2..n_bands {
                let prev2 = band[slot2];
                let prev = band[slot1];
                let (lower_left, upper_right) = (prev[0], prev[W - 1]);
                let right = if lower_left == neg_inf && upper_right == neg_inf {
                    b % 2 == 1
                } else {
                    lower_left < upper_right
                };
                let ll_e = if right { ll_e1 } else { ll_e1 + 1 };
                let ll_k = if right { ll_k1 + 1 } else { ll_k1 };
                for o in 0..W as i32 {
                    let e = ll_e - o;
                    let k = ll_k + o;
                    let mut score = neg_inf;
                    let mut from = 0u8;
                    if k == -1 {
                        if e >= 0 && e < n_ev {
                            score = (lp_trim * f64::from(e + 1)) as f32;
                            from = 1;
                        }
                    } else if e >= 0 && e < n_ev && k >= 0 && k < n_km {
                        let km = kmers + 12 * k as usize;
                        let (gp_mean, gp_stdv, log_norm) =
                            (f32_at(buf, km), f32_at(buf, km + 4), f32_at(buf, km + 8));
                        let a = (f32_at(buf, means + 4 * e as usize) - gp_mean) / gp_stdv;
                        let lp_emission = log_norm + (-0.5f32 * a) * a;
                        let up = at(&prev, ll_e1 - (e - 1));
                        let left = at(&prev, (k - 1) - ll_k1);
                        let diag = at(&prev2, (k - 1) - ll_k2);
                        let em = f64::from(lp_emission);
                        let score_d = ((f64::from(diag) + lp_step) + em) as f32;
                        let score_u = ((f64::from(up) + lp_stay) + em) as f32;
                        let score_l = (f64::from(left) + lp_skip) as f32;
                        score = score_d;
                        from = 0;
                        if score_u > score {
                            score = score_u;
                        }
                        if score == score_u {
                            from = 1;
                        }
                        if score_l > score {
                            score = score_l;
                        }
                        if score == score_l {
                            from = 2;
                        }
                        if k == n_km - 1 {
                            let lc = last_col + 4 * e as usize;
                            buf[lc..lc + 4].copy_from_slice(&score.to_le_bytes());
                        }
                    }
                    band[slot][o as usize] = score;
                    buf[trace + b as usize * W + o as usize] = from;
                }
                let lle = ll_event + 4 * b as usize;
                buf[lle..lle + 4].copy_from_slice(&ll_e.to_le_bytes());
                ll_k2 = ll_k1;
                ll_e1 = ll_e;
                ll_k1 = ll_k;
                let freed = slot2;
                slot2 = slot1;
                slot1 = slot;
                slot = freed;
            }
        }
    }

    struct Rng(u64);
    impl Rng {
        fn next(&mut self) -> u64 {
            self.0 ^= self.0 >> 12;
            self.0 ^= self.0 << 25;
            self.0 ^= self.0 >> 27;
            self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
        }
        fn unit(&mut self) -> f32 {
            (self.next() >> 40) as f32 / (1u64 << 24) as f32
        }
    }

    /// Reads of every shape the kernel meets: model-drawn events with stays
    /// and skips, unrelated events, extreme event/k-mer ratios (all −∞
    /// bands, alternating walks), non-finite values, k = 5, 6, 9.
    fn jobs() -> Vec<AlignJob> {
        let mut rng = Rng(0xabea_0901);
        let mut jobs = Vec::new();
        for k in [5u32, 6, 9] {
            let models: Arc<[Model]> = (0..1usize << (2 * k))
                .map(|_| {
                    let sd = 0.8 + 2.5 * rng.unit();
                    Model {
                        level_mean: 60.0 + 70.0 * rng.unit(),
                        level_stdv: sd,
                        level_log_stdv: f64::from(sd).ln() as f32,
                    }
                })
                .collect();
            for case in 0..24 {
                let len = k as usize
                    + match case % 4 {
                        0 => (rng.next() % 8) as usize,
                        1 => 300 + (rng.next() % 900) as usize,
                        _ => (rng.next() % 400) as usize,
                    };
                let sequence: Vec<u8> = (0..len)
                    .map(|_| b"ACGT"[(rng.next() % 4) as usize])
                    .collect();
                let scaling = Scalings {
                    scale: 1.02,
                    shift: -1.5,
                    var: 1.0,
                    log_var: 0.0,
                };
                let mut means = Vec::new();
                match case % 6 {
                    0 => means.extend((0..1 + rng.next() % 700).map(|_| 50.0 + 90.0 * rng.unit())),
                    1 => means.extend((0..1 + rng.next() % 5).map(|_| 50.0 + 90.0 * rng.unit())),
                    _ => {
                        for i in 0..=len - k as usize {
                            let r = kmer::kmer_rank(&sequence[i..], k).unwrap() as usize;
                            let m = models[r];
                            let reps =
                                [0, 1, 1, 1, 1, 1, 2, 2, 2, 2, 3, 3][(rng.next() % 12) as usize];
                            for _ in 0..reps {
                                let noise = (rng.unit() - 0.5) * 3.0 * m.level_stdv;
                                means.push(scaling.scale * m.level_mean + scaling.shift + noise);
                            }
                        }
                    }
                }
                if case == 5 {
                    means.iter_mut().step_by(7).for_each(|m| *m = f32::NAN);
                }
                if case == 11 && !means.is_empty() {
                    means[0] = f32::INFINITY;
                }
                if means.is_empty() {
                    means.push(80.0);
                }
                jobs.push(AlignJob {
                    sequence,
                    means,
                    models: models.clone(),
                    kmer_size: k,
                    scaling,
                    gpu: true,
                });
            }
        }
        jobs
    }

    #[test]
    fn emulated_kernel_equals_the_cpu_path() {
        use crate::engine::scheduler::Job;
        let jobs = jobs();
        let chunk: Vec<(usize, Shape)> = jobs
            .iter()
            .enumerate()
            .filter_map(|(i, j)| {
                Shape::new(j.sequence.len(), j.means.len(), j.models.len(), j.kmer_size)
                    .map(|s| (i, s))
            })
            .collect();
        let layout = Layout::new(&jobs, &chunk);
        // Stale bytes must not matter: the kernel writes every output byte
        // the host reads.
        let mut buf = vec![0xa5u8; layout.outputs_end];
        layout.pack(&mut buf, &jobs);
        emulate_kernel(&mut buf, layout.placed.len());
        let mut results: Vec<Option<Vec<AlignedPair>>> = jobs.iter().map(|_| None).collect();
        layout.unpack(&buf, &jobs, &mut results);
        let (mut compared, mut aligned) = (0, 0);
        for (i, job) in jobs.iter().enumerate() {
            let Some(got) = &results[i] else { continue };
            assert_eq!(got, &job.run_cpu(), "job {i}");
            compared += 1;
            aligned += usize::from(!got.is_empty());
        }
        assert!(compared > 60, "{compared}");
        assert!(aligned > 10, "only {aligned} of {compared} reads passed QC");
    }
}
