//! GACT as a family of the engine: a tile (`AlignWithBT`) and a whole
//! extension (`GACT`) are each one job. Tiles run on every GPU in use
//! (`gpu::TileRunner`) and on the CPU pool. A large batch of extensions
//! with a GPU in use advances in lock-step, one tile of every extension per
//! round, each round's tiles a tile batch (darwin-gpu's `GACT_Batch`
//! scheme); otherwise every extension is one job on the CPU pool.

use std::sync::Arc;

use crate::engine::device::{DeviceError, Gpu};
use crate::engine::family::{self, Family};
use crate::engine::scheduler::{BatchRunner, Job, ScheduleError};

use super::extend::{Extension, TileRequest};
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

    /// A launch returns after the fill and the traceback, a walk of dependent
    /// loads per tile: 0.3 ms even for one tile on an H200 (0.4-0.55 ms
    /// for the 9-57 tiles concurrent callers gather), where a core aligns
    /// a 320 x 320 tile in 0.07-0.12 ms (BENCHMARKS.md, "GACT synchronous
    /// calls"). Routing would keep such tiles on their callers' threads,
    /// and starting the devices for them only cost (their memory and
    /// pinned buffers stalled the callers: 0.61-0.94x the CPU path), so
    /// only tiles slower than a launch start them; once started (by the
    /// batch API, or on slow cores), every tile is routed.
    fn min_device_call() -> std::time::Duration {
        std::time::Duration::from_micros(300)
    }
}

/// GACT extensions as a family of the engine, for the CPU pool: on a GPU
/// extensions run as rounds of tile batches ([`extend_all`]), so this
/// family names no kernel and starts no device.
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

/// Fewest extensions worth lock-step rounds on the GPUs: each round waits
/// for its slowest tile and pays a launch, so a small batch finishes sooner
/// as independent jobs on the CPU pool. A round of 1,024 tiles of 320 x 320
/// is about 100 M cells, a fraction of a GPU's launch; not measured.
const LOCKSTEP_MIN: usize = 1024;

/// Runs many extensions at once; results in input order, each identical to
/// [`super::extend`] on the same job. With a GPU in use and at least
/// [`LOCKSTEP_MIN`] extensions they advance in lock-step with every round's
/// tiles on the GPUs; otherwise each is one job on the engine's CPU pool.
pub fn extend_all(jobs: Vec<ExtendJob>) -> Vec<Result<Alignment, GactError>> {
    if jobs.is_empty() {
        return Vec::new();
    }
    if jobs.len() >= LOCKSTEP_MIN && family::scheduler::<GactTiles>().has_devices() {
        return extend_lockstep(&jobs, align_tiles);
    }
    family::scheduler::<GactExtensions>()
        .run_all(jobs)
        .into_iter()
        .map(flatten)
        .collect()
}

/// One extension of a lock-step run.
struct Slot<'a> {
    job: &'a ExtendJob,
    /// `None` once finished (or failed).
    ext: Option<Extension>,
    /// The tile asked for in the current round.
    tile: Option<TileRequest>,
    out: Option<Result<Alignment, GactError>>,
}

impl Slot<'_> {
    /// This round's tile, or `None` (and the result) when finished.
    fn next(&mut self) -> Option<TileJob> {
        let ext = self.ext.as_mut()?;
        match ext.next_tile() {
            Some(req) => {
                let job = TileJob {
                    ref_: self.job.ref_[req.ref_range.clone()].to_vec(),
                    query: self.job.query[req.query_range.clone()].to_vec(),
                    params: self.job.params,
                    opts: req.opts,
                };
                self.tile = Some(req);
                Some(job)
            }
            None => {
                if let Some(ext) = self.ext.take() {
                    self.out = Some(Ok(ext.finish(&self.job.params)));
                }
                None
            }
        }
    }

    /// Takes this round's tile result.
    fn apply(&mut self, result: Result<TileResult, GactError>) {
        let (Some(ext), Some(req)) = (self.ext.as_mut(), self.tile.take()) else {
            return;
        };
        let applied = result.and_then(|r| {
            ext.apply(
                &self.job.ref_,
                &self.job.query,
                &req,
                r.max_i,
                r.max_j,
                &r.ops,
            )
        });
        if let Err(e) = applied {
            self.ext = None;
            self.out = Some(Err(e));
        }
    }
}

