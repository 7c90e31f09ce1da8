//! Differential tests against Debian's `poa` 2.0 binary.
//!
//! Each synthetic window is written as FASTA, aligned by
//! `poa -read_fasta W -pir OUT [-do_global] -hb [-tolower] MATRIX`, and every
//! PIR row (reads and `CONSENS<k>` rows) is compared byte for byte with
//! `align_window` using the same settings. Skips when `poa` is missing.
//!
//! `POA_ORACLE_WINDOWS` = windows per (class, mode) in the random sweep
//! (default 6), `POA_ORACLE_SEED` its seed (default 20240611); `POA_EDGE_ROUNDS` = rounds of the edge-case set (default 4),
//! `POA_EDGE_SEED` its seed (default 7).
//! `POA_TIMING=1` enables the timing comparison (`POA_TIMING_WINDOWS`, default 100).

use seqshim::poa::{CaseSwitch, ScoreMatrix, WindowOptions, align_window};
use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::Command;
use std::time::Instant;

mod poa_windows;
use poa_windows::{Rng, noisy_copy, parse_pir, thread_cpu_seconds, window};

const STOCK_MATRIX: &str = "/usr/share/poa/blosum80.mat";

/// Whether `poa` can run here. `make test` sets SEQSHIM_REQUIRE_ORACLES=1 so
/// that a missing oracle fails the run instead of skipping it.
fn have_poa() -> bool {
    let found = Command::new("poa").arg("-h").output().is_ok() && Path::new(STOCK_MATRIX).exists();
    if !found && std::env::var("SEQSHIM_REQUIRE_ORACLES").is_ok_and(|v| v == "1") {
        panic!("SEQSHIM_REQUIRE_ORACLES=1 but `poa` or {STOCK_MATRIX} is missing");
    }
    found
}

struct Oracle {
    dir: PathBuf,
    boa_matrix: PathBuf,
}

