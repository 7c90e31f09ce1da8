//! exact-v1 against the golden fixtures of `shared/data/cudaec` (MANIFEST.tsv):
//! every configuration, every stored product, byte for byte.

mod ec_common;

use std::path::{Path, PathBuf};

use ec_common::{Row, Tally, fixtures, gunzip, manifest, num, sha256_hex};
use seqshim::ec::{self as ecm, Params, ReadStatus, Spectrum, V1FileResult, V1Param};

fn params_for(row: &Row) -> Params {
    Params {
        num_search: num(row, "num_search") as u8,
        min_mult: num(row, "min_mult") as u32,
        ..Params::exact_v1(num(row, "read_len") as usize)
    }
}

fn v1_param_for(row: &Row, num_tuples: i32) -> V1Param {
    V1Param {
        do_trim: 1,
        max_mods: 999,
        min_votes: 2,
        max_trim: 20,
        num_tuples,
        num_search: num(row, "num_search") as i16,
        tuple_size: 20,
        num_of_reads: num(row, "reads") as i32,
        read_len: num(row, "read_len") as i16,
        ..V1Param::default()
    }
}

fn solid_list_bytes(list: &[Vec<u8>]) -> Vec<u8> {
    let mut out = Vec::new();
    for e in list {
        out.extend_from_slice(e);
        out.push(b'\n');
    }
    out
}

/// The stored file for `config.suffix`, falling back to the `s1` file when the
/// MANIFEST says the configuration shares s1's bytes.
fn stored(dir: &Path, config: &str, suffix: &str) -> Option<PathBuf> {
    [format!("{config}.{suffix}.gz"), format!("s1.{suffix}.gz")]
        .into_iter()
        .map(|n| dir.join(n))
        .find(|p| p.is_file())
}

fn run_config(dir: &Path, row: &Row) -> V1FileResult {
    let data = gunzip(&dir.join(&row["dataset"]).join("reads.fa.gz"));
    ecm::process_v1_file(Path::new("reads.fa"), &data, &params_for(row)).expect("exact-v1 run")
}

fn check_row(dir: &Path, row: &Row, r: &V1FileResult, t: &mut Tally) {
    let id = format!("{}/{}", row["dataset"], row["config"]);
    let ds = dir.join(&row["dataset"]);
    let solid = solid_list_bytes(&r.solid_list);
    for (what, bytes) in [
        ("fixed_fa", &r.fixed),
        ("discard_fa", &r.discard),
        ("bloom", &r.bloom.bytes().to_vec()),
        ("solid_list", &solid),
        ("records_in", &r.records_in),
        ("records_out", &r.records_out),
    ] {
        t.eq(
            format!("{id} sha256_{what}"),
            sha256_hex(bytes),
            row[&format!("sha256_{what}")].clone(),
        );
    }
    let param = v1_param_for(row, r.stats.solid_kmers as i32);
    t.eq(
        format!("{id} sha256_param"),
        sha256_hex(&param.to_bytes()),
        row["sha256_param"].clone(),
    );
    // Stored files, where the fixture has them.
    for (suffix, bytes) in [("fixed.fa", &r.fixed), ("discard.fa", &r.discard)] {
        if let Some(p) = stored(&ds, &row["config"], suffix) {
            t.check(
                format!("{id} {suffix} == {}", p.display()),
                gunzip(&p) == *bytes,
            );
        }
    }
    // Counts.
    let l = num(row, "read_len") as usize;
    let flags = |f: u8| {
        r.records_out
            .chunks(l + 2)
            .filter(|rec| rec[l] == f)
            .count() as u64
    };
    let kernel2 = if row["kernel2_reads"] == "-" {
        0
    } else {
        num(row, "kernel2_reads")
    };
    let fixed_records = r.fixed.iter().filter(|&&b| b == b'>').count() as u64;
    for (col, got) in [
        ("reads", r.stats.reads),
        ("num_tuples", r.stats.solid_kmers),
        ("table_size", r.bloom.bytes().len() as u64),
        ("kernel2_reads", r.kernel2_reads),
        ("flag_F", flags(b'F')),
        ("flag_D", flags(b'D')),
        ("flag_NUL", flags(0)),
        ("discard_records", r.stats.discarded),
        ("unchanged", r.stats.unchanged),
        ("fixed", r.stats.fixed),
        ("trimmed", r.stats.trimmed),
        ("discarded", r.stats.discarded),
    ] {
        let want = if col == "kernel2_reads" {
            kernel2
        } else {
            num(row, col)
        };
        t.eq(format!("{id} {col}"), got, want);
    }
    // Fixed-file record count ('>' only starts headers; bases never contain it).
    t.eq(
        format!("{id} fixed_records (headers)"),
        fixed_records,
        num(row, "fixed_records"),
    );

    // runTest on our packed records and Bloom table.
    let mut records = r.records_in.clone();
    let report = ecm::run_test(r.bloom.bytes(), &param, &mut records).expect("run_test");
    t.eq(
        format!("{id} run_test sha256_records_out"),
        sha256_hex(&records),
        row["sha256_records_out"].clone(),
    );
    t.eq(
        format!("{id} run_test kernel2_reads"),
        report.kernel2_reads,
        kernel2,
    );
}

