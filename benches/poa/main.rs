//! `make bench-poa`: POA windows per second, seqshim against Debian's `poa`
//! (the POA v2 program BOA is forked from) on the same windows, and against
//! `spoa` and `abpoa` for context, per size class. Prints ratios.
//!
//! - seqshim, 1 thread: CONSENT's per-window work in process (global POA with
//!   BOA's DNA scoring + column-majority consensus), CPU time of the thread
//!   over passes of at least 0.3 s, best of 3.
//! - seqshim, all cores: the same windows through the batch path
//!   (`poa::run_windows`, what `seqshim_poa_batch_run` does), wall time,
//!   best of 3 (only meaningful on an otherwise idle machine).
//! - `poa`: one process per window (it has no multi-window mode), same
//!   scoring and `-do_global`, CPU time per window (least of 5 runs, read
//!   from the finished child's scheduler statistics) minus its start-up CPU
//!   time (least of 5 runs on a one-base window, interleaved).
//! - `spoa -l 1` (global): one process per window, minus start-up.
//! - `abpoa -l list`: every window of a class in one process, minus start-up.
//!
//! Windows: the synthetic CONSENT-like generator of the tests (§10.3 of the
//! spec): N noisy copies (10–15 % errors) of a random sequence of length L.
//! `BENCH_POA_SCALE` multiplies the window counts (default 1).

#[path = "../../tests/poa_windows/mod.rs"]
mod poa_windows;

use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::sync::Arc;
use std::time::Instant;

use poa_windows::{Rng, thread_cpu_seconds, window};
use seqshim::poa::{self, BatchConfig, ConsensusRule, ScoreMatrix, WindowJob};

/// (reads min, max), (read length min, max), windows.
type Class = ((usize, usize), (usize, usize), usize);

const CLASSES: [Class; 9] = [
    ((2, 8), (32, 63), 400),
    ((2, 8), (64, 127), 200),
    ((2, 8), (128, 255), 80),
    ((9, 16), (32, 63), 200),
    ((9, 16), (64, 127), 80),
    ((9, 16), (128, 255), 30),
    ((17, 32), (32, 63), 100),
    ((17, 32), (64, 127), 40),
    ((17, 32), (128, 255), 15),
];

fn have(tool: &str) -> bool {
    Command::new(tool)
        .arg("--version")
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .status()
        .is_ok()
}

fn write_fasta(path: &Path, reads: &[Vec<u8>]) {
    let mut text = Vec::new();
    for (i, r) in reads.iter().enumerate() {
        text.extend_from_slice(format!(">s{i}\n").as_bytes());
        text.extend_from_slice(r);
        text.push(b'\n');
    }
    std::fs::write(path, text).unwrap();
}

/// CPU seconds one run of `cmd` took, read from the kernel's scheduler
/// statistics of the finished (not yet reaped) child, at nanosecond
/// resolution. CPU time rather than wall time: this machine is shared, and
/// waiting for a core would otherwise count against whichever tool ran
/// while the load peaked. (Every program measured is single-threaded.)
fn child_cpu_seconds(mut cmd: Command) -> f64 {
    let mut child = cmd
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .expect("run tool");
    let pid = child.id();
    let state = |pid: u32| {
        std::fs::read_to_string(format!("/proc/{pid}/stat"))
            .ok()
            .and_then(|s| {
                s.rsplit_once(')')
                    .map(|(_, rest)| rest.trim_start().starts_with('Z'))
            })
    };
    // A zombie keeps its accounting until it is reaped.
    while state(pid) == Some(false) {
        std::thread::sleep(std::time::Duration::from_micros(20));
    }
    let ns = std::fs::read_to_string(format!("/proc/{pid}/schedstat"))
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .next()
                .and_then(|v| v.parse::<u64>().ok())
        });
    let status = child.wait().expect("wait for tool");
    assert!(status.success(), "tool failed: {cmd:?}");
    ns.expect("scheduler statistics of the child (Linux /proc)") as f64 * 1e-9
}

/// CPU seconds of one run of `cmd`, the least of `tries` runs (cache and
/// page-fault noise only ever add time).
fn best_of(tries: usize, cmd: impl Fn() -> Command) -> f64 {
    (0..tries)
        .map(|_| child_cpu_seconds(cmd()))
        .fold(f64::INFINITY, f64::min)
}

struct Dir(PathBuf);
impl Drop for Dir {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.0);
    }
}

