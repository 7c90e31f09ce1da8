//! Shared plumbing for the tests that build and run the C programs in
//! `ffi-tests/` against the freshly built `libseqshim.so`.
#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, OnceLock};

/// Where the compiled test programs and the library links go.
pub fn work_dir() -> PathBuf {
    let dir = PathBuf::from(env!("CARGO_TARGET_TMPDIR")).join("ffi-tests");
    std::fs::create_dir_all(&dir).expect("create ffi-tests work dir");
    dir
}

pub fn repo() -> PathBuf {
    PathBuf::from(env!("CARGO_MANIFEST_DIR"))
}

/// The `libseqshim.so` cargo built next to this test binary.
pub fn built_library() -> PathBuf {
    let exe = std::env::current_exe().expect("current exe");
    let deps = exe.parent().expect("deps dir");
    for candidate in [deps.join("libseqshim.so"), deps.join("../libseqshim.so")] {
        if candidate.exists() {
            return candidate.canonicalize().expect("canonical lib path");
        }
    }
    panic!("libseqshim.so was not built next to {}", exe.display());
}

/// A folder holding `libseqshim.so` and `libseqshim.so.0`, as an install
/// would, for `-L` at link time and `LD_LIBRARY_PATH` at run time.
pub fn library_dir() -> PathBuf {
    static DIR: OnceLock<PathBuf> = OnceLock::new();
    DIR.get_or_init(make_library_dir).clone()
}

fn make_library_dir() -> PathBuf {
    let dir = work_dir().join("lib");
    std::fs::create_dir_all(&dir).expect("lib dir");
    let lib = built_library();
    for name in ["libseqshim.so", "libseqshim.so.0"] {
        let link = dir.join(name);
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(&lib, &link).expect("symlink library");
    }
    dir
}

/// Compiler flags every C test program gets.
pub const STRICT_C: &[&str] = &["-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-g"];
pub const SANITIZERS: &[&str] = &[
    "-fsanitize=address,undefined",
    "-fno-omit-frame-pointer",
    "-fno-sanitize-recover=all",
];

/// Compiles `sources` into `exe_name` with the C compiler the `cc` crate
/// picks for this target; returns the executable's path.
pub fn compile_c(exe_name: &str, sources: &[PathBuf], flags: &[&str], link: &[&str]) -> PathBuf {
    // Tests run in parallel and several use the same program: build each once.
    static BUILT: Mutex<Vec<(String, PathBuf)>> = Mutex::new(Vec::new());
    let mut built = BUILT.lock().unwrap_or_else(|p| p.into_inner());
    if let Some((_, exe)) = built.iter().find(|(name, _)| name == exe_name) {
        return exe.clone();
    }
    let target = env!("SEQSHIM_BUILD_TARGET");
    let compiler = cc::Build::new()
        .cargo_metadata(false)
        .cargo_warnings(false)
        .emit_rerun_if_env_changed(false)
        .target(target)
        .host(target)
        .opt_level(1)
        .get_compiler();
    let exe = work_dir().join(exe_name);
    let mut cmd = Command::new(compiler.path());
    cmd.args(flags)
        .arg(format!("-I{}", repo().join("include").display()))
        .args(sources)
        .arg("-o")
        .arg(&exe)
        .args(link);
    let output = cmd.output().expect("run the C compiler");
    assert!(
        output.status.success(),
        "compiling {exe_name} failed:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    built.push((exe_name.to_string(), exe.clone()));
    exe
}

/// `program` with a clean seqshim environment plus `env`: no `SEQSHIM_*`
/// variable of the test's own environment, the tests' kernel cache.
fn clean_command(program: impl AsRef<std::ffi::OsStr>, env: &[(&str, &str)]) -> Command {
    let mut cmd = Command::new(program);
    for (key, _) in std::env::vars() {
        if key.starts_with("SEQSHIM_") {
            cmd.env_remove(key);
        }
    }
    cmd.env("SEQSHIM_CACHE_DIR", work_dir().join("kernel-cache"));
    cmd.envs(env.iter().copied());
    cmd
}

/// Runs a test program with a clean seqshim environment plus `env`.
pub fn run(exe: &Path, env: &[(&str, &str)]) -> Output {
    clean_command(exe, env).output().expect("run test program")
}

/// Runs a test program under valgrind's memcheck with a clean seqshim
/// environment plus `env`: an invalid read or write, a use of
/// uninitialised memory or a definitely lost block makes it exit 9.
/// `None`, after saying so, where valgrind is absent (a failure with
/// `SEQSHIM_REQUIRE_ORACLES=1`).
pub fn memcheck(exe: &Path, args: &[&str], env: &[(&str, &str)]) -> Option<Output> {
    if Command::new("valgrind").arg("--version").output().is_err() {
        assert!(
            std::env::var("SEQSHIM_REQUIRE_ORACLES").as_deref() != Ok("1"),
            "SEQSHIM_REQUIRE_ORACLES=1 but valgrind is missing"
        );
        println!("SKIPPED: valgrind not installed");
        return None;
    }
    let mut cmd = clean_command("valgrind", env);
    cmd.args([
        "-q",
        "--error-exitcode=9",
        "--leak-check=full",
        "--errors-for-leak-kinds=definite",
    ])
    .arg(exe)
    .args(args);
    Some(cmd.output().expect("run valgrind"))
}

/// Loads an expected-output file, filling in `@VERSION@`.
pub fn expected(name: &str) -> String {
    let text = std::fs::read_to_string(repo().join("ffi-tests/expected").join(name))
        .expect("expected output file");
    text.replace("@VERSION@", env!("CARGO_PKG_VERSION"))
}

/// Asserts a run succeeded, printed exactly `expected`, and wrote nothing
/// alarming to stderr.
pub fn assert_output(what: &str, output: &Output, expected: &str) {
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "{what}: exit {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
        output.status
    );
    assert_eq!(
        stdout, expected,
        "{what}: output differs\nstderr:\n{stderr}"
    );
    for bad in [
        "panicked",
        "RUST_BACKTRACE",
        "ERROR: AddressSanitizer",
        "runtime error:",
    ] {
        assert!(
            !stderr.contains(bad),
            "{what}: stderr mentions {bad:?}:\n{stderr}"
        );
    }
}

pub fn lib_path_env(dir: &Path) -> String {
    dir.display().to_string()
}