#[test]
fn every_manifest_configuration_matches_byte_for_byte() {
    let Some(dir) = fixtures() else { return };
    let rows = manifest(&dir);
    assert_eq!(rows.len(), 10, "MANIFEST rows");
    let mut t = Tally::default();
    for row in &rows {
        let r = run_config(&dir, row);
        let before = t.failures.len();
        check_row(&dir, row, &r, &mut t);
        eprintln!(
            "{}/{}: {}",
            row["dataset"],
            row["config"],
            if t.failures.len() == before {
                "all bytes match"
            } else {
                "MISMATCH"
            }
        );
    }
    t.finish("manifest configurations");
}

/// runTest on the stored record array, Bloom table and Param bytes alone
/// (independent of our reader and counting).
#[test]
fn run_test_on_stored_records_matches_records_out() {
    let Some(dir) = fixtures() else { return };
    let ds = dir.join("L36_edge");
    let bloom = gunzip(&ds.join("bloom.bin.gz"));
    let records_in = gunzip(&ds.join("records_in.bin.gz"));
    let mut t = Tally::default();
    for config in ["s1", "s2"] {
        let param_bytes: [u8; 28] = gunzip(&ds.join(format!("{config}.param.bin.gz")))
            .try_into()
            .unwrap();
        let param = V1Param::from_bytes(&param_bytes);
        t.eq(
            format!("{config} Param round trip"),
            param.to_bytes(),
            param_bytes,
        );
        let mut records = records_in.clone();
        let bloom_before = bloom.clone();
        ecm::run_test(&bloom, &param, &mut records).expect("run_test");
        let want = gunzip(&ds.join(format!("{config}.records_out.bin.gz")));
        t.check(
            format!("L36_edge/{config} records_out.bin"),
            records == want,
        );
        t.check(
            format!("L36_edge/{config} hash_table unchanged"),
            bloom == bloom_before,
        );
    }
    t.finish("run_test on stored arrays");
}

fn per_read_tsv(path: &Path) -> Vec<(String, Vec<u8>)> {
    let text = gunzip(path);
    text.split(|&b| b == b'\n')
        .filter(|l| !l.is_empty())
        .map(|l| {
            let mut f = l.splitn(3, |&b| b == b'\t');
            let _index = f.next().unwrap();
            let status = String::from_utf8(f.next().unwrap().to_vec()).unwrap();
            let seq = f.next().unwrap_or_default().to_vec();
            // "\0" (two characters) stands for a NUL byte.
            let mut bytes = Vec::new();
            let mut i = 0;
            while i < seq.len() {
                if seq[i..].starts_with(b"\\0") {
                    bytes.push(0);
                    i += 2;
                } else {
                    bytes.push(seq[i]);
                    i += 1;
                }
            }
            (status, bytes)
        })
        .collect()
}

