//! GACT tiles on a real GPU: every fixture tile and random tiles over the
//! parameter grid are aligned by the GPU runner and by the CPU path, and
//! every result (score, maximum cell, steps, states) must be identical. A
//! failing device must leave nothing lost (its tiles rerun on the CPU), the
//! batch entry must run on the GPU, and a benchmark compares GPU batches
//! with the CPU path on every host thread and splits their time into the
//! kernels' and the host's.
//!
//! Needs a GPU; without one each test prints SKIP, unless
//! `SEQSHIM_REQUIRE_GPU=1` (the device bundle sets it) makes that a failure.
//! Run on the GPU machine by `device-bundle/checks/gact.sh`.

mod gact_support;
mod gpu_support;

use std::collections::HashMap;
use std::time::Instant;

use gact_support::{fixture_dir, read_tsv};
use gpu_support::{Rng, random_seq};
use seqshim::engine::cpu;
use seqshim::engine::family;
use seqshim::engine::scheduler::{BatchRunner, Job, Options, Scheduler};
use seqshim::gact::{
    ExtendJob, ExtendOptions, GactError, GactTiles, Params, TileJob, TileOptions, TileResult,
    TileRunner, align_tiles, extend_all,
};

fn runner() -> Option<TileRunner> {
    let gpu = gpu_support::first_gpu()?;
    match TileRunner::new(gpu.clone()) {
        Ok(runner) => Some(runner),
        Err(e) => panic!("the GACT kernel did not load on {}: {e}", gpu.info().name),
    }
}

/// The CPU path for every job, on the CPU pool.
fn cpu_results(jobs: &[TileJob]) -> Vec<Result<TileResult, GactError>> {
    cpu::install(|| {
        use rayon::prelude::*;
        jobs.par_iter().map(Job::run_cpu).collect()
    })
}

/// Runs `jobs` on the runner and the CPU path; returns (differ, not
/// finished on the GPU), printing the first few differences.
fn compare(runner: &mut TileRunner, label: &str, jobs: &[TileJob]) -> (usize, usize) {
    let gpu = runner
        .run_batch(jobs)
        .unwrap_or_else(|e| panic!("{label}: batch failed: {e}"));
    assert_eq!(gpu.len(), jobs.len());
    let want = cpu_results(jobs);
    let (mut differ, mut unfinished) = (0, 0);
    for (k, ((job, got), want)) in jobs.iter().zip(&gpu).zip(&want).enumerate() {
        match got {
            None if job.kernel_takes() => unfinished += 1,
            None => {}
            Some(got) if got != want => {
                differ += 1;
                if differ <= 5 {
                    eprintln!(
                        "{label}: MISMATCH tile {k} ({}x{}, {:?}): GPU {:?}, CPU {:?}",
                        job.ref_.len(),
                        job.query.len(),
                        job.opts,
                        got.as_ref().map(summary),
                        want.as_ref().map(summary)
                    );
                }
            }
            Some(_) => {}
        }
    }
    (differ, unfinished)
}

fn summary(r: &TileResult) -> String {
    format!(
        "score {} max ({}, {}) steps ({}, {}) {} states",
        r.score,
        r.max_i,
        r.max_j,
        r.ref_steps,
        r.query_steps,
        r.ops.len()
    )
}

// ---------------------------------------------------------------- fixture

fn int(row: &HashMap<String, String>, col: &str) -> i64 {
    row[col].parse().expect(col)
}

fn fixture_job(row: &HashMap<String, String>) -> TileJob {
    let sub: Vec<i32> = row["sub_mat"]
        .split(',')
        .map(|v| v.parse().expect("sub_mat"))
        .collect();
    TileJob {
        ref_: row["ref_seq"].as_bytes().to_vec(),
        query: row["query_seq"].as_bytes().to_vec(),
        params: Params {
            sub_mat: sub.try_into().expect("25 entries"),
            gap_open: int(row, "gap_open") as i32,
            gap_extend: int(row, "gap_extend") as i32,
        },
        opts: TileOptions {
            ref_pos: int(row, "ref_pos") as i32,
            query_pos: int(row, "query_pos") as i32,
            reverse: int(row, "reverse") == 1,
            first: int(row, "first") == 1,
            early_terminate: int(row, "early_terminate") as i32,
        },
    }
}

/// Whether a result equals the upstream row (max cell only when `first`).
fn equals_upstream(got: &TileResult, row: &HashMap<String, String>, first: bool) -> bool {
    let ops: String = got.ops.iter().map(|&o| char::from(b'0' + o)).collect();
    got.score as i64 == int(row, "score")
        && got.ref_steps as i64 == int(row, "ref_steps")
        && got.query_steps as i64 == int(row, "query_steps")
        && ops == row["ops"]
        && (!first
            || (got.max_i as i64 == int(row, "max_i") && got.max_j as i64 == int(row, "max_j")))
}

