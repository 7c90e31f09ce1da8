//! Loader for the ABEA golden fixture (read in place, never copied) and
//! generators of synthetic reads, shared by the ABEA tests.

#![allow(dead_code)]

use seqshim::abea::{AlignedPair, Event, Model, Scalings, kmer};
use std::fs::File;
use std::io::{BufRead, BufReader, Read};
use std::path::PathBuf;

pub const FIXTURE: &str = "ecoli_2kb_r94";

pub struct Record {
    pub index: u64,
    pub read_id: String,
    pub scaling: Scalings,
    pub sequence: Vec<u8>,
    pub events: Vec<Event>,
    pub expected: Vec<AlignedPair>,
}

pub struct Fixture {
    pub models: Vec<Model>,
    pub records: Vec<Record>,
}

/// `$SEQSHIM_DATA_DIR/abea/ecoli_2kb_r94`, by default the shared data folder
/// beside the repository; `None` (with a message) when it is not there, so
/// callers can skip.
pub fn fixture_dir() -> Option<PathBuf> {
    let base = std::env::var_os("SEQSHIM_DATA_DIR")
        .map(PathBuf::from)
        .unwrap_or_else(|| PathBuf::from(env!("CARGO_MANIFEST_DIR")).join("../shared/data"));
    let dir = base.join("abea").join(FIXTURE);
    if dir.join("expected.tsv.gz").is_file() {
        Some(dir)
    } else {
        eprintln!(
            "SKIP: ABEA fixture not found at {} (set SEQSHIM_DATA_DIR to the folder containing abea/)",
            dir.display()
        );
        None
    }
}

fn lines(path: PathBuf) -> impl Iterator<Item = String> {
    let f = File::open(&path).unwrap_or_else(|e| panic!("{}: {e}", path.display()));
    let r: Box<dyn Read> = if path.extension().is_some_and(|x| x == "gz") {
        Box::new(flate2::read::MultiGzDecoder::new(f))
    } else {
        Box::new(f)
    };
    BufReader::with_capacity(1 << 20, r)
        .lines()
        .map(|l| l.expect("read line"))
        .skip(1)
}

fn f32_of(s: &str) -> f32 {
    s.parse::<f32>()
        .unwrap_or_else(|e| panic!("bad float {s:?}: {e}"))
}

pub fn load(dir: &std::path::Path) -> Fixture {
    let models: Vec<Model> = lines(dir.join("model_r94_dna_6mer.tsv"))
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            Model {
                level_mean: f32_of(c[1]),
                level_stdv: f32_of(c[2]),
                level_log_stdv: f32_of(c[3]),
            }
        })
        .collect();
    assert_eq!(models.len(), 4096);

    let mut records: Vec<Record> = lines(dir.join("reads.tsv.gz"))
        .map(|l| {
            let c: Vec<&str> = l.split('\t').collect();
            let n_events: usize = c[4].parse().unwrap();
            Record {
                index: c[0].parse().unwrap(),
                read_id: c[1].to_string(),
                scaling: Scalings {
                    scale: f32_of(c[2]),
                    shift: f32_of(c[3]),
                    var: 1.0,
                    log_var: 0.0,
                },
                sequence: c[5].as_bytes().to_vec(),
                events: Vec::with_capacity(n_events),
                expected: Vec::new(),
            }
        })
        .collect();

    let mut ri = 0usize;
    for l in lines(dir.join("events.tsv.gz")) {
        let mut c = l.split('\t');
        let index: u64 = c.next().unwrap().parse().unwrap();
        while records[ri].index != index {
            ri += 1;
        }
        records[ri].events.push(Event {
            start: c.next().unwrap().parse().unwrap(),
            length: f32_of(c.next().unwrap()),
            mean: f32_of(c.next().unwrap()),
            stdv: f32_of(c.next().unwrap()),
        });
    }

    let mut ri = 0usize;
    for l in lines(dir.join("expected.tsv.gz")) {
        let c: Vec<&str> = l.split('\t').collect();
        let index: u64 = c[0].parse().unwrap();
        while records[ri].index != index {
            ri += 1;
        }
        let n: usize = c[1].parse().unwrap();
        let pairs: Vec<AlignedPair> = c
            .get(2)
            .filter(|s| !s.is_empty())
            .map(|s| {
                s.split(';')
                    .map(|p| {
                        let (a, b) = p.split_once(',').unwrap();
                        AlignedPair {
                            ref_pos: a.parse().unwrap(),
                            read_pos: b.parse().unwrap(),
                        }
                    })
                    .collect()
            })
            .unwrap_or_default();
        assert_eq!(pairs.len(), n, "record {index}: n_pairs vs list");
        records[ri].expected = pairs;
    }
    Fixture { models, records }
}

/// CPU time of the calling thread in seconds (Linux, clock-tick resolution);
/// on a shared machine wall time says little about the code.
pub fn thread_cpu_seconds() -> Option<f64> {
    let s = std::fs::read_to_string("/proc/thread-self/stat").ok()?;
    // Fields after the parenthesised command name; utime and stime are the
    // 14th and 15th fields overall.
    let rest = &s[s.rfind(')')? + 2..];
    let f: Vec<&str> = rest.split_whitespace().collect();
    let utime: f64 = f.get(11)?.parse().ok()?;
    let stime: f64 = f.get(12)?.parse().ok()?;
    Some((utime + stime) / 100.0)
}

/// xorshift64*: deterministic and dependency-free.
// Also loaded by gpu_support in tests that use both; each copy is private.
#[allow(clippy::duplicate_mod)]
#[path = "../gpu_support/rng.rs"]
mod rng;
pub use rng::Rng;

pub fn synthetic_model(k: u32, rng: &mut Rng) -> Vec<Model> {
    (0..1usize << (2 * k))
        .map(|_| {
            let level_stdv = 0.8 + 2.5 * rng.unit();
            Model {
                level_mean: 60.0 + 70.0 * rng.unit(),
                level_stdv,
                level_log_stdv: f64::from(level_stdv).ln() as f32,
            }
        })
        .collect()
}

pub fn random_seq(n: usize, rng: &mut Rng) -> Vec<u8> {
    (0..n).map(|_| b"ACGT"[rng.below(4) as usize]).collect()
}

/// Events drawn from the model along the sequence: 0–3 events per k-mer,
/// the occasional junk event, Gaussian-ish noise.
pub fn events_for(seq: &[u8], k: u32, models: &[Model], s: Scalings, rng: &mut Rng) -> Vec<Event> {
    let mut ev = Vec::new();
    let mut start = 0u64;
    for i in 0..=seq.len() - k as usize {
        let m = models[kmer::kmer_rank(&seq[i..], k).unwrap() as usize];
        // Skips are rare in real reads and heavily penalised (ln 1e-10).
        let reps = match rng.below(100) {
            0 => 0,
            1..=60 => 1,
            61..=90 => 2,
            _ => 3,
        };
        for _ in 0..reps {
            let noise = (rng.unit() + rng.unit() + rng.unit() - 1.5) * 2.0 * m.level_stdv;
            let mean = if rng.below(200) == 0 {
                40.0 + 100.0 * rng.unit()
            } else {
                s.scale * m.level_mean + s.shift + noise
            };
            let length = 3.0 + rng.below(10) as f32;
            ev.push(Event {
                start,
                length,
                mean,
                stdv: 1.0,
            });
            start += length as u64;
        }
    }
    ev
}
