//! WFA on a real GPU: pairs over the length/divergence grid and every
//! configuration the kernel takes are aligned by the GPU runner and by the
//! CPU path, and every result (status, score, CIGAR) must be identical. Then
//! a throughput comparison: GPU batch against the CPU path on the CPU pool.
//!
//! Needs a GPU; without one each test prints SKIP, unless
//! `SEQSHIM_REQUIRE_GPU=1` (the device bundle sets it) makes that a failure.
//! Run on the GPU machine by `device-bundle/checks/wfa.sh`.

mod gpu_support;

use std::sync::Arc;
use std::time::Instant;

use gpu_support::{Rng, random_seq};
use seqshim::engine::cpu;
use seqshim::engine::scheduler::{BatchRunner, Job};
use seqshim::wfa::gpu::{WfaRunner, counters};
use seqshim::wfa::job::{PairResult, PairSet, WfaJob, gpu_may_take};
use seqshim::wfa::{
    AffinePenalties, AlignerAttributes, AlignmentForm, AlignmentScope, AlignmentSpan, Heuristic,
    LinearPenalties, MemoryMode, Penalties,
};

fn runner() -> Option<WfaRunner> {
    runner_with(16 << 30)
}

/// A runner with an arena of about `bytes`, or `None` (saying why) without
/// a GPU; a missing GPU fails when `SEQSHIM_REQUIRE_GPU=1`.
fn runner_with(bytes: usize) -> Option<WfaRunner> {
    let gpu = gpu_support::first_gpu()?;
    match WfaRunner::new(gpu.clone(), 0, bytes) {
        Ok(runner) => Some(runner),
        Err(e) => panic!("the WFA kernel did not load on {}: {e}", gpu.info().name),
    }
}

/// A pair of about `len` bases with `percent` % edits (substitutions,
/// insertions and deletions in equal shares).
fn pair(rng: &mut Rng, len: usize, percent: u64) -> (Vec<u8>, Vec<u8>) {
    let p = random_seq(rng, len);
    let mut t = Vec::with_capacity(len + len / 8);
    for &b in &p {
        if rng.below(1000) < percent * 10 {
            match rng.below(3) {
                0 => t.push(
                    b"ACGT"[(rng.below(3) as usize + 1 + "ACGT".find(b as char).unwrap()) % 4],
                ),
                1 => {}
                _ => {
                    t.push(b"ACGT"[rng.below(4) as usize]);
                    t.push(b);
                }
            }
        } else {
            t.push(b);
        }
    }
    (p, t)
}

fn edge_pairs(rng: &mut Rng) -> Vec<(Vec<u8>, Vec<u8>)> {
    let mut v: Vec<(Vec<u8>, Vec<u8>)> = vec![
        (b"".to_vec(), b"".to_vec()),
        (b"".to_vec(), b"ACGT".to_vec()),
        (b"ACGT".to_vec(), b"".to_vec()),
        (b"A".to_vec(), b"A".to_vec()),
        (b"A".to_vec(), b"C".to_vec()),
        (b"A".to_vec(), b"".to_vec()),
        (b"".to_vec(), b"T".to_vec()),
        (b"ACGTNNNNACGT".to_vec(), b"ACGTNNNNACGT".to_vec()),
        (b"ACGTNACGT".to_vec(), b"ACGTACGT".to_vec()),
        (b"acgtacgtac".to_vec(), b"ACGTACGTAC".to_vec()),
        (b"acgtacgtac".to_vec(), b"acgtaggtac".to_vec()),
        (b"GATTACA".to_vec(), b"GATTACA".to_vec()),
    ];
    for _ in 0..20 {
        let len = 300 + rng.below(600) as usize;
        let (p, _) = pair(rng, len, 0);
        let len = 1 + rng.below(40) as usize;
        let t = random_seq(rng, len);
        v.push((p.clone(), t.clone()));
        v.push((t, p));
    }
    for _ in 0..10 {
        let (p, mut t) = pair(rng, 150, 5);
        let at = rng.below(t.len() as u64) as usize;
        t[at] = b'N';
        v.push((p, t));
    }
    v
}

fn affine(x: i32, o: i32, e: i32) -> Penalties {
    Penalties::GapAffine(AffinePenalties {
        match_score: 0,
        mismatch: x,
        gap_opening: o,
        gap_extension: e,
    })
}

