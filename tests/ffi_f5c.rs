//! f5c's ABEA entries from a C program, as f5c calls them: layout asserts at
//! compile time, argument checks, every fixture record through
//! `seqshim_f5c_align` compared with f5c's expected pairs, the batch entry
//! against the per-read entry, and many threads at once; each also under
//! ASan/UBSan.

mod abea_support;
mod support;

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use seqshim::ffi::status::{SEQSHIM_E_INDEX, SEQSHIM_E_STATE};
use support::*;

fn build(sanitize: bool) -> PathBuf {
    let lib = library_dir();
    let mut flags: Vec<&str> = STRICT_C.to_vec();
    if sanitize {
        flags.extend_from_slice(SANITIZERS);
    }
    let lib_flag = format!("-L{}", lib.display());
    let name = format!("f5c_client{}", if sanitize { "_asan" } else { "" });
    compile_c(
        &name,
        &[repo().join("ffi-tests/f5c/f5c_client.c")],
        &flags,
        &[&lib_flag, "-lseqshim", "-lpthread", "-lm"],
    )
}

fn env_for(sanitize: bool) -> Vec<(&'static str, String)> {
    let mut env = vec![
        ("LD_LIBRARY_PATH", lib_path_env(&library_dir())),
        ("SEQSHIM_BACKEND", "cpu".to_string()),
    ];
    if sanitize {
        env.push(("ASAN_OPTIONS", "detect_leaks=1".to_string()));
    }
    env
}

