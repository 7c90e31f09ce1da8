//! `kernels/poa.cu` compiled for the host (`ffi-tests/poa/kernel_emulation.cpp`:
//! a block's threads are std::threads, `__syncthreads` a barrier) and driven
//! through the library's own launch layout (`poa::gpu::run_on_host`) must
//! give every window exactly the CPU path's result: consensus, MSA rows,
//! status. This checks the kernel's logic where there is no GPU;
//! `tests/poa_gpu.rs` checks it on one.
//!
//! `POA_EMULATED_WINDOWS` sets the number of random windows (default 240),
//! `POA_EMULATED_SEED` their seed.

mod poa_windows;
mod support;

use std::sync::Arc;

use poa_windows::{Rng, noisy_copy, window};
use seqshim::poa::batch::DnaOptions;
use seqshim::poa::gpu::{HostLaunch, kernel_takes, run_on_host};
use seqshim::poa::{BatchConfig, ConsensusRule, WindowJob, WindowResult};
use support::{compile_c, repo, work_dir};

fn emulator() -> std::path::PathBuf {
    let kernels = format!("-I{}", repo().join("kernels").display());
    compile_c(
        "poa_kernel_emulation",
        &[repo().join("ffi-tests/poa/kernel_emulation.cpp")],
        &[
            "-x",
            "c++",
            "-std=c++20",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-Wno-unknown-pragmas",
            &kernels,
        ],
        &["-lstdc++", "-lpthread"],
    )
}

