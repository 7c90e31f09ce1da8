//! The native C API from real C programs, loaded three ways: linked with
//! `-lseqshim`, opened with `dlopen`, and injected with `LD_PRELOAD` into a
//! program that does not link it; each also under ASan/UBSan.

mod support;

use std::path::PathBuf;
use support::*;

fn source() -> Vec<PathBuf> {
    vec![repo().join("ffi-tests/native/native_api.c")]
}

fn build(mode: &str, sanitize: bool) -> PathBuf {
    let lib = library_dir();
    let mut flags: Vec<&str> = STRICT_C.to_vec();
    if sanitize {
        flags.extend_from_slice(SANITIZERS);
    }
    let define = format!("-DLOAD_{}", mode.to_uppercase());
    flags.push(&define);
    let lib_flag = format!("-L{}", lib.display());
    let link: Vec<&str> = match mode {
        "linked" => vec![&lib_flag, "-lseqshim"],
        _ => vec!["-ldl"],
    };
    let name = format!("native_api_{mode}{}", if sanitize { "_asan" } else { "" });
    compile_c(&name, &source(), &flags, &link)
}

fn check(mode: &str, sanitize: bool) {
    let exe = build(mode, sanitize);
    let lib = library_dir();
    let lib_env = lib_path_env(&lib);
    let preload = lib.join("libseqshim.so.0").display().to_string();
    let mut env = vec![
        ("LD_LIBRARY_PATH", lib_env.as_str()),
        ("SEQSHIM_BACKEND", "cpu"),
    ];
    if sanitize {
        // ASan wants to be first in the library list; an LD_PRELOADed
        // library is loaded before it, which is what we are testing.
        env.push(("ASAN_OPTIONS", "verify_asan_link_order=0:detect_leaks=1"));
    }
    if mode == "preload" {
        env.push(("LD_PRELOAD", preload.as_str()));
    }
    let output = run(&exe, &env);
    assert_output(
        &format!("{mode} (sanitizers: {sanitize})"),
        &output,
        &expected("native_api.cpu.txt"),
    );
}

#[test]
fn linked() {
    check("linked", false);
}

/// The linked program under valgrind's memcheck: the same output, no
/// invalid access, no definitely lost block.
#[test]
fn linked_under_memcheck() {
    let exe = build("linked", false);
    let lib = lib_path_env(&library_dir());
    let env = [
        ("LD_LIBRARY_PATH", lib.as_str()),
        ("SEQSHIM_BACKEND", "cpu"),
    ];
    if let Some(output) = memcheck(&exe, &[], &env) {
        assert_output(
            "linked (memcheck)",
            &output,
            &expected("native_api.cpu.txt"),
        );
    }
}

#[test]
fn dlopen() {
    check("dlopen", false);
}

#[test]
fn preload() {
    check("preload", false);
}

#[test]
fn linked_with_sanitizers() {
    check("linked", true);
}

#[test]
fn dlopen_with_sanitizers() {
    check("dlopen", true);
}

#[test]
fn preload_with_sanitizers() {
    check("preload", true);
}

#[test]
fn preload_program_without_the_library_says_so() {
    let exe = build("preload", false);
    let output = run(&exe, &[]);
    assert_eq!(output.status.code(), Some(3));
    assert_eq!(
        String::from_utf8_lossy(&output.stdout),
        "seqshim not loaded\n"
    );
}

/// With the default configuration the library picks a backend on its own:
/// on a machine without a GPU it must say CPU and why, and still pass.
#[test]
fn auto_backend_reports_a_reason_and_passes_the_selftest() {
    let exe = build("linked", false);
    let lib = lib_path_env(&library_dir());
    let output = run(&exe, &[("LD_LIBRARY_PATH", lib.as_str())]);
    let stdout = String::from_utf8_lossy(&output.stdout);
    assert!(output.status.success(), "{stdout}");
    assert!(stdout.contains("selftest: 0\n"), "{stdout}");
    if stdout.contains("backend: cpu") {
        let reason = stdout
            .lines()
            .find(|l| l.starts_with("reason: "))
            .unwrap_or("");
        assert!(
            reason.len() > "reason: ".len() && !reason.contains("<missing>"),
            "{stdout}"
        );
    } else {
        assert!(stdout.contains("backend: cuda"), "{stdout}");
    }
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(!stderr.contains("panicked"), "{stderr}");
}

/// Bad configuration is reported in one line each and ignored.
#[test]
fn bad_configuration_is_reported_and_ignored() {
    let exe = build("linked", false);
    let lib = lib_path_env(&library_dir());
    let output = run(
        &exe,
        &[
            ("LD_LIBRARY_PATH", lib.as_str()),
            ("SEQSHIM_BACKEND", "cpu"),
            ("SEQSHIM_THREADS", "lots"),
        ],
    );
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        stderr.contains("[seqshim] warning: ignoring SEQSHIM_THREADS=\"lots\""),
        "{stderr}"
    );
    assert_output("bad config", &output, &expected("native_api.cpu.txt"));
}
