//! CUDA-EC on a GPU: the runners of the two families' kernels in
//! `kernels/ec.cu`, one thread per read. A job is a chunk of a bulk call
//! (records of one exact-v1 kernel launch, or default-mode reads); each runs
//! as one launch. The spectrum (v1's Bloom table or the solid set's probe
//! table) sits at the start of the runner's arena and is uploaded only when
//! a job brings another one, so the chunks of one call upload it once.

mod count;
#[cfg(test)]
mod emulation_tests;
mod layout;
mod table;

use std::sync::Arc;

pub use layout::GPU_MAX_LEN;
pub use table::ProbeTable;

use super::family::{CountJob, DefaultChunk, DefaultChunkOut, V1Chunk, V1ChunkOut};
use crate::engine::device::{self, Arena, DeviceError, Gpu, Kernel};
use crate::engine::scheduler::{BatchRunner, InjectedFailures};
use layout::{Image, KernelName, u32_of};

/// Threads per block: one read each, about 1.8 KB of local arrays apiece.
const BLOCK: u32 = 128;

/// Which spectrum the arena holds: the address of the job's shared copy,
/// kept alive while it is cached so that the address cannot be reused.
enum Loaded {
    None,
    Bloom(Arc<crate::ec::BloomTableV1>),
    Table(Arc<ProbeTable>),
}

