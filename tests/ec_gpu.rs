//! CUDA-EC on a real GPU. exact-v1 on every golden fixture configuration
//! (the GPU's records, fixed and discard files, and `run_test`'s records,
//! must be upstream's bytes),
//! the GPU runner against the CPU path on simulated reads in both modes, a
//! failing device whose chunks rerun on the CPU, and the kernels alone
//! against the CPU pool. The end-to-end benchmark (`seqshim-ec` on the GPU,
//! on its CPU path, and Lighter) is `checks/ec.sh`; `write_bench_sets`
//! makes its data.
//!
//! Needs a GPU; without one each test prints SKIP, unless
//! `SEQSHIM_REQUIRE_GPU=1` (the device bundle sets it) makes that a failure.

mod ec_common;
mod gpu_support;

use std::io::Write;
use std::path::Path;
use std::sync::Arc;
use std::time::Instant;

use ec_common::{fixtures, gunzip, manifest, num, sha256_hex};
use gpu_support::Rng;
use seqshim::ec::{
    self as ecm, CountJob, CountRunner, DefaultChunk, DefaultRunner, EcRunner, EcV1, Params,
    Spectrum, V1Chunk, V1Param, V1Runner,
};
use seqshim::engine::cpu;
use seqshim::engine::family;
use seqshim::engine::scheduler::{BatchRunner, Job, Options, Scheduler};

fn runner() -> Option<EcRunner> {
    let gpu = gpu_support::first_gpu()?;
    match EcRunner::new(gpu.clone()) {
        Ok(runner) => Some(runner),
        Err(e) => panic!("the EC kernels did not load on {}: {e}", gpu.info().name),
    }
}

/// Reads of `len` bases from a random genome with 1 % substitutions, both
/// strands, as wgsim makes them for spec §7's sets (no indels, no N).
fn simulate(rng: &mut Rng, genome: &[u8], n: usize, len: usize) -> Vec<Vec<u8>> {
    (0..n)
        .map(|_| {
            let at = rng.below((genome.len() - len) as u64) as usize;
            let mut r = genome[at..at + len].to_vec();
            for b in r.iter_mut() {
                if rng.below(100) == 0 {
                    let others: Vec<u8> = b"ACGT".iter().copied().filter(|c| c != b).collect();
                    *b = others[rng.below(3) as usize];
                }
            }
            if rng.below(2) == 1 {
                r.reverse();
                for b in r.iter_mut() {
                    *b = match *b {
                        b'A' => b'T',
                        b'C' => b'G',
                        b'G' => b'C',
                        _ => b'A',
                    };
                }
            }
            r
        })
        .collect()
}

fn genome(rng: &mut Rng, len: usize) -> Vec<u8> {
    (0..len).map(|_| b"ACGT"[rng.below(4) as usize]).collect()
}

