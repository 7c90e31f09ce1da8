//! Darwin's GACT exports from a C program (ffi-tests/gact/gact_client.c):
//! layout asserts at compile time, argument checks, generated tiles through
//! the single and batch entries, and every fixture tile and extension
//! compared with Darwin's recorded output, single and batched; 16 threads
//! calling the single-call entries at once against a single-threaded pass;
//! once plainly and once under ASan/UBSan. And the GPU kernels run on the
//! host with emulated warps (ffi-tests/gact/kernel_emulation.cpp) against
//! the CPU path. And the darwin-gpu glue (integrations/darwin-gpu) from a
//! C++ program (ffi-tests/gact/darwin_gpu_glue.cpp) against the single-tile
//! export.

mod gact_support;
mod support;

use std::collections::{BTreeMap, HashMap};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use gact_support::{fixture_dir, read_tsv};
use support::*;

fn build(sanitize: bool) -> PathBuf {
    let mut flags: Vec<&str> = STRICT_C.to_vec();
    if sanitize {
        flags.extend_from_slice(SANITIZERS);
    }
    let lib_flag = format!("-L{}", library_dir().display());
    let name = format!("gact_client{}", if sanitize { "_asan" } else { "" });
    compile_c(
        &name,
        &[repo().join("ffi-tests/gact/gact_client.c")],
        &flags,
        &[&lib_flag, "-lseqshim", "-lpthread"],
    )
}

/// A field as a token of the cases file ("." for empty).
fn tok(s: &str) -> &str {
    if s.is_empty() { "." } else { s }
}

fn scoring(row: &HashMap<String, String>) -> String {
    format!(
        "{} {} {}",
        row["sub_mat"].replace(',', " "),
        row["gap_open"],
        row["gap_extend"]
    )
}

/// Writes the fixtures in the client's whitespace-separated format, rows
/// grouped by scoring (and tiling) so that the client can batch them.
/// Returns the file and the numbers of tiles and extensions.
fn write_cases(dir: &Path) -> (PathBuf, usize, usize) {
    let tiles = read_tsv(&dir.join("tiles.tsv.gz"));
    let exts = read_tsv(&dir.join("extend.tsv.gz"));
    let seqs: HashMap<String, String> = read_tsv(&dir.join("sequences.tsv.gz"))
        .into_iter()
        .map(|mut r| (r.remove("seq_id").unwrap(), r.remove("sequence").unwrap()))
        .collect();

    let mut ids: BTreeMap<&str, usize> = BTreeMap::new();
    for row in &exts {
        for col in ["ref_id", "query_id"] {
            let next = ids.len();
            ids.entry(row[col].as_str()).or_insert(next);
        }
    }
    let mut by_index: Vec<&str> = vec![""; ids.len()];
    for (id, &k) in &ids {
        by_index[k] = id;
    }
    let mut text = format!("{}\n", by_index.len());
    for id in &by_index {
        writeln!(text, "{}", seqs[*id]).unwrap();
    }

    let mut tile_rows: Vec<&HashMap<String, String>> = tiles.iter().collect();
    tile_rows.sort_by_key(|r| scoring(r));
    writeln!(text, "{}", tile_rows.len()).unwrap();
    for r in &tile_rows {
        writeln!(
            text,
            "{} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
            tok(&r["ref_seq"]),
            tok(&r["query_seq"]),
            scoring(r),
            r["query_pos"],
            r["ref_pos"],
            r["reverse"],
            r["first"],
            r["early_terminate"],
            r["score"],
            r["max_i"],
            r["max_j"],
            r["ref_steps"],
            r["query_steps"],
            r["n_ops"],
            tok(&r["ops"]),
        )
        .unwrap();
    }

    let mut ext_rows: Vec<&HashMap<String, String>> = exts.iter().collect();
    ext_rows.sort_by_key(|r| format!("{} {} {}", scoring(r), r["tile_size"], r["tile_overlap"]));
    writeln!(text, "{}", ext_rows.len()).unwrap();
    for r in &ext_rows {
        writeln!(
            text,
            "{} {} {} {} {} {} {} {} {} {} {} {} {} {} {}",
            ids[r["ref_id"].as_str()],
            ids[r["query_id"].as_str()],
            scoring(r),
            r["tile_size"],
            r["tile_overlap"],
            r["ref_pos"],
            r["query_pos"],
            r["ref_start"],
            r["query_start"],
            r["aligned_ref_len"],
            r["aligned_query_len"],
            r["score"],
            r["n_cols"],
            tok(&r["aligned_ref"]),
            tok(&r["aligned_query"]),
        )
        .unwrap();
    }
    let path = work_dir().join("gact_cases.txt");
    // Both variants write the same bytes; write to a temporary name and
    // rename, so that a parallel reader never sees half a file.
    let tmp = work_dir().join(format!("gact_cases.{}.tmp", std::process::id()));
    std::fs::write(&tmp, text).expect("write cases");
    std::fs::rename(&tmp, &path).expect("rename cases");
    (path, tile_rows.len(), ext_rows.len())
}