/// Spectrum API + correct_batch with the whole file as one batch.
#[test]
fn spectrum_and_batch_match_edge_fixtures() {
    let Some(dir) = fixtures() else { return };
    let ds = dir.join("L36_edge");
    let data = gunzip(&ds.join("reads.fa.gz"));
    let reads = ecm::read_fasta_v1(Path::new("reads.fa"), &data, 36).unwrap();
    let mut t = Tally::default();
    for config in ["s1", "s2", "mm5.s1"] {
        let mut params = Params::exact_v1(36);
        params.num_search = if config == "s2" { 2 } else { 1 };
        params.min_mult = if config == "mm5.s1" { 5 } else { 6 };
        let mut spectrum = Spectrum::new(&params, reads.len() as u64).unwrap();
        let seqs: Vec<&[u8]> = reads.iter().map(|r| r.seq.as_slice()).collect();
        assert!(
            spectrum.contains(&[b'A'; 20]).is_err(),
            "contains before finalize must fail"
        );
        spectrum.add(&seqs).unwrap();
        spectrum.finalize().unwrap();
        t.eq(
            format!("{config} num_solid"),
            spectrum.num_solid().unwrap(),
            9974,
        );
        let bloom = spectrum.export_v1().unwrap();
        t.check(
            format!("{config} export_v1 == bloom.bin"),
            bloom.bytes() == gunzip(&ds.join("bloom.bin.gz")),
        );
        let list = solid_list_bytes(&spectrum.solid_list_v1().unwrap());
        t.check(
            format!("{config} solid list"),
            list == gunzip(&ds.join("solid_list.txt.gz")),
        );

        let mut batch: Vec<Vec<u8>> = reads.iter().map(|r| r.seq.clone()).collect();
        let results = ecm::correct_batch(&spectrum, &params, &mut batch).unwrap();
        let tsv_config = if config == "mm5.s1" { "s1" } else { config };
        let want = per_read_tsv(&ds.join(format!("{tsv_config}.per_read.tsv.gz")));
        t.eq(format!("{config} batch size"), batch.len(), want.len());
        let mut mismatched = 0;
        for ((got_seq, res), (status, want_seq)) in batch.iter().zip(&results).zip(&want) {
            let discarded = res.status == ReadStatus::Discarded;
            if got_seq != want_seq || discarded != (status == "D") {
                mismatched += 1;
            }
        }
        t.eq(format!("{config} per-read mismatches"), mismatched, 0);
    }
    t.finish("spectrum + batch");
}

/// `-minMult 5` level aliasing on the dense set: both Bloom tables and lists.
#[test]
fn dense_spectrum_min_mult_aliasing() {
    let Some(dir) = fixtures() else { return };
    let ds = dir.join("L36_dense");
    let data = gunzip(&ds.join("reads.fa.gz"));
    let reads = ecm::read_fasta_v1(Path::new("reads.fa"), &data, 36).unwrap();
    let seqs: Vec<&[u8]> = reads.iter().map(|r| r.seq.as_slice()).collect();
    let mut t = Tally::default();
    for mm in [5u32, 6] {
        let params = Params {
            min_mult: mm,
            ..Params::exact_v1(36)
        };
        let mut sp = Spectrum::new(&params, seqs.len() as u64).unwrap();
        sp.add(&seqs[..100]).unwrap();
        sp.add(&seqs[100..]).unwrap();
        sp.finalize().unwrap();
        let bloom = sp.export_v1().unwrap();
        t.check(
            format!("mm{mm} bloom"),
            bloom.bytes() == gunzip(&ds.join(format!("mm{mm}.bloom.bin.gz"))),
        );
        let list = solid_list_bytes(&sp.solid_list_v1().unwrap());
        t.check(
            format!("mm{mm} solid list"),
            list == gunzip(&ds.join(format!("mm{mm}.solid_list.txt.gz"))),
        );
    }
    t.finish("dense aliasing");
}

const THREAD_CONFIGS: [(&str, &str); 3] = [
    ("L36_edge", "s2"),
    ("L36_dense", "mm5.s1"),
    ("L100_sim", "s2"),
];

/// One line per product of [`THREAD_CONFIGS`]: `name sha256`.
fn thread_digest(dir: &Path) -> String {
    let rows = manifest(dir);
    let mut out = String::new();
    for (ds, cfg) in THREAD_CONFIGS {
        let row = rows
            .iter()
            .find(|r| r["dataset"] == ds && r["config"] == cfg)
            .unwrap();
        let r = run_config(dir, row);
        for (what, bytes) in [
            ("fixed", &r.fixed),
            ("discard", &r.discard),
            ("records_out", &r.records_out),
        ] {
            out += &format!("{ds}/{cfg} {what} {}\n", sha256_hex(bytes));
        }
        out += &format!("{ds}/{cfg} bloom {}\n", sha256_hex(r.bloom.bytes()));
    }
    out
}

