//! The WFA2-lib 2.3.3 mirror against the distribution's own library:
//! layouts and exported data against its headers and symbol table, and
//! C/C++ clients built for it, run plain, with seqshim as `libwfa2.so.0`,
//! and with seqshim preloaded, which must print the same bytes.
//!
//! `SEQSHIM_WFA2_PARITY_PAIRS` scales the random parity run: by default 96
//! pairs per configuration against an optimised seqshim (`cargo test
//! --release`), 8 against a debug build, which is about ten times slower.

mod support;

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use support::*;

const UPSTREAM_INCLUDE: &str = "/usr/include/wfa2lib";
const UPSTREAM_LIB: &str = "/usr/lib/x86_64-linux-gnu/libwfa2.so.0";

fn require_upstream() {
    assert!(
        Path::new(UPSTREAM_LIB).exists() && Path::new(UPSTREAM_INCLUDE).exists(),
        "the WFA2-lib oracle is missing: run scripts/install-deps.sh (libwfa2-dev)"
    );
}

fn source(name: &str) -> PathBuf {
    repo().join("ffi-tests/wfa2").join(name)
}

/// A folder where `libwfa2.so.0` is seqshim, as the install's compat folder.
/// Made once per test process: tests run in parallel, and replacing the
/// link while another test starts a program through it would race.
fn compat_dir() -> PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = work_dir().join("wfa2-compat");
        std::fs::create_dir_all(&dir).expect("compat dir");
        let link = dir.join("libwfa2.so.0");
        let _ = std::fs::remove_file(&link);
        std::os::unix::fs::symlink(built_library(), &link).expect("symlink libwfa2.so.0");
        dir
    })
    .clone()
}

/// The parity client, built against the distribution's headers and library.
fn parity_client() -> PathBuf {
    require_upstream();
    let include = format!("-I{UPSTREAM_INCLUDE}");
    compile_c(
        "wfa2_parity",
        &[source("parity.c")],
        &["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O2", &include],
        &["-lwfa2", "-lm", "-lpthread"],
    )
}

#[derive(Clone, Copy, Debug)]
enum Way {
    Upstream,
    Swapped,
    Preloaded,
}