impl Oracle {
    fn new(tag: &str) -> Self {
        let dir =
            std::env::temp_dir().join(format!("seqshim-poa-oracle-{}-{tag}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let boa_matrix = dir.join("boa_dna.mat");
        std::fs::write(&boa_matrix, seqshim::poa::matrix::boa_dna_matrix_text()).unwrap();
        Oracle { dir, boa_matrix }
    }

    /// Runs poa and returns (name, row) pairs from its PIR output.
    fn run(&self, reads: &[Vec<u8>], mode: &Mode) -> Vec<(String, Vec<u8>)> {
        let fa = self.dir.join("w.fa");
        let pir = self.dir.join("w.pir");
        let mut s = Vec::new();
        for (i, r) in reads.iter().enumerate() {
            s.extend_from_slice(format!(">s{i}\n").as_bytes());
            s.extend_from_slice(r);
            s.push(b'\n');
        }
        std::fs::write(&fa, s).unwrap();
        let _ = std::fs::remove_file(&pir);
        let mut cmd = Command::new("poa");
        cmd.arg("-read_fasta").arg(&fa).arg("-pir").arg(&pir);
        if mode.global {
            cmd.arg("-do_global");
        }
        if mode.hb {
            cmd.arg("-hb");
        }
        if mode.lower {
            cmd.arg("-tolower");
        }
        cmd.arg(if mode.boa {
            self.boa_matrix.as_path()
        } else {
            Path::new(STOCK_MATRIX)
        });
        let out = cmd.output().expect("poa runs");
        assert!(out.status.success(), "poa failed: {:?}", out);
        parse_pir(&std::fs::read(&pir).unwrap_or_default())
    }
}

impl Drop for Oracle {
    fn drop(&mut self) {
        let _ = std::fs::remove_dir_all(&self.dir);
    }
}

#[derive(Clone, Copy, Debug)]
struct Mode {
    name: &'static str,
    boa: bool,
    global: bool,
    lower: bool,
    hb: bool,
}

const MODES: &[Mode] = &[
    Mode {
        name: "boa-global-hb",
        boa: true,
        global: true,
        lower: false,
        hb: true,
    },
    Mode {
        name: "boa-local-hb",
        boa: true,
        global: false,
        lower: false,
        hb: true,
    },
    Mode {
        name: "blosum-global-tolower-hb",
        boa: false,
        global: true,
        lower: true,
        hb: true,
    },
    Mode {
        name: "blosum-local-tolower-hb",
        boa: false,
        global: false,
        lower: true,
        hb: true,
    },
    Mode {
        name: "blosum-global-upper-hb",
        boa: false,
        global: true,
        lower: false,
        hb: true,
    },
];
const PLAIN: Mode = Mode {
    name: "boa-global",
    boa: true,
    global: true,
    lower: false,
    hb: false,
};
/// Without `-hb`: the MSA alone, as CONSENT uses it, global and local.
const EXTRA_MODES: [Mode; 2] = [
    PLAIN,
    Mode {
        name: "blosum-local-tolower",
        boa: false,
        global: false,
        lower: true,
        hb: false,
    },
];

struct Matrices {
    boa: ScoreMatrix,
    stock: ScoreMatrix,
}

fn ours(reads: &[Vec<u8>], mode: &Mode, mats: &Matrices) -> Vec<(String, Vec<u8>)> {
    let m = if mode.boa { &mats.boa } else { &mats.stock };
    let opt = WindowOptions {
        global: mode.global,
        case: if mode.lower {
            CaseSwitch::Lower
        } else {
            CaseSwitch::Keep
        },
        max_seqs: usize::MAX,
        heaviest_bundle: if mode.hb { Some(0.9) } else { None },
        gap: b'.',
    };
    let refs: Vec<&[u8]> = reads.iter().map(|r| r.as_slice()).collect();
    match align_window(&refs, m, &opt) {
        Some(w) => w.names.into_iter().zip(w.msa.rows).collect(),
        None => Vec::new(),
    }
}

#[derive(Default)]
struct Tally {
    compared: BTreeMap<String, (usize, usize)>,
    first_failures: Vec<String>,
    consensus_rows: usize,
    columns: usize,
}

impl Tally {
    fn check(&mut self, class: &str, reads: &[Vec<u8>], mode: &Mode, o: &Oracle, mats: &Matrices) {
        let want = o.run(reads, mode);
        let got = ours(reads, mode, mats);
        // Guard against a vacuous comparison (e.g. an unreadable PIR file).
        if reads.iter().any(|r| !r.is_empty()) {
            assert!(
                !want.is_empty(),
                "poa produced no rows for {class} {}",
                mode.name
            );
        }
        self.consensus_rows += want
            .iter()
            .filter(|(n, _)| n.starts_with("CONSENS"))
            .count();
        self.columns += want.first().map_or(0, |r| r.1.len());
        let e = self
            .compared
            .entry(format!("{class} / {}", mode.name))
            .or_default();
        e.0 += 1;
        if want != got {
            e.1 += 1;
            if self.first_failures.len() < 3 {
                let fasta: String = reads
                    .iter()
                    .enumerate()
                    .map(|(i, r)| format!(">s{i}\n{}\n", String::from_utf8_lossy(r)))
                    .collect();
                let show = |v: &Vec<(String, Vec<u8>)>| {
                    v.iter()
                        .map(|(n, r)| format!("{n}\t{}\n", String::from_utf8_lossy(r)))
                        .collect::<String>()
                };
                self.first_failures.push(format!(
                    "MISMATCH {class} {}\n{fasta}--- poa\n{}--- ours\n{}",
                    mode.name,
                    show(&want),
                    show(&got)
                ));
            }
        }
    }

    fn merge(&mut self, other: Tally) {
        for (k, (n, bad)) in other.compared {
            let e = self.compared.entry(k).or_default();
            e.0 += n;
            e.1 += bad;
        }
        self.first_failures.extend(other.first_failures);
        self.first_failures.truncate(3);
        self.consensus_rows += other.consensus_rows;
        self.columns += other.columns;
    }

    fn report_and_assert(&self) {
        let mut by_class: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        let mut by_mode: BTreeMap<&str, (usize, usize)> = BTreeMap::new();
        let mut total = (0, 0);
        let mut report = String::from("POA oracle (seqshim vs Debian poa):\n");
        for (k, (n, bad)) in &self.compared {
            let (class, mode) = k.split_once(" / ").unwrap_or((k, ""));
            for (map, key) in [(&mut by_class, class), (&mut by_mode, mode)] {
                let e = map.entry(key).or_default();
                e.0 += n;
                e.1 += bad;
            }
            total.0 += n;
            total.1 += bad;
        }
        for (class, (n, bad)) in &by_class {
            report.push_str(&format!(
                "class {class:40} windows {n:6}  mismatches {bad}\n"
            ));
        }
        for (mode, (n, bad)) in &by_mode {
            report.push_str(&format!(
                "mode  {mode:40} windows {n:6}  mismatches {bad}\n"
            ));
        }
        report.push_str(&format!(
            "TOTAL windows {} mismatches {} (CONSENS rows compared: {}, MSA columns: {})\n",
            total.0, total.1, self.consensus_rows, self.columns
        ));
        for f in &self.first_failures {
            report.push_str(&format!("{f}\n"));
        }
        // Straight to stderr, past the test harness's capture, so that
        // `make test` shows the per-class counts.
        let _ = std::io::Write::write_all(&mut std::io::stderr(), report.as_bytes());
        assert_eq!(total.1, 0, "MSA rows differ from poa");
    }
}

fn matrices() -> Matrices {
    Matrices {
        boa: ScoreMatrix::boa_dna(),
        stock: ScoreMatrix::from_file(STOCK_MATRIX).expect("stock matrix parses"),
    }
}

/// Read-count classes and read-length classes, as CONSENT-GPU buckets
/// windows (sequences <= 8/16/32, longest read <= 31/63/127/255).
const NS: [(usize, usize); 3] = [(2, 8), (9, 16), (17, 32)];
const LS: [(usize, usize); 4] = [(8, 31), (32, 63), (64, 127), (128, 255)];

/// Windows per (class, mode) in the default run, `WINDOWS[n][l]`. Small
/// windows are cheap (poa's start-up dominates), large ones cost tens of
/// milliseconds, so the counts fall with size: about 5,100 windows in all,
/// a few seconds on two cores. `POA_ORACLE_SCALE` multiplies every count.
const WINDOWS: [[usize; 4]; 3] = [[215, 170, 43, 13], [115, 58, 17, 5], [58, 29, 9, 3]];

fn env_or<T: std::str::FromStr>(key: &str, default: T) -> T {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// Checks `cases` (class, reads, mode) on every core, one `poa` working
/// folder per thread, and returns the merged tally.
fn check_all(cases: Vec<(String, Vec<Vec<u8>>, Mode)>, mats: &Matrices, tag: &str) -> Tally {
    let next = std::sync::atomic::AtomicUsize::new(0);
    let threads = std::thread::available_parallelism().map_or(2, |n| n.get());
    let merged = std::sync::Mutex::new(Tally::default());
    std::thread::scope(|scope| {
        for t in 0..threads {
            let (cases, next, merged) = (&cases, &next, &merged);
            scope.spawn(move || {
                let o = Oracle::new(&format!("{tag}-{t}"));
                let mut tally = Tally::default();
                loop {
                    let i = next.fetch_add(1, std::sync::atomic::Ordering::Relaxed);
                    let Some((class, reads, mode)) = cases.get(i) else {
                        break;
                    };
                    tally.check(class, reads, mode, &o, mats);
                }
                merged.lock().unwrap().merge(tally);
            });
        }
    });
    merged.into_inner().unwrap()
}

#[test]
fn random_windows_match_poa() {
    if !have_poa() {
        println!("SKIPPED: `poa` or {STOCK_MATRIX} not installed (apt-get install poa)");
        return;
    }
    let scale: f64 = env_or("POA_ORACLE_SCALE", 1.0);
    let mats = matrices();
    let mut rng = Rng(env_or("POA_ORACLE_SEED", 20240611));
    let mut cases = Vec::new();
    for (ni, n) in NS.iter().enumerate() {
        for (li, l) in LS.iter().enumerate() {
            let class = format!("{:>2}-{:<2} reads x {:>3}-{:<3} bp", n.0, n.1, l.0, l.1);
            let per = ((WINDOWS[ni][li] as f64 * scale).round() as usize).max(1);
            for mode in MODES.iter().chain(&EXTRA_MODES) {
                for _ in 0..per {
                    cases.push((class.clone(), window(&mut rng, *n, *l), *mode));
                }
            }
        }
    }
    let tally = check_all(cases, &mats, "random");
    tally.report_and_assert();
}

#[test]
fn edge_windows_match_poa() {
    if !have_poa() {
        println!("SKIPPED: `poa` or {STOCK_MATRIX} not installed (apt-get install poa)");
        return;
    }
    let mats = matrices();
    let seed = std::env::var("POA_EDGE_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(7);
    let mut rng = Rng(seed);
    let mut cases: Vec<(String, Vec<Vec<u8>>, Mode)> = Vec::new();
    let mut add =
        |class: &str, w: Vec<Vec<u8>>, mode: &Mode| cases.push((class.to_string(), w, *mode));
    let all_modes: Vec<Mode> = MODES.iter().chain(&EXTRA_MODES).copied().collect();
    let rounds: usize = std::env::var("POA_EDGE_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(4);
    for _ in 0..rounds {
        for mode in &all_modes {
            // one read
            let w = window(&mut rng, (1, 1), (20, 200));
            add("edge: one read", w.clone(), mode);
            // identical reads
            let r = window(&mut rng, (1, 1), (20, 200)).pop().unwrap();
            let k = rng.range(2, 10);
            add("edge: identical reads", vec![r; k], mode);
            // an empty read among others (poa and BMEAN both drop it)
            let mut w = window(&mut rng, (3, 8), (30, 120));
            let at = rng.range(0, w.len() - 1);
            w.insert(at, Vec::new());
            add("edge: empty read", w.clone(), mode);
            // reads with N and other non-ACGT bytes (no `*`/`#`/`>`, which
            // would change how poa parses the FASTA line)
            let mut w = window(&mut rng, (3, 10), (30, 120));
            for r in w.iter_mut() {
                for c in r.iter_mut() {
                    let u = rng.unit();
                    if u < 0.03 {
                        *c = b'N';
                    } else if u < 0.035 {
                        *c = b"nxJ@acgt"[rng.range(0, 7)];
                    }
                }
            }
            add("edge: reads with N", w.clone(), mode);
            // unrelated reads (alignment driven by gaps and ties)
            let w: Vec<Vec<u8>> = (0..rng.range(2, 8))
                .map(|_| (0..rng.range(5, 80)).map(|_| rng.base()).collect())
                .collect();
            add("edge: unrelated reads", w.clone(), mode);
            // homopolymer-rich reads over two letters (many equal-score paths)
            let truth: Vec<u8> = (0..rng.range(20, 120))
                .map(|i| {
                    if (i / rng.range(1, 6)).is_multiple_of(2) {
                        b'A'
                    } else {
                        b'C'
                    }
                })
                .collect();
            let w: Vec<Vec<u8>> = (0..rng.range(2, 12))
                .map(|_| noisy_copy(&mut rng, &truth))
                .collect();
            add("edge: homopolymers", w.clone(), mode);
            // reads made only of N (every pair mismatches, even N:N)
            let w: Vec<Vec<u8>> = (0..rng.range(2, 5))
                .map(|_| vec![b'N'; rng.range(1, 30)])
                .collect();
            add("edge: all-N reads", w.clone(), mode);
            // short reads (path may be < 10 nodes: no consensus row)
            let w = window(&mut rng, (2, 6), (3, 12));
            add("edge: tiny reads", w.clone(), mode);
        }
        // 1 kbp reads, CONSENT mode only (slow in poa)
        let w = window(&mut rng, (2, 5), (1000, 1000));
        add("edge: 1 kbp reads", w.clone(), &MODES[0]);
        add("edge: 1 kbp reads", w.clone(), &PLAIN);
    }
    let tally = check_all(cases, &mats, "edge");
    tally.report_and_assert();
}

#[test]
fn timing_vs_poa() {
    if std::env::var("POA_TIMING").is_err() || !have_poa() {
        println!("SKIPPED: set POA_TIMING=1 (needs `poa`) to run the timing comparison");
        return;
    }
    let o = Oracle::new("timing");
    let mats = matrices();
    let count: usize = std::env::var("POA_TIMING_WINDOWS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(100);
    // Spawn + matrix-read overhead: poa on a one-read, one-base window.
    let tiny = vec![b"A".to_vec()];
    let t = Instant::now();
    for _ in 0..50 {
        o.run(&tiny, &PLAIN);
    }
    let spawn = t.elapsed().as_secs_f64() / 50.0;
    println!("poa spawn+io overhead per call: {:.3} ms", spawn * 1e3);
    for (n, l) in [
        ((2, 8), (32, 63)),
        ((9, 16), (64, 127)),
        ((17, 32), (128, 255)),
    ] {
        let mut rng = Rng(99);
        let wins: Vec<Vec<Vec<u8>>> = (0..count).map(|_| window(&mut rng, n, l)).collect();
        let t = Instant::now();
        for w in &wins {
            o.run(w, &PLAIN);
        }
        let poa_s = t.elapsed().as_secs_f64();
        let t = thread_cpu_seconds();
        let mut rows = 0usize;
        for w in &wins {
            rows += ours(w, &PLAIN, &mats).len();
        }
        let rust_s = thread_cpu_seconds() - t;
        let poa_net = (poa_s - spawn * count as f64).max(1e-9);
        println!(
            "{}-{} x {}-{}: rust {:.0} win/s (thread CPU), poa {:.0} win/s (wall, one process per window), {:.0} win/s minus spawn; speed rust/poa raw {:.2}, minus spawn {:.2} ({rows} rows)",
            n.0,
            n.1,
            l.0,
            l.1,
            count as f64 / rust_s,
            count as f64 / poa_s,
            count as f64 / poa_net,
            poa_s / rust_s,
            poa_net / rust_s
        );
    }
}
