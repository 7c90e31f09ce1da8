//! ABEA on a real GPU: every fixture record and synthetic stress reads are
//! aligned by the GPU runner and by the CPU path, and the pairs must be
//! identical (and equal to f5c's expected pairs for the fixture). Then a
//! throughput comparison: GPU batch against the CPU pool on all cores.
//!
//! Needs a GPU; without one each test prints SKIP, unless
//! `SEQSHIM_REQUIRE_GPU=1` (the device bundle sets it) makes that a failure.
//! Run on the GPU machine by `device-bundle/checks/abea.sh`.

mod abea_support;

use std::sync::Arc;
use std::time::Instant;

use abea_support::gpu_support;
use abea_support::{Rng, events_for, random_seq, synthetic_model};
use seqshim::abea::{self, AbeaRunner, AlignJob, AlignedPair, Model, Scalings};
use seqshim::engine::scheduler::{BatchRunner, Job};
use seqshim::engine::{cpu, device};

fn runner() -> Option<AbeaRunner> {
    let gpu = gpu_support::first_gpu()?;
    match AbeaRunner::new(gpu.clone()) {
        Ok(runner) => Some(runner),
        Err(e) => panic!("the ABEA kernel did not load on {}: {e}", gpu.info().name),
    }
}

fn fixture_jobs() -> Option<(Vec<AlignJob>, Vec<Vec<AlignedPair>>)> {
    let dir = abea_support::fixture_dir()?;
    let fx = abea_support::load(&dir);
    let models: Arc<[Model]> = fx.models.into();
    let mut jobs = Vec::new();
    let mut expected = Vec::new();
    for r in fx.records {
        jobs.push(AlignJob {
            sequence: r.sequence,
            means: r.events.iter().map(|e| e.mean).collect(),
            models: models.clone(),
            kmer_size: 6,
            scaling: r.scaling,
            gpu: true,
        });
        expected.push(r.expected);
    }
    Some((jobs, expected))
}

/// Runs `jobs` on the GPU runner and the CPU path; returns (compared,
/// mismatched, not finished by the GPU, passed QC).
fn compare(
    runner: &mut AbeaRunner,
    label: &str,
    jobs: &[AlignJob],
) -> (usize, usize, usize, usize) {
    let gpu = runner
        .run_batch(jobs)
        .unwrap_or_else(|e| panic!("{label}: batch failed: {e}"));
    assert_eq!(gpu.len(), jobs.len());
    let (mut mismatched, mut unfinished, mut aligned) = (0, 0, 0);
    for (i, (job, got)) in jobs.iter().zip(&gpu).enumerate() {
        let want = job.run_cpu();
        aligned += usize::from(!want.is_empty());
        match got {
            None => unfinished += 1,
            Some(got) if *got != want => {
                let first = got.iter().zip(&want).position(|(a, b)| a != b);
                eprintln!(
                    "{label}: MISMATCH job {i}: GPU {} pairs, CPU {}; first difference at {first:?}",
                    got.len(),
                    want.len()
                );
                mismatched += 1;
            }
            Some(_) => {}
        }
    }
    (jobs.len(), mismatched, unfinished, aligned)
}

#[test]
fn gpu_equals_cpu_equals_fixture() {
    let Some(mut runner) = runner() else { return };
    let Some((jobs, expected)) = fixture_jobs() else {
        return;
    };
    let gpu = runner.run_batch(&jobs).expect("GPU batch");
    let (mut vs_cpu, mut vs_fixture, mut unfinished) = (0, 0, 0);
    for ((job, got), want) in jobs.iter().zip(&gpu).zip(&expected) {
        let Some(got) = got else {
            unfinished += 1;
            continue;
        };
        vs_cpu += usize::from(*got != job.run_cpu());
        vs_fixture += usize::from(got != want);
    }
    eprintln!(
        "abea gpu fixture: {} records, {} differ from the CPU, {} differ from f5c, {} not finished on the GPU",
        jobs.len(),
        vs_cpu,
        vs_fixture,
        unfinished
    );
    assert_eq!((vs_cpu, vs_fixture, unfinished), (0, 0, 0));
}