fn attributes(
    penalties: Penalties,
    scope: AlignmentScope,
    form: AlignmentForm,
    heuristic: Heuristic,
) -> AlignerAttributes {
    AlignerAttributes {
        penalties,
        scope,
        form,
        memory_mode: MemoryMode::High,
        heuristic,
        max_alignment_score: i32::MAX,
    }
}

fn jobs_of(
    attributes: AlignerAttributes,
    pairs: &[(Vec<u8>, Vec<u8>)],
    per_job: usize,
) -> Vec<WfaJob> {
    let mut set = PairSet::with_capacity(pairs.len(), 0);
    for (p, t) in pairs {
        set.push(p, t);
    }
    let set = Arc::new(set);
    (0..pairs.len())
        .step_by(per_job.max(1))
        .map(|start| {
            let range = start..(start + per_job).min(pairs.len());
            WfaJob::new(attributes, set.clone(), range, true)
        })
        .collect()
}

fn cpu_results(jobs: &[WfaJob]) -> Vec<PairResult> {
    cpu::install(|| {
        use rayon::prelude::*;
        jobs.par_iter()
            .flat_map_iter(|job| job.range.clone().map(move |i| (job, i)))
            .map(|(job, i)| {
                seqshim::wfa::job::align_on_cpu(
                    &job.attributes,
                    job.pairs.pattern(i),
                    job.pairs.text(i),
                )
            })
            .collect::<Vec<_>>()
    })
}

/// Runs `jobs` on the GPU runner and the CPU path; returns (pairs, differ).
fn compare(runner: &mut WfaRunner, label: &str, jobs: &[WfaJob]) -> (usize, usize) {
    let gpu = runner
        .run_batch(jobs)
        .unwrap_or_else(|e| panic!("{label}: batch failed: {e}"));
    let want = cpu_results(jobs);
    let got: Vec<PairResult> = gpu
        .into_iter()
        .flat_map(|r| r.expect("every job finishes"))
        .collect();
    assert_eq!(got.len(), want.len());
    let mut differ = 0;
    let pairs: Vec<(usize, usize)> = jobs
        .iter()
        .enumerate()
        .flat_map(|(j, job)| job.range.clone().map(move |i| (j, i)))
        .collect();
    for (n, (g, w)) in got.iter().zip(&want).enumerate() {
        if g != w {
            differ += 1;
            if differ <= 5 {
                let (j, i) = pairs[n];
                eprintln!(
                    "{label}: MISMATCH pair {n}: GPU {:?} {} {} / CPU {:?} {} {}\n  p={}\n  t={}",
                    g.outcome,
                    g.score,
                    g.operations.sam(),
                    w.outcome,
                    w.score,
                    w.operations.sam(),
                    String::from_utf8_lossy(jobs[j].pairs.pattern(i)),
                    String::from_utf8_lossy(jobs[j].pairs.text(i)),
                );
            }
        }
    }
    (got.len(), differ)
}

/// [`compare`] for one cell of the grid: prints its line and adds its
/// pairs and differences to `total`.
fn tally(runner: &mut WfaRunner, label: &str, jobs: &[WfaJob], total: &mut (usize, usize)) {
    let (c, d) = compare(runner, label, jobs);
    eprintln!("wfa gpu parity [{label}]: {c} pairs, {d} differ from the CPU");
    total.0 += c;
    total.1 += d;
}

