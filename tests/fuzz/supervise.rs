//! The parent side of the fuzz and stress runs: one child process per
//! target (this same test binary), a watchdog, and the verdict. A child
//! that dies of a signal, exits non-zero, outlives its time, or writes Rust
//! panic text to stderr fails its target; its current input is kept.
#![allow(dead_code)]

use std::io::Read;
use std::path::{Path, PathBuf};
use std::process::{Command, Stdio};
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// What a target may know of its run.
pub struct Ctx {
    /// Also produce inputs of known open issues.
    pub known: bool,
    /// A private scratch folder.
    pub tmp: PathBuf,
}

pub const CHILD_ENV: &str = "SEQSHIM_FUZZ_CHILD";
pub const EXIT_MISMATCH: i32 = 3;
/// A case slower than `SEQSHIM_FUZZ_SLOW_CASE`.
pub const EXIT_SLOW: i32 = 4;

/// Text that must never reach the host's stderr.
const FORBIDDEN_STDERR: &[&str] = &["panicked", "RUST_BACKTRACE", "stack backtrace"];

/// The checkout whose `fuzz/corpus` is replayed: `SEQSHIM_FUZZ_REPO` for a
/// test binary copied to another machine, else the one it was built from.
pub fn repo() -> PathBuf {
    std::env::var_os("SEQSHIM_FUZZ_REPO")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")))
}

/// Where cases and crashes are written: `SEQSHIM_FUZZ_WORK`, else the
/// build's scratch folder.
pub fn work_dir() -> PathBuf {
    let dir = std::env::var_os("SEQSHIM_FUZZ_WORK")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("fuzz"));
    std::fs::create_dir_all(&dir).expect("fuzz work dir");
    dir
}

fn env_f64(key: &str, default: f64) -> f64 {
    std::env::var(key)
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(default)
}

/// What the parent tells a child.
pub struct ChildEnv {
    pub seconds: f64,
    pub seed: u64,
    pub current: PathBuf,
    pub scratch: PathBuf,
    pub replay: Option<String>,
    pub known: bool,
    pub slow_case: f64,
}

impl ChildEnv {
    pub fn read() -> ChildEnv {
        let v = |k: &str| std::env::var(k).unwrap_or_default();
        ChildEnv {
            seconds: v("SEQSHIM_FUZZ_CHILD_SECONDS").parse().unwrap_or(1.0),
            seed: v("SEQSHIM_FUZZ_CHILD_SEED").parse().unwrap_or(1),
            current: PathBuf::from(v("SEQSHIM_FUZZ_CHILD_CURRENT")),
            scratch: PathBuf::from(v("SEQSHIM_FUZZ_CHILD_SCRATCH")),
            replay: std::env::var("SEQSHIM_FUZZ_REPLAY").ok(),
            known: v("SEQSHIM_FUZZ_KNOWN") == "1",
            slow_case: v("SEQSHIM_FUZZ_SLOW_CASE").parse().unwrap_or(20.0),
        }
    }
}

/// Saves the input about to run, so that a crash or hang leaves it behind.
pub fn record_current(path: &Path, data: &[u8]) {
    if !path.as_os_str().is_empty() {
        std::fs::write(path, data).expect("record current input");
    }
}

/// Caps the child's address space (`SEQSHIM_FUZZ_MEMORY_MB`, default 8192):
/// a runaway allocation then fails the target instead of taking the
/// machine's memory.
pub fn limit_memory() {
    let mb: u64 = std::env::var("SEQSHIM_FUZZ_MEMORY_MB")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(8192);
    let lim = libc::rlimit {
        rlim_cur: mb << 20,
        rlim_max: mb << 20,
    };
    // SAFETY: setrlimit with a valid struct; it only lowers this process's limit.
    unsafe { libc::setrlimit(libc::RLIMIT_AS, &lim) };
}

/// A panic anywhere in the child (caught at the C boundary or not) keeps
/// the input that caused it as `<current>.panic`: the library contains
/// panics, so the child runs on and the parent only sees the text later.
pub fn keep_input_on_panic(current: &Path) {
    let kept = panic_path(current);
    let current = current.to_path_buf();
    let previous = std::panic::take_hook();
    std::panic::set_hook(Box::new(move |info| {
        if !kept.exists() {
            let _ = std::fs::copy(&current, &kept);
        }
        previous(info);
    }));
}

fn panic_path(current: &Path) -> PathBuf {
    let mut p = current.as_os_str().to_owned();
    p.push(".panic");
    PathBuf::from(p)
}

