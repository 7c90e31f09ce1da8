//! The host never dies or waits because of us: the C programs in
//! `ffi-tests/robust/`, plain and under ASan/UBSan.
//!
//! - `fork.c`: every family's batch entry point, then fork(); the child
//!   (and a grandchild) call each again and get the parent's results, with
//!   a watchdog that turns a hang into a failure.
//! - `head_of_line.c`: small batches of every family finish while another
//!   thread's long POA batch holds the pool.
//! - `bad_band.c`: an inverted WFA band is refused (batch) or unfeasible
//!   (`wavefront_align`) without a panic.
//! - `history.c`: a WFA batch result is the same before and after the
//!   pool's aligners met longer pairs, and equals `wavefront_align`'s.
//! - `contracts.c`: CIGAR functions given NULL do nothing and count 0;
//!   a score matrix read from `/dev/zero` fails at its first bad row.
//! - `wfa_limits.c`: WFA inputs that used to panic, hang or run away in
//!   time and memory (a band beside diagonal 0, negative end-free lengths,
//!   drops that cut every cell with a negative match score, stale free-end
//!   lengths, penalties near 2^24) end at once with documented outcomes.

mod support;

use std::path::PathBuf;
use std::process::Output;

use support::{SANITIZERS, STRICT_C, compile_c, library_dir, repo};

fn build(name: &str, sanitize: bool) -> PathBuf {
    let lib = format!("-L{}", library_dir().display());
    let wfa2 = format!("-I{}", repo().join("include/wfa2lib").display());
    let boa = format!("-I{}", repo().join("include/boa").display());
    let mut flags: Vec<&str> = STRICT_C.to_vec();
    flags.extend([wfa2.as_str(), boa.as_str()]);
    if sanitize {
        flags.extend_from_slice(SANITIZERS);
    }
    let exe = format!("robust_{name}{}", if sanitize { "_asan" } else { "" });
    compile_c(
        &exe,
        &[repo().join(format!("ffi-tests/robust/{name}.c"))],
        &flags,
        &[&lib, "-lseqshim", "-lm", "-lpthread"],
    )
}

/// Runs the program plain and under the sanitizers; each run must succeed,
/// end with `expect`, and leave no panic text or sanitizer report.
fn run_both(name: &str, env: &[(&str, &str)], expect: &str) -> Vec<Output> {
    let dir = library_dir().display().to_string();
    let mut outputs = Vec::new();
    for sanitize in [false, true] {
        let exe = build(name, sanitize);
        let mut all = vec![("LD_LIBRARY_PATH", dir.as_str())];
        all.extend_from_slice(env);
        // Leak checking is for the test programs' own memory; seqshim's
        // process-wide pools are meant to live until exit.
        all.push(("ASAN_OPTIONS", "detect_leaks=0"));
        let out = support::run(&exe, &all);
        let stdout = String::from_utf8_lossy(&out.stdout);
        let stderr = String::from_utf8_lossy(&out.stderr);
        let label = format!("{name}{}", if sanitize { " (ASan/UBSan)" } else { "" });
        assert!(
            out.status.success() && stdout.ends_with(&format!("{expect}\n")),
            "{label}: {:?}\nstdout:\n{stdout}\nstderr:\n{stderr}",
            out.status
        );
        for bad in [
            "panicked",
            "RUST_BACKTRACE",
            "AddressSanitizer",
            "runtime error:",
        ] {
            assert!(
                !stderr.contains(bad),
                "{label}: stderr has {bad:?}:\n{stderr}"
            );
        }
        eprint!("{label}:\n{stdout}");
        outputs.push(out);
    }
    outputs
}

#[test]
fn a_forked_child_computes_what_its_parent_did() {
    run_both("fork", &[("SEQSHIM_THREADS", "2")], "fork: all ok");
}

#[test]
fn a_small_batch_never_waits_behind_another_callers_long_one() {
    run_both(
        "head_of_line",
        &[("SEQSHIM_THREADS", "2")],
        "head-of-line: all ok",
    );
}

#[test]
fn an_inverted_band_is_refused_without_a_panic() {
    run_both("bad_band", &[], "bad band: all ok");
}

#[test]
fn cigar_functions_given_null_do_nothing_and_matrices_are_read_bounded() {
    run_both("contracts", &[], "contracts: all ok");
}

#[test]
fn a_batch_result_depends_only_on_its_pair_and_configuration() {
    // One pool thread, so that the long pairs surely pass through the
    // aligner the later pair uses.
    run_both("history", &[("SEQSHIM_THREADS", "1")], "history: all ok");
}

#[test]
fn wfa_inputs_that_cannot_finish_end_at_once() {
    run_both("wfa_limits", &[], "wfa limits: all ok");
}