fn check(sanitize: bool) {
    let exe = build(sanitize);
    let lib = lib_path_env(&library_dir());
    let mut env = vec![
        ("LD_LIBRARY_PATH", lib.as_str()),
        ("SEQSHIM_BACKEND", "cpu"),
    ];
    if sanitize {
        env.push(("ASAN_OPTIONS", "detect_leaks=1"));
    }
    let mut expected = String::from(
        "bad input: ok\ngenerated: 200 tiles, 200 batch results equal\n\
         threads: 16 threads x (48 tiles + 6 extensions), 0 differ from one thread\n",
    );
    let output = match fixture_dir() {
        Some(dir) => {
            let (cases, n_tiles, n_ext) = write_cases(&dir);
            write!(
                expected,
                "tiles: {n_tiles} of {n_tiles} match, {n_tiles} batched match\n\
                 extensions: {n_ext} of {n_ext} match, {n_ext} batched match\n"
            )
            .unwrap();
            let mut cmd = std::process::Command::new(&exe);
            cmd.arg(&cases);
            for (key, _) in std::env::vars() {
                if key.starts_with("SEQSHIM_") {
                    cmd.env_remove(key);
                }
            }
            cmd.envs(env.iter().copied());
            cmd.output().expect("run gact_client")
        }
        None => run(&exe, &env),
    };
    assert_output(
        &format!("gact_client (sanitizers: {sanitize})"),
        &output,
        &expected,
    );
}

#[test]
fn gact_c_client() {
    check(false);
}

/// The client's own checks (bad input, generated tiles, threads) under
/// valgrind's memcheck.
#[test]
fn gact_c_client_under_memcheck() {
    let exe = build(false);
    let lib = lib_path_env(&library_dir());
    let env = [
        ("LD_LIBRARY_PATH", lib.as_str()),
        ("SEQSHIM_BACKEND", "cpu"),
    ];
    if let Some(output) = memcheck(&exe, &[], &env) {
        assert_output(
            "gact_client (memcheck)",
            &output,
            "bad input: ok\ngenerated: 200 tiles, 200 batch results equal\n\
             threads: 16 threads x (48 tiles + 6 extensions), 0 differ from one thread\n",
        );
    }
}

#[test]
fn gact_c_client_sanitized() {
    check(true);
}

/// Whether Debian's libparasail-dev is installed. `make test` sets
/// SEQSHIM_REQUIRE_ORACLES=1 so that a missing oracle fails the run instead
/// of skipping it.
fn have_parasail() -> bool {
    let found = Path::new("/usr/include/parasail.h").is_file();
    if !found && std::env::var("SEQSHIM_REQUIRE_ORACLES").is_ok_and(|v| v == "1") {
        panic!("SEQSHIM_REQUIRE_ORACLES=1 but parasail (libparasail-dev) is missing");
    }
    found
}

/// First-tile scores against parasail's Smith-Waterman score
/// (ffi-tests/gact/gact_parasail.c): 100 random tiles under each of four
/// scorings, every one equal to parasail_sw_scan_16 and parasail_sw.
#[test]
fn gact_tile_scores_match_parasail() {
    if !have_parasail() {
        eprintln!("skipped: parasail (libparasail-dev) is not installed");
        return;
    }
    let lib_flag = format!("-L{}", library_dir().display());
    let exe = compile_c(
        "gact_parasail",
        &[repo().join("ffi-tests/gact/gact_parasail.c")],
        STRICT_C,
        &[&lib_flag, "-lseqshim", "-lparasail"],
    );
    let lib = lib_path_env(&library_dir());
    let output = run(
        &exe,
        &[
            ("LD_LIBRARY_PATH", lib.as_str()),
            ("SEQSHIM_BACKEND", "cpu"),
        ],
    );
    eprint!("{}", String::from_utf8_lossy(&output.stdout));
    assert_output(
        "gact_parasail",
        &output,
        "parasail: 400 tiles compared, 400 equal to sw_scan_16, 400 equal to sw\n",
    );
}

