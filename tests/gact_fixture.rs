//! Bit-exactness against the upstream golden fixtures (`shared/data/gact`):
//! every row of `tiles.tsv.gz` (AlignWithBT) and `extend.tsv.gz` (GACT).

mod gact_support;

use std::collections::HashMap;

use gact_support::{fixture_dir, read_tsv};
use seqshim::gact::{ExtendOptions, Params, TileOptions, align_tile, extend};

/// Row counts documented in the fixture README; a short read is a failure.
const TILE_ROWS: usize = 4168;
const EXTEND_ROWS: usize = 1205;

fn int(row: &HashMap<String, String>, col: &str) -> i64 {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("column {col}: bad integer {:?}", row[col]))
}

fn params_of(row: &HashMap<String, String>) -> Params {
    let values: Vec<i32> = row["sub_mat"]
        .split(',')
        .map(|v| v.parse().expect("sub_mat entry"))
        .collect();
    Params {
        sub_mat: values.try_into().expect("25 sub_mat entries"),
        gap_open: int(row, "gap_open") as i32,
        gap_extend: int(row, "gap_extend") as i32,
    }
}

#[test]
fn gact_tiles_match_upstream_bit_for_bit() {
    let Some(dir) = fixture_dir() else { return };
    let rows = read_tsv(&dir.join("tiles.tsv.gz"));
    let mut mismatches = Vec::new();
    for row in &rows {
        let opts = TileOptions {
            ref_pos: int(row, "ref_pos") as i32,
            query_pos: int(row, "query_pos") as i32,
            reverse: int(row, "reverse") == 1,
            first: int(row, "first") == 1,
            early_terminate: int(row, "early_terminate") as i32,
        };
        let ref_seq = row["ref_seq"].as_bytes();
        let query_seq = row["query_seq"].as_bytes();
        assert_eq!(ref_seq.len() as i64, int(row, "ref_len"));
        assert_eq!(query_seq.len() as i64, int(row, "query_len"));
        let got = match align_tile(ref_seq, query_seq, &params_of(row), opts) {
            Ok(r) => r,
            Err(e) => {
                mismatches.push(format!("{}: error {e}", row["id"]));
                continue;
            }
        };
        let ops: String = got.ops.iter().map(|&o| char::from(b'0' + o)).collect();
        let mut ok = got.score as i64 == int(row, "score")
            && got.ref_steps as i64 == int(row, "ref_steps")
            && got.query_steps as i64 == int(row, "query_steps")
            && got.ops.len() as i64 == int(row, "n_ops")
            && ops == row["ops"];
        if opts.first {
            ok &= got.max_i as i64 == int(row, "max_i") && got.max_j as i64 == int(row, "max_j");
        }
        if !ok {
            mismatches.push(format!(
                "{} ({}): got score {} max ({}, {}) steps ({}, {}) n_ops {}, want score {} max ({}, {}) steps ({}, {}) n_ops {}",
                row["id"],
                row["category"],
                got.score,
                got.max_i,
                got.max_j,
                got.ref_steps,
                got.query_steps,
                got.ops.len(),
                row["score"],
                row["max_i"],
                row["max_j"],
                row["ref_steps"],
                row["query_steps"],
                row["n_ops"]
            ));
        }
    }
    println!(
        "tiles.tsv.gz: {} rows compared, {} matched",
        rows.len(),
        rows.len() - mismatches.len()
    );
    for m in mismatches.iter().take(20) {
        println!("  MISMATCH {m}");
    }
    assert_eq!(rows.len(), TILE_ROWS, "unexpected number of tile rows");
    assert!(
        mismatches.is_empty(),
        "{} tile rows differ",
        mismatches.len()
    );
}

#[test]
fn gact_extensions_match_upstream_bit_for_bit() {
    let Some(dir) = fixture_dir() else { return };
    let sequences: HashMap<String, String> = read_tsv(&dir.join("sequences.tsv.gz"))
        .into_iter()
        .map(|mut r| {
            let seq = r.remove("sequence").expect("sequence column");
            assert_eq!(seq.len() as i64, int(&r, "length"));
            (r.remove("seq_id").expect("seq_id column"), seq)
        })
        .collect();
    let rows = read_tsv(&dir.join("extend.tsv.gz"));
    let mut mismatches = Vec::new();
    for row in &rows {
        let ref_seq = sequences[&row["ref_id"]].as_bytes();
        let query_seq = sequences[&row["query_id"]].as_bytes();
        assert_eq!(ref_seq.len() as i64, int(row, "ref_length"));
        assert_eq!(query_seq.len() as i64, int(row, "query_length"));
        let opts = ExtendOptions {
            tile_size: int(row, "tile_size") as i32,
            tile_overlap: int(row, "tile_overlap") as i32,
            ref_pos: int(row, "ref_pos") as i32,
            query_pos: int(row, "query_pos") as i32,
            ref_len: None,
            query_len: None,
        };
        let got = match extend(ref_seq, query_seq, &params_of(row), opts) {
            Ok(a) => a,
            Err(e) => {
                mismatches.push(format!("{}: error {e}", row["id"]));
                continue;
            }
        };
        let ok = got.ref_start as i64 == int(row, "ref_start")
            && got.query_start as i64 == int(row, "query_start")
            && got.aligned_ref_len as i64 == int(row, "aligned_ref_len")
            && got.aligned_query_len as i64 == int(row, "aligned_query_len")
            && got.score as i64 == int(row, "score")
            && got.aligned_ref.len() as i64 == int(row, "n_cols")
            && got.aligned_query.len() as i64 == int(row, "n_cols")
            && got.aligned_ref == row["aligned_ref"].as_bytes()
            && got.aligned_query == row["aligned_query"].as_bytes();
        if !ok {
            mismatches.push(format!(
                "{} ({}): got start ({}, {}) len ({}, {}) score {} cols {}, want start ({}, {}) len ({}, {}) score {} cols {}",
                row["id"],
                row["category"],
                got.ref_start,
                got.query_start,
                got.aligned_ref_len,
                got.aligned_query_len,
                got.score,
                got.aligned_ref.len(),
                row["ref_start"],
                row["query_start"],
                row["aligned_ref_len"],
                row["aligned_query_len"],
                row["score"],
                row["n_cols"]
            ));
        }
    }
    println!(
        "extend.tsv.gz: {} rows compared, {} matched",
        rows.len(),
        rows.len() - mismatches.len()
    );
    for m in mismatches.iter().take(20) {
        println!("  MISMATCH {m}");
    }
    assert_eq!(
        rows.len(),
        EXTEND_ROWS,
        "unexpected number of extension rows"
    );
    assert!(
        mismatches.is_empty(),
        "{} extension rows differ",
        mismatches.len()
    );
}
