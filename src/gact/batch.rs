//! GACT as a family of the engine: a tile (`AlignWithBT`) and a whole
//! extension (`GACT`) are each one job. There is no kernel yet, so both
//! families run every job on the engine's CPU pool; the batch entry points
//! hand whole batches to [`Scheduler::run_all`], which is where a GPU
//! runner will plug in.

use std::sync::Arc;

use crate::engine::device::{DeviceError, Gpu};
use crate::engine::family::{self, Family};
use crate::engine::scheduler::{BatchRunner, Job, ScheduleError};

use super::{Alignment, ExtendOptions, GactError, Params, TileOptions, TileResult};

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

    /// DP cells.
    fn cost(&self) -> u64 {
        (self.ref_.len() as u64).max(1) * (self.query.len() as u64).max(1)
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

/// GACT tiles as a family of the engine (CPU pool only for now).
pub struct GactTiles;

impl Family for GactTiles {
    const NAME: &'static str = "GACT";
    const KERNEL: &'static str = "";
    type Job = TileJob;

    fn runners(_: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<TileJob>>>, DeviceError> {
        Ok(Vec::new())
    }
}

/// GACT extensions as a family of the engine (CPU pool only for now).
pub struct GactExtensions;

impl Family for GactExtensions {
    const NAME: &'static str = "GACT";
    const KERNEL: &'static str = "";
    type Job = ExtendJob;

    fn runners(_: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<ExtendJob>>>, DeviceError> {
        Ok(Vec::new())
    }
}

fn flatten<T>(result: Result<Result<T, GactError>, ScheduleError>) -> Result<T, GactError> {
    result.unwrap_or_else(|e| Err(GactError::NotRun(e.0)))
}

/// Aligns many tiles at once on the engine's CPU pool; results in input
/// order, each identical to [`super::align_tile`] on the same job.
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