/// Long reads, over-segmented reads (up to 14 events per base, past f5c's
/// GPU limit of 5), unrelated and non-finite events, k = 9 with a random
/// model, and a batch larger than one launch.
#[test]
fn gpu_equals_cpu_on_stress_reads() {
    let Some(mut runner) = runner() else { return };
    let mut rng = Rng(0x6d5_abea);
    let s = Scalings {
        scale: 1.02,
        shift: -1.5,
        var: 1.0,
        log_var: 0.0,
    };
    let mut jobs = Vec::new();
    let mut push = |seq: Vec<u8>, means: Vec<f32>, models: &Arc<[Model]>, k: u32| {
        jobs.push(AlignJob {
            sequence: seq,
            means,
            models: models.clone(),
            kmer_size: k,
            scaling: s,
            gpu: true,
        })
    };
    for k in [6u32, 9] {
        let models: Arc<[Model]> = synthetic_model(k, &mut rng).into();
        // Long reads.
        for len in [50_000usize, 120_000] {
            let seq = random_seq(len, &mut rng);
            let ev = events_for(&seq, k, &models, s, &mut rng);
            push(seq, ev.iter().map(|e| e.mean).collect(), &models, k);
        }
        // Over-segmented: each k-mer's event split into many.
        for per in [4usize, 8, 14] {
            let seq = random_seq(2_000, &mut rng);
            let ev = events_for(&seq, k, &models, s, &mut rng);
            let means: Vec<f32> = ev
                .iter()
                .flat_map(|e| std::iter::repeat_n(e.mean, per))
                .collect();
            push(seq, means, &models, k);
        }
        // Many ordinary reads, unrelated events, non-finite values.
        for i in 0..200 {
            let seq = random_seq(200 + (rng.below(3_000) as usize), &mut rng);
            let mut means: Vec<f32> = if i % 10 == 0 {
                (0..1 + rng.below(2_000))
                    .map(|_| 50.0 + 90.0 * rng.unit())
                    .collect()
            } else {
                events_for(&seq, k, &models, s, &mut rng)
                    .iter()
                    .map(|e| e.mean)
                    .collect()
            };
            if i % 25 == 7 {
                means.iter_mut().step_by(11).for_each(|m| *m = f32::NAN);
            }
            if means.is_empty() {
                means.push(90.0);
            }
            push(seq, means, &models, k);
        }
    }
    let (compared, mismatched, unfinished, aligned) = compare(&mut runner, "stress", &jobs);
    eprintln!(
        "abea gpu stress: {compared} reads ({aligned} pass QC), {mismatched} differ from the CPU, {unfinished} not finished on the GPU, {} launches",
        runner.launches()
    );
    assert_eq!(mismatched, 0);
    assert_eq!(unfinished, 0);
}

