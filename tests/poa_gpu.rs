//! POA windows on a real GPU: windows of the CONSENT-GPU size classes and
//! CONSENT's own 500-base windows are run by the GPU runner and by the CPU
//! path, and every result (status, consensus, MSA rows) must be identical.
//! A failing device must leave nothing lost (its windows rerun on the CPU),
//! the batch entry must run on the GPU, and a benchmark compares GPU
//! batches with the CPU path on every host thread.
//!
//! Needs a GPU; without one each test prints SKIP, unless
//! `SEQSHIM_REQUIRE_GPU=1` (the device bundle sets it) makes that a failure.
//! Run on the GPU machine by `device-bundle/checks/poa.sh`.
//! `POA_GPU_SCALE` scales the window counts (default 1).

mod gpu_support;
mod poa_windows;

use std::sync::Arc;
use std::time::Instant;

use poa_windows::{Rng, window};
use seqshim::engine::cpu;
use seqshim::engine::family;
use seqshim::engine::scheduler::{BatchRunner, Options, Scheduler};
use seqshim::poa::batch::DnaOptions;
use seqshim::poa::gpu::{WindowRunner, kernel_takes};
use seqshim::poa::{
    BatchConfig, ConsensusRule, Poa, WindowJob, WindowResult, WindowStatus, run_windows,
};

fn runner() -> Option<WindowRunner> {
    let gpu = gpu_support::first_gpu()?;
    match WindowRunner::new(gpu.clone()) {
        Ok(runner) => Some(runner),
        Err(e) => panic!("the POA kernel did not load on {}: {e}", gpu.info().name),
    }
}

