//! Synthetic CONSENT-like windows shared by the oracle tests.
#![allow(dead_code)]

pub struct Rng(pub u64);
impl Rng {
    pub fn next(&mut self) -> u64 {
        // splitmix64
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }
    pub fn range(&mut self, lo: usize, hi: usize) -> usize {
        lo + (self.next() % (hi - lo + 1) as u64) as usize
    }
    pub fn unit(&mut self) -> f64 {
        (self.next() >> 11) as f64 / (1u64 << 53) as f64
    }
    pub fn base(&mut self) -> u8 {
        b"ACGT"[(self.next() & 3) as usize]
    }
}

/// Noisy copy: per base, error with probability U(10%,15%), split
/// insertion:deletion:substitution = 0.5:0.3:0.2.
pub fn noisy_copy(rng: &mut Rng, truth: &[u8]) -> Vec<u8> {
    let rate = 0.10 + 0.05 * rng.unit();
    let mut out = Vec::with_capacity(truth.len() * 5 / 4);
    for &b in truth {
        if rng.unit() < rate {
            let kind = rng.unit();
            if kind < 0.5 {
                out.push(rng.base());
                out.push(b);
            } else if kind < 0.8 {
                // deletion
            } else {
                let mut s = rng.base();
                while s == b {
                    s = rng.base();
                }
                out.push(s);
            }
        } else {
            out.push(b);
        }
    }
    out
}

pub fn window(rng: &mut Rng, n: (usize, usize), l: (usize, usize)) -> Vec<Vec<u8>> {
    let len = rng.range(l.0, l.1);
    let truth: Vec<u8> = (0..len).map(|_| rng.base()).collect();
    let k = rng.range(n.0, n.1);
    (0..k).map(|_| noisy_copy(rng, &truth)).collect()
}

/// CPU time of the calling thread in seconds (Linux schedstat; falls back
/// to wall time elsewhere), so timings are not skewed by other load.
pub fn thread_cpu_seconds() -> f64 {
    if let Some(ns) = std::fs::read_to_string("/proc/thread-self/schedstat")
        .ok()
        .and_then(|s| {
            s.split_whitespace()
                .next()
                .and_then(|v| v.parse::<u64>().ok())
        })
    {
        return ns as f64 * 1e-9;
    }
    use std::sync::OnceLock;
    static START: OnceLock<std::time::Instant> = OnceLock::new();
    START
        .get_or_init(std::time::Instant::now)
        .elapsed()
        .as_secs_f64()
}

/// Rows of a PIR file written by `poa -pir`: (name, row without line breaks).
pub fn parse_pir(text: &[u8]) -> Vec<(String, Vec<u8>)> {
    let mut out: Vec<(String, Vec<u8>)> = Vec::new();
    for line in text.split(|&c| c == b'\n') {
        if let Some(h) = line.strip_prefix(b">") {
            let name = String::from_utf8_lossy(h)
                .split_whitespace()
                .next()
                .unwrap_or("")
                .to_string();
            out.push((name, Vec::new()));
        } else if let Some(last) = out.last_mut() {
            last.1
                .extend(line.iter().filter(|c| !c.is_ascii_whitespace()));
        }
    }
    out
}