/// Runs each of `names` in a child; prints a summary; true if all passed.
/// `random`: children take `SEQSHIM_FUZZ_SECONDS` and a seed.
pub fn parent(kind: &str, names: &[&str], random: bool) -> bool {
    let seconds = env_f64("SEQSHIM_FUZZ_SECONDS", 15.0);
    let seed: u64 = std::env::var("SEQSHIM_FUZZ_SEED")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or_else(|| {
            SystemTime::now()
                .duration_since(UNIX_EPOCH)
                .map(|d| d.as_nanos() as u64)
                .unwrap_or(1)
        });
    let replay = std::env::var("SEQSHIM_FUZZ_REPLAY").is_ok();
    // A child gets its time plus a margin for the corpus and the last case
    // (the longest valid case runs well under a second); a slow machine
    // may scale it with SEQSHIM_FUZZ_GRACE.
    let grace = env_f64("SEQSHIM_FUZZ_GRACE", 60.0);
    let dir = work_dir();
    let crashes = dir.join("crashes");
    std::fs::create_dir_all(&crashes).expect("crash dir");
    eprintln!(
        "{kind}: {} target(s), {seconds} s each, seed {seed}{}",
        names.len(),
        if replay { " (replay)" } else { "" }
    );
    let mut all_ok = true;
    let mut summary = String::new();
    for (i, name) in names.iter().enumerate() {
        let child_seed = seed.wrapping_add((i as u64).wrapping_mul(0x9E37_79B9));
        let current = dir.join(format!("{name}.current"));
        let scratch = dir.join(format!("{name}.scratch"));
        let _ = std::fs::remove_file(&current);
        let _ = std::fs::remove_file(panic_path(&current));
        let out_path = dir.join(format!("{name}.stdout"));
        let err_path = dir.join(format!("{name}.stderr"));
        let exe = std::env::current_exe().expect("current exe");
        let mut child = Command::new(exe)
            .env(CHILD_ENV, name)
            .env("SEQSHIM_FUZZ_CHILD_SECONDS", seconds.to_string())
            .env("SEQSHIM_FUZZ_CHILD_SEED", child_seed.to_string())
            .env("SEQSHIM_FUZZ_CHILD_CURRENT", &current)
            .env("SEQSHIM_FUZZ_CHILD_SCRATCH", &scratch)
            .stdin(Stdio::null())
            .stdout(std::fs::File::create(&out_path).expect("stdout file"))
            .stderr(std::fs::File::create(&err_path).expect("stderr file"))
            .spawn()
            .expect("spawn fuzz child");
        let started = Instant::now();
        let limit = Duration::from_secs_f64(if random && !replay { seconds } else { 0.0 } + grace);
        let status = loop {
            if let Some(st) = child.try_wait().expect("wait child") {
                break Some(st);
            }
            if started.elapsed() > limit {
                let _ = child.kill();
                let _ = child.wait();
                break None;
            }
            std::thread::sleep(Duration::from_millis(50));
        };
        let elapsed = started.elapsed().as_secs_f64();
        let stdout = read_text(&out_path);
        let stderr = read_text(&err_path);
        let executions = stdout
            .lines()
            .find_map(|l| l.strip_prefix("executions "))
            .unwrap_or("?")
            .to_string();
        let slowest = stdout
            .lines()
            .find_map(|l| l.strip_prefix("slowest "))
            .unwrap_or("?")
            .to_string();
        let mut problem = match status {
            None => Some(format!(
                "hang: still running after {:.0} s",
                limit.as_secs_f64()
            )),
            Some(st) if st.success() => None,
            Some(st) => {
                use std::os::unix::process::ExitStatusExt;
                Some(match (st.code(), st.signal()) {
                    (Some(EXIT_MISMATCH), _) => "mismatch".to_string(),
                    (Some(EXIT_SLOW), _) => "slow case".to_string(),
                    (_, Some(sig)) => format!("crash: signal {sig}"),
                    (code, _) => format!("exit status {code:?}"),
                })
            }
        };
        if problem.is_none() {
            if let Some(bad) = FORBIDDEN_STDERR.iter().find(|b| stderr.contains(*b)) {
                problem = Some(format!("stderr mentions {bad:?}"));
            }
        }
        let verdict = match &problem {
            None => "ok".to_string(),
            Some(p) => {
                all_ok = false;
                let kept = crashes.join(format!("{name}-{child_seed}"));
                let source = if problem_is_panic_text(p) && panic_path(&current).exists() {
                    panic_path(&current)
                } else {
                    current.clone()
                };
                let saved = std::fs::copy(&source, &kept).is_ok();
                let mut report = format!("\n=== {kind} target {name} FAILED: {p}\n");
                if saved {
                    let data = std::fs::read(&kept).unwrap_or_default();
                    report += &format!(
                        "input ({} bytes) kept at {}\n  replay: SEQSHIM_FUZZ_REPLAY={} cargo test --test {kind} -- {name}\n  first bytes: {}\n",
                        data.len(),
                        kept.display(),
                        kept.display(),
                        hex(&data[..data.len().min(64)])
                    );
                }
                report += &format!("--- stdout (tail)\n{}\n", tail(&stdout, 3000));
                report += &format!("--- stderr (tail)\n{}\n", tail(&stderr, 3000));
                eprint!("{report}");
                format!("FAILED ({p})")
            }
        };
        let line = format!(
            "{kind} {name:<12} {elapsed:>7.1} s {executions:>9} cases  slowest {slowest:>6} s  {verdict}\n"
        );
        eprint!("{line}");
        summary += &line;
    }
    eprint!("--- {kind} summary (seed {seed})\n{summary}");
    all_ok
}

fn problem_is_panic_text(p: &str) -> bool {
    p.starts_with("stderr mentions")
}

fn read_text(p: &Path) -> String {
    let mut s = Vec::new();
    if let Ok(mut f) = std::fs::File::open(p) {
        let _ = f.read_to_end(&mut s);
    }
    String::from_utf8_lossy(&s).into_owned()
}

fn tail(s: &str, n: usize) -> &str {
    let mut start = s.len().saturating_sub(n);
    while !s.is_char_boundary(start) {
        start += 1;
    }
    &s[start..]
}

fn hex(d: &[u8]) -> String {
    d.iter().map(|b| format!("{b:02x}")).collect()
}