fn run_client(sanitize: bool, args: &[&str]) -> std::process::Output {
    let exe = build(sanitize);
    let env = env_for(sanitize);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    let mut cmd = std::process::Command::new(&exe);
    cmd.args(args);
    for (key, _) in std::env::vars() {
        if key.starts_with("SEQSHIM_") {
            cmd.env_remove(key);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run f5c_client")
}

fn check_arguments(sanitize: bool) {
    let output = run_client(sanitize, &[]);
    assert_output(
        &format!("f5c_client argument checks (sanitizers: {sanitize})"),
        &output,
        &expected("f5c_client.args.txt"),
    );
}

/// Writes the fixture in the client's plain format: floats as their bits in
/// hex, so nothing is lost on the way.
fn write_cases(fx: &abea_support::Fixture, path: &Path) {
    let mut text = format!("M 6 {}\n", fx.models.len());
    for m in &fx.models {
        writeln!(
            text,
            "{:08x} {:08x} {:08x}",
            m.level_mean.to_bits(),
            m.level_stdv.to_bits(),
            m.level_log_stdv.to_bits()
        )
        .unwrap();
    }
    writeln!(text, "N {}", fx.records.len()).unwrap();
    for r in &fx.records {
        writeln!(
            text,
            "R {} {:08x} {:08x} {} {}\n{}",
            r.index,
            r.scaling.scale.to_bits(),
            r.scaling.shift.to_bits(),
            r.sequence.len(),
            r.events.len(),
            String::from_utf8_lossy(&r.sequence)
        )
        .unwrap();
        for e in &r.events {
            writeln!(
                text,
                "{} {:08x} {:08x} {:08x}",
                e.start,
                e.length.to_bits(),
                e.mean.to_bits(),
                e.stdv.to_bits()
            )
            .unwrap();
        }
    }
    std::fs::write(path, text).expect("write cases");
}

fn check_fixture(sanitize: bool, threads: usize) {
    let Some(dir) = abea_support::fixture_dir() else {
        return;
    };
    let fx = abea_support::load(&dir);
    // One file per variant: the tests run in parallel.
    let cases = work_dir().join(format!("f5c_cases_{sanitize}.txt"));
    write_cases(&fx, &cases);
    let threads = threads.to_string();
    let output = run_client(sanitize, &[cases.to_str().unwrap(), &threads]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "exit {:?}\nstderr:\n{stderr}",
        output.status
    );
    for bad in ["panicked", "ERROR: AddressSanitizer", "runtime error:"] {
        assert!(!stderr.contains(bad), "stderr mentions {bad:?}:\n{stderr}");
    }

    let mut records = fx.records.iter();
    let mut compared = 0;
    let mut mismatched = Vec::new();
    let mut rest = String::new();
    for line in stdout.lines() {
        let Some(body) = line.strip_prefix("R ") else {
            rest.push_str(line);
            rest.push('\n');
            continue;
        };
        let r = records.next().expect("more R lines than records");
        let mut fields = body.splitn(3, ' ');
        let index: u64 = fields.next().unwrap().parse().unwrap();
        let n: usize = fields.next().unwrap().parse().unwrap();
        let list = fields.next().unwrap_or("");
        assert_eq!(index, r.index, "record order");
        let got: Vec<(i32, i32)> = list
            .split(';')
            .filter(|s| !s.is_empty())
            .map(|p| {
                let (a, b) = p.split_once(',').unwrap();
                (a.parse().unwrap(), b.parse().unwrap())
            })
            .collect();
        let want: Vec<(i32, i32)> = r.expected.iter().map(|p| (p.ref_pos, p.read_pos)).collect();
        compared += 1;
        if n != got.len() || got != want {
            eprintln!(
                "MISMATCH record {}: {} pairs, expected {}",
                r.index,
                n,
                want.len()
            );
            mismatched.push(r.index);
        }
    }
    assert!(records.next().is_none(), "fewer R lines than records");
    eprintln!(
        "f5c_client (sanitizers: {sanitize}): {compared} records compared with f5c's pairs, {} mismatched",
        mismatched.len()
    );
    assert!(mismatched.is_empty(), "{mismatched:?}");
    let n = fx.records.len();
    let want = format!(
        "{}batch default: status 0, {n} of {n} reads identical to per-read\n\
         batch force-cpu: status 0, {n} of {n} reads identical to per-read\n\
         batch skip_epk=1: status 0, {n} of {n} reads skipped\n\
         handle: status 0, {n} of {n} reads identical to per-read; before run {state}, \
         past end {index}, size {n}, reset 0, size after 0\n\
         threads: {threads} x {n} calls, 0 differ from one thread\n",
        expected("f5c_client.args.txt"),
        state = SEQSHIM_E_STATE as i32,
        index = SEQSHIM_E_INDEX as i32,
    );
    assert_eq!(rest, want);
}

#[test]
fn argument_checks() {
    check_arguments(false);
}

#[test]
fn argument_checks_with_sanitizers() {
    check_arguments(true);
}

/// The argument checks under valgrind's memcheck.
#[test]
fn argument_checks_under_memcheck() {
    let exe = build(false);
    let env = env_for(false);
    let env: Vec<(&str, &str)> = env.iter().map(|(k, v)| (*k, v.as_str())).collect();
    if let Some(output) = memcheck(&exe, &[], &env) {
        assert_output(
            "f5c_client argument checks (memcheck)",
            &output,
            &expected("f5c_client.args.txt"),
        );
    }
}

#[test]
fn fixture_pairs_batch_and_threads() {
    check_fixture(false, 8);
}

#[test]
fn fixture_pairs_batch_and_threads_with_sanitizers() {
    check_fixture(true, 4);
}

/// The glue in integrations/f5c/ compiled as f5c compiles its sources
/// (C++) defines f5c's mangled names; compiled as C, the plain names, which
/// a C caller reaches and which forward to seqshim.
#[test]
fn f5c_glue_defines_f5c_symbols() {
    let glue = repo().join("integrations/f5c/seqshim_f5c_glue.c");
    let target = env!("SEQSHIM_BUILD_TARGET");
    let cxx = cc::Build::new()
        .cpp(true)
        .cargo_metadata(false)
        .cargo_warnings(false)
        .emit_rerun_if_env_changed(false)
        .target(target)
        .host(target)
        .opt_level(1)
        .get_compiler();
    let object = work_dir().join("seqshim_f5c_glue_cxx.o");
    let status = std::process::Command::new(cxx.path())
        .args([
            "-x",
            "c++",
            "-std=c++11",
            "-Wall",
            "-Wextra",
            "-Werror",
            "-c",
        ])
        .arg(format!("-I{}", repo().join("include").display()))
        .arg(&glue)
        .arg("-o")
        .arg(&object)
        .status()
        .expect("run the C++ compiler");
    assert!(status.success(), "the glue does not compile as C++");
    let nm = std::process::Command::new("nm")
        .arg(&object)
        .output()
        .expect("run nm");
    let symbols = String::from_utf8_lossy(&nm.stdout);
    for name in [
        "_Z5alignP11AlignedPairPci11event_tableP7model_tj10scalings_tf",
        "_Z27estimate_scalings_using_momPciP7model_tj11event_table",
    ] {
        assert!(
            symbols.contains(&format!(" T {name}")),
            "{name} missing:\n{symbols}"
        );
    }

    let lib_flag = format!("-L{}", library_dir().display());
    let exe = compile_c(
        "f5c_glue_driver",
        &[glue, repo().join("ffi-tests/f5c/glue_driver.c")],
        STRICT_C,
        &[&lib_flag, "-lseqshim", "-lm"],
    );
    let lib = lib_path_env(&library_dir());
    let output = run(&exe, &[("LD_LIBRARY_PATH", lib.as_str())]);
    assert_output(
        "glue driver",
        &output,
        "glue: f5c names forward to seqshim\n",
    );
}

/// The batch-boundary glue in integrations/f5c/, compiled as f5c's GPU build
/// compiles its host code (C++, -DHAVE_CUDA=1) against f5c-shaped
/// declarations, defines f5c's init_cuda / align_cuda / free_cuda; a driver
/// calls them as f5c does and gets, for every read of a batch, the pairs
/// f5c's align_single() would give (0 for the reads f5c leaves unaligned).
#[test]
fn f5c_batch_glue_defines_the_cuda_entries_and_aligns_a_batch() {
    let target = env!("SEQSHIM_BUILD_TARGET");
    let cxx = cc::Build::new()
        .cpp(true)
        .cargo_metadata(false)
        .cargo_warnings(false)
        .emit_rerun_if_env_changed(false)
        .target(target)
        .host(target)
        .opt_level(1)
        .get_compiler();
    let include = format!("-I{}", repo().join("include").display());
    let shaped = format!("-I{}", repo().join("ffi-tests/f5c/f5c_shaped").display());
    let compile = |source: PathBuf, object: &str| -> PathBuf {
        let object = work_dir().join(object);
        let status = std::process::Command::new(cxx.path())
            .args([
                "-x",
                "c++",
                "-std=c++11",
                "-Wall",
                "-Wextra",
                "-Werror",
                "-O1",
                "-g",
            ])
            .arg("-DHAVE_CUDA=1")
            .arg(&shaped)
            .arg(&include)
            .arg("-c")
            .arg(&source)
            .arg("-o")
            .arg(&object)
            .status()
            .expect("run the C++ compiler");
        assert!(
            status.success(),
            "{} does not compile as C++",
            source.display()
        );
        object
    };
    let glue = compile(
        repo().join("integrations/f5c/seqshim_f5c_batch_glue.c"),
        "seqshim_f5c_batch_glue.o",
    );
    let driver = compile(
        repo().join("ffi-tests/f5c/batch_glue_driver.cc"),
        "f5c_batch_glue_driver.o",
    );
    let nm = std::process::Command::new("nm")
        .arg(&glue)
        .output()
        .expect("run nm");
    let symbols = String::from_utf8_lossy(&nm.stdout);
    for name in [
        "_Z9init_cudaP6core_t",
        "_Z9free_cudaP6core_t",
        "_Z10align_cudaP6core_tP4db_t",
    ] {
        assert!(
            symbols.contains(&format!(" T {name}")),
            "{name} missing:\n{symbols}"
        );
    }
    let exe = work_dir().join("f5c_batch_glue_driver");
    let status = std::process::Command::new(cxx.path())
        .arg(&glue)
        .arg(&driver)
        .arg(format!("-L{}", library_dir().display()))
        .args(["-lseqshim", "-lm", "-o"])
        .arg(&exe)
        .status()
        .expect("link the batch glue driver");
    assert!(status.success(), "the batch glue driver does not link");
    let lib = lib_path_env(&library_dir());
    let output = run(
        &exe,
        &[
            ("LD_LIBRARY_PATH", lib.as_str()),
            ("SEQSHIM_BACKEND", "cpu"),
        ],
    );
    assert_output(
        "batch glue driver",
        &output,
        "batch glue: align_cuda gives align_single's pairs\n",
    );
}