#[test]
fn gpu_equals_cpu_on_every_fixture_tile() {
    let Some(mut runner) = runner() else { return };
    let Some(dir) = fixture_dir() else { return };
    let rows = read_tsv(&dir.join("tiles.tsv.gz"));
    let jobs: Vec<TileJob> = rows.iter().map(fixture_job).collect();
    let on_gpu = jobs.iter().filter(|j| j.kernel_takes()).count();
    let (differ, unfinished) = compare(&mut runner, "fixture", &jobs);
    let gpu = runner.run_batch(&jobs).expect("GPU batch");
    let vs_upstream = gpu
        .iter()
        .zip(&rows)
        .zip(&jobs)
        .filter(|((got, row), job)| match got {
            Some(Ok(got)) => !equals_upstream(got, row, job.opts.first),
            _ => false,
        })
        .count();
    eprintln!(
        "gact gpu fixture: {} records ({on_gpu} taken by the kernel), {differ} differ from the CPU, {vs_upstream} differ from upstream, {unfinished} not finished on the GPU",
        jobs.len()
    );
    assert!(on_gpu > 0);
    assert_eq!((differ, vs_upstream, unfinished), (0, 0, 0));
}

// ---------------------------------------------------------------- random

/// `seq` with `percent` % edits, substitutions, insertions and deletions
/// in equal shares.
fn mutate(rng: &mut Rng, seq: &[u8], percent: u64) -> Vec<u8> {
    let mut out = Vec::with_capacity(seq.len() + seq.len() / 8);
    for &b in seq {
        if rng.below(100) < percent {
            match rng.below(3) {
                0 => out.push(b"ACGT"[rng.below(4) as usize]),
                1 => {
                    out.push(b);
                    out.push(b"ACGT"[rng.below(4) as usize]);
                }
                _ => {}
            }
        } else {
            out.push(b);
        }
    }
    out
}

/// Scoring variants: Darwin's default, the paper's three (spec §9.1), a
/// zero gap open and a scheme wide enough for 32-bit lanes on the CPU.
fn schemes() -> Vec<Params> {
    vec![
        Params::darwin_default(),
        Params::from_match_mismatch(2, -1, 0, -2, -2),
        Params::from_match_mismatch(1, -3, -1, -1, -1),
        Params::from_match_mismatch(5, -4, -2, -10, -1),
        Params::from_match_mismatch(1, -1, 0, 0, -1),
        Params::from_match_mismatch(100, -90, -50, -300, -40),
    ]
}

/// A random tile: sides 1..=511, divergence 0..=30 %, every flag.
fn random_tile(rng: &mut Rng, schemes: &[Params]) -> TileJob {
    let longest = if rng.below(4) == 0 { 511 } else { 340 };
    let m = 1 + rng.below(longest) as usize;
    let percent = rng.below(31);
    let mut ref_ = random_seq(rng, m);
    if rng.below(20) == 0 {
        // Some N and lower case, which upstream codes as 4 and as the base.
        for b in ref_.iter_mut() {
            match rng.below(20) {
                0 => *b = b'N',
                1 => *b = b.to_ascii_lowercase(),
                _ => {}
            }
        }
    }
    let mut query = mutate(rng, &ref_, percent);
    let n = match rng.below(4) {
        0 => 1 + rng.below(511) as usize,
        _ => query.len().clamp(1, 511),
    };
    query.resize(n, b'A');
    for b in query.iter_mut().skip(ref_.len()) {
        *b = b"ACGT"[rng.below(4) as usize];
    }
    let first = rng.below(3) == 0;
    let (ref_pos, query_pos) = if rng.below(4) == 0 {
        (
            rng.below(m as u64 + 1) as i32,
            rng.below(n as u64 + 1) as i32,
        )
    } else {
        (m as i32, n as i32)
    };
    TileJob {
        ref_,
        query,
        params: schemes[rng.below(schemes.len() as u64) as usize],
        opts: TileOptions {
            ref_pos,
            query_pos,
            reverse: rng.below(2) == 1,
            first,
            early_terminate: match rng.below(6) {
                0 => rng.below(12) as i32 - 2,
                _ => 1 + rng.below(511) as i32,
            },
        },
    }
}

#[test]
fn gpu_equals_cpu_on_random_tiles() {
    let Some(mut runner) = runner() else { return };
    let total: usize = std::env::var("GACT_RANDOM_TILES")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(200_000);
    let schemes = schemes();
    let mut rng = Rng(0x9ac7_0001);
    let (mut differ, mut unfinished, mut done) = (0, 0, 0);
    while done < total {
        let count = (total - done).min(50_000);
        let jobs: Vec<TileJob> = (0..count)
            .map(|_| random_tile(&mut rng, &schemes))
            .collect();
        let (d, u) = compare(&mut runner, "random", &jobs);
        differ += d;
        unfinished += u;
        done += count;
    }
    eprintln!(
        "gact gpu random: {done} tiles, {differ} differ, {unfinished} not finished on the GPU ({} launches)",
        runner.launches()
    );
    assert_eq!((differ, unfinished), (0, 0));
}

