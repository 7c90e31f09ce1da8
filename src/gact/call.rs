//! Synchronous calls: Darwin's threads call `AlignWithBT` and `GACT` one
//! at a time (classic `read_overlaps` and `darwin_ref_guided` extend every
//! candidate with `GACT`, from each of their threads). Every tile of such a
//! call goes through the engine's cost-aware routing
//! ([`place`](crate::engine::family::place)): it becomes a one-tile job of
//! the [`GactTiles`] family, and joins the GPU queue, only when its result
//! is expected back sooner than the caller's own thread would compute it;
//! otherwise the caller aligns it at once, with nothing copied.
//!
//! An extension is routed tile by tile rather than as one job: its tiles
//! depend on each other (each starts where the last one's traceback ended),
//! so a GPU could only run it as one launch per tile anyway (the lock-step
//! rounds of the batch path), and routing each tile lets concurrent
//! callers' tiles share launches while the state of every extension stays
//! on its caller's thread. The decision is made per tile, by the tile's
//! cells, with what this process has measured of both sides; results are
//! identical either way (the GPU's tiles are the CPU's, bit for bit).

use super::batch::{GactTiles, TileJob};
use super::extend::extend_by;
use super::{
    ALIGNER, Alignment, ExtendOptions, GactError, Params, TileOptions, TileResult, TileSummary,
};
use crate::engine::family::{self, Family, Placement};

/// The routing cost of a tile: its DP cells, as [`TileJob`]'s.
fn tile_cost(ref_len: usize, query_len: usize) -> u64 {
    (ref_len as u64).max(1) * (query_len as u64).max(1)
}

/// One tile of a synchronous call, on the caller's thread or through the
/// family's devices (the GPUs: [`GactTiles`]) as the routing decides; its
/// states are appended to `ops`.
fn routed_tile<F: Family<Job = TileJob>>(
    ref_: &[u8],
    query: &[u8],
    params: &Params,
    opts: TileOptions,
    ops: &mut Vec<u8>,
) -> Result<TileSummary, GactError> {
    let placed = family::place::<F>(tile_cost(ref_.len(), query.len()), || {
        let job = TileJob {
            ref_: ref_.to_vec(),
            query: query.to_vec(),
            params: *params,
            opts,
        };
        job.kernel_takes().then_some(job)
    });
    match placed {
        // The timer (if any) is held while the tile runs here.
        Placement::Here(_timing) => {
            ALIGNER.with(|a| a.borrow_mut().align_append(ref_, query, params, opts, ops))
        }
        Placement::Submitted(Ok(result)) => result.map(|r| {
            ops.extend_from_slice(&r.ops);
            r.summary()
        }),
        // Strict mode, where a device failure is not rerun on the CPU.
        Placement::Submitted(Err(e)) => Err(GactError::NotRun(e.0)),
    }
}

/// One synchronous `AlignWithBT` call (the C export
/// `seqshim_gact_align_tile`): [`super::align_tile`]'s result, computed on
/// the caller's thread or, when that returns it sooner, on a GPU.
pub fn align_tile_call(
    ref_: &[u8],
    query: &[u8],
    params: &Params,
    opts: TileOptions,
) -> Result<TileResult, GactError> {
    let mut ops = Vec::new();
    let s = routed_tile::<GactTiles>(ref_, query, params, opts, &mut ops)?;
    Ok(s.with_ops(ops))
}

/// One synchronous `GACT` call (the C export `seqshim_gact_extend`):
/// [`super::extend`]'s result, each tile routed on its own (see the
/// module comment).
pub fn extend_call(
    ref_: &[u8],
    query: &[u8],
    params: &Params,
    opts: ExtendOptions,
) -> Result<Alignment, GactError> {
    extend_routed::<GactTiles>(ref_, query, params, opts)
}

