//! CUDA-EC exports from a C program (ffi-tests/cudaec/cudaec_client.c):
//! layout asserts at compile time, `seqshim_cudaec_run_test` on the stored
//! L36_edge record array, Bloom table and Param compared with records_out,
//! the native `seqshim_ec_*` API on the same set compared with the fixture
//! files, and bad input; once plainly and once under ASan/UBSan.

mod ec_common;
mod support;

use std::path::PathBuf;

use ec_common::{fixtures, gunzip};
use support::*;

fn build(sanitize: bool) -> PathBuf {
    let mut flags: Vec<&str> = STRICT_C.to_vec();
    if sanitize {
        flags.extend_from_slice(SANITIZERS);
    }
    let lib_flag = format!("-L{}", library_dir().display());
    let name = format!("cudaec_client{}", if sanitize { "_asan" } else { "" });
    compile_c(
        &name,
        &[repo().join("ffi-tests/cudaec/cudaec_client.c")],
        &flags,
        &[&lib_flag, "-lseqshim"],
    )
}

/// The decompressed L36_edge files the client reads, in a fresh folder.
fn edge_folder(tag: &str) -> Option<PathBuf> {
    let dir = fixtures()?.join("L36_edge");
    let out = work_dir().join(format!("cudaec-edge-{tag}"));
    let _ = std::fs::remove_dir_all(&out);
    std::fs::create_dir_all(&out).expect("scratch folder");
    for name in [
        "reads.fa",
        "records_in.bin",
        "bloom.bin",
        "s1.param.bin",
        "s2.param.bin",
        "s1.records_out.bin",
        "s2.records_out.bin",
        "s1.fixed.fa",
        "s1.discard.fa",
        "s2.fixed.fa",
        "s2.discard.fa",
    ] {
        let bytes = gunzip(&dir.join(format!("{name}.gz")));
        std::fs::write(out.join(name), bytes).expect("write fixture copy");
    }
    Some(out)
}

fn check(sanitize: bool) {
    let exe = build(sanitize);
    let tag = if sanitize { "asan" } else { "plain" };
    let lib = lib_path_env(&library_dir());
    let mut env = vec![("LD_LIBRARY_PATH", lib.as_str())];
    if sanitize {
        env.push(("ASAN_OPTIONS", "detect_leaks=0"));
    }
    let folder = edge_folder(tag);
    let scratch = work_dir().join(format!("cudaec-scratch-{tag}"));
    std::fs::create_dir_all(&scratch).unwrap();
    // Without fixtures the client runs its layout and bad-input checks in
    // the scratch folder.
    let output = run_with_arg(&exe, folder.as_deref().unwrap_or(&scratch), &env);
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(
        output.status.success(),
        "cudaec_client ({tag}) failed\nstdout:\n{stdout}\nstderr:\n{stderr}"
    );
    for bad in ["panicked", "ERROR: AddressSanitizer", "runtime error:"] {
        assert!(
            !stderr.contains(bad),
            "{tag}: stderr mentions {bad:?}:\n{stderr}"
        );
    }
    assert!(stdout.contains("all checks passed"), "{stdout}");
    if folder.is_some() {
        for line in [
            "runTest s1: 5818 records of 38 bytes identical to records_out",
            "runTest s2: 5818 records of 38 bytes identical to records_out",
            "spectrum: 9974 solid strings, export_v1 = bloom.bin (79792 bytes)",
            "correct_batch: 5818 reads as records_out; unchanged 5611, fixed 86, trimmed 81, discarded 40",
            "correct_file s1: fixed and discard files identical; 5818 reads, 40 discarded",
            "correct_file s2: fixed and discard files identical; 5818 reads, 23 discarded",
        ] {
            assert!(
                stdout.contains(line),
                "{tag}: missing {line:?} in\n{stdout}"
            );
        }
    }
    eprintln!("{stdout}");
}

fn run_with_arg(
    exe: &std::path::Path,
    arg: &std::path::Path,
    env: &[(&str, &str)],
) -> std::process::Output {
    let mut cmd = std::process::Command::new(exe);
    for (key, _) in std::env::vars() {
        if key.starts_with("SEQSHIM_") {
            cmd.env_remove(key);
        }
    }
    cmd.arg(arg);
    for (k, v) in env {
        cmd.env(k, v);
    }
    cmd.output().expect("run cudaec_client")
}

/// The client on the edge fixture (or its own bad-input checks) under
/// valgrind's memcheck.
#[test]
fn c_client_under_memcheck() {
    let exe = build(false);
    let lib = lib_path_env(&library_dir());
    let folder = edge_folder("memcheck");
    let scratch = work_dir().join("cudaec-scratch-memcheck");
    std::fs::create_dir_all(&scratch).unwrap();
    let arg = folder.as_deref().unwrap_or(&scratch).display().to_string();
    if let Some(output) = memcheck(&exe, &[&arg], &[("LD_LIBRARY_PATH", lib.as_str())]) {
        let stderr = String::from_utf8_lossy(&output.stderr);
        assert!(
            output.status.success(),
            "cudaec_client (memcheck): {:?}\n{stderr}",
            output.status
        );
    }
}

#[test]
fn c_client_plain() {
    check(false);
}

#[test]
fn c_client_sanitized() {
    check(true);
}