/// Advances every extension one tile per round, the round's tiles aligned
/// together by `run_tiles` (results in input order); darwin-gpu's
/// `GACT_Batch` scheme. Each result equals [`super::extend`]'s whenever
/// `run_tiles` returns [`super::align_tile`]'s results.
pub(super) fn extend_lockstep(
    jobs: &[ExtendJob],
    mut run_tiles: impl FnMut(Vec<TileJob>) -> Vec<Result<TileResult, GactError>>,
) -> Vec<Result<Alignment, GactError>> {
    use rayon::prelude::*;
    let mut slots: Vec<Slot> = jobs
        .iter()
        .map(|job| {
            let ext = Extension::new(&job.ref_, &job.query, &job.params, job.opts);
            let (ext, out) = match ext {
                Ok(ext) => (Some(ext), None),
                Err(e) => (None, Some(Err(e))),
            };
            Slot {
                job,
                ext,
                tile: None,
                out,
            }
        })
        .collect();
    loop {
        let (owners, tiles): (Vec<usize>, Vec<TileJob>) = crate::engine::cpu::install(|| {
            slots
                .par_iter_mut()
                .enumerate()
                .filter_map(|(k, slot)| slot.next().map(|tile| (k, tile)))
                .unzip()
        });
        if tiles.is_empty() {
            break;
        }
        let mut per_slot: Vec<Option<Result<TileResult, GactError>>> =
            slots.iter().map(|_| None).collect();
        let results = run_tiles(tiles);
        for (k, result) in owners.into_iter().zip(results) {
            per_slot[k] = Some(result);
        }
        crate::engine::cpu::install(|| {
            slots
                .par_iter_mut()
                .zip(per_slot)
                .for_each(|(slot, result)| match result {
                    Some(result) => slot.apply(result),
                    // A tile without a result ends its extension rather
                    // than asking for the same tile forever.
                    None => slot.apply(Err(GactError::NotRun("no result for its tile".into()))),
                })
        });
    }
    slots
        .into_iter()
        .map(|slot| {
            slot.out
                .unwrap_or_else(|| Err(GactError::NotRun("internal: extension lost".into())))
        })
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

    /// Lock-step rounds (tiles on the CPU here) equal single extensions,
    /// errors included: a bad anchor, a first tile that cannot advance
    /// (O > T), lengths shorter than the slices, tiles of every size.
    #[test]
    fn lockstep_equals_single_extensions() {
        let reference: Arc<[u8]> = seq(7, 4000).into();
        let mut jobs = Vec::new();
        for k in 0..60usize {
            let start = 37 * k;
            let mut query = seq(1000 + k as u64, 0);
            // The query: a stretch of the reference with every 9th base changed.
            query.extend(
                reference[start..start + 900 + 13 * k]
                    .iter()
                    .enumerate()
                    .map(|(i, &b)| if i % 9 == 4 { b"ACGT"[(i + k) % 4] } else { b }),
            );
            let tile = [16, 64, 128, 320, 511][k % 5];
            let overlap = if k == 7 { tile + 5 } else { tile / 4 };
            let query_pos = if k == 11 { query.len() as i32 + 1 } else { 450 };
            jobs.push(ExtendJob {
                ref_: reference.clone(),
                query: query.into(),
                params: if k % 2 == 0 {
                    Params::darwin_default()
                } else {
                    Params::from_match_mismatch(2, -3, 0, -4, -1)
                },
                opts: ExtendOptions {
                    tile_size: tile,
                    tile_overlap: overlap,
                    ref_pos: (start + 450) as i32,
                    query_pos,
                    ref_len: (k % 3 == 0).then_some(start + 700),
                    query_len: None,
                },
            });
        }
        let singles: Vec<_> = jobs.iter().map(Job::run_cpu).collect();
        assert!(singles.iter().any(Result::is_err) && singles.iter().any(Result::is_ok));
        let mut rounds = 0;
        let lockstep = extend_lockstep(&jobs, |tiles| {
            rounds += 1;
            tiles.iter().map(Job::run_cpu).collect()
        });
        assert_eq!(lockstep, singles);
        assert!(rounds > 3);
        // A tile batch that fails fails its extensions, and ends.
        let failed = extend_lockstep(&jobs, |tiles| {
            tiles
                .iter()
                .map(|_| Err(GactError::NotRun("device".into())))
                .collect()
        });
        assert!(failed.iter().all(Result::is_err));
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
