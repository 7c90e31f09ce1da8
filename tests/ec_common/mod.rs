//! Helpers shared by the EC integration tests: fixture location, gunzip,
//! a small SHA-256 (no extra dependency) and MANIFEST parsing.
#![allow(dead_code)]

use std::collections::HashMap;
use std::io::Read;
use std::path::{Path, PathBuf};

/// The fixture folder when `SEQSHIM_DATA_DIR` is unset.
pub const FIXTURES: &str = concat!(env!("CARGO_MANIFEST_DIR"), "/../shared/data/cudaec");

/// `$SEQSHIM_DATA_DIR/cudaec`, else [`FIXTURES`].
pub fn fixture_dir() -> PathBuf {
    match std::env::var_os("SEQSHIM_DATA_DIR") {
        Some(d) => PathBuf::from(d).join("cudaec"),
        None => PathBuf::from(FIXTURES),
    }
}

/// The fixture folder, or `None` after printing why the test is skipped.
pub fn fixtures() -> Option<PathBuf> {
    let dir = fixture_dir();
    if dir.join("MANIFEST.tsv").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "SKIPPED: no CUDA-EC fixtures at {} (set SEQSHIM_DATA_DIR to the folder containing cudaec/)",
            dir.display()
        );
        None
    }
}

pub fn gunzip(path: &Path) -> Vec<u8> {
    let file = std::fs::File::open(path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let mut out = Vec::new();
    flate2::read::GzDecoder::new(file)
        .read_to_end(&mut out)
        .unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    out
}

/// SHA-256 (FIPS 180-4), hex encoded.
pub fn sha256_hex(data: &[u8]) -> String {
    const K: [u32; 64] = [
        0x428a2f98, 0x71374491, 0xb5c0fbcf, 0xe9b5dba5, 0x3956c25b, 0x59f111f1, 0x923f82a4,
        0xab1c5ed5, 0xd807aa98, 0x12835b01, 0x243185be, 0x550c7dc3, 0x72be5d74, 0x80deb1fe,
        0x9bdc06a7, 0xc19bf174, 0xe49b69c1, 0xefbe4786, 0x0fc19dc6, 0x240ca1cc, 0x2de92c6f,
        0x4a7484aa, 0x5cb0a9dc, 0x76f988da, 0x983e5152, 0xa831c66d, 0xb00327c8, 0xbf597fc7,
        0xc6e00bf3, 0xd5a79147, 0x06ca6351, 0x14292967, 0x27b70a85, 0x2e1b2138, 0x4d2c6dfc,
        0x53380d13, 0x650a7354, 0x766a0abb, 0x81c2c92e, 0x92722c85, 0xa2bfe8a1, 0xa81a664b,
        0xc24b8b70, 0xc76c51a3, 0xd192e819, 0xd6990624, 0xf40e3585, 0x106aa070, 0x19a4c116,
        0x1e376c08, 0x2748774c, 0x34b0bcb5, 0x391c0cb3, 0x4ed8aa4a, 0x5b9cca4f, 0x682e6ff3,
        0x748f82ee, 0x78a5636f, 0x84c87814, 0x8cc70208, 0x90befffa, 0xa4506ceb, 0xbef9a3f7,
        0xc67178f2,
    ];
    let mut h: [u32; 8] = [
        0x6a09e667, 0xbb67ae85, 0x3c6ef372, 0xa54ff53a, 0x510e527f, 0x9b05688c, 0x1f83d9ab,
        0x5be0cd19,
    ];
    let mut msg = data.to_vec();
    msg.push(0x80);
    while msg.len() % 64 != 56 {
        msg.push(0);
    }
    msg.extend_from_slice(&((data.len() as u64) * 8).to_be_bytes());
    for block in msg.chunks(64) {
        let mut w = [0u32; 64];
        for i in 0..16 {
            w[i] = u32::from_be_bytes(block[4 * i..4 * i + 4].try_into().unwrap());
        }
        for i in 16..64 {
            let s0 = w[i - 15].rotate_right(7) ^ w[i - 15].rotate_right(18) ^ (w[i - 15] >> 3);
            let s1 = w[i - 2].rotate_right(17) ^ w[i - 2].rotate_right(19) ^ (w[i - 2] >> 10);
            w[i] = w[i - 16]
                .wrapping_add(s0)
                .wrapping_add(w[i - 7])
                .wrapping_add(s1);
        }
        let mut v = h;
        for i in 0..64 {
            let s1 = v[4].rotate_right(6) ^ v[4].rotate_right(11) ^ v[4].rotate_right(25);
            let ch = (v[4] & v[5]) ^ (!v[4] & v[6]);
            let t1 = v[7]
                .wrapping_add(s1)
                .wrapping_add(ch)
                .wrapping_add(K[i])
                .wrapping_add(w[i]);
            let s0 = v[0].rotate_right(2) ^ v[0].rotate_right(13) ^ v[0].rotate_right(22);
            let maj = (v[0] & v[1]) ^ (v[0] & v[2]) ^ (v[1] & v[2]);
            let t2 = s0.wrapping_add(maj);
            v = [
                t1.wrapping_add(t2),
                v[0],
                v[1],
                v[2],
                v[3].wrapping_add(t1),
                v[4],
                v[5],
                v[6],
            ];
        }
        for (a, b) in h.iter_mut().zip(v) {
            *a = a.wrapping_add(b);
        }
    }
    h.iter().map(|x| format!("{x:08x}")).collect()
}

/// One MANIFEST.tsv row, as column name -> value.
pub type Row = HashMap<String, String>;

pub fn manifest(dir: &Path) -> Vec<Row> {
    let text = std::fs::read_to_string(dir.join("MANIFEST.tsv")).expect("MANIFEST.tsv");
    let mut lines = text.lines();
    let header: Vec<String> = lines
        .next()
        .unwrap()
        .split('\t')
        .map(String::from)
        .collect();
    lines
        .filter(|l| !l.is_empty())
        .map(|l| {
            header
                .iter()
                .cloned()
                .zip(l.split('\t').map(String::from))
                .collect()
        })
        .collect()
}

pub fn num(row: &Row, col: &str) -> u64 {
    row[col]
        .parse()
        .unwrap_or_else(|_| panic!("column {col} = {:?}", row[col]))
}

/// Counts comparisons and collects failures so one run reports them all.
#[derive(Default)]
pub struct Tally {
    pub checked: usize,
    pub failures: Vec<String>,
}

impl Tally {
    pub fn check(&mut self, what: String, ok: bool) {
        self.checked += 1;
        if !ok {
            eprintln!("MISMATCH: {what}");
            self.failures.push(what);
        }
    }
    pub fn eq<T: PartialEq + std::fmt::Debug>(&mut self, what: String, got: T, want: T) {
        let ok = got == want;
        if !ok {
            eprintln!("  got {got:?}, want {want:?}");
        }
        self.check(what, ok);
    }
    pub fn finish(&self, name: &str) {
        eprintln!(
            "{name}: {} comparisons, {} mismatches",
            self.checked,
            self.failures.len()
        );
        assert!(self.checked > 0, "{name}: nothing was compared");
        assert!(
            self.failures.is_empty(),
            "{name}: mismatches: {:#?}",
            self.failures
        );
    }
}