fn run_way(exe: &Path, args: &[&str], way: Way) -> Output {
    let compat = compat_dir().display().to_string();
    let preload = built_library().display().to_string();
    let mut cmd = Command::new(exe);
    cmd.args(args).env("SEQSHIM_BACKEND", "cpu");
    cmd.env_remove("LD_PRELOAD").env_remove("LD_LIBRARY_PATH");
    match way {
        Way::Upstream => {}
        Way::Swapped => {
            cmd.env("LD_LIBRARY_PATH", &compat);
        }
        Way::Preloaded => {
            cmd.env("LD_PRELOAD", &preload);
        }
    }
    let out = cmd.output().expect("run client");
    assert!(
        out.status.success(),
        "{} {args:?} ({way:?}) failed: {:?}\n{}",
        exe.display(),
        out.status,
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// Which library served the client: "seqshim" when seqshim's own API is
/// visible in the process.
fn provider(exe: &Path, way: Way) -> String {
    let out = run_way(exe, &["provider"], way);
    String::from_utf8_lossy(&out.stdout).trim().to_string()
}

/// Compares two runs line by line, per configuration; returns a report and
/// the number of mismatches.
fn compare(reference: &str, candidate: &str, label: &str) -> (String, usize) {
    let (a, b): (Vec<&str>, Vec<&str>) = (reference.lines().collect(), candidate.lines().collect());
    let mut per: BTreeMap<String, (usize, usize)> = BTreeMap::new();
    let mut failures = 0;
    let mut examples = Vec::new();
    for (x, y) in a.iter().zip(&b) {
        let config = x.split(' ').next().unwrap_or("").to_string();
        let entry = per.entry(config.clone()).or_default();
        entry.0 += 1;
        if x != y {
            entry.1 += 1;
            failures += 1;
            if examples.len() < 5 {
                examples.push(format!("  upstream: {x}\n  seqshim:  {y}"));
            }
        }
    }
    if a.len() != b.len() {
        failures += 1;
        examples.push(format!("  {} lines vs {} lines", a.len(), b.len()));
    }
    let total: usize = per.values().map(|v| v.0).sum();
    let mismatched: usize = per.values().map(|v| v.1).sum();
    let mut report = format!(
        "{label}: {} configurations, {total} alignments, {mismatched} differing lines\n",
        per.len()
    );
    for (config, (n, bad)) in &per {
        if *bad > 0 {
            report += &format!("  {config}: {bad}/{n} differ\n");
        }
    }
    for e in examples {
        report += &e;
        report.push('\n');
    }
    (report, failures)
}

fn three_ways(exe: &Path, args: &[&str], label: &str) {
    assert_eq!(provider(exe, Way::Upstream), "upstream");
    assert_eq!(provider(exe, Way::Swapped), "seqshim");
    assert_eq!(provider(exe, Way::Preloaded), "seqshim");
    let upstream = run_way(exe, args, Way::Upstream);
    let reference = String::from_utf8_lossy(&upstream.stdout).to_string();
    assert!(!reference.is_empty(), "{label}: upstream printed nothing");
    let mut failures = 0;
    let mut report = String::new();
    for way in [Way::Swapped, Way::Preloaded] {
        let out = run_way(exe, args, way);
        let candidate = String::from_utf8_lossy(&out.stdout);
        let (r, f) = compare(&reference, &candidate, &format!("{label} {way:?}"));
        report += &r;
        failures += f;
        assert_eq!(
            String::from_utf8_lossy(&upstream.stderr),
            String::from_utf8_lossy(&out.stderr),
            "{label} {way:?}: stderr differs"
        );
    }
    // Past the harness's capture, so that `make test` shows the counts.
    let _ = std::io::Write::write_all(&mut std::io::stderr(), report.as_bytes());
    assert_eq!(failures, 0, "{report}");
}

#[test]
fn layouts_match_the_upstream_headers_and_ours() {
    require_upstream();
    let include = format!("-I{UPSTREAM_INCLUDE}");
    let upstream = compile_c(
        "wfa2_layout_upstream",
        &[source("layout.c")],
        &["-std=c11", "-Wall", "-Wextra", "-Werror", &include],
        &["-lwfa2", "-lm"],
    );
    let ours_include = format!("-I{}", repo().join("include/wfa2lib").display());
    let lib = format!("-L{}", library_dir().display());
    let ours = compile_c(
        "wfa2_layout_ours",
        &[source("layout.c")],
        &["-std=c11", "-Wall", "-Wextra", "-Werror", &ours_include],
        &[&lib, "-lseqshim"],
    );
    let expected = "attr_default 328\nwf_error_msg 40\n";
    assert_output("layout (upstream headers)", &run(&upstream, &[]), expected);
    let dir = library_dir().display().to_string();
    assert_output(
        "layout (our headers)",
        &run(&ours, &[("LD_LIBRARY_PATH", &dir)]),
        expected,
    );
}

fn dynamic_symbols(lib: &Path) -> BTreeMap<String, (String, String)> {
    let out = Command::new("nm")
        .args(["-D", "-S", "--defined-only"])
        .arg(lib)
        .output()
        .expect("run nm");
    assert!(out.status.success());
    String::from_utf8_lossy(&out.stdout)
        .lines()
        .filter_map(|l| {
            let f: Vec<&str> = l.split_whitespace().collect();
            match f.as_slice() {
                [_, size, kind, name] => {
                    Some((name.to_string(), (size.to_string(), kind.to_string())))
                }
                [_, kind, name] => Some((name.to_string(), (String::new(), kind.to_string()))),
                _ => None,
            }
        })
        .collect()
}

const PUBLIC_FUNCTIONS: &[&str] = &[
    "wavefront_aligner_new",
    "wavefront_aligner_reap",
    "wavefront_aligner_delete",
    "wavefront_aligner_set_alignment_end_to_end",
    "wavefront_aligner_set_alignment_free_ends",
    "wavefront_aligner_set_heuristic_none",
    "wavefront_aligner_set_heuristic_wfadaptive",
    "wavefront_aligner_set_heuristic_wfmash",
    "wavefront_aligner_set_heuristic_xdrop",
    "wavefront_aligner_set_heuristic_zdrop",
    "wavefront_aligner_set_heuristic_banded_static",
    "wavefront_aligner_set_heuristic_banded_adaptive",
    "wavefront_aligner_set_match_funct",
    "wavefront_aligner_set_max_alignment_score",
    "wavefront_aligner_set_max_memory",
    "wavefront_aligner_set_max_num_threads",
    "wavefront_aligner_set_min_offsets_per_thread",
    "wavefront_aligner_get_size",
    "wavefront_aligner_print_type",
    "wavefront_aligner_print_scope",
    "wavefront_aligner_print_mode",
    "wavefront_align",
    "wavefront_align_resume",
    "wavefront_align_strerror",
    "cigar_new",
    "cigar_clear",
    "cigar_resize",
    "cigar_free",
    "cigar_get_matches",
    "cigar_add_mismatches",
    "cigar_score_edit",
    "cigar_score_gap_linear",
    "cigar_score_gap_affine",
    "cigar_score_gap_affine2p",
    "cigar_cmp",
    "cigar_copy",
    "cigar_append",
    "cigar_append_deletion",
    "cigar_append_insertion",
    "cigar_check_alignment",
    "cigar_print",
    "cigar_sprint",
    "cigar_print_pretty",
];

const SEMI_PUBLIC: &[&str] = &[
    "mm_allocator_new",
    "mm_allocator_delete",
    "mm_allocator_allocate",
    "mm_allocator_free",
    "counter_reset",
    "counter_add",
    "counter_print",
    "timer_start",
    "timer_stop",
    "timer_reset",
    "timer_get_current_total_ns",
    "timer_print",
    "sequence_buffer_new",
    "sequence_buffer_clear",
    "sequence_buffer_delete",
    "sequence_buffer_add_pair",
    "score_matrix_allocate",
    "score_matrix_free",
    "nominal_prop_u32",
    "wavefront_plot_print",
];

const LATER_VERSIONS_ONLY: &[&str] = &[
    "cigar_get_CIGAR",
    "cigar_print_SAM_CIGAR",
    "cigar_sprint_SAM_CIGAR",
    "wavefront_align_lambda",
    "wavefront_align_packed2bits",
    "wavefront_aligner_set_alignment_extension",
    "wavefront_aligner_set_max_alignment_steps",
    "wavefront_align_strerror_short",
    "wavefront_aligner_print_status",
];

#[test]
fn the_mirror_surface_is_exported_with_upstream_data_sizes() {
    require_upstream();
    let ours = dynamic_symbols(&built_library());
    let upstream = dynamic_symbols(Path::new(UPSTREAM_LIB));
    assert_eq!(PUBLIC_FUNCTIONS.len(), 43);
    assert_eq!(SEMI_PUBLIC.len(), 20);
    for name in PUBLIC_FUNCTIONS.iter().chain(SEMI_PUBLIC) {
        let (_, kind) = ours
            .get(*name)
            .unwrap_or_else(|| panic!("{name} is not exported"));
        assert_eq!(kind, "T", "{name}");
        assert!(upstream.contains_key(*name), "{name} is not upstream's");
    }
    for name in ["wavefront_aligner_attr_default", "wf_error_msg"] {
        let mine = ours.get(name).unwrap_or_else(|| panic!("{name} missing"));
        let theirs = &upstream[name];
        assert_eq!(mine, theirs, "{name}: (size, kind) differ from upstream");
        assert_eq!(mine.1, "D", "{name} must be writable data");
    }
    // Read-only tables that code built against 2.3.3 reads through the
    // `dna_encode()` macro (upstream's benchmark harness does).
    for name in ["dna_encode_table", "dna_decode_table"] {
        let mine = ours.get(name).unwrap_or_else(|| panic!("{name} missing"));
        assert_eq!(
            mine, &upstream[name],
            "{name}: (size, kind) differ from upstream"
        );
    }
    for name in LATER_VERSIONS_ONLY {
        assert!(!ours.contains_key(*name), "{name} belongs to 2.3.4+");
    }
}

#[test]
fn parity_misc() {
    let exe = parity_client();
    three_ways(&exe, &["misc"], "misc");
}

#[test]
fn parity_edge_cases() {
    let exe = parity_client();
    three_ways(&exe, &["edge"], "edge");
}

#[test]
fn parity_random_pairs() {
    let exe = parity_client();
    let default = if cfg!(debug_assertions) { "8" } else { "96" };
    let pairs = std::env::var("SEQSHIM_WFA2_PARITY_PAIRS").unwrap_or_else(|_| default.into());
    three_ways(&exe, &["random", &pairs, "20231"], "random");
}

#[test]
fn parity_one_aligner_per_thread() {
    let exe = parity_client();
    let (threads, pairs) = if cfg!(debug_assertions) {
        ("4", "6")
    } else {
        ("8", "24")
    };
    three_ways(&exe, &["threads", threads, pairs, "77"], "threads");
}

#[test]
fn upstream_cpp_binding_over_seqshim() {
    require_upstream();
    let target = env!("SEQSHIM_BUILD_TARGET");
    let compiler = cc::Build::new()
        .cargo_metadata(false)
        .cargo_warnings(false)
        .emit_rerun_if_env_changed(false)
        .target(target)
        .host(target)
        .opt_level(1)
        .cpp(true)
        .get_compiler();
    let exe = work_dir().join("wfa2_cpp_client");
    let out = Command::new(compiler.path())
        .args(["-O1", "-Wall", "-Wextra", "-Werror"])
        .arg(format!("-I{UPSTREAM_INCLUDE}"))
        .arg(source("cpp_client.cpp"))
        .arg("-o")
        .arg(&exe)
        .args(["-lwfa2cpp", "-lwfa2", "-lm"])
        .output()
        .expect("run the C++ compiler");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let upstream = run_way(&exe, &[], Way::Upstream);
    let text = String::from_utf8_lossy(&upstream.stdout);
    assert!(text.starts_with("status=0 score=-24 cigar=MMMXMMMMDMMMMMMMIMMMMMMMMMXMMMMMM\n"));
    // Swapped, the binding itself loads seqshim as its libwfa2.so.0.
    for way in [Way::Preloaded, Way::Swapped] {
        let out = run_way(&exe, &[], way);
        let (report, failures) = compare(
            &text,
            &String::from_utf8_lossy(&out.stdout),
            &format!("C++ binding, {way:?}"),
        );
        println!("{report}");
        assert_eq!(failures, 0, "{report}");
    }
}

/// Where 2.3.3 exits, seqshim prints the same message and returns: case by
/// case, upstream must exit 1 and seqshim carry on after the identical
/// stderr, with upstream's stdout a prefix of ours; then all cases in one
/// process against the expected file.
#[test]
fn upstream_exit_cases_return_instead() {
    require_upstream();
    let include = format!("-I{UPSTREAM_INCLUDE}");
    let exe = compile_c(
        "wfa2_exit_cases",
        &[source("exit_cases.c")],
        &["-std=c11", "-Wall", "-Wextra", "-Werror", &include],
        &["-lwfa2", "-lm"],
    );
    let compat = compat_dir().display().to_string();
    let mut cases = 0;
    for case in 0.. {
        let arg = case.to_string();
        let upstream = Command::new(&exe).arg(&arg).output().expect("run");
        if upstream.status.code() == Some(2) {
            break;
        }
        cases += 1;
        let ours = Command::new(&exe)
            .arg(&arg)
            .env("LD_LIBRARY_PATH", &compat)
            .output()
            .expect("run");
        let (up_err, our_err) = (
            String::from_utf8_lossy(&upstream.stderr),
            String::from_utf8_lossy(&ours.stderr),
        );
        assert_eq!(
            upstream.status.code(),
            Some(1),
            "case {case}: upstream did not exit(1)"
        );
        assert!(
            ours.status.success(),
            "case {case}: {:?} {our_err}",
            ours.status
        );
        assert!(
            !up_err.is_empty(),
            "case {case}: upstream printed no message"
        );
        assert_eq!(up_err, our_err, "case {case}: messages differ");
        assert!(
            ours.stdout.starts_with(&upstream.stdout),
            "case {case}: output before the exit differs"
        );
    }
    assert_eq!(cases, 16);
    let output = Command::new(&exe)
        .env("LD_LIBRARY_PATH", &compat)
        .output()
        .expect("run");
    assert_output("exit cases", &output, &expected("wfa2_exit_cases.txt"));
}

/// A client built with seqshim's own headers behaves as one built with
/// upstream's.
#[test]
fn our_headers_serve_an_upstream_client() {
    let exe = parity_client();
    let reference = run_way(&exe, &["misc"], Way::Upstream);
    let include = format!("-I{}", repo().join("include/wfa2lib").display());
    let lib = format!("-L{}", library_dir().display());
    let ours = compile_c(
        "wfa2_parity_our_headers",
        &[source("parity.c")],
        &["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O2", &include],
        &[&lib, "-lseqshim", "-lm", "-lpthread"],
    );
    let dir = library_dir().display().to_string();
    let output = Command::new(&ours)
        .arg("misc")
        .env("LD_LIBRARY_PATH", &dir)
        .output()
        .expect("run");
    assert!(output.status.success());
    assert_eq!(
        String::from_utf8_lossy(&reference.stdout),
        String::from_utf8_lossy(&output.stdout)
    );
}

/// Inputs on which 2.3.3 crashes or writes past a buffer are refused, under
/// ASan/UBSan, with nothing stale left in the aligner.
#[test]
fn bad_input_is_refused_without_corruption() {
    let include = format!("-I{}", repo().join("include/wfa2lib").display());
    let lib = format!("-L{}", library_dir().display());
    let mut flags = vec![
        "-std=gnu11",
        "-Wall",
        "-Wextra",
        "-Werror",
        "-O1",
        "-g",
        &include,
    ];
    flags.extend_from_slice(SANITIZERS);
    let exe = compile_c(
        "wfa2_bad_input",
        &[source("bad_input.c")],
        &flags,
        &[&lib, "-lseqshim"],
    );
    let dir = library_dir().display().to_string();
    let output = Command::new(&exe)
        .env("LD_LIBRARY_PATH", &dir)
        .env("ASAN_OPTIONS", "detect_leaks=1")
        .output()
        .expect("run");
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    assert!(output.status.success(), "{stdout}\n{stderr}");
    assert_eq!(
        stdout,
        "align(NULL aligner): -1\n\
         resume(NULL aligner): -1\n\
         setters, reap, print on a NULL aligner: size 0\n\
         good pair: rc=0 status=0 score=-4\n\
         negative length: rc=-1 status=-1 ops=0\n\
         lengths past the CIGAR capacity: rc=-1 status=-1 ops=0\n\
         add_mismatches into a 4-op CIGAR: 0..0\n\
         appends past the buffer: 0..0\n\
         append of 200 ops into 4: 0..0\n\
         room enough: 0..400 edit=400\n\
         append past a copied capacity: 0..5 max=20\n\
         add_mismatches, a negative length beside a long one: 0..0 max=20\n\
         NULL cigar: matches=0 edit=0\n"
    );
    assert!(stderr.contains("not enough room"), "{stderr}");
    assert!(
        !stderr.contains("AddressSanitizer") && !stderr.contains("runtime error"),
        "{stderr}"
    );
}

/// Memcheck over the misc and exit-case clients with seqshim swapped in:
/// no invalid reads or writes, no use of uninitialised memory, no leaks of
/// definitely lost blocks. Skipped, saying so, where valgrind is absent.
#[test]
fn memcheck_with_seqshim_swapped_in() {
    if Command::new("valgrind").arg("--version").output().is_err() {
        println!("valgrind not installed: memcheck skipped");
        return;
    }
    let parity = parity_client();
    let compat = compat_dir().display().to_string();
    for args in [vec!["misc"], vec!["threads", "2", "2", "5"]] {
        let out = Command::new("valgrind")
            .args([
                "-q",
                "--error-exitcode=9",
                "--leak-check=full",
                "--errors-for-leak-kinds=definite",
            ])
            .arg(&parity)
            .args(&args)
            .env("LD_LIBRARY_PATH", &compat)
            .env("SEQSHIM_BACKEND", "cpu")
            .output()
            .expect("run valgrind");
        assert!(
            out.status.success(),
            "memcheck {args:?}: {:?}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}

/// Every function and data declaration of our headers, repeated after the
/// distribution's headers in one translation unit: C rejects any that is
/// not compatible with upstream's.
#[test]
fn our_declarations_are_compatible_with_upstream() {
    require_upstream();
    let mut decls = String::new();
    let mut headers = 0;
    let root = repo().join("include/wfa2lib");
    for dir in ["utils", "system", "alignment", "wavefront"] {
        for entry in std::fs::read_dir(root.join(dir)).expect("header dir") {
            let text = std::fs::read_to_string(entry.expect("entry").path()).expect("header");
            let mut rest = text.as_str();
            while let Some(start) = rest.find("extern \"C\" {\n#endif\n") {
                let block = &rest[start + "extern \"C\" {\n#endif\n".len()..];
                let end = block.find("#ifdef __cplusplus").expect("closing guard");
                decls += &block[..end];
                rest = &block[end..];
                headers += 1;
            }
        }
    }
    assert!(headers >= 10, "found only {headers} declaration blocks");
    let source = work_dir().join("wfa2_decl_compat.c");
    std::fs::write(
        &source,
        format!(
            "#include \"utils/commons.h\"\n#include \"wavefront/wfa.h\"\n\
             #include \"utils/sequence_buffer.h\"\n#include \"utils/dna_text.h\"\n\
             #include \"alignment/score_matrix.h\"\n#include \"system/profiler_timer.h\"\n\
             #include \"wavefront/wavefront_plot.h\"\n\
             {decls}\nint main(void) {{ return 0; }}\n"
        ),
    )
    .expect("write");
    let include = format!("-I{UPSTREAM_INCLUDE}");
    compile_c(
        "wfa2_decl_compat",
        &[source],
        &["-std=c11", "-Wall", "-Wextra", "-Werror", "-c", &include],
        &[],
    );
}

#[test]
fn parity_max_alignment_score() {
    let exe = parity_client();
    three_ways(&exe, &["limits", "7"], "limits");
}

#[test]
fn parity_max_memory_abort() {
    let exe = parity_client();
    three_ways(&exe, &["memory", "99"], "memory");
}

#[test]
fn parity_custom_match_function() {
    let exe = parity_client();
    let pairs = if cfg!(debug_assertions) { "6" } else { "24" };
    three_ways(&exe, &["matchfn", pairs, "4242"], "matchfn");
}

/// Inputs where seqshim once parted from 2.3.3: indel with a narrow
/// adaptive band past the wavefront table (refused, or aligned only after
/// a longer pair), and an inverted static band with gap-linear and
/// gap-affine.
#[test]
fn parity_robustness() {
    require_upstream();
    let include = format!("-I{UPSTREAM_INCLUDE}");
    let exe = compile_c(
        "wfa2_robust",
        &[source("robust.c")],
        &["-std=gnu11", "-Wall", "-Wextra", "-Werror", "-O2", &include],
        &["-lwfa2", "-lm", "-ldl"],
    );
    three_ways(&exe, &["history"], "robust history");
    three_ways(&exe, &["band"], "robust band");
}