#[test]
fn gpu_equals_upstream_on_every_fixture() {
    if runner().is_none() {
        return;
    }
    let Some(dir) = fixtures() else { return };
    let (mut configs, mut records, mut differ) = (0, 0u64, 0);
    for row in manifest(&dir) {
        let id = format!("{}/{}", row["dataset"], row["config"]);
        let params = Params {
            num_search: num(&row, "num_search") as u8,
            min_mult: num(&row, "min_mult") as u32,
            ..Params::exact_v1(num(&row, "read_len") as usize)
        };
        let data = gunzip(&dir.join(&row["dataset"]).join("reads.fa.gz"));
        let r = ecm::process_v1_file(Path::new("reads.fa"), &data, &params).expect("exact-v1 run");
        configs += 1;
        records += r.stats.reads;
        // v1's runTest (what v1's host program calls) on the packed records.
        let param = V1Param {
            do_trim: 1,
            max_mods: 999,
            min_votes: 2,
            max_trim: 20,
            num_tuples: r.stats.solid_kmers as i32,
            num_search: params.num_search as i16,
            tuple_size: 20,
            num_of_reads: r.stats.reads as i32,
            read_len: params.read_len as i16,
            ..V1Param::default()
        };
        let mut run_test_records = r.records_in.clone();
        ecm::run_test(r.bloom.bytes(), &param, &mut run_test_records).expect("run_test");
        for (what, bytes) in [
            ("records_out", &r.records_out),
            ("records_out", &run_test_records),
            ("fixed_fa", &r.fixed),
            ("discard_fa", &r.discard),
        ] {
            if sha256_hex(bytes) != row[&format!("sha256_{what}")] {
                differ += 1;
                eprintln!("{id}: {what} differs from upstream");
            }
        }
    }
    let stats = family::scheduler::<EcV1>().stats();
    eprintln!(
        "ec gpu fixture: {configs} configurations, {records} records, {differ} differ from upstream, {} GPU batches, {} rescued",
        stats.batches, stats.rescued_jobs
    );
    assert_eq!(differ, 0);
    assert!(
        configs > 0 && stats.batches > 0,
        "the fixtures ran on the GPU"
    );
}

/// A simulated set's exact-v1 chunk for each kernel and its default-mode
/// chunk, with their spectra.
struct Set {
    name: &'static str,
    read_len: usize,
    v1: Vec<V1Chunk>,
    default: Vec<DefaultChunk>,
}

fn simulated_set(name: &'static str, seed: u64, genome_len: usize, n: usize, len: usize) -> Set {
    let mut rng = Rng(seed);
    let g = genome(&mut rng, genome_len);
    let reads = simulate(&mut rng, &g, n, len);
    let seqs: Vec<&[u8]> = reads.iter().map(|r| r.as_slice()).collect();
    let v1_params = Params::exact_v1(len);
    let mut spectrum = Spectrum::new(&v1_params, n as u64).unwrap();
    spectrum.add(&seqs).unwrap();
    spectrum.finalize().unwrap();
    let bloom = Arc::new(spectrum.export_v1().unwrap().clone());
    let mut records = Vec::with_capacity(n * (len + 2));
    for r in &reads {
        records.extend_from_slice(r);
        records.extend_from_slice(&[b'D', len as u8]);
    }
    let mut v1 = Vec::new();
    for (search, pair) in [(1u8, false), (2, true)] {
        let params = Params {
            num_search: search,
            ..v1_params.clone()
        };
        v1.push(V1Chunk::new(records.clone(), pair, &params, bloom.clone()).unwrap());
    }
    let mut default = Vec::new();
    let mut dspec = Spectrum::new(&Params::default_mode(), 0).unwrap();
    dspec.add(&seqs).unwrap();
    dspec.finalize().unwrap();
    for search in [1u8, 2] {
        let params = Params {
            num_search: search,
            ..Params::default_mode()
        };
        default.push(DefaultChunk::new(&seqs, &params, &dspec).unwrap());
    }
    Set {
        name,
        read_len: len,
        v1,
        default,
    }
}

fn on_cpu_pool<J: Job + Sync>(job: &J) -> (J::Output, f64) {
    let t = Instant::now();
    let out = cpu::install(|| job.run_cpu());
    (out, t.elapsed().as_secs_f64())
}

