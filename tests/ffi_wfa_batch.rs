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

/// Debian's `libwfa2.so.0`, the reference of the benchmarks; `None` (the
/// tests skip) when absent, unless SEQSHIM_REQUIRE_ORACLES=1.
fn upstream() -> Option<std::path::PathBuf> {
    let path = std::path::PathBuf::from("/usr/lib/x86_64-linux-gnu/libwfa2.so.0");
    if path.exists() {
        return Some(path);
    }
    if std::env::var("SEQSHIM_REQUIRE_ORACLES").is_ok_and(|v| v == "1") {
        panic!(
            "SEQSHIM_REQUIRE_ORACLES=1 but {} is missing",
            path.display()
        );
    }
    eprintln!(
        "skipped: {} not installed (apt-get install libwfa2-0)",
        path.display()
    );
    None
}

/// The GPU machine's benchmark program at a tiny scale: it must build with
/// the strict flags and find every result identical to Debian's library.
#[test]
fn batch_benchmark_builds_and_agrees_with_debian() {
    let Some(upstream) = upstream() else { return };
    let wfa2 = format!("-I{}", repo().join("include/wfa2lib").display());
    let exe = compile_c(
        "wfa_batch_bench",
        &[repo().join("benches/wfa_batch/wfa_batch_bench.c")],
        &["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O2", &wfa2],
        &["-ldl", "-lpthread", "-Wl,--no-as-needed", "-lm"],
    );
    let out = std::process::Command::new(&exe)
        .arg(&upstream)
        .arg(support::built_library())
        .env("WFA_BENCH_SCALE", "0.0005")
        .env("WFA_BENCH_THREADS", "2")
        .env("WFA_BENCH_LENGTHS", "150,1000")
        .output()
        .expect("run wfa_batch_bench");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success() && stdout.contains("all results identical"),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

/// The transparent path's benchmark client: 16 threads with an aligner
/// each, on Debian's library and with seqshim preloaded, same checksum.
#[test]
fn threaded_client_preloaded_equals_debian() {
    if upstream().is_none() {
        return;
    }
    let wfa2 = format!("-I{}", repo().join("include/wfa2lib").display());
    let exe = compile_c(
        "wfa_threads",
        &[repo().join("benches/wfa_batch/wfa_threads.c")],
        &["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O2", &wfa2],
        &["-lwfa2", "-lpthread", "-Wl,--no-as-needed", "-lm"],
    );
    let lib = support::built_library();
    for heuristic in ["none", "adaptive"] {
        let args = ["16", "2000", "300", "0.08", heuristic];
        let plain = std::process::Command::new(&exe)
            .args(args)
            .output()
            .expect("run wfa_threads");
        let preloaded = std::process::Command::new(&exe)
            .args(args)
            .env("LD_PRELOAD", &lib)
            .output()
            .expect("run wfa_threads preloaded");
        let checksum = |o: &std::process::Output| {
            assert!(o.status.success(), "{}", String::from_utf8_lossy(&o.stderr));
            let s = String::from_utf8_lossy(&o.stdout).into_owned();
            s.rsplit("checksum ")
                .next()
                .unwrap_or("")
                .trim()
                .to_string()
        };
        let (a, b) = (checksum(&plain), checksum(&preloaded));
        assert!(
            !a.is_empty() && a == b,
            "{heuristic}: debian {a}, seqshim {b}"
        );
    }
}
