//! Single-threaded tile throughput: 320x320 tiles at ~15 % divergence
//! (5 % substitutions, 5 % insertions, 5 % deletions), Darwin default scoring,
//! early_terminate 200 (T - O for 320/120), half forward and half reverse.
//!
//! Run: `cargo bench --bench gact -- [tiles] [repeats]`
//!
//! Prints seqshim's numbers only: Darwin's `AlignWithBT` is a C++ function
//! returning `std::queue<int>` and cannot be linked from here; compare whole
//! runs with the Darwin relink in `integrations/darwin/README.md` instead.

use std::time::Instant;

use seqshim::gact::{ExtendOptions, Params, TileAligner, TileOptions, extend};

const TILE: usize = 320;

/// xorshift64*: tiny, deterministic, good enough for test data.
struct XorShift(u64);

impl XorShift {
    fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_F491_4F6C_DD1D)
    }
    fn below(&mut self, n: u64) -> u64 {
        self.next() % n
    }
    fn base(&mut self) -> u8 {
        b"ACGT"[self.below(4) as usize]
    }
}

/// Nanoseconds this thread has spent on a CPU (Linux schedstat), so that the
/// numbers stay meaningful on a machine shared with other jobs.
fn thread_cpu_ns() -> Option<u64> {
    let text = std::fs::read_to_string("/proc/thread-self/schedstat").ok()?;
    text.split_whitespace().next()?.parse().ok()
}

fn random_seq(rng: &mut XorShift, len: usize) -> Vec<u8> {
    (0..len).map(|_| rng.base()).collect()
}

/// Copies `src` with 5 % substitutions, 5 % insertions and 5 % deletions.
fn mutate(rng: &mut XorShift, src: &[u8]) -> Vec<u8> {
    let mut out = Vec::with_capacity(src.len() + src.len() / 8);
    for &b in src {
        match rng.below(100) {
            0..=4 => {
                // A different base: shift b's index by 1..=3.
                let idx = b"ACGT".iter().position(|&c| c == b).unwrap_or(0);
                out.push(b"ACGT"[(idx + 1 + rng.below(3) as usize) % 4]);
            }
            5..=9 => {
                out.push(rng.base());
                out.push(b);
            }
            10..=14 => {}
            _ => out.push(b),
        }
    }
    out
}

fn main() {
    println!(
        "seqshim GACT, one thread (Darwin's AlignWithBT is not linked into this bench: seqshim only)"
    );
    let args: Vec<usize> = std::env::args()
        .skip(1)
        .filter(|a| !a.starts_with("--"))
        .map(|a| a.parse().expect("numeric argument"))
        .collect();
    let n_tiles = args.first().copied().unwrap_or(256);
    let repeats = args.get(1).copied().unwrap_or(10);
    let params = Params::darwin_default();
    let mut rng = XorShift(0x9E37_79B9_7F4A_7C15);

    let tiles: Vec<(Vec<u8>, Vec<u8>)> = (0..n_tiles)
        .map(|_| {
            let r = random_seq(&mut rng, TILE);
            let mut q = mutate(&mut rng, &r);
            q.resize(TILE, b'A');
            (r, q)
        })
        .collect();

    let mut aligner = TileAligner::new();
    let mut ops = Vec::with_capacity(2 * TILE);
    for first in [false, true] {
        let mut best = f64::INFINITY;
        let mut best_cpu = f64::INFINITY;
        let mut checksum = 0i64;
        for _ in 0..repeats {
            let t0 = Instant::now();
            let c0 = thread_cpu_ns();
            for (k, (r, q)) in tiles.iter().enumerate() {
                ops.clear();
                let opts = TileOptions {
                    ref_pos: TILE as i32,
                    query_pos: TILE as i32,
                    reverse: k % 2 == 1,
                    first,
                    early_terminate: 200,
                };
                let res = aligner
                    .align_append(r, q, &params, opts, &mut ops)
                    .expect("tile");
                checksum += res.score as i64 + res.n_ops as i64;
            }
            best = best.min(t0.elapsed().as_secs_f64());
            if let (Some(c0), Some(c1)) = (c0, thread_cpu_ns()) {
                best_cpu = best_cpu.min((c1 - c0) as f64 * 1e-9);
            }
        }
        let cells = (n_tiles * TILE * TILE) as f64;
        println!(
            "align_tile first={first:<5} {n_tiles} tiles 320x320, best of {repeats}: wall {:.1} us/tile = {:.0} tiles/s = {:.2} GCUPS; on-CPU {:.1} us/tile = {:.0} tiles/s = {:.2} GCUPS (checksum {checksum})",
            best / n_tiles as f64 * 1e6,
            n_tiles as f64 / best,
            cells / best / 1e9,
            best_cpu / n_tiles as f64 * 1e6,
            n_tiles as f64 / best_cpu,
            cells / best_cpu / 1e9,
        );
    }

    // Whole extensions: 10 kb pairs, anchor mid-read, T=320, O=120.
    let pairs: Vec<(Vec<u8>, Vec<u8>)> = (0..8)
        .map(|_| {
            let r = random_seq(&mut rng, 10_000);
            let q = mutate(&mut rng, &r);
            (r, q)
        })
        .collect();
    let t0 = Instant::now();
    let c0 = thread_cpu_ns();
    let mut cols = 0usize;
    for (r, q) in &pairs {
        let opts = ExtendOptions {
            tile_size: 320,
            tile_overlap: 120,
            ref_pos: (r.len() / 2) as i32,
            query_pos: (q.len() / 2) as i32,
            ref_len: None,
            query_len: None,
        };
        cols += extend(r, q, &params, opts)
            .expect("extend")
            .aligned_ref
            .len();
    }
    let secs = t0.elapsed().as_secs_f64();
    let cpu = match (c0, thread_cpu_ns()) {
        (Some(a), Some(b)) => (b - a) as f64 * 1e-9,
        _ => f64::NAN,
    };
    println!(
        "extend 10 kb pairs (T=320, O=120, anchor mid-read): wall {:.1} ms/pair, on-CPU {:.1} ms/pair ({} pairs, {cols} columns)",
        secs / pairs.len() as f64 * 1e3,
        cpu / pairs.len() as f64 * 1e3,
        pairs.len()
    );
}