#[test]
fn gpu_equals_cpu_on_simulated_reads_and_benchmark() {
    let Some(runner) = runner() else { return };
    let mut v1_runner = V1Runner(runner);
    let mut default_runner =
        DefaultRunner(EcRunner::new(gpu_support::first_gpu().unwrap()).unwrap());
    let threads = cpu::threads();
    for set in [
        simulated_set("36 bp", 0xec36, 877_438, 400_000, 36),
        simulated_set("100 bp", 0xec100, 2_000_000, 200_000, 100),
    ] {
        for (job, kernel) in set.v1.iter().zip(["fix_errors1", "fix_errors2"]) {
            // Warm-up launch (spectrum upload, caches), then the timed one.
            v1_runner.run_batch(std::slice::from_ref(job)).unwrap();
            let t = Instant::now();
            let got = v1_runner.run_batch(std::slice::from_ref(job)).unwrap();
            let gpu_s = t.elapsed().as_secs_f64();
            let got = got
                .into_iter()
                .next()
                .flatten()
                .expect("the GPU ran the chunk");
            let (want, cpu_s) = on_cpu_pool(job);
            let n = job.cost() as usize / (set.read_len + 2);
            let differ = got.differences(&want, set.read_len);
            eprintln!(
                "ec gpu exact-v1 {} {kernel}: {n} reads, {differ} differ; kernel {:.0} reads/s, CPU pool ({threads} threads) {:.0} reads/s, GPU/CPU = {:.1}",
                set.name,
                n as f64 / gpu_s,
                n as f64 / cpu_s,
                cpu_s / gpu_s
            );
            assert_eq!(differ, 0);
        }
        for (job, search) in set.default.iter().zip([1, 2]) {
            default_runner.run_batch(std::slice::from_ref(job)).unwrap();
            let t = Instant::now();
            let got = default_runner.run_batch(std::slice::from_ref(job)).unwrap();
            let gpu_s = t.elapsed().as_secs_f64();
            let got = got
                .into_iter()
                .next()
                .flatten()
                .expect("the GPU ran the chunk");
            let (want, cpu_s) = on_cpu_pool(job);
            let n = job.cost() as usize / set.read_len;
            let differ = got.differences(&want);
            eprintln!(
                "ec gpu default {} search {search}: {n} reads, {differ} differ; kernel {:.0} reads/s, CPU pool ({threads} threads) {:.0} reads/s, GPU/CPU = {:.1}",
                set.name,
                n as f64 / gpu_s,
                n as f64 / cpu_s,
                cpu_s / gpu_s
            );
            assert_eq!(differ, 0);
        }
    }
}

#[test]
fn gpu_counting_equals_cpu_counting_and_benchmark() {
    let Some(gpu) = gpu_support::first_gpu() else {
        return;
    };
    let runner = CountRunner::new(gpu).expect("the counting kernels load");
    for (name, seed, genome_len, n, len) in [
        ("36 bp", 0xc036u64, 877_438usize, 1_693_848usize, 36usize),
        ("100 bp", 0xc100, 2_000_000, 1_200_000, 100),
    ] {
        let mut rng = Rng(seed);
        let g = genome(&mut rng, genome_len);
        let reads = simulate(&mut rng, &g, n, len);
        let seqs: Vec<&[u8]> = reads.iter().map(|r| r.as_slice()).collect();
        for (k, min_mult) in [(20usize, 6u32), (32, 3)] {
            let job = CountJob::new(&seqs, k, min_mult).unwrap();
            runner.run(&job).unwrap();
            let t = Instant::now();
            let got = runner
                .run(&job)
                .unwrap()
                .expect("the spectrum fits the GPU");
            let gpu_s = t.elapsed().as_secs_f64();
            let (want, cpu_s) = on_cpu_pool(&job);
            let got: std::collections::HashSet<u64> = got.into_iter().collect();
            let want: std::collections::HashSet<u64> = want.unwrap().into_iter().collect();
            let differ = got.symmetric_difference(&want).count();
            eprintln!(
                "ec gpu counting {name} k={k} min_mult={min_mult}: {n} reads, {} solid, {differ} differ; GPU {:.3} s, CPU pool ({} threads) {:.3} s, GPU/CPU = {:.1}",
                want.len(),
                gpu_s,
                cpu::threads(),
                cpu_s,
                cpu_s / gpu_s
            );
            assert_eq!(differ, 0);
        }
    }
    // No k-mer solid: an empty list comes back, as on the CPU.
    let seqs: [&[u8]; 2] = [b"ACGTACGTACGTACGTACGTACGT", b"TTTTGGGGCCCCAAAATTTTGGGG"];
    let job = CountJob::new(&seqs, 20, 1_000).unwrap();
    assert_eq!(runner.run(&job).unwrap(), Some(Vec::new()));
    assert_eq!(job.run_cpu(), Some(Vec::new()));
}

