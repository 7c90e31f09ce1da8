//! In-tree fuzzing of every exported entry point, on stable Rust.
//!
//! Each target decodes a byte string into calls (valid and invalid) of one
//! family's C ABI and, for valid inputs, compares the result with a
//! reference: Debian's `libwfa2.so.0` for WFA2 (loaded with `dlopen`, so
//! both libraries live in one process), and otherwise another seqshim entry
//! point that must agree (single call against batch, ABI against native
//! API, CPU reference in the crate).
//!
//! The parent process runs each target in a child (this same binary) that
//! writes every input to a file before running it, so a crash (signal), a
//! hang (the parent's watchdog), a mismatch, or Rust panic text on stderr
//! leaves its input behind as a reproducer under
//! `$CARGO_TARGET_TMPDIR/fuzz/crashes/`.
//!
//! Environment:
//! - `SEQSHIM_FUZZ_SECONDS` (default 15): random cases per target;
//! - `SEQSHIM_FUZZ_SEED` (default: from the clock, printed);
//! - `SEQSHIM_FUZZ_REPLAY=FILE|DIR`: run only those inputs;
//! - `SEQSHIM_FUZZ_KNOWN=1`: also generate the inputs of known open issues
//!   (listed in `fuzz/README.md`), which the default run steers around.
//! - `SEQSHIM_FUZZ_REPO`, `SEQSHIM_FUZZ_WORK`, `SEQSHIM_FUZZ_WFA2_LIB`: the
//!   checkout with `fuzz/corpus`, the folder for cases and crashes, and
//!   Debian's `libwfa2.so.0`, for a test binary copied to another machine.
//!
//! Arguments name targets to run (all by default). Corpus files in
//! `fuzz/corpus/<target>/` are replayed first and seed the mutations.

mod abea;
mod bytes;
mod ec;
mod gact;
mod poa;
mod supervise;
mod wfa;

use bytes::{Input, Rng};
use std::path::PathBuf;
use std::time::{Duration, Instant};
pub use supervise::Ctx;

pub type Target = fn(&mut Input, &Ctx) -> Result<(), String>;

/// Name, entry, largest random input.
pub const TARGETS: &[(&str, Target, usize)] = &[
    ("wfa2", wfa::wfa2, 4096),
    ("wfa2_cigar", wfa::cigar, 2048),
    ("wfa_batch", wfa::batch, 8192),
    ("boa", poa::boa, 4096),
    ("poa_batch", poa::batch, 8192),
    ("abea", abea::abea, 8192),
    ("gact", gact::gact, 4096),
    ("ec", ec::ec, 8192),
];

fn main() {
    if let Ok(target) = std::env::var(supervise::CHILD_ENV) {
        child(&target);
        return;
    }
    let wanted: Vec<String> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with('-'))
        .collect();
    let names: Vec<&str> = TARGETS
        .iter()
        .map(|t| t.0)
        .filter(|n| wanted.is_empty() || wanted.iter().any(|w| w == n))
        .collect();
    let ok = supervise::parent("fuzz", &names, true);
    if !ok {
        std::process::exit(1);
    }
}

fn corpus(target: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let dir = supervise::repo().join("fuzz/corpus").join(target);
    let mut files: Vec<PathBuf> = std::fs::read_dir(&dir)
        .map(|rd| rd.filter_map(|e| e.ok().map(|e| e.path())).collect())
        .unwrap_or_default();
    files.sort();
    files
        .into_iter()
        .filter(|p| p.is_file())
        .filter_map(|p| std::fs::read(&p).ok().map(|d| (p, d)))
        .collect()
}

fn replay_set(spec: &str) -> Vec<(PathBuf, Vec<u8>)> {
    let p = PathBuf::from(spec);
    if p.is_dir() {
        let mut v: Vec<PathBuf> = std::fs::read_dir(&p)
            .expect("replay dir")
            .filter_map(|e| e.ok().map(|e| e.path()))
            .filter(|p| p.is_file())
            .collect();
        v.sort();
        v.into_iter()
            .map(|p| {
                let d = std::fs::read(&p).expect("read replay file");
                (p, d)
            })
            .collect()
    } else {
        vec![(p.clone(), std::fs::read(&p).expect("read replay file"))]
    }
}

/// One target's run, in the child: the corpus (or the replay set), then
/// random and mutated cases until the time is up.
fn child(name: &str) {
    let &(_, target, max_len) = TARGETS
        .iter()
        .find(|t| t.0 == name)
        .unwrap_or_else(|| panic!("unknown fuzz target {name}"));
    let env = supervise::ChildEnv::read();
    let ctx = Ctx {
        known: env.known,
        tmp: env.scratch.clone(),
    };
    std::fs::create_dir_all(&ctx.tmp).expect("scratch dir");
    supervise::keep_input_on_panic(&env.current);
    supervise::limit_memory();
    let slowest = std::cell::Cell::new(0.0f64);
    let run_one = |data: &[u8], what: &str| {
        supervise::record_current(&env.current, data);
        let t0 = Instant::now();
        if let Err(msg) = target(&mut Input::new(data), &ctx) {
            println!("MISMATCH ({what}): {msg}");
            std::process::exit(supervise::EXIT_MISMATCH);
        }
        let dt = t0.elapsed().as_secs_f64();
        if dt > slowest.get() {
            slowest.set(dt);
        }
        if dt > env.slow_case {
            // A case this slow is a hang in the making (or a known slow
            // path): fail with its input rather than eat the budget.
            println!(
                "SLOW ({what}): one case took {dt:.1} s (limit {} s)",
                env.slow_case
            );
            std::process::exit(supervise::EXIT_SLOW);
        }
    };
    let mut executions = 0u64;
    if let Some(spec) = &env.replay {
        for (path, data) in replay_set(spec) {
            run_one(&data, &path.display().to_string());
            executions += 1;
        }
        println!("executions {executions}");
        println!("slowest {:.3}", slowest.get());
        return;
    }
    let seeds = corpus(name);
    for (path, data) in &seeds {
        run_one(data, &path.display().to_string());
        executions += 1;
    }
    let pool: Vec<Vec<u8>> = seeds.into_iter().map(|s| s.1).collect();
    let mut rng = Rng(env.seed);
    let deadline = Instant::now() + Duration::from_secs_f64(env.seconds);
    while Instant::now() < deadline {
        let data = rng.case(&pool, max_len);
        run_one(&data, "random case");
        executions += 1;
    }
    println!("executions {executions}");
    println!("slowest {:.3}", slowest.get());
}