/// The spectrum a launch reads from the start of the arena: v1's Bloom
/// bytes, or the solid set's table (written straight into the staging
/// buffer: no copy of a table that can be half a gigabyte).
enum Spectrum<'a> {
    Bytes(&'a [u8]),
    Table(&'a ProbeTable),
}

/// One GPU's EC kernels and the memory of its launches.
pub struct EcRunner {
    gpu: Arc<Gpu>,
    v1_fix: Kernel,
    default_fix: Kernel,
    arena: Arena,
    loaded: Loaded,
    launches: u64,
    failures: InjectedFailures,
}

impl EcRunner {
    pub fn new(gpu: Arc<Gpu>) -> Result<Self, DeviceError> {
        Self::on_lane(gpu, 0)
    }

    /// A runner whose launches go to the GPU's stream `lane`: runners on
    /// different lanes overlap one's host steps with another's kernel.
    pub fn on_lane(gpu: Arc<Gpu>, lane: usize) -> Result<Self, DeviceError> {
        let source = device::kernel_source(<super::EcV1 as crate::engine::family::Family>::KERNEL)?;
        let v1_fix = gpu.kernel(source, KernelName::V1Fix.symbol())?;
        let default_fix = gpu.kernel(source, KernelName::DefaultFix.symbol())?;
        let arena = gpu.arena(lane);
        Ok(EcRunner {
            gpu,
            v1_fix,
            default_fix,
            arena,
            loaded: Loaded::None,
            launches: 0,
            failures: InjectedFailures::default(),
        })
    }

    /// Kernel launches so far.
    pub fn launches(&self) -> u64 {
        self.launches
    }

    /// Makes the next `batches` batches fail as a failing device would.
    pub fn inject_failures(&mut self, batches: u32) {
        self.failures.set(batches);
    }

    /// Makes room for `bytes` (all of them mirrored on the host); a buffer
    /// that had to grow lost the cached spectrum.
    fn reserve(&mut self, bytes: usize) -> Result<(), DeviceError> {
        let before = self.arena.capacity();
        self.arena.reserve(bytes)?;
        if self.arena.capacity() != before {
            self.loaded = Loaded::None;
        }
        Ok(())
    }

    /// Runs one launch of `image`: the spectrum at its start (uploaded
    /// unless `same_spectrum`), inputs uploaded, outputs downloaded and
    /// unpacked by the image's own code.
    fn launch(
        &mut self,
        image: &Image,
        spectrum: Spectrum<'_>,
        same_spectrum: bool,
    ) -> Result<(), DeviceError> {
        self.reserve(image.end)?;
        if !same_spectrum {
            self.loaded = Loaded::None;
            let staging = self.arena.staging()?;
            let bytes = match spectrum {
                Spectrum::Bytes(bytes) => {
                    staging[..bytes.len()].copy_from_slice(bytes);
                    bytes.len()
                }
                Spectrum::Table(table) => {
                    table.write_words(&mut staging[..8 * table.slot_count()]);
                    8 * table.slot_count()
                }
            };
            if bytes > 0 {
                self.arena.upload(0..bytes)?;
            }
        }
        image.pack_inputs(&mut self.arena.staging()?[..image.end]);
        self.arena.upload(image.inputs.clone())?;
        let kernel = match image.kernel {
            KernelName::V1Fix => &self.v1_fix,
            KernelName::DefaultFix => &self.default_fix,
        };
        let threads = u32_of(image.threads, "thread count")?;
        self.arena
            .launch(kernel, threads.div_ceil(BLOCK), BLOCK, 0, &image.args)?;
        self.arena.download(image.outputs.clone())?;
        self.arena.synchronize()?;
        self.launches += 1;
        Ok(())
    }

    /// One exact-v1 chunk: records in place, then per record the trimmed
    /// start and the watchdog flag.
    pub fn run_v1(&mut self, job: &V1Chunk) -> Result<V1ChunkOut, DeviceError> {
        let image = Image::v1(job)?;
        let same = matches!(&self.loaded, Loaded::Bloom(b) if Arc::ptr_eq(b, &job.bloom));
        self.launch(&image, Spectrum::Bytes(job.bloom.bytes()), same)?;
        self.loaded = Loaded::Bloom(job.bloom.clone());
        crate::log_debug!(
            "EC: {}: exact-v1 launch of {} records",
            self.label(),
            image.threads
        );
        Ok(image.unpack_v1(&self.arena.staging()?[..image.end]))
    }

    /// One default-mode chunk: reads judged in place, one verdict each.
    pub fn run_default(&mut self, job: &DefaultChunk) -> Result<DefaultChunkOut, DeviceError> {
        let image = Image::default_mode(job)?;
        let same = matches!(&self.loaded, Loaded::Table(t) if Arc::ptr_eq(t, &job.table));
        self.launch(&image, Spectrum::Table(&job.table), same)?;
        self.loaded = Loaded::Table(job.table.clone());
        crate::log_debug!(
            "EC: {}: default-mode launch of {} reads",
            self.label(),
            image.threads
        );
        Ok(image.unpack_default(&self.arena.staging()?[..image.end]))
    }

    fn label(&self) -> String {
        crate::engine::family::gpu_label(&self.gpu)
    }

    /// Chunks of one call are large (a launch each); a batch is a few.
    fn max_cost(&self) -> u64 {
        let budget = self.gpu.ledger().available() as u64;
        (budget / 4).clamp(16 << 20, 1 << 30)
    }
}

/// The exact-v1 family's runner.
pub struct V1Runner(pub EcRunner);
/// The default-mode family's runner.
pub struct DefaultRunner(pub EcRunner);

impl BatchRunner<V1Chunk> for V1Runner {
    fn label(&self) -> String {
        self.0.label()
    }
    fn capacity(&self) -> usize {
        64
    }
    fn max_batch_cost(&self) -> u64 {
        self.0.max_cost()
    }
    fn run_batch(&mut self, jobs: &[V1Chunk]) -> Result<Vec<Option<V1ChunkOut>>, String> {
        self.0.failures.take("EC")?;
        jobs.iter()
            .map(|job| self.0.run_v1(job).map(Some).map_err(|e| e.to_string()))
            .collect()
    }
}

impl BatchRunner<DefaultChunk> for DefaultRunner {
    fn label(&self) -> String {
        self.0.label()
    }
    fn capacity(&self) -> usize {
        64
    }
    fn max_batch_cost(&self) -> u64 {
        self.0.max_cost()
    }
    fn run_batch(&mut self, jobs: &[DefaultChunk]) -> Result<Vec<Option<DefaultChunkOut>>, String> {
        self.0.failures.take("EC")?;
        jobs.iter()
            .map(|job| self.0.run_default(job).map(Some).map_err(|e| e.to_string()))
            .collect()
    }
}

/// The counting family's runner: one GPU's counting kernels.
pub struct CountRunner {
    gpu: Arc<Gpu>,
    counter: count::Counter,
}

impl CountRunner {
    pub fn new(gpu: Arc<Gpu>) -> Result<Self, DeviceError> {
        let source = device::kernel_source(<super::EcV1 as crate::engine::family::Family>::KERNEL)?;
        let counter = count::Counter {
            clear: gpu.kernel(source, "seqshim_ec_table_clear")?,
            count: gpu.kernel(source, "seqshim_ec_count")?,
            solid: gpu.kernel(source, "seqshim_ec_solid")?,
        };
        Ok(CountRunner { gpu, counter })
    }

    /// The solid codes of the job's reads, or `None` when they do not fit
    /// this GPU (the CPU counts them).
    pub fn run(&self, job: &CountJob) -> Result<Option<Vec<u64>>, DeviceError> {
        self.counter.run(
            &self.gpu,
            &job.reads,
            &job.offsets,
            job.k,
            job.min_mult,
            job.windows,
        )
    }
}

impl BatchRunner<CountJob> for CountRunner {
    fn label(&self) -> String {
        crate::engine::family::gpu_label(&self.gpu)
    }
    fn capacity(&self) -> usize {
        4
    }
    /// One counting job at a time: each takes its whole table.
    fn max_batch_cost(&self) -> u64 {
        1
    }
    fn run_batch(&mut self, jobs: &[CountJob]) -> Result<Vec<Option<Option<Vec<u64>>>>, String> {
        jobs.iter()
            .map(|job| self.run(job).map(Some).map_err(|e| e.to_string()))
            .collect()
    }
}