// ---------------------------------------------------------------- failures

/// A device batch that fails reruns on the CPU: nothing lost, same results.
#[test]
fn a_failing_device_batch_reruns_on_the_cpu() {
    let Some(mut runner) = runner() else { return };
    runner.inject_failures(1);
    let scheduler = Scheduler::new(
        vec![Box::new(runner)],
        Options {
            strict: false,
            ..Options::default()
        },
    );
    let schemes = schemes();
    let mut rng = Rng(0xfa11);
    let jobs: Vec<TileJob> = (0..2_000)
        .map(|_| random_tile(&mut rng, &schemes))
        .collect();
    let want = cpu_results(&jobs);
    let first: Vec<_> = scheduler.run_all(jobs.clone());
    let second: Vec<_> = scheduler.run_all(jobs.clone());
    let stats = scheduler.stats();
    let differ = first
        .iter()
        .chain(&second)
        .zip(want.iter().chain(&want))
        .filter(|(got, want)| got.as_ref().ok() != Some(*want))
        .count();
    eprintln!(
        "gact gpu rescue: {} tiles twice, {} failed batches, {} rescued on the CPU, {} GPU batches, {differ} differ",
        jobs.len(),
        stats.failed_batches,
        stats.rescued_jobs,
        stats.batches
    );
    assert_eq!(differ, 0);
    assert!(stats.failed_batches >= 1 && stats.rescued_jobs >= 1);
}

/// The batch entry (`align_tiles`, behind `seqshim_gact_align_tile_batch`)
/// runs its tiles on the GPU; in strict mode a fallback would be an error.
#[test]
fn batch_entry_runs_on_the_gpu() {
    if gpu_support::first_gpu().is_none() {
        return;
    }
    let schemes = schemes();
    let mut rng = Rng(0xba7c);
    let jobs: Vec<TileJob> = (0..20_000)
        .map(|_| random_tile(&mut rng, &schemes))
        .collect();
    let want = cpu_results(&jobs);
    let before = family::scheduler::<GactTiles>().stats();
    let got = align_tiles(jobs.clone());
    let after = family::scheduler::<GactTiles>().stats();
    let differ = got.iter().zip(&want).filter(|(a, b)| a != b).count();
    eprintln!(
        "gact batch entry: {} tiles, {differ} differ, {} GPU batches, {} rescued, devices {:?}",
        jobs.len(),
        after.batches - before.batches,
        after.rescued_jobs - before.rescued_jobs,
        family::scheduler::<GactTiles>().devices()
    );
    assert_eq!(differ, 0);
    assert!(after.batches > before.batches);
}

// ---------------------------------------------------------------- extensions

/// A read of a random genome with long-read-like errors (15 %: insertions
/// 7 %, deletions 4 %, substitutions 4 %), and where its first base lies.
fn read_of(rng: &mut Rng, genome: &[u8], len: usize) -> (Vec<u8>, usize) {
    let start = rng.below((genome.len() - len) as u64) as usize;
    let mut read = Vec::with_capacity(len + len / 8);
    for &b in &genome[start..start + len] {
        match rng.below(100) {
            0..7 => {
                read.push(b"ACGT"[rng.below(4) as usize]);
                read.push(b);
            }
            7..11 => {}
            11..15 => read.push(b"ACGT"[rng.below(4) as usize]),
            _ => read.push(b),
        }
    }
    (read, start)
}