fn config(o: DnaOptions) -> Arc<BatchConfig> {
    Arc::new(BatchConfig::dna(&o).expect("valid options"))
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

/// Edge windows: one read, identical reads, empty reads, N, lower case,
/// whitespace, homopolymers, unrelated reads (some outgrow the node
/// budget), a read cap below the read count.
fn edge_windows(rng: &mut Rng) -> Vec<Vec<Vec<u8>>> {
    let mut v: Vec<Vec<Vec<u8>>> = vec![
        vec![b"ACGTTGCA".to_vec()],
        vec![b"ACGTACGTAAGGTTCCAGT".to_vec(); 3],
        vec![
            Vec::new(),
            b"ACGTAC".to_vec(),
            Vec::new(),
            b"ACTTAC".to_vec(),
        ],
        vec![b"ACNNGT".to_vec(), b"ACGNGT".to_vec(), b"NNNN".to_vec()],
        vec![
            b"acgtAC GT\n".to_vec(),
            b"ACGTACGT".to_vec(),
            b"AxGTAC?T".to_vec(),
        ],
        vec![
            b"AAAAAAAAAAAA".to_vec(),
            b"AAAAAAAAA".to_vec(),
            b"AAAAAAAAAAAAAAA".to_vec(),
        ],
        vec![b"A".to_vec(), b"C".to_vec()],
        vec![b"A".to_vec(), b"A".to_vec(), b"AC".to_vec()],
    ];
    for (k, len) in [(2usize, 40usize), (5, 40), (8, 40), (16, 20), (30, 12)] {
        v.push(
            (0..k)
                .map(|_| (0..len).map(|_| rng.base()).collect())
                .collect(),
        );
    }
    v
}

#[test]
fn poa_kernel_emulated_on_the_host_equals_the_cpu_path() {
    let total: usize = std::env::var("POA_EMULATED_WINDOWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(240);
    let seed: u64 = std::env::var("POA_EMULATED_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(20240611);
    let configs = [
        config(consent(false)),
        config(consent(true)),
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
            max_seqs: 3,
            ..consent(true)
        }),
    ];
    let mut rng = Rng(seed);
    let mut windows = edge_windows(&mut rng);
    while windows.len() < total {
        let w = match rng.range(0, 3) {
            0 => window(&mut rng, (2, 8), (8, 31)),
            1 => window(&mut rng, (2, 8), (32, 63)),
            2 => window(&mut rng, (9, 16), (16, 40)),
            _ => {
                // A read with a long insertion: a wide graph.
                let mut w = window(&mut rng, (3, 6), (20, 40));
                let extra: Vec<u8> = (0..15).map(|_| rng.base()).collect();
                w[1].splice(5..5, extra);
                w.push(noisy_copy(&mut rng, &w[0].clone()));
                w
            }
        };
        windows.push(w);
    }
    let jobs: Vec<WindowJob> = windows
        .iter()
        .enumerate()
        .map(|(k, w)| WindowJob {
            reads: w.clone(),
            config: configs[k % configs.len()].clone(),
        })
        .collect();
    let (got, launches) = run_emulated(&jobs, "poa_emulation_image.bin");
    let (taken, compared, differ, overflow) = compare_with_cpu(&jobs, &got);
    eprintln!(
        "emulated poa kernel: {} windows, {taken} taken by the kernel in {launches} launches, {compared} compared, {differ} differ, {overflow} over the node budget",
        jobs.len()
    );
    assert_eq!(differ, 0);
    assert!(
        compared > taken * 9 / 10,
        "most windows must fit the budget"
    );
    assert!(
        overflow > 0,
        "the unrelated-read windows must outgrow the budget"
    );
}

/// Runs `jobs` through the emulated kernel; returns the results and the
/// number of launches.
fn run_emulated(jobs: &[WindowJob], name: &str) -> (Vec<Option<WindowResult>>, usize) {
    let exe = emulator();
    let image = work_dir().join(name);
    let mut launches = 0;
    let got = run_on_host(jobs, 64 << 20, &mut |l: HostLaunch| {
        std::fs::write(&image, &*l.image).expect("write image");
        let out = std::process::Command::new(&exe)
            .arg(&image)
            .arg(l.descs_at.to_string())
            .arg(l.windows.to_string())
            .arg(l.block.to_string())
            .output()
            .expect("run the emulator");
        assert!(
            out.status.success(),
            "emulator failed: {}",
            String::from_utf8_lossy(&out.stderr)
        );
        let back = std::fs::read(&image).expect("read image");
        l.image.copy_from_slice(&back);
        launches += 1;
    });
    (got, launches)
}

/// Compares each window the kernel took with the CPU path, printing the
/// first few that differ; returns (taken, compared, differ, over the node
/// budget). A window the kernel does not take must not come back.
fn compare_with_cpu(
    jobs: &[WindowJob],
    got: &[Option<WindowResult>],
) -> (usize, usize, usize, usize) {
    let (mut taken, mut compared, mut differ, mut overflow) = (0, 0, 0, 0);
    for (k, (job, got)) in jobs.iter().zip(got).enumerate() {
        if !kernel_takes(job) {
            assert!(got.is_none(), "window {k} is not the kernel's");
            continue;
        }
        taken += 1;
        let Some(got) = got else {
            overflow += 1;
            continue;
        };
        compared += 1;
        let want = job.compute();
        if *got != want {
            differ += 1;
            if differ <= 5 {
                eprintln!(
                    "MISMATCH window {k} ({} reads): kernel {:?} / CPU {:?}\n  kernel msa {}\n  CPU    msa {}",
                    job.reads.len(),
                    got.status,
                    want.status,
                    String::from_utf8_lossy(&got.msa),
                    String::from_utf8_lossy(&want.msa)
                );
            }
        }
    }
    (taken, compared, differ, overflow)
}

/// A BOA call routed to a device travels as a graph window (the reads'
/// symbol codes up, the final graph's nodes down, the whole graph rebuilt
/// on the host): through the emulated kernel, every such window must give
/// exactly the letters (links, sources, rings, in order) that
/// `buildup_progressive_lpo` builds on the caller's thread, or be handed
/// back for the CPU to build. CONSENT's matrix, global and local, 2-32
/// reads. `POA_EMULATED_GRAPH_WINDOWS` sets the number (default 120).
#[test]
fn routed_boa_windows_on_the_emulated_kernel_equal_the_direct_call() {
    use seqshim::poa::{Lpo, ScoreMatrix, buildup_progressive};
    let total: usize = std::env::var("POA_EMULATED_GRAPH_WINDOWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(120);
    let m = ScoreMatrix::boa_dna();
    let graph_config = |global: bool| {
        Arc::new(BatchConfig {
            matrix: m.clone(),
            global,
            consensus: ConsensusRule::ColumnMajority,
            max_seqs: usize::MAX,
            want_msa: false,
            want_graph: true,
        })
    };
    let configs = [graph_config(true), graph_config(false)];
    let mut rng = Rng(20261127);
    let mut windows: Vec<Vec<Vec<u8>>> = vec![
        vec![b"ACGTTGCA".to_vec(), b"ACGTTGCA".to_vec()],
        vec![
            b"AAAAAAAAAAAA".to_vec(),
            b"AAAAAAAAA".to_vec(),
            b"AAAAAAAAAAAAAA".to_vec(),
        ],
        vec![b"ACGTNNACGT".to_vec(), b"acgtacgt".to_vec()],
    ];
    while windows.len() < total {
        windows.push(match rng.range(0, 3) {
            0 => window(&mut rng, (2, 8), (8, 63)),
            1 => window(&mut rng, (9, 16), (16, 63)),
            _ => window(&mut rng, (17, 32), (16, 40)),
        });
    }
    // The reads as `initialize_seqs_as_lpo` leaves them, and the graph the
    // direct call builds from them.
    let mut want = Vec::new();
    let jobs: Vec<WindowJob> = windows
        .iter()
        .enumerate()
        .map(|(k, w)| {
            let config = configs[k % 2].clone();
            let lpos: Vec<Lpo> = w
                .iter()
                .enumerate()
                .map(|(i, r)| Lpo::from_read(&format!("s{i}"), r, Default::default(), &m))
                .collect();
            let codes: Vec<Vec<u8>> = lpos.iter().map(|l| l.sequence.clone()).collect();
            let (graph, truncated) = buildup_progressive(lpos, &m, config.global).unwrap();
            assert!(!truncated);
            want.push(graph.letters);
            WindowJob {
                reads: codes,
                config,
            }
        })
        .collect();
    let (got, launches) = run_emulated(&jobs, "poa_emulation_graph_image.bin");
    let (mut taken, mut same, mut handed_back) = (0, 0, 0);
    for (k, (job, got)) in jobs.iter().zip(&got).enumerate() {
        assert!(kernel_takes(job), "window {k} is the kernel's");
        taken += 1;
        // The CPU path of the job is the direct call's graph too.
        assert_eq!(job.compute().graph.as_ref(), Some(&want[k]), "window {k}");
        match got {
            Some(r) => {
                assert_eq!(r.graph.as_ref(), Some(&want[k]), "window {k}");
                same += 1;
            }
            None => handed_back += 1,
        }
    }
    eprintln!(
        "emulated poa kernel, graph windows: {} windows, {taken} taken in {launches} launches, {same} identical to the direct call, {handed_back} handed back to the CPU",
        jobs.len()
    );
    assert!(
        same >= taken * 9 / 10,
        "most graph windows must come back whole"
    );
}

/// The other matrix of the oracle tests: Debian `poa`'s BLOSUM80 with
/// protein windows, global and local, with and without MSA rows, and
/// heaviest-bundle windows (which the kernel leaves to the CPU), through the
/// emulated kernel against the CPU path. Skipped, saying so, where Debian's
/// `poa` data is absent (a failure with `SEQSHIM_REQUIRE_ORACLES=1`).
/// `POA_EMULATED_PROTEIN_WINDOWS` sets the number (default 96).
#[test]
fn blosum80_windows_on_the_emulated_kernel_equal_the_cpu_path() {
    const BLOSUM80: &str = "/usr/share/poa/blosum80.mat";
    let m = match seqshim::poa::ScoreMatrix::from_file(BLOSUM80) {
        Ok(m) => m,
        Err(e) => {
            assert!(
                std::env::var("SEQSHIM_REQUIRE_ORACLES").as_deref() != Ok("1"),
                "SEQSHIM_REQUIRE_ORACLES=1 but {BLOSUM80} is unreadable: {e:?}"
            );
            println!("SKIPPED: {BLOSUM80} unreadable ({e:?})");
            return;
        }
    };
    let total: usize = std::env::var("POA_EMULATED_PROTEIN_WINDOWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(96);
    let protein_config = |global: bool, want_msa: bool, consensus: ConsensusRule| {
        Arc::new(BatchConfig {
            matrix: m.clone(),
            global,
            consensus,
            max_seqs: usize::MAX,
            want_msa,
            want_graph: false,
        })
    };
    let configs = [
        protein_config(true, true, ConsensusRule::ColumnMajority),
        protein_config(false, true, ConsensusRule::ColumnMajority),
        protein_config(true, false, ConsensusRule::ColumnMajority),
        protein_config(true, true, ConsensusRule::HeaviestBundle),
    ];
    const AMINO: &[u8] = b"ARNDCQEGHILKMFPSTWYV";
    let mut rng = Rng(0xb105_0580);
    let residue = |rng: &mut Rng| AMINO[rng.range(0, AMINO.len() - 1)];
    let mut windows: Vec<Vec<Vec<u8>>> = Vec::new();
    while windows.len() < total {
        let (reads, len) = match rng.range(0, 2) {
            0 => (rng.range(2, 8), rng.range(8, 63)),
            1 => (rng.range(9, 16), rng.range(16, 63)),
            _ => (rng.range(17, 32), rng.range(16, 40)),
        };
        let truth: Vec<u8> = (0..len).map(|_| residue(&mut rng)).collect();
        let window = (0..reads)
            .map(|_| {
                // About 10 % substitutions, insertions and deletions.
                let mut read = Vec::with_capacity(len + len / 8);
                for &r in &truth {
                    match rng.range(0, 29) {
                        0 => {}
                        1 => read.extend([residue(&mut rng), r]),
                        2 => read.push(residue(&mut rng)),
                        _ => read.push(r),
                    }
                }
                read
            })
            .collect();
        windows.push(window);
    }
    let jobs: Vec<WindowJob> = windows
        .into_iter()
        .enumerate()
        .map(|(k, reads)| WindowJob {
            reads,
            config: configs[k % configs.len()].clone(),
        })
        .collect();
    let (got, launches) = run_emulated(&jobs, "poa_emulation_blosum80_image.bin");
    let (taken, compared, differ, _) = compare_with_cpu(&jobs, &got);
    eprintln!(
        "emulated poa kernel, BLOSUM80: {} windows, {taken} taken by the kernel in {launches} launches, {compared} compared, {differ} differ",
        jobs.len()
    );
    assert_eq!(differ, 0);
    assert!(
        taken >= jobs.len() / 2,
        "the kernel takes the column-majority windows"
    );
    assert!(
        compared > taken * 9 / 10,
        "most windows must fit the budget"
    );
}