/// `kernels/gact.cu` compiled for the host, its warps emulated with
/// coroutines (`ffi-tests/gact/kernel_emulation.cpp`), must equal the CPU
/// path on 500 random tiles over the parameter grid, through both fills: the
/// kernels' logic checked where there is no GPU (a GPU run, `tests/gact_gpu.rs`, checks the rest).
#[test]
fn gact_kernel_emulated_on_the_host_equals_the_cpu_path() {
    let lib_flag = format!("-L{}", library_dir().display());
    let kernels = format!("-I{}", repo().join("kernels").display());
    let exe = compile_c(
        "gact_kernel_emulation",
        &[repo().join("ffi-tests/gact/kernel_emulation.cpp")],
        &[
            "-x",
            "c++",
            "-std=c++20",
            "-O1",
            "-Wall",
            "-Wextra",
            "-Werror",
            // The kernel's `#pragma unroll`s mean nothing to a host compiler.
            "-Wno-unknown-pragmas",
            &kernels,
        ],
        &[&lib_flag, "-lseqshim", "-lstdc++", "-lpthread"],
    );
    let lib = lib_path_env(&library_dir());
    let output = run(
        &exe,
        &[
            ("LD_LIBRARY_PATH", lib.as_str()),
            ("SEQSHIM_BACKEND", "cpu"),
        ],
    );
    assert_output(
        "kernel emulation",
        &output,
        "emulated gact kernel: 500 tiles (405 in 16 bits), 0 differ\n",
    );
}

/// The darwin-gpu glue (`integrations/darwin-gpu/seqshim_darwin_gpu.hpp`),
/// built with stand-in headers for darwin-gpu's types
/// (`ffi-tests/gact/darwin_gpu/`): random batches through `GPU_init` /
/// `Align_Batch_GPU` / `GPU_close`, every slot against
/// `seqshim_gact_align_tile`, and darwin-gpu's CPU `AlignWithBT` likewise;
/// once plainly and once under ASan/UBSan.
fn darwin_gpu_glue(sanitize: bool) {
    let lib_flag = format!("-L{}", library_dir().display());
    let stubs = format!("-I{}", repo().join("ffi-tests/gact/darwin_gpu").display());
    let glue = format!("-I{}", repo().join("integrations/darwin-gpu").display());
    let mut flags = vec![
        "-x",
        "c++",
        "-std=c++11",
        "-O1",
        "-g",
        "-Wall",
        "-Wextra",
        "-Werror",
    ];
    flags.push(&stubs);
    flags.push(&glue);
    if sanitize {
        flags.extend_from_slice(SANITIZERS);
    }
    let name = format!("darwin_gpu_glue{}", if sanitize { "_asan" } else { "" });
    let exe = compile_c(
        &name,
        &[repo().join("ffi-tests/gact/darwin_gpu_glue.cpp")],
        &flags,
        &[&lib_flag, "-lseqshim", "-lstdc++", "-lpthread"],
    );
    let lib = lib_path_env(&library_dir());
    let mut env = vec![
        ("LD_LIBRARY_PATH", lib.as_str()),
        ("SEQSHIM_BACKEND", "cpu"),
    ];
    if sanitize {
        env.push(("ASAN_OPTIONS", "detect_leaks=1"));
    }
    let output = run(&exe, &env);
    assert_output(
        &format!("darwin-gpu glue (sanitizers: {sanitize})"),
        &output,
        "darwin-gpu glue: 1347 tiles (189 idle slots), 0 differ; \
         AlignWithBT: 300 tiles, 0 differ\n",
    );
}

#[test]
fn darwin_gpu_glue_client() {
    darwin_gpu_glue(false);
}

#[test]
fn darwin_gpu_glue_client_sanitized() {
    darwin_gpu_glue(true);
}