/// The batch entry for extensions (`extend_all`, behind
/// `seqshim_gact_extend_batch`) advances 10,000 extensions in lock-step
/// with every round's tiles on the GPU; each must equal the single call.
#[test]
fn lockstep_extensions_on_the_gpu_equal_single_calls() {
    if gpu_support::first_gpu().is_none() {
        return;
    }
    let mut rng = Rng(0xe7e9d);
    let genome: std::sync::Arc<[u8]> = random_seq(&mut rng, 2_000_000).into();
    let jobs: Vec<ExtendJob> = (0..10_000)
        .map(|_| {
            let len = 1_000 + rng.below(7_000) as usize;
            let (read, start) = read_of(&mut rng, &genome, len);
            // The seed: a read position and where it came from, roughly
            // (D-SOFT's hits are that rough too).
            let at = rng.below(read.len() as u64) as usize;
            let ref_pos = (start + at * len / read.len()).min(genome.len());
            ExtendJob {
                ref_: genome.clone(),
                query: read.into(),
                params: Params::darwin_default(),
                opts: ExtendOptions {
                    tile_size: 320,
                    tile_overlap: 120,
                    ref_pos: ref_pos as i32,
                    query_pos: at as i32,
                    ref_len: None,
                    query_len: None,
                },
            }
        })
        .collect();
    let t = Instant::now();
    let want: Vec<_> = cpu::install(|| {
        use rayon::prelude::*;
        jobs.par_iter().map(Job::run_cpu).collect()
    });
    let cpu_s = t.elapsed().as_secs_f64();
    let before = family::scheduler::<GactTiles>().stats();
    let t = Instant::now();
    let got = extend_all(jobs.clone());
    let gpu_s = t.elapsed().as_secs_f64();
    let after = family::scheduler::<GactTiles>().stats();
    let differ = got.iter().zip(&want).filter(|(a, b)| a != b).count();
    let failed = want.iter().filter(|r| r.is_err()).count();
    eprintln!(
        "gact gpu extensions: {} extensions ({failed} refused by both), {differ} differ, {} tiles in {} GPU batches, {} rescued; lock-step on the GPU {:.0} ext/s, CPU pool ({} threads) {:.0} ext/s",
        jobs.len(),
        after.batched_jobs - before.batched_jobs,
        after.batches - before.batches,
        after.rescued_jobs - before.rescued_jobs,
        jobs.len() as f64 / gpu_s,
        cpu::threads(),
        jobs.len() as f64 / cpu_s
    );
    assert_eq!(differ, 0);
    assert!(after.batches > before.batches);
}

// ---------------------------------------------------------------- benchmark

/// Tiles/s and GCUPS (cells of m x n per tile, traceback included) of the
/// GPU runner against the CPU path on every host thread, GACT-style tiles
/// (traceback from the corner, T - O = 5/8 T, half of them reversed), and
/// where a batch's time goes (`TileRunner::run_timed`).
#[test]
fn gpu_vs_cpu_benchmark() {
    let Some(mut runner) = runner() else { return };
    let scale: f64 = std::env::var("GACT_BENCH_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1.0);
    let device = gpu_support::first_gpu().map(|g| g.info().name.clone());
    let params = Params::darwin_default();
    let mut rng = Rng(0xbe5c);
    eprintln!(
        "gact benchmark: {} vs CPU pool of {} threads",
        device.unwrap_or_default(),
        cpu::threads()
    );
    for (side, count) in [(128usize, 400_000usize), (320, 100_000), (511, 40_000)] {
        let count = ((count as f64 * scale) as usize).max(64);
        let jobs: Vec<TileJob> = (0..count)
            .map(|k| {
                let ref_ = random_seq(&mut rng, side);
                let mut query = mutate(&mut rng, &ref_, 15);
                query.resize(side, b'A');
                TileJob {
                    ref_,
                    query,
                    params,
                    opts: TileOptions {
                        ref_pos: side as i32,
                        query_pos: side as i32,
                        reverse: k % 2 == 1,
                        first: false,
                        early_terminate: (side * 5 / 8) as i32,
                    },
                }
            })
            .collect();
        // Warm-up: the first launch on a lane pays for page mapping.
        let _ = runner.run_batch(&jobs[..jobs.len().min(4096)]);
        let t = Instant::now();
        let gpu = runner.run_batch(&jobs).expect("GPU batch");
        let gpu_s = t.elapsed().as_secs_f64();
        // The same batch again with events around every copy and kernel:
        // where the end-to-end time goes (kernels vs the host's packing,
        // waiting and decoding).
        let (timed, timing) = runner.run_timed(&jobs).expect("timed GPU batch");
        assert!(timed == gpu, "the timed run's results differ");
        eprintln!("gact timing: {side}x{side}: {timing}");
        let n_cpu = (count / 4).max(64);
        let t = Instant::now();
        let want = cpu_results(&jobs[..n_cpu]);
        let cpu_s = t.elapsed().as_secs_f64();
        let differ = gpu
            .iter()
            .zip(&want)
            .filter(|(got, want)| got.as_ref() != Some(*want))
            .count();
        let cells = (side * side) as f64;
        let gpu_rate = count as f64 / gpu_s;
        let cpu_rate = n_cpu as f64 / cpu_s;
        eprintln!(
            "gact benchmark: {side}x{side} @ 15%: {count} tiles; GPU {gpu_rate:.0} tiles/s ({:.1} GCUPS), CPU pool {cpu_rate:.0} tiles/s ({:.2} GCUPS, {n_cpu} tiles); GPU/CPU = {:.1}; {differ} differ",
            gpu_rate * cells / 1e9,
            cpu_rate * cells / 1e9,
            gpu_rate / cpu_rate
        );
        assert_eq!(differ, 0);
    }
}