fn main() {
    let scale: f64 = std::env::var("BENCH_POA_SCALE")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(1.0);
    let dir = Dir(std::env::temp_dir().join(format!("seqshim-bench-poa-{}", std::process::id())));
    std::fs::create_dir_all(&dir.0).unwrap();
    let d = &dir.0;
    let matrix_path = d.join("boa_dna.mat");
    std::fs::write(&matrix_path, poa::matrix::boa_dna_matrix_text()).unwrap();
    let m = ScoreMatrix::boa_dna();
    let config = Arc::new(BatchConfig {
        matrix: m.clone(),
        global: true,
        consensus: ConsensusRule::ColumnMajority,
        max_seqs: 150,
        want_msa: false,
        want_graph: false,
    });
    let (has_poa, has_spoa, has_abpoa) = (
        Command::new("poa").arg("-h").output().is_ok(),
        have("spoa"),
        Command::new("abpoa").arg("-v").output().is_ok(),
    );

    // Start-up cost of each tool on a one-read, one-base window.
    let tiny = d.join("tiny.fa");
    write_fasta(&tiny, &[b"A".to_vec()]);
    let tiny_list = d.join("tiny.list");
    std::fs::write(&tiny_list, format!("{}\n", tiny.display())).unwrap();
    let pir = d.join("out.pir");
    let poa_cmd = |fa: &Path| {
        let mut c = Command::new("poa");
        c.arg("-read_fasta")
            .arg(fa)
            .arg("-pir")
            .arg(&pir)
            .arg("-do_global")
            .arg(&matrix_path);
        c
    };
    let spoa_cmd = |fa: &Path| {
        let mut c = Command::new("spoa");
        c.arg("-l").arg("1").arg(fa);
        c
    };
    let abpoa_cmd = |list: &Path| {
        let mut c = Command::new("abpoa");
        c.arg("-l").arg(list);
        c
    };
    let poa_start = if has_poa {
        best_of(40, || poa_cmd(&tiny))
    } else {
        0.0
    };
    let spoa_start = if has_spoa {
        best_of(40, || spoa_cmd(&tiny))
    } else {
        0.0
    };
    let abpoa_start = if has_abpoa {
        best_of(40, || abpoa_cmd(&tiny_list))
    } else {
        0.0
    };
    println!(
        "process start-up CPU time (least of 40 runs; measured again next to every window and subtracted): poa {:.2} ms, spoa {:.2} ms, abpoa {:.2} ms; CPU pool: {} threads",
        poa_start * 1e3,
        spoa_start * 1e3,
        abpoa_start * 1e3,
        seqshim::engine::cpu::threads()
    );
    println!();
    println!(
        "| class (reads x bp) | windows | seqshim 1 thread | seqshim all cores | poa | spoa | abpoa | 1 thread / poa | all cores / poa | 1 thread / spoa | 1 thread / abpoa |"
    );
    println!("|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|");

    let mut rng = Rng(20240611);
    for (n, l, count) in CLASSES {
        let count = ((count as f64 * scale).round() as usize).max(1);
        let windows: Vec<Vec<Vec<u8>>> = (0..count).map(|_| window(&mut rng, n, l)).collect();

        // seqshim, one thread, CONSENT's per-window work: whole passes over
        // the class for at least 0.3 CPU-seconds (the thread's CPU clock
        // advances in scheduler ticks), best of 3.
        let mut one = 0f64;
        for _ in 0..3 {
            let t = thread_cpu_seconds();
            let mut done = 0usize;
            while done == 0 || thread_cpu_seconds() - t < 0.3 {
                for w in &windows {
                    let refs: Vec<&[u8]> = w.iter().map(|r| r.as_slice()).collect();
                    std::hint::black_box(poa::easy_consensus(&refs, &m, 150));
                }
                done += count;
            }
            one = one.max(done as f64 / (thread_cpu_seconds() - t));
        }
        // seqshim, all cores, through the batch path (best of 3).
        let mut all = 0f64;
        for _ in 0..3 {
            let jobs: Vec<WindowJob> = windows
                .iter()
                .map(|w| WindowJob {
                    reads: w.clone(),
                    config: config.clone(),
                })
                .collect();
            let t = Instant::now();
            let results = poa::run_windows(jobs);
            all = all.max(count as f64 / t.elapsed().as_secs_f64());
            assert_eq!(results.len(), count);
        }

        let files: Vec<PathBuf> = (0..count)
            .map(|i| {
                let p = d.join(format!("w{i}.fa"));
                write_fasta(&p, &windows[i]);
                p
            })
            .collect();
        // Each window's CPU time is the least of 5 runs, minus the least of 5
        // runs on a one-base window interleaved with them (start-up drifts
        // with the state of the machine).
        let per_window = |cmd: &dyn Fn(&Path) -> Command| {
            let (mut total, mut net) = (0.0, 0.0);
            for f in &files {
                let (mut w, mut s) = (f64::INFINITY, f64::INFINITY);
                for _ in 0..5 {
                    s = s.min(child_cpu_seconds(cmd(&tiny)));
                    w = w.min(child_cpu_seconds(cmd(f)));
                }
                total += w;
                net += w - s;
            }
            // When start-up is nearly all of it the difference is noise.
            (net > 0.1 * total).then(|| count as f64 / net)
        };
        let poa_rate = has_poa.then(|| per_window(&poa_cmd)).flatten();
        let spoa_rate = has_spoa.then(|| per_window(&spoa_cmd)).flatten();
        let abpoa_rate = has_abpoa.then(|| {
            let list = d.join("class.list");
            let names: String = files.iter().map(|f| format!("{}\n", f.display())).collect();
            std::fs::write(&list, names).unwrap();
            let start = best_of(20, || abpoa_cmd(&tiny_list));
            count as f64 / (best_of(5, || abpoa_cmd(&list)) - start).max(1e-9)
        });
        let show = |r: Option<f64>| r.map_or("n/a".to_string(), |r| format!("{r:.0}"));
        let ratio =
            |a: f64, b: Option<f64>| b.map_or("n/a".to_string(), |b| format!("{:.2}×", a / b));
        println!(
            "| {}-{} x {}-{} | {count} | {one:.0} | {all:.0} | {} | {} | {} | {} | {} | {} | {} |",
            n.0,
            n.1,
            l.0,
            l.1,
            show(poa_rate),
            show(spoa_rate),
            show(abpoa_rate),
            ratio(one, poa_rate),
            ratio(all, poa_rate),
            ratio(one, spoa_rate),
            ratio(one, abpoa_rate),
        );
        for f in &files {
            let _ = std::fs::remove_file(f);
        }
    }
    println!();
    println!(
        "windows per CPU-second (seqshim all cores: per wall-second); ratios > 1 mean seqshim is faster;"
    );
    println!("n/a: tool missing, or its start-up is over 90% of its time on that class");
    if let Ok(load) = std::fs::read_to_string("/proc/loadavg") {
        println!("load average at the end: {}", load.trim());
    }
}