/// [`extend_call`] with the tiles routed through family `F`.
fn extend_routed<F: Family<Job = TileJob>>(
    ref_: &[u8],
    query: &[u8],
    params: &Params,
    opts: ExtendOptions,
) -> Result<Alignment, GactError> {
    extend_by(ref_, query, params, opts, |r, q, tile_opts, ops| {
        let s = routed_tile::<F>(r, q, params, tile_opts, ops)?;
        Ok((s.max_i, s.max_j))
    })
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::engine::device::{DeviceError, Gpu};
    use crate::engine::scheduler::{BatchRunner, Job, Options, Routing};
    use std::sync::Arc;
    use std::sync::atomic::{AtomicU64, Ordering};
    use std::time::Duration;

    /// A stand-in device (CI has no GPU): it runs its batches with the CPU
    /// path on its executor thread, exactly what the GPU returns, after
    /// `latency`, and leaves tiles that are not square unfinished, so that
    /// the CPU rescue is exercised too. Counts the tiles it finished and
    /// the largest launch.
    struct Emulated {
        latency: Duration,
        tiles: &'static AtomicU64,
        largest: &'static AtomicU64,
    }

    impl BatchRunner<TileJob> for Emulated {
        fn label(&self) -> String {
            "emulated device".into()
        }

        fn capacity(&self) -> usize {
            256
        }

        fn run_batch(
            &mut self,
            jobs: &[TileJob],
        ) -> Result<Vec<Option<Result<TileResult, GactError>>>, String> {
            std::thread::sleep(self.latency);
            self.largest.fetch_max(jobs.len() as u64, Ordering::Relaxed);
            Ok(jobs
                .iter()
                .map(|job| {
                    (job.ref_.len() == job.query.len()).then(|| {
                        self.tiles.fetch_add(1, Ordering::Relaxed);
                        job.run_cpu()
                    })
                })
                .collect())
        }
    }

    /// Tiles on an emulated device that every concurrent call joins
    /// (`SEQSHIM_ROUTING=coalesce`), so that the device path is taken.
    struct Coalesced;
    static COALESCED_TILES: AtomicU64 = AtomicU64::new(0);
    static COALESCED_LARGEST: AtomicU64 = AtomicU64::new(0);

    impl Family for Coalesced {
        const NAME: &'static str = "GACT test";
        const KERNEL: &'static str = "";
        type Job = TileJob;
        fn runners(_: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<TileJob>>>, DeviceError> {
            Ok(Vec::new())
        }
        fn extra_runners() -> Vec<Box<dyn BatchRunner<TileJob>>> {
            vec![Box::new(Emulated {
                latency: Duration::ZERO,
                tiles: &COALESCED_TILES,
                largest: &COALESCED_LARGEST,
            })]
        }
        fn options() -> Options {
            Options {
                routing: Routing::Coalesce,
                strict: false,
                ..Options::default()
            }
        }
    }

    /// Tiles under the cost routing, beside an emulated device whose every
    /// launch takes 30 ms: far slower than a tile here.
    struct Slow;
    static SLOW_TILES: AtomicU64 = AtomicU64::new(0);
    static SLOW_LARGEST: AtomicU64 = AtomicU64::new(0);

    impl Family for Slow {
        const NAME: &'static str = "GACT slow test";
        const KERNEL: &'static str = "";
        type Job = TileJob;
        fn runners(_: &Arc<Gpu>) -> Result<Vec<Box<dyn BatchRunner<TileJob>>>, DeviceError> {
            Ok(Vec::new())
        }
        fn extra_runners() -> Vec<Box<dyn BatchRunner<TileJob>>> {
            vec![Box::new(Emulated {
                latency: Duration::from_millis(30),
                tiles: &SLOW_TILES,
                largest: &SLOW_LARGEST,
            })]
        }
        fn options() -> Options {
            Options {
                routing: Routing::Cost,
                strict: false,
                ..Options::default()
            }
        }
    }

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

    /// A read of `genome` at `start` with about 15 % errors, and a seed
    /// near its middle: (read, ref_pos, query_pos).
    fn read_of(genome: &[u8], seed: u64, start: usize, len: usize) -> (Vec<u8>, i32, i32) {
        let noise = seq(seed, 2 * len + 4);
        let mut read = Vec::with_capacity(len + len / 8);
        for (k, &b) in genome[start..start + len].iter().enumerate() {
            match noise[2 * k..2 * k + 2] {
                // 1/16 each: an insertion, a deletion, a substitution.
                [b'A', b'A'] => read.extend([noise[2 * k + 3], b]),
                [b'C', b'C'] => {}
                [b'G', b'G'] => read.push(if b == b'A' { b'C' } else { b'A' }),
                _ => read.push(b),
            }
        }
        let at = read.len() / 2;
        (read, (start + len / 2) as i32, at as i32)
    }

    type Outcome = (
        Result<Alignment, GactError>,
        Result<Alignment, GactError>,
        Result<TileResult, GactError>,
        Result<TileResult, GactError>,
    );

    /// A client as Darwin's threads are: extensions of Darwin's default
    /// shape (T = 320, O = 120) one after another, through family `F`, and
    /// a tile after each; every result next to the CPU path's. The fourth
    /// extension fails (its anchor lies outside the read).
    fn client<F: Family<Job = TileJob>>(genome: &[u8], seed: u64, n: usize) -> Vec<Outcome> {
        let params = Params::darwin_default();
        (0..n)
            .map(|k| {
                let len = 600 + (seed as usize * 131 + k * 977) % 1400;
                let start = (seed as usize * 7919 + k * 4099) % (genome.len() - len);
                let (read, ref_pos, query_pos) =
                    read_of(genome, seed * 1000 + k as u64, start, len);
                let opts = ExtendOptions {
                    tile_size: 320,
                    tile_overlap: 120,
                    ref_pos,
                    query_pos: if k == 3 {
                        read.len() as i32 + 1
                    } else {
                        query_pos
                    },
                    ref_len: None,
                    query_len: None,
                };
                let routed = extend_routed::<F>(genome, &read, &params, opts);
                let plain = super::super::extend(genome, &read, &params, opts);
                let (r, q) = (&genome[start..start + 300], &read[..300 - k % 2]);
                let tile_opts = TileOptions {
                    ref_pos: r.len() as i32,
                    query_pos: q.len() as i32,
                    reverse: k % 2 == 1,
                    first: k % 3 == 0,
                    early_terminate: 200,
                };
                let mut ops = Vec::new();
                let tile =
                    routed_tile::<F>(r, q, &params, tile_opts, &mut ops).map(|s| s.with_ops(ops));
                let plain_tile = super::super::align_tile(r, q, &params, tile_opts);
                (routed, plain, tile, plain_tile)
            })
            .collect()
    }

    fn differ(outcomes: &[Outcome]) -> usize {
        outcomes
            .iter()
            .filter(|(a, b, c, d)| a != b || c != d)
            .count()
    }

    /// The exported single calls (no device on a CI machine) equal the CPU
    /// path, errors included.
    #[test]
    fn single_calls_equal_the_cpu_path() {
        let genome = seq(5, 30_000);
        let params = Params::darwin_default();
        let outcomes = client::<GactTiles>(&genome, 1, 8);
        assert!(outcomes.iter().any(|o| o.0.is_err()));
        assert!(outcomes.iter().any(|o| o.0.is_ok()));
        assert_eq!(differ(&outcomes), 0);
        let opts = TileOptions {
            ref_pos: 100,
            query_pos: 90,
            reverse: false,
            first: true,
            early_terminate: 60,
        };
        let (r, q) = (&genome[..100], &genome[5..95]);
        assert_eq!(
            align_tile_call(r, q, &params, opts),
            super::super::align_tile(r, q, &params, opts)
        );
        let too_long = vec![b'A'; 600];
        assert_eq!(
            align_tile_call(&too_long, q, &params, opts),
            super::super::align_tile(&too_long, q, &params, opts)
        );
    }

    /// Concurrent callers whose tiles all go to the device: launches are
    /// shared, tiles the device leaves unfinished are rerun on the CPU, and
    /// every result equals the CPU path's.
    #[test]
    fn tiles_on_a_device_equal_the_cpu_path() {
        const THREADS: u64 = 16;
        let genome = seq(9, 200_000);
        let start = std::sync::Barrier::new(THREADS as usize);
        let differ: usize = std::thread::scope(|scope| {
            let handles: Vec<_> = (0..THREADS)
                .map(|t| {
                    let (genome, start) = (&genome, &start);
                    scope.spawn(move || {
                        start.wait();
                        differ(&client::<Coalesced>(genome, 100 + t, 6))
                    })
                })
                .collect();
            handles.into_iter().map(|h| h.join().unwrap()).sum()
        });
        let stats = family::scheduler::<Coalesced>().stats();
        let on_device = COALESCED_TILES.load(Ordering::Relaxed);
        eprintln!(
            "gact routed calls: {THREADS} threads, {differ} differ from the CPU path, \
             {on_device} tiles on the emulated device, largest launch {}, {stats:?}",
            COALESCED_LARGEST.load(Ordering::Relaxed)
        );
        assert_eq!(differ, 0);
        assert!(on_device > 0, "no tile reached the device");
        assert!(stats.rescued_jobs > 0, "no tile was rescued: {stats:?}");
    }

    /// Beside a device slower than a core, the cost routing keeps a lone
    /// caller's tiles on its thread once the device's launches are timed.
    #[test]
    fn a_slow_device_gets_almost_no_tiles() {
        let genome = seq(13, 60_000);
        let started = std::time::Instant::now();
        let outcomes = client::<Slow>(&genome, 7, 12);
        let took = started.elapsed();
        let on_device = SLOW_TILES.load(Ordering::Relaxed);
        let stats = family::scheduler::<Slow>().stats();
        eprintln!("gact slow device: {on_device} tiles on it in {took:?}, {stats:?}");
        assert_eq!(differ(&outcomes), 0);
        // Probing before the device's launches are timed, and one call a
        // second after that.
        assert!(stats.batches <= 6, "{stats:?}");
        assert!(stats.inline_jobs > 10 * stats.batched_jobs, "{stats:?}");
    }
}