/// The child half of [`one_thread_and_all_threads_give_the_same_bytes`]:
/// prints the digest when started by it (with `SEQSHIM_THREADS=1`).
#[test]
fn thread_digest_child() {
    if std::env::var_os("SEQSHIM_EC_DIGEST_CHILD").is_none() {
        return;
    }
    let Some(dir) = fixtures() else { return };
    println!("DIGEST-BEGIN\n{}DIGEST-END", thread_digest(&dir));
}

/// Same bytes on a one-thread engine pool (`SEQSHIM_THREADS=1`, in a child
/// process: the pool is sized once per process) and on the default pool.
#[test]
fn one_thread_and_all_threads_give_the_same_bytes() {
    let Some(dir) = fixtures() else { return };
    let child = std::process::Command::new(std::env::current_exe().unwrap())
        .args([
            "--exact",
            "thread_digest_child",
            "--nocapture",
            "--test-threads=1",
        ])
        .env("SEQSHIM_EC_DIGEST_CHILD", "1")
        .env("SEQSHIM_THREADS", "1")
        .output()
        .expect("run the one-thread child");
    assert!(child.status.success(), "child failed: {child:?}");
    let text = String::from_utf8_lossy(&child.stdout);
    let single = text
        .split("DIGEST-BEGIN\n")
        .nth(1)
        .and_then(|t| t.split("DIGEST-END").next())
        .expect("child digest");
    let multi = thread_digest(&dir);
    assert_eq!(single, multi, "one thread vs the default pool");
    eprintln!("engine pool threads: {}", seqshim::engine::cpu::threads());
}

/// The file driver writes exactly the fixture files (and nothing half-way).
#[test]
fn correct_file_writes_fixture_files() {
    let Some(dir) = fixtures() else { return };
    let tmp = std::env::temp_dir().join(format!("ec-fixture-{}", std::process::id()));
    std::fs::create_dir_all(&tmp).unwrap();
    let mut t = Tally::default();
    for (ds, cfg, search, mm) in [("L36_edge", "s2", 2u8, 6u32), ("L36_dense", "mm5.s1", 1, 5)] {
        let input = tmp.join(format!("{ds}.fa"));
        std::fs::write(&input, gunzip(&dir.join(ds).join("reads.fa.gz"))).unwrap();
        let (fixed, discard) = (
            tmp.join(format!("{ds}.{cfg}.fixed.fa")),
            tmp.join(format!("{ds}.{cfg}.discard.fa")),
        );
        let params = Params {
            num_search: search,
            min_mult: mm,
            ..Params::exact_v1(36)
        };
        let stats = ecm::correct_file(&input, &fixed, Some(&discard), &params).unwrap();
        let ds_dir = dir.join(ds);
        t.check(
            format!("{ds}/{cfg} fixed file"),
            std::fs::read(&fixed).unwrap() == gunzip(&stored(&ds_dir, cfg, "fixed.fa").unwrap()),
        );
        t.check(
            format!("{ds}/{cfg} discard file"),
            std::fs::read(&discard).unwrap()
                == gunzip(&stored(&ds_dir, cfg, "discard.fa").unwrap()),
        );
        t.check(format!("{ds}/{cfg} stats.reads"), stats.reads > 0);
    }
    let leftovers: Vec<_> = std::fs::read_dir(&tmp)
        .unwrap()
        .filter_map(|e| e.ok())
        .filter(|e| e.file_name().to_string_lossy().contains(".tmp-ec-"))
        .collect();
    t.eq("no temporary files left".to_string(), leftovers.len(), 0);
    let _ = std::fs::remove_dir_all(&tmp);
    t.finish("correct_file");
}

/// Negative control: the comparison does detect a wrong configuration
/// (`-minMult 6` instead of 5 on the dense set changes 20 fixed records).
#[test]
fn comparison_detects_a_wrong_configuration() {
    let Some(dir) = fixtures() else { return };
    let rows = manifest(&dir);
    let row = rows
        .iter()
        .find(|r| r["dataset"] == "L36_dense" && r["config"] == "mm5.s1")
        .unwrap();
    let mut wrong = row.clone();
    wrong.insert("min_mult".into(), "6".into());
    let r = run_config(&dir, &wrong);
    let mut t = Tally::default();
    check_row(&dir, row, &r, &mut t);
    eprintln!(
        "negative control: {} comparisons, {} mismatches (expected > 0)",
        t.checked,
        t.failures.len()
    );
    assert!(!t.failures.is_empty(), "a wrong minMult went unnoticed");
}
