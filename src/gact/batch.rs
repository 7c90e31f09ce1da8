//! GACT as a family of the engine: a tile (`AlignWithBT`) and a whole
//! extension (`GACT`) are each one job. Tiles run on every GPU in use
//! (`gpu::TileRunner`) and on the CPU pool; extensions run on the CPU pool.
//! The batch entry points hand whole batches to [`Scheduler::run_all`].

use std::sync::Arc;

use crate::engine::device::{DeviceError, Gpu};
use crate::engine::family::{self, Family};
use crate::engine::scheduler::{BatchRunner, Job, ScheduleError};

use super::{Alignment, ExtendOptions, GactError, MAX_TILE_LEN, Params, TileOptions, TileResult};

/// One tile to align, owning its bases so that it can wait in a queue.
#[derive(Debug, Clone)]
pub struct TileJob {
    pub ref_: Vec<u8>,
    pub query: Vec<u8>,
    pub params: Params,
    pub opts: TileOptions,
}

impl Job for TileJob {
    type Output = Result<TileResult, GactError>;

    fn run_cpu(&self) -> Self::Output {
        super::align_tile(&self.ref_, &self.query, &self.params, self.opts)
    }

    fn gpu_eligible(&self) -> bool {
        self.kernel_takes()
    }

    /// DP cells.
    fn cost(&self) -> u64 {
        (self.ref_.len() as u64).max(1) * (self.query.len() as u64).max(1)
    }
}

impl TileJob {
    /// Whether the GPU kernel computes this tile: both sides 1..=511, and
    /// inputs the CPU path accepts (the CPU path answers the others at once,
    /// with its empty result or its error).
    pub fn kernel_takes(&self) -> bool {
        let (m, n) = (self.ref_.len(), self.query.len());
        let inside = |p: i32, len: usize| p >= 0 && p as usize <= len;
        (1..=MAX_TILE_LEN).contains(&m)
            && (1..=MAX_TILE_LEN).contains(&n)
            && self.params.validate().is_ok()
            && (self.opts.first || (inside(self.opts.ref_pos, m) && inside(self.opts.query_pos, n)))
    }
}

/// One extension to run. The sequences are shared: the requests of a batch
/// usually extend many seeds against the same reference.
#[derive(Debug, Clone)]
pub struct ExtendJob {
    pub ref_: Arc<[u8]>,
    pub query: Arc<[u8]>,
    pub params: Params,
    pub opts: ExtendOptions,
}

impl Job for ExtendJob {
    type Output = Result<Alignment, GactError>;

    fn run_cpu(&self) -> Self::Output {
        super::extend(&self.ref_, &self.query, &self.params, self.opts)
    }

    /// Roughly the DP cells of the tiles: the shorter sequence over the
    /// advance per tile, times a tile.
    fn cost(&self) -> u64 {
        let t = self.opts.tile_size.max(1) as u64;
        let step = (self.opts.tile_size - self.opts.tile_overlap).max(1) as u64;
        let span = self.ref_.len().min(self.query.len()) as u64;
        (span / step + 1) * t * t
    }
}

/// GACT tiles as a family of the engine: one runner per GPU.
pub struct GactTiles;

impl Family for GactTiles {
    const NAME: &'static str = "GACT";
    const KERNEL: &'static str = "gact";
    type Job = TileJob;

    fn runners(gpu: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<TileJob>>>, DeviceError> {
        Ok(vec![Box::new(super::gpu::TileRunner::new(gpu.clone())?)])
    }
}

/// GACT extensions as a family of the engine. Extensions stay on the CPU
/// pool: on the GPU they would advance one tile per round in lock-step,
/// which is not written yet; so no kernel is named and no device started.
pub struct GactExtensions;

impl Family for GactExtensions {
    const NAME: &'static str = "GACT";
    const KERNEL: &'static str = "";
    type Job = ExtendJob;

    fn runners(_: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<ExtendJob>>>, DeviceError> {
        Ok(Vec::new())
    }
}

/// Where the tiles of this process ran so far: (on a GPU, on the CPU),
/// and the GPUs the tile family uses. Starts the family (and so the GPUs)
/// if nothing did yet.
pub fn tile_routing() -> (u64, u64, Vec<String>) {
    let scheduler = family::scheduler::<GactTiles>();
    let s = scheduler.stats();
    let on_gpu = s.batched_jobs.saturating_sub(s.rescued_jobs);
    (
        on_gpu,
        s.inline_jobs + s.rescued_jobs,
        scheduler.devices().to_vec(),
    )
}

fn flatten<T>(result: Result<Result<T, GactError>, ScheduleError>) -> Result<T, GactError> {
    result.unwrap_or_else(|e| Err(GactError::NotRun(e.0)))
}

/// Aligns many tiles at once, on every GPU in use and the engine's CPU
/// pool; results in input order, each identical to [`super::align_tile`]
/// on the same job.
pub fn align_tiles(jobs: Vec<TileJob>) -> Vec<Result<TileResult, GactError>> {
    if jobs.is_empty() {
        return Vec::new();
    }
    family::scheduler::<GactTiles>()
        .run_all(jobs)
        .into_iter()
        .map(flatten)
        .collect()
}

/// Runs many extensions at once on the engine's CPU pool; results in input
/// order, each identical to [`super::extend`] on the same job.
pub fn extend_all(jobs: Vec<ExtendJob>) -> Vec<Result<Alignment, GactError>> {
    if jobs.is_empty() {
        return Vec::new();
    }
    family::scheduler::<GactExtensions>()
        .run_all(jobs)
        .into_iter()
        .map(flatten)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    fn seq(seed: u64, len: usize) -> Vec<u8> {
        let mut x = seed | 1;
        (0..len)
            .map(|_| {
                x ^= x << 13;
                x ^= x >> 7;
                x ^= x << 17;
                b"ACGT"[(x % 4) as usize]
            })
            .collect()
    }

    #[test]
    fn batches_equal_single_calls() {
        let params = Params::darwin_default();
        let tiles: Vec<TileJob> = (0..40)
            .map(|k| {
                let r = seq(k, 50 + 7 * k as usize);
                let mut q = r.clone();
                q.rotate_left(k as usize % 5);
                TileJob {
                    ref_: r.clone(),
                    query: q.clone(),
                    params,
                    opts: TileOptions {
                        ref_pos: r.len() as i32,
                        query_pos: q.len() as i32,
                        reverse: k % 2 == 1,
                        first: k % 3 == 0,
                        early_terminate: 100,
                    },
                }
            })
            .collect();
        let singles: Vec<_> = tiles.iter().map(Job::run_cpu).collect();
        assert_eq!(align_tiles(tiles), singles);

        let reference: Arc<[u8]> = seq(99, 3000).into();
        let extensions: Vec<ExtendJob> = (0..12)
            .map(|k| {
                let start = 100 * k as usize;
                ExtendJob {
                    ref_: reference.clone(),
                    query: reference[start..start + 800].into(),
                    params,
                    opts: ExtendOptions {
                        tile_size: 128,
                        tile_overlap: 32,
                        ref_pos: (start + 400) as i32,
                        query_pos: 400,
                        ref_len: None,
                        query_len: None,
                    },
                }
            })
            .collect();
        let singles: Vec<_> = extensions.iter().map(Job::run_cpu).collect();
        assert!(singles.iter().all(Result::is_ok));
        assert_eq!(extend_all(extensions), singles);
    }
}