/// Band cells per second: GPU batch (pack, upload, kernel, download,
/// backtrack) against the CPU pool on all cores, same reads, same run.
#[test]
fn gpu_vs_cpu_pool_benchmark() {
    let Some(mut runner) = runner() else { return };
    let Some((base, _)) = fixture_jobs() else {
        return;
    };
    let copies: usize = std::env::var("ABEA_BENCH_COPIES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(8);
    let mut jobs = Vec::new();
    for _ in 0..copies {
        for j in &base {
            jobs.push(AlignJob {
                sequence: j.sequence.clone(),
                means: j.means.clone(),
                models: j.models.clone(),
                kmer_size: j.kmer_size,
                scaling: j.scaling,
                gpu: true,
            });
        }
    }
    let cells: u64 = jobs.iter().map(|j| j.band_cells()).sum();
    let bases: usize = jobs.iter().map(|j| j.sequence.len()).sum();
    // Warm-up: kernel load, first-touch of the arena.
    runner.run_batch(&jobs[..base.len()]).expect("warm-up");
    let best = |f: &mut dyn FnMut() -> usize| {
        (0..3)
            .map(|_| {
                let t = Instant::now();
                let n = f();
                (t.elapsed().as_secs_f64(), n)
            })
            .min_by(|a, b| a.0.total_cmp(&b.0))
            .unwrap()
    };
    let (gpu_s, gpu_pairs) = best(&mut || {
        runner
            .run_batch(&jobs)
            .expect("GPU batch")
            .iter()
            .map(|r| r.as_ref().map_or(0, |p| p.len()))
            .sum()
    });
    let (cpu_s, cpu_pairs) = best(&mut || {
        cpu::install(|| {
            use rayon::prelude::*;
            jobs.par_iter().map(|j| j.run_cpu().len()).sum()
        })
    });
    assert_eq!(gpu_pairs, cpu_pairs);
    // Untimed, read by read. The launch count is printed: when the batch
    // spans several launches (large ABEA_BENCH_COPIES), this also checks
    // that lanes are reused without mixing up reads.
    let launches_before = runner.launches();
    let gpu_out = runner.run_batch(&jobs).expect("GPU batch");
    let launches = runner.launches() - launches_before;
    let cpu_out: Vec<Vec<AlignedPair>> = cpu::install(|| {
        use rayon::prelude::*;
        jobs.par_iter().map(|j| j.run_cpu()).collect()
    });
    let differ = gpu_out
        .iter()
        .zip(&cpu_out)
        .filter(|(g, c)| g.as_deref() != Some(c.as_slice()))
        .count();
    eprintln!(
        "abea benchmark: {launches} launches, {differ} of {} reads differ from the CPU",
        jobs.len()
    );
    assert_eq!(differ, 0);
    let gpu_rate = cells as f64 / gpu_s;
    let cpu_rate = cells as f64 / cpu_s;
    let name = device::gpus()
        .first()
        .map(|g| g.info().name.clone())
        .unwrap_or_default();
    eprintln!(
        "abea benchmark: {} reads, {:.1} Mbases, {:.1} M band cells; GPU ({name}) {:.3} s = {:.2} G cells/s; CPU pool ({} threads) {:.3} s = {:.2} G cells/s; GPU/CPU = {:.2}x",
        jobs.len(),
        bases as f64 / 1e6,
        cells as f64 / 1e6,
        gpu_s,
        gpu_rate / 1e9,
        cpu::threads(),
        cpu_s,
        cpu_rate / 1e9,
        gpu_rate / cpu_rate
    );
}

/// The public batch entry with strict mode: every read routed to the GPU
/// must finish there, and the result equals the per-read CPU path.
#[test]
fn batch_entry_on_the_gpu() {
    if runner().is_none() {
        return;
    }
    let Some((jobs, expected)) = fixture_jobs() else {
        return;
    };
    let models = jobs[0].models.clone();
    let reads = jobs
        .into_iter()
        .map(|j| abea::BatchRead {
            sequence: j.sequence,
            means: j.means,
            scaling: j.scaling,
        })
        .collect();
    let before = abea::scheduler().stats();
    let results = abea::align_batch(models, 6, reads, &abea::BatchOptions::default());
    let after = abea::scheduler().stats();
    let mut differ = 0;
    for (r, want) in results.iter().zip(&expected) {
        match r {
            Ok(got) => differ += usize::from(got != want),
            Err(e) => panic!("batch read failed: {e}"),
        }
    }
    eprintln!(
        "abea batch entry: {} reads, {} differ from f5c, {} GPU batches, {} rescued on the CPU, devices {:?}",
        results.len(),
        differ,
        after.batches - before.batches,
        after.rescued_jobs - before.rescued_jobs,
        abea::scheduler().devices()
    );
    assert_eq!(differ, 0);
    assert!(after.batches > before.batches, "nothing ran on the GPU");
}

/// f5c's own use: many worker threads each calling `align()` for one read at
/// a time. Concurrent calls must share GPU batches and each caller must get
/// its own read's pairs, equal to f5c's.
#[test]
fn concurrent_per_read_calls_share_gpu_batches() {
    if runner().is_none() {
        return;
    }
    let Some(dir) = abea_support::fixture_dir() else {
        return;
    };
    let fx = abea_support::load(&dir);
    let before = abea::scheduler().stats();
    let threads = 16;
    let differ = std::sync::atomic::AtomicUsize::new(0);
    std::thread::scope(|scope| {
        for t in 0..threads {
            let fx = &fx;
            let differ = &differ;
            scope.spawn(move || {
                for i in 0..fx.records.len() {
                    let r = &fx.records[(i + 7 * t) % fx.records.len()];
                    let mut out = vec![AlignedPair::default(); r.events.len() + r.sequence.len()];
                    let n = abea::align_call(
                        &r.sequence,
                        &r.events,
                        &fx.models,
                        6,
                        r.scaling,
                        |pairs| abea::copy_pairs(&mut out, pairs),
                    );
                    if out[..n] != r.expected[..] {
                        differ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    }
                }
            });
        }
    });
    let after = abea::scheduler().stats();
    let differ = differ.into_inner();
    eprintln!(
        "abea per-read calls: {threads} threads x {} reads, {differ} differ from f5c, {} on the GPU in {} batches (largest {}), {} on callers' threads",
        fx.records.len(),
        after.batched_jobs - before.batched_jobs,
        after.batches - before.batches,
        after.largest_batch,
        after.inline_jobs - before.inline_jobs
    );
    assert_eq!(differ, 0);
    assert!(after.batches > before.batches, "no call reached the GPU");
}

/// The grid behind "the GPU never makes a tool slower": f5c-style per-read
/// calls from T threads through `align_call` (which may send them to the
/// GPU) against the CPU path on the same threads (`align_into`, what
/// `SEQSHIM_BACKEND=cpu` runs), for each T of `ROUTING_THREADS`. Every
/// result must equal f5c's; the ratios are printed, not asserted (a
/// benchmark: `scripts/device-checks/routing.sh`).
#[test]
fn per_read_routing_grid() {
    if runner().is_none() {
        return;
    }
    let Some(dir) = abea_support::fixture_dir() else {
        return;
    };
    let fx = abea_support::load(&dir);
    let grid: Vec<usize> = std::env::var("ROUTING_THREADS")
        .unwrap_or_else(|_| "1 4 16 64 256 1024".into())
        .split_whitespace()
        .filter_map(|t| t.parse().ok())
        .collect();
    let run = |threads: usize, calls: usize, routed: bool| -> (f64, usize) {
        let next = std::sync::atomic::AtomicUsize::new(0);
        let differ = std::sync::atomic::AtomicUsize::new(0);
        let started = Instant::now();
        std::thread::scope(|scope| {
            for _ in 0..threads {
                scope.spawn(|| {
                    loop {
                        let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        if i >= calls {
                            break;
                        }
                        let r = &fx.records[i % fx.records.len()];
                        let mut out =
                            vec![AlignedPair::default(); r.events.len() + r.sequence.len()];
                        let n = if routed {
                            abea::align_call(
                                &r.sequence,
                                &r.events,
                                &fx.models,
                                6,
                                r.scaling,
                                |p| abea::copy_pairs(&mut out, p),
                            )
                        } else {
                            abea::align_into(
                                &mut out,
                                &r.sequence,
                                &r.events,
                                &fx.models,
                                6,
                                r.scaling,
                                0.0,
                            )
                        };
                        if out[..n] != r.expected[..] {
                            differ.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                        }
                    }
                });
            }
        });
        (
            calls as f64 / started.elapsed().as_secs_f64(),
            differ.into_inner(),
        )
    };
    let mut differ_total = 0;
    for &threads in &grid {
        let calls = (threads * 12).clamp(fx.records.len(), 2048);
        let (cpu, cpu_differ) = run(threads, calls, false);
        let before = abea::scheduler().stats();
        let (ours, our_differ) = run(threads, calls, true);
        let after = abea::scheduler().stats();
        differ_total += cpu_differ + our_differ;
        eprintln!(
            "abea routing grid: {threads:4} threads, {calls:4} calls: cpu path {cpu:7.0} reads/s, shipped {ours:7.0} reads/s, shipped/cpu {:.2}; {} differ from f5c; {} on the GPU in {} launches, {} taken back",
            ours / cpu,
            cpu_differ + our_differ,
            after.batched_jobs - before.batched_jobs,
            after.batches - before.batches,
            after.reclaimed_jobs - before.reclaimed_jobs,
        );
    }
    assert_eq!(differ_total, 0);
}