#[test]
fn a_failing_device_batch_reruns_on_the_cpu() {
    let Some(mut runner) = runner() else { return };
    runner.inject_failures(1);
    let scheduler = Scheduler::new(
        vec![Box::new(V1Runner(runner)) as Box<dyn BatchRunner<V1Chunk>>],
        Options {
            strict: false,
            ..Options::default()
        },
    );
    let set = simulated_set("36 bp", 0xfa11, 50_000, 20_000, 36);
    let want: Vec<_> = set.v1.iter().map(|j| on_cpu_pool(j).0).collect();
    let results = scheduler.run_all(set.v1);
    let stats = scheduler.stats();
    let differ: usize = results
        .iter()
        .zip(&want)
        .map(|(got, want)| match got {
            Ok(got) => got.differences(want, 36),
            Err(_) => 1,
        })
        .sum();
    eprintln!(
        "ec gpu rescue: {} chunks, {} failed batches, {} rescued on the CPU, {differ} differ",
        want.len(),
        stats.failed_batches,
        stats.rescued_jobs
    );
    assert_eq!(differ, 0);
    assert!(stats.failed_batches >= 1 && stats.rescued_jobs >= 1);
}

/// Writes the benchmark's data sets into
/// `$SEQSHIM_EC_BENCH_DIR/<set>/reads.{fa,fq}`: spec §7's two sizes, and a
/// larger one (20 M reads of 100 bp at 67x of a 30 Mbp genome, about 4.6 GB
/// of FASTQ) for streaming. `SEQSHIM_EC_BENCH_SETS` names the sets to write
/// (default the two small ones). Not a test: run by `checks/ec.sh` with
/// `--ignored`.
#[test]
#[ignore]
fn write_bench_sets() {
    let Ok(dir) = std::env::var("SEQSHIM_EC_BENCH_DIR") else {
        panic!("set SEQSHIM_EC_BENCH_DIR");
    };
    let wanted = std::env::var("SEQSHIM_EC_BENCH_SETS")
        .unwrap_or_else(|_| "srr6331like L100_60x".to_string());
    for (name, seed, genome_len, n, len) in [
        (
            "srr6331like",
            6331u64,
            877_438usize,
            1_693_848usize,
            36usize,
        ),
        ("L100_60x", 10060, 2_000_000, 1_200_000, 100),
        ("L100_20M", 10020, 30_000_000, 20_000_000, 100),
    ] {
        if !wanted.split_whitespace().any(|w| w == name) {
            continue;
        }
        let mut rng = Rng(seed);
        let g = genome(&mut rng, genome_len);
        let reads = simulate(&mut rng, &g, n, len);
        let d = Path::new(&dir).join(name);
        std::fs::create_dir_all(&d).unwrap();
        let mut fa = std::io::BufWriter::new(std::fs::File::create(d.join("reads.fa")).unwrap());
        let mut fq = std::io::BufWriter::new(std::fs::File::create(d.join("reads.fq")).unwrap());
        let qual = vec![b'I'; len];
        for (i, r) in reads.iter().enumerate() {
            writeln!(fa, ">r{i}").unwrap();
            fa.write_all(r).unwrap();
            writeln!(fa).unwrap();
            writeln!(fq, "@r{i}").unwrap();
            fq.write_all(r).unwrap();
            fq.write_all(b"\n+\n").unwrap();
            fq.write_all(&qual).unwrap();
            writeln!(fq).unwrap();
        }
        eprintln!("wrote {name}: {n} reads of {len} bp from a {genome_len} bp genome");
    }
}