fn scale(var: &str, default: f64) -> f64 {
    std::env::var(var)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Every metric the kernel takes, named.
fn metrics() -> [(&'static str, Penalties); 5] {
    [
        ("indel", Penalties::Indel),
        ("edit", Penalties::Edit),
        (
            "linear 0,4,2",
            Penalties::GapLinear(LinearPenalties {
                match_score: 0,
                mismatch: 4,
                indel: 2,
            }),
        ),
        ("affine 4,6,2", affine(4, 6, 2)),
        ("affine 2,3,1", affine(2, 3, 1)),
    ]
}

/// Both spans, named.
fn forms() -> [(&'static str, AlignmentForm); 2] {
    [
        ("end-to-end", AlignmentForm::END_TO_END),
        (
            "ends-free 10,10,10,10",
            AlignmentForm {
                span: AlignmentSpan::EndsFree,
                pattern_begin_free: 10,
                pattern_end_free: 10,
                text_begin_free: 10,
                text_end_free: 10,
            },
        ),
    ]
}

/// GPU == CPU over the grid and every configuration the kernel takes.
#[test]
fn gpu_equals_cpu_on_the_grid() {
    let Some(mut runner) = runner() else { return };
    let s = scale("WFA_PARITY_SCALE", 1.0);
    let n = |x: usize| ((x as f64 * s) as usize).max(1);
    let mut rng = Rng(0x00f0_9a11);
    let default = AlignerAttributes::default();
    let mut total = (0usize, 0usize);
    let before = counters();
    // The default attributes (gap-affine 4,6,2, wf-adaptive) and the exact
    // aligner over the whole grid.
    let exact = attributes(
        affine(4, 6, 2),
        AlignmentScope::ComputeAlignment,
        AlignmentForm::END_TO_END,
        Heuristic::none(),
    );
    for (name, attr) in [
        ("default (affine 4,6,2, wf-adaptive)", default),
        ("affine 4,6,2 exact", exact),
    ] {
        for (len, count) in [(150, n(20_000)), (1_000, n(4_000)), (10_000, n(60))] {
            for rate in [2, 5, 10] {
                let pairs: Vec<_> = (0..count).map(|_| pair(&mut rng, len, rate)).collect();
                let jobs = jobs_of(attr, &pairs, 1024);
                let label = format!("{name}, {len} bp @ {rate}%");
                tally(&mut runner, &label, &jobs, &mut total);
            }
        }
    }
    // Every metric x span x scope x heuristic.
    for (mn, pen) in metrics() {
        for (fname, form) in forms() {
            for (hn, h) in [
                ("none", Heuristic::none()),
                ("wf-adaptive", Heuristic::wfadaptive(10, 50, 1)),
            ] {
                for scope in [
                    AlignmentScope::ComputeScore,
                    AlignmentScope::ComputeAlignment,
                ] {
                    let attr = attributes(pen, scope, form, h);
                    assert!(
                        gpu_may_take(&attr, 150, 150),
                        "{mn} {fname} {hn} is routed to the CPU"
                    );
                    let mut pairs = edge_pairs(&mut rng);
                    for (len, count) in [(150, n(1_200)), (1_000, n(240))] {
                        for rate in [2, 5, 10] {
                            pairs.extend((0..count).map(|_| pair(&mut rng, len, rate)));
                        }
                    }
                    let jobs = jobs_of(attr, &pairs, 256);
                    let label = format!("{mn}, {fname}, {hn}, {scope:?}");
                    tally(&mut runner, &label, &jobs, &mut total);
                }
            }
        }
    }
    // Long pairs run on blocks of several warps, and at 10-20 % the edit
    // metric's wavefronts pass 1,000 diagonals, where its exact prune runs.
    for (mn, pen) in [
        ("edit", Penalties::Edit),
        ("indel", Penalties::Indel),
        ("affine 2,3,1", affine(2, 3, 1)),
    ] {
        for scope in [
            AlignmentScope::ComputeScore,
            AlignmentScope::ComputeAlignment,
        ] {
            let attr = attributes(pen, scope, AlignmentForm::END_TO_END, Heuristic::none());
            let mut pairs = Vec::new();
            for rate in [10, 20] {
                pairs.extend((0..n(20)).map(|_| pair(&mut rng, 10_000, rate)));
            }
            let jobs = jobs_of(attr, &pairs, 16);
            let label = format!("{mn}, end-to-end, none, {scope:?}, 10 kbp @ 10-20%");
            tally(&mut runner, &label, &jobs, &mut total);
        }
    }
    let after = counters();
    let rescued = after.1 - before.1;
    eprintln!(
        "wfa gpu parity: {} pairs, {} differ from the CPU, {} rescued on the CPU",
        total.0, total.1, rescued
    );
    eprintln!(
        "wfa gpu stats: {} pairs finished on the GPU in {} launches, {} rescued, {} routed to the CPU by their bytes or lengths, {} replay failures, {} walks replayed on the host",
        after.0 - before.0,
        after.4 - before.4,
        rescued,
        after.2 - before.2,
        after.3 - before.3,
        after.5 - before.5
    );
    assert_eq!(total.1, 0);
    assert_eq!(after.3 - before.3, 0);
    assert!(after.0 - before.0 > (total.0 as u64) * 9 / 10);
    // The kernel replayed every walk itself: the CIGARs compared above are
    // its runs.
    assert_eq!(after.5 - before.5, 0);
}

/// The host's replay of the kernel's walks (taken where the kernel's runs
/// area has no room) equals the CPU path too, for every metric and span.
#[test]
fn host_replay_equals_cpu() {
    let Some(mut runner) = runner() else { return };
    runner.replay_on_host(true);
    let mut rng = Rng(0x4057_2e91);
    let mut total = (0usize, 0usize);
    let before = counters();
    for (mn, pen) in metrics() {
        for (fname, form) in forms() {
            let attr = attributes(
                pen,
                AlignmentScope::ComputeAlignment,
                form,
                Heuristic::none(),
            );
            let mut pairs = edge_pairs(&mut rng);
            for (len, count) in [(150, 600), (1_000, 120)] {
                for rate in [2, 5, 10] {
                    pairs.extend((0..count).map(|_| pair(&mut rng, len, rate)));
                }
            }
            let jobs = jobs_of(attr, &pairs, 256);
            let label = format!("host replay, {mn}, {fname}");
            tally(&mut runner, &label, &jobs, &mut total);
        }
    }
    let after = counters();
    eprintln!(
        "wfa host replay: {} pairs, {} differ from the CPU, {} walks replayed on the host, {} replay failures",
        total.0,
        total.1,
        after.5 - before.5,
        after.3 - before.3
    );
    assert_eq!(total.1, 0);
    assert_eq!(after.3 - before.3, 0);
    assert!(after.5 - before.5 > (total.0 as u64) * 9 / 10);
}

/// Unrelated pairs take long walks (a 150 bp pair about a hundred tags),
/// so the kernel's runs area, sized for similar pairs, fills part way
/// through a launch: the later walks are replayed on the host from the
/// same part. Both kinds in one launch must equal the CPU path.
#[test]
fn unrelated_pairs_mix_kernel_and_host_replays() {
    let Some(mut runner) = runner() else { return };
    let mut rng = Rng(0x0dd_5eed);
    let mut total = (0usize, 0usize);
    let before = counters();
    for (mn, pen) in metrics() {
        let attr = attributes(
            pen,
            AlignmentScope::ComputeAlignment,
            AlignmentForm::END_TO_END,
            Heuristic::none(),
        );
        let mut pairs = Vec::new();
        for (len, count) in [(150, 3_000), (1_000, 300)] {
            for _ in 0..count {
                let other = len - len / 10 + rng.below(len as u64 / 5) as usize;
                pairs.push((random_seq(&mut rng, len), random_seq(&mut rng, other)));
            }
        }
        let jobs = jobs_of(attr, &pairs, 512);
        tally(
            &mut runner,
            &format!("unrelated pairs, {mn}"),
            &jobs,
            &mut total,
        );
    }
    let after = counters();
    let (on_gpu, on_host) = (after.0 - before.0, after.5 - before.5);
    eprintln!(
        "wfa unrelated pairs: {} pairs, {} differ from the CPU, {on_gpu} finished on the GPU, {on_host} of them replayed on the host, {} replay failures",
        total.0,
        total.1,
        after.3 - before.3
    );
    assert_eq!(total.1, 0);
    assert_eq!(after.3 - before.3, 0);
    assert!(on_host > 0 && on_host < on_gpu, "both replays ran");
}

/// Thousands of short pairs with two long ones in a small arena: the long
/// pairs' rings must not starve the launch of worker memory (the batch must
/// finish on the GPU and equal the CPU path).
#[test]
fn mixed_lengths_fit_a_small_arena() {
    let Some(mut runner) = runner_with(1 << 30) else {
        return;
    };
    let mut rng = Rng(0x5eed);
    let mut pairs: Vec<_> = (0..3_000).map(|_| pair(&mut rng, 150, 5)).collect();
    pairs.insert(1_000, pair(&mut rng, 25_000, 2));
    pairs.push(pair(&mut rng, 25_000, 2));
    let attr = attributes(
        affine(4, 6, 2),
        AlignmentScope::ComputeAlignment,
        AlignmentForm::END_TO_END,
        Heuristic::none(),
    );
    let jobs = jobs_of(attr, &pairs, 512);
    let before = counters();
    let (n, differ) = compare(&mut runner, "mixed lengths", &jobs);
    let after = counters();
    eprintln!(
        "wfa mixed lengths: {n} pairs, {differ} differ, {} finished on the GPU in {} launches",
        after.0 - before.0,
        after.4 - before.4
    );
    assert_eq!(differ, 0);
    assert_eq!(after.0 - before.0, n as u64);
}

/// A runner whose share of the budget is small (48 MiB) starts with no
/// arena, grows it only as far as its share, cuts the batch into launches
/// that fit, and still equals the CPU path.
#[test]
fn a_small_share_grows_within_it_and_equals_the_cpu() {
    const SHARE: usize = 48 << 20;
    let Some(mut runner) = runner_with(SHARE) else {
        return;
    };
    assert_eq!(
        runner.arena_bytes(),
        0,
        "nothing is allocated before a batch"
    );
    let mut rng = Rng(0x5a11);
    let mut pairs: Vec<_> = (0..4_000).map(|_| pair(&mut rng, 150, 5)).collect();
    pairs.extend((0..40).map(|_| pair(&mut rng, 10_000, 5)));
    let attr = attributes(
        affine(4, 6, 2),
        AlignmentScope::ComputeAlignment,
        AlignmentForm::END_TO_END,
        Heuristic::none(),
    );
    let jobs = jobs_of(attr, &pairs, 512);
    let before = counters();
    let (n, differ) = compare(&mut runner, "small share", &jobs);
    let after = counters();
    eprintln!(
        "wfa small share: {n} pairs, {differ} differ, {} finished on the GPU in {} launches, arena {} MiB of a {} MiB share",
        after.0 - before.0,
        after.4 - before.4,
        runner.arena_bytes() >> 20,
        SHARE >> 20
    );
    assert_eq!(differ, 0);
    assert!(runner.arena_bytes() > 0 && runner.arena_bytes() <= SHARE);
    assert!(after.0 - before.0 > 0, "the GPU aligned pairs");
}

/// Throughput: GPU batch vs the CPU path on the CPU pool, exact gap-affine
/// (4,6,2), full CIGAR and score-only. `WFA_BENCH_SCALE` scales the pair
/// counts (1 = 1 M / 100 k / 10 k); the CPU side times a share of them.
#[test]
fn gpu_vs_cpu_benchmark() {
    let t = Instant::now();
    let Some(mut runner) = runner() else { return };
    eprintln!(
        "wfa benchmark: runner ready in {:.2} s (kernel load and arena)",
        t.elapsed().as_secs_f64()
    );
    let s = scale("WFA_BENCH_SCALE", 1.0);
    let cpu_share = scale("WFA_BENCH_CPU_SHARE", 0.1);
    let mut rng = Rng(0xbe9c);
    eprintln!("wfa benchmark: CPU pool of {} threads", cpu::threads());
    for scope in [
        AlignmentScope::ComputeAlignment,
        AlignmentScope::ComputeScore,
    ] {
        let attr = attributes(
            affine(4, 6, 2),
            scope,
            AlignmentForm::END_TO_END,
            Heuristic::none(),
        );
        for (len, count) in [(150, 1_000_000), (1_000, 100_000), (10_000, 10_000)] {
            for rate in [2, 5, 10] {
                let count = ((count as f64 * s) as usize).max(16);
                let pairs: Vec<_> = (0..count).map(|_| pair(&mut rng, len, rate)).collect();
                let jobs = jobs_of(attr, &pairs, 4096);
                let before = counters();
                let t = Instant::now();
                let gpu = runner.run_batch(&jobs).expect("GPU batch");
                let gpu_s = t.elapsed().as_secs_f64();
                let after = counters();
                let n_cpu = ((count as f64 * cpu_share) as usize).clamp(16.min(count), count);
                let per_job = (n_cpu / (cpu::threads() * 16)).max(1);
                let cpu_jobs = jobs_of(attr, &pairs[..n_cpu], per_job);
                let t = Instant::now();
                let want = cpu::install(|| {
                    use rayon::prelude::*;
                    cpu_jobs.par_iter().map(|j| j.run_cpu()).collect::<Vec<_>>()
                });
                let cpu_s = t.elapsed().as_secs_f64();
                let got: Vec<PairResult> = gpu
                    .into_iter()
                    .flat_map(|r| r.unwrap())
                    .take(n_cpu)
                    .collect();
                let want: Vec<PairResult> = want.into_iter().flatten().collect();
                let differ = got.iter().zip(&want).filter(|(a, b)| a != b).count();
                let gpu_rate = count as f64 / gpu_s;
                let cpu_rate = n_cpu as f64 / cpu_s;
                eprintln!(
                    "wfa benchmark: {scope:?} {len} bp @ {rate}%: {count} pairs; GPU {gpu_rate:.0} aln/s ({} rescued), CPU pool {cpu_rate:.0} aln/s ({n_cpu} pairs); GPU/CPU = {:.2}; {differ} differ",
                    after.1 - before.1,
                    gpu_rate / cpu_rate
                );
                assert_eq!(differ, 0);
            }
        }
    }
}