fn scale() -> f64 {
    std::env::var("POA_GPU_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1.0)
}

fn scaled(n: usize) -> usize {
    ((n as f64 * scale()) as usize).max(16)
}

fn consent(want_msa: bool) -> DnaOptions {
    DnaOptions {
        match_score: 5,
        mismatch: -10,
        gap_open: -5,
        gap_extend: -5,
        gap_truncation: 16,
        global: true,
        consensus: ConsensusRule::ColumnMajority,
        max_seqs: 150,
        want_msa,
    }
}

fn config(o: DnaOptions) -> Arc<BatchConfig> {
    Arc::new(BatchConfig::dna(&o).expect("valid options"))
}

/// A kind of window: label, reads, true length, windows.
type Kind = (&'static str, (usize, usize), (usize, usize), usize);

/// The window kinds: the spec's synthetic classes (reads x true length)
/// and CONSENT's default 500-base windows.
const KINDS: [Kind; 4] = [
    ("2-8 x 32-63", (2, 8), (32, 63), 20_000),
    ("9-16 x 64-127", (9, 16), (64, 127), 10_000),
    ("17-32 x 128-255", (17, 32), (128, 255), 4_000),
    ("CONSENT 4-32 x 500", (4, 32), (500, 500), 1_000),
];

fn windows(seed: u64, n: (usize, usize), l: (usize, usize), count: usize) -> Vec<Vec<Vec<u8>>> {
    let mut rng = Rng(seed);
    (0..count).map(|_| window(&mut rng, n, l)).collect()
}

fn jobs_of(windows: &[Vec<Vec<u8>>], configs: &[Arc<BatchConfig>]) -> Vec<WindowJob> {
    windows
        .iter()
        .enumerate()
        .map(|(k, w)| WindowJob {
            reads: w.clone(),
            config: configs[k % configs.len()].clone(),
        })
        .collect()
}

/// The CPU path for every job, on the CPU pool.
fn cpu_results(jobs: &[WindowJob]) -> Vec<WindowResult> {
    cpu::install(|| {
        use rayon::prelude::*;
        jobs.par_iter().map(WindowJob::compute).collect()
    })
}

/// (taken by the kernel, compared, differ, not finished on the GPU).
fn compare(
    label: &str,
    jobs: &[WindowJob],
    gpu: &[Option<WindowResult>],
    want: &[WindowResult],
) -> (usize, usize, usize, usize) {
    let (mut taken, mut compared, mut differ, mut unfinished) = (0, 0, 0, 0);
    for (k, ((job, got), want)) in jobs.iter().zip(gpu).zip(want).enumerate() {
        if !kernel_takes(job) {
            continue;
        }
        taken += 1;
        match got {
            None => unfinished += 1,
            Some(got) => {
                compared += 1;
                if got != want {
                    differ += 1;
                    if differ <= 5 {
                        eprintln!(
                            "{label}: MISMATCH window {k} ({} reads): GPU {:?} {:?}, CPU {:?} {:?}",
                            job.reads.len(),
                            got.status,
                            String::from_utf8_lossy(&got.consensus),
                            want.status,
                            String::from_utf8_lossy(&want.consensus)
                        );
                    }
                }
            }
        }
    }
    (taken, compared, differ, unfinished)
}

/// GPU == CPU on every kind, CONSENT's settings (MSA rows kept, so they
/// are compared too), and a GPU-vs-CPU-pool benchmark on the same windows:
/// windows/s of the GPU runner (packing, kernel, MSA and consensus on the
/// host, windows over the node budget rerun on the CPU pool afterwards)
/// against the CPU path on every pool thread.
#[test]
fn gpu_equals_cpu_and_benchmark() {
    let Some(mut runner) = runner() else { return };
    let device = gpu_support::first_gpu().map(|g| g.info().name.clone());
    eprintln!(
        "poa benchmark: {} vs CPU pool of {} threads",
        device.unwrap_or_default(),
        cpu::threads()
    );
    let configs = [config(consent(true))];
    let (mut all, mut all_differ) = (0, 0);
    for (k, (label, n, l, count)) in KINDS.iter().enumerate() {
        let ws = windows(20240611 + k as u64, *n, *l, scaled(*count));
        let jobs = jobs_of(&ws, &configs);
        // Warm-up: kernel load and the lanes' first touch.
        let _ = runner.run_batch(&jobs[..jobs.len().min(512)]);
        let t = Instant::now();
        let gpu = runner.run_batch(&jobs).expect("GPU batch");
        let rerun: Vec<WindowJob> = jobs
            .iter()
            .zip(&gpu)
            .filter(|(_, r)| r.is_none())
            .map(|(j, _)| WindowJob {
                reads: j.reads.clone(),
                config: j.config.clone(),
            })
            .collect();
        let _ = cpu_results(&rerun);
        let gpu_s = t.elapsed().as_secs_f64();
        let t = Instant::now();
        let want = cpu_results(&jobs);
        let cpu_s = t.elapsed().as_secs_f64();
        let (taken, compared, differ, unfinished) = compare(label, &jobs, &gpu, &want);
        let gpu_rate = jobs.len() as f64 / gpu_s;
        let cpu_rate = jobs.len() as f64 / cpu_s;
        eprintln!(
            "poa gpu {label}: {} windows, {taken} taken by the kernel, {compared} compared, {differ} differ, {unfinished} over the node budget (rerun on the CPU)",
            jobs.len()
        );
        eprintln!(
            "poa benchmark: {label}: GPU {gpu_rate:.0} windows/s, CPU pool {cpu_rate:.0} windows/s; GPU/CPU = {:.1}",
            gpu_rate / cpu_rate
        );
        all += compared;
        all_differ += differ;
        assert!(taken == jobs.len());
    }
    eprintln!(
        "poa gpu all kinds: {all} windows compared, {all_differ} differ ({} launches)",
        runner.launches()
    );
    assert_eq!(all_differ, 0);
}

/// Other modes and edge windows: local alignment, another scoring with a
/// short gap truncation, consensus without MSA rows, a read cap; one read,
/// identical reads, empty reads, N, unrelated reads.
#[test]
fn gpu_equals_cpu_on_other_modes_and_edge_windows() {
    let Some(mut runner) = runner() else { return };
    let configs = [
        config(consent(false)),
        config(DnaOptions {
            global: false,
            ..consent(true)
        }),
        config(DnaOptions {
            match_score: 2,
            mismatch: -3,
            gap_open: -4,
            gap_extend: -1,
            gap_truncation: 6,
            ..consent(true)
        }),
        config(DnaOptions {
            max_seqs: 5,
            ..consent(true)
        }),
    ];
    let mut ws = Vec::new();
    for (k, (_, n, l, count)) in KINDS.iter().enumerate() {
        ws.extend(windows(7 + k as u64, *n, *l, scaled(count / 5)));
    }
    let mut rng = Rng(11);
    for len in [1usize, 2, 31, 63, 255, 700] {
        for nreads in [1usize, 2, 8, 32] {
            let truth: Vec<u8> = (0..len).map(|_| rng.base()).collect();
            ws.push(vec![truth.clone(); nreads]);
            ws.push(
                (0..nreads)
                    .map(|_| (0..len).map(|_| rng.base()).collect())
                    .collect(),
            );
            ws.push(
                (0..nreads)
                    .map(|i| {
                        if i % 3 == 1 {
                            Vec::new()
                        } else {
                            vec![b'A'; len]
                        }
                    })
                    .collect(),
            );
            ws.push(
                (0..nreads)
                    .map(|_| {
                        (0..len)
                            .map(|i| if i % 4 == 0 { b'N' } else { rng.base() })
                            .collect()
                    })
                    .collect(),
            );
        }
    }
    let jobs = jobs_of(&ws, &configs);
    let gpu = runner.run_batch(&jobs).expect("GPU batch");
    let want = cpu_results(&jobs);
    let (taken, compared, differ, unfinished) = compare("modes", &jobs, &gpu, &want);
    eprintln!(
        "poa gpu modes and edges: {} windows, {taken} taken by the kernel, {compared} compared, {differ} differ, {unfinished} over the node budget (rerun on the CPU)",
        jobs.len()
    );
    assert_eq!(differ, 0);
    assert!(compared > 0);
}

/// A few windows of every block width the kernel launches (one to 22 warps:
/// the block has a thread per position of the longest read), global and
/// local, with an empty read and N: small enough for compute-sanitizer's
/// racecheck, which tracks every shared-memory access.
#[test]
fn gpu_equals_cpu_on_a_few_windows_of_each_block_width() {
    let Some(mut runner) = runner() else { return };
    let configs = [
        config(consent(true)),
        config(DnaOptions {
            global: false,
            ..consent(true)
        }),
    ];
    let mut ws = Vec::new();
    for (i, len) in [31usize, 63, 255, 700].into_iter().enumerate() {
        ws.extend(windows(0x5a17 + i as u64, (3, 3), (len, len), 1));
    }
    let mut rng = Rng(12);
    ws.push(vec![
        (0..40).map(|_| rng.base()).collect(),
        Vec::new(),
        (0..40)
            .map(|i| if i % 5 == 0 { b'N' } else { rng.base() })
            .collect(),
    ]);
    let jobs = jobs_of(&ws, &configs);
    let gpu = runner.run_batch(&jobs).expect("GPU batch");
    let want = cpu_results(&jobs);
    let (taken, compared, differ, unfinished) = compare("widths", &jobs, &gpu, &want);
    eprintln!(
        "poa gpu block widths: {} windows, {taken} taken by the kernel, {compared} compared, {differ} differ, {unfinished} over the node budget",
        jobs.len()
    );
    assert_eq!(differ, 0);
    assert!(taken > 0);
}

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
    let ws = windows(0xfa11, (9, 16), (64, 127), 2_000);
    let jobs = jobs_of(&ws, &[config(consent(true))]);
    let want = cpu_results(&jobs);
    let first = scheduler.run_all(jobs_of(&ws, &[jobs[0].config.clone()]));
    let second = scheduler.run_all(jobs_of(&ws, &[jobs[0].config.clone()]));
    let stats = scheduler.stats();
    let differ = first
        .iter()
        .chain(&second)
        .zip(want.iter().chain(&want))
        .filter(|(got, want)| got.as_ref().ok() != Some(*want))
        .count();
    eprintln!(
        "poa gpu rescue: {} windows twice, {} failed batches, {} rescued on the CPU, {} GPU batches, {differ} differ",
        jobs.len(),
        stats.failed_batches,
        stats.rescued_jobs,
        stats.batches
    );
    assert_eq!(differ, 0);
    assert!(stats.failed_batches >= 1 && stats.rescued_jobs >= 1);
}

/// The batch entry (`run_windows`, behind `seqshim_poa_batch_run`) runs
/// its windows on the GPU, the windows the kernel does not take (here the
/// heaviest-bundle ones) on the CPU pool at the same time.
#[test]
fn batch_entry_runs_on_the_gpu() {
    if gpu_support::first_gpu().is_none() {
        return;
    }
    let ws = windows(0xba7c, (9, 16), (64, 127), 5_000);
    let mut jobs = jobs_of(&ws, &[config(consent(true))]);
    let hb = config(DnaOptions {
        consensus: ConsensusRule::HeaviestBundle,
        ..consent(true)
    });
    for j in jobs.iter_mut().step_by(10) {
        j.config = hb.clone();
    }
    let want = cpu_results(&jobs);
    let before = family::scheduler::<Poa>().stats();
    let got = run_windows(jobs);
    let after = family::scheduler::<Poa>().stats();
    let differ = got.iter().zip(&want).filter(|(a, b)| a != b).count();
    let device_errors = got
        .iter()
        .filter(|r| r.status == WindowStatus::Device)
        .count();
    eprintln!(
        "poa batch entry: {} windows, {differ} differ, {} on the GPU in {} GPU batches, {} on the CPU pool, {} rescued, devices {:?}",
        want.len(),
        after.batched_jobs - before.batched_jobs,
        after.batches - before.batches,
        after.inline_jobs - before.inline_jobs,
        after.rescued_jobs - before.rescued_jobs,
        family::scheduler::<Poa>().devices()
    );
    assert_eq!((differ, device_errors), (0, 0));
    assert!(after.batches > before.batches);
}
