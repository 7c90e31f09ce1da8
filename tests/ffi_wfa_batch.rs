//! The WFA batch API through the C ABI: `ffi-tests/wfa_batch/batch_api.c`
//! compares every pair of 14 configurations (metrics, spans, scopes,
//! heuristics, memory modes, a score limit; copied and borrowed pairs;
//! random pairs and edge cases) with `wavefront_align` on one aligner of the
//! same attributes, then walks every error path; plain and under
//! ASan/UBSan.

mod support;

use support::{SANITIZERS, compile_c, library_dir, repo};

fn build(sanitize: bool) -> std::path::PathBuf {
    let wfa2 = format!("-I{}", repo().join("include/wfa2lib").display());
    let lib = format!("-L{}", library_dir().display());
    let mut flags = vec![
        "-std=c11", "-Wall", "-Wextra", "-Werror", "-O1", "-g", &wfa2,
    ];
    if sanitize {
        flags.extend_from_slice(SANITIZERS);
    }
    compile_c(
        if sanitize {
            "wfa_batch_api_asan"
        } else {
            "wfa_batch_api"
        },
        &[repo().join("ffi-tests/wfa_batch/batch_api.c")],
        &flags,
        &[&lib, "-lseqshim"],
    )
}

#[test]
fn batch_api_equals_wavefront_align_and_refuses_bad_input() {
    let pairs: usize = std::env::var("SEQSHIM_WFA_BATCH_PAIRS")
        .ok()
        .and_then(|v| v.parse().ok())
        .unwrap_or(300);
    let dir = library_dir().display().to_string();
    for sanitize in [false, true] {
        let exe = build(sanitize);
        let n = if sanitize { pairs / 4 } else { pairs }.max(1).to_string();
        let out = std::process::Command::new(&exe)
            .arg(&n)
            .env("LD_LIBRARY_PATH", &dir)
            .env("ASAN_OPTIONS", "detect_leaks=1")
            .output()
            .expect("run batch_api");
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success() && stdout.ends_with("all ok\n"),
            "batch_api{}:\n{stdout}\n{stderr}",
            if sanitize { " (ASan/UBSan)" } else { "" }
        );
        assert!(
            !stderr.contains("AddressSanitizer") && !stderr.contains("runtime error"),
            "{stderr}"
        );
        let summary = stdout.lines().next().unwrap_or("");
        // "wfa batch: C configurations, N pairs, N identical to wavefront_align"
        let words: Vec<&str> = summary.split_whitespace().collect();
        assert!(
            words.len() > 6 && words[4] == words[6] && words[4] != "0",
            "{summary}"
        );
        eprintln!("{summary}{}", if sanitize { " (ASan/UBSan)" } else { "" });
    }
}
