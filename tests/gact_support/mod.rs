//! The GACT fixtures (`../shared/data/gact`, or `$SEQSHIM_DATA_DIR/gact`)
//! as the test crates read them.

use std::collections::HashMap;
use std::fs::File;
use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};

use flate2::read::GzDecoder;

/// The fixture folder, or `None` with a line saying why the caller's
/// fixture checks are skipped.
pub fn fixture_dir() -> Option<PathBuf> {
    let dir = match std::env::var_os("SEQSHIM_DATA_DIR") {
        Some(d) => PathBuf::from(d).join("gact"),
        None => PathBuf::from(concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/gact")),
    };
    if dir.join("tiles.tsv.gz").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "SKIP: no GACT fixtures at {} (set SEQSHIM_DATA_DIR to the folder containing gact/)",
            dir.display()
        );
        None
    }
}

/// Rows of a gzipped TSV as maps from column name to field; a row with
/// another number of fields than the header fails the test.
pub fn read_tsv(path: &Path) -> Vec<HashMap<String, String>> {
    let reader = BufReader::new(GzDecoder::new(File::open(path).expect("open fixture")));
    let mut lines = reader.lines();
    let header: Vec<String> = lines
        .next()
        .expect("header")
        .expect("read header")
        .split('\t')
        .map(str::to_owned)
        .collect();
    lines
        .map(|line| {
            let line = line.expect("read row");
            let fields: Vec<&str> = line.split('\t').collect();
            assert_eq!(
                fields.len(),
                header.len(),
                "ragged row in {}",
                path.display()
            );
            header
                .iter()
                .cloned()
                .zip(fields.into_iter().map(str::to_owned))
                .collect()
        })
        .collect()
}
