//! CONSENT-GPU's executor glue (integrations/consent-gpu) from a C++
//! program (ffi-tests/poa/consent_gpu_glue.cpp) with the test's own queue
//! declarations: windows of every size class queued from two threads, the
//! executor woken in normal mode and at the flush, and every window's MSA
//! rows compared with BOA's call sequence through seqshim's BOA exports;
//! once plainly and once under ASan/UBSan.

mod support;

use seqshim::poa;
use support::*;

fn consent_gpu_glue(sanitize: bool) {
    let lib_flag = format!("-L{}", library_dir().display());
    let queues = format!("-I{}", repo().join("ffi-tests/poa/consent_gpu").display());
    let glue = format!("-I{}", repo().join("integrations/consent-gpu").display());
    let boa = format!("-I{}", repo().join("include/boa").display());
    let mut flags = vec![
        "-x",
        "c++",
        "-std=c++11",
        "-O1",
        "-g",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-pthread",
    ];
    flags.push(&queues);
    flags.push(&glue);
    flags.push(&boa);
    if sanitize {
        flags.extend_from_slice(SANITIZERS);
    }
    let name = format!("consent_gpu_glue{}", if sanitize { "_asan" } else { "" });
    let exe = compile_c(
        &name,
        &[
            repo().join("ffi-tests/poa/consent_gpu_glue.cpp"),
            repo().join("integrations/consent-gpu/seqshim_consent_gpu.cpp"),
        ],
        &flags,
        &[&lib_flag, "-lseqshim", "-lstdc++", "-pthread"],
    );
    let dir = work_dir().join(format!("consent-gpu-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let matrix = dir.join("boa_dna.mat");
    std::fs::write(&matrix, poa::matrix::boa_dna_matrix_text()).unwrap();
    let lib = lib_path_env(&library_dir());
    let mut env = vec![
        ("LD_LIBRARY_PATH", lib.as_str()),
        ("SEQSHIM_BACKEND", "cpu"),
    ];
    if sanitize {
        env.push(("ASAN_OPTIONS", "detect_leaks=1"));
    }
    let mut cmd = std::process::Command::new(&exe);
    cmd.arg(&matrix);
    for (key, _) in std::env::vars() {
        if key.starts_with("SEQSHIM_") {
            cmd.env_remove(key);
        }
    }
    for (k, v) in env {
        cmd.env(k, v);
    }
    let output = cmd.output().expect("run consent_gpu_glue");
    assert_output(
        &format!("CONSENT-GPU glue (sanitizers: {sanitize})"),
        &output,
        "consent-gpu glue: 145 windows, 0 differ; normal-mode wakes: yes\n",
    );
}

#[test]
fn consent_gpu_glue_client() {
    consent_gpu_glue(false);
}

#[test]
fn consent_gpu_glue_client_sanitized() {
    consent_gpu_glue(true);
}
