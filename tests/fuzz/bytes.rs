//! Structured decoding of fuzz inputs. Every case is a byte string read
//! front to back, so a random generator, a mutated corpus file and a saved
//! reproducer all drive a target the same way; past the end the reader
//! yields zeros, which keeps every byte string a valid input.
#![allow(dead_code)]

/// Reader over one input.
pub struct Input<'a> {
    data: &'a [u8],
    pos: usize,
}

impl<'a> Input<'a> {
    pub fn new(data: &'a [u8]) -> Self {
        Input { data, pos: 0 }
    }

    pub fn u8(&mut self) -> u8 {
        let b = self.data.get(self.pos).copied().unwrap_or(0);
        self.pos += 1;
        b
    }

    pub fn u16(&mut self) -> u16 {
        u16::from_le_bytes([self.u8(), self.u8()])
    }

    pub fn u32(&mut self) -> u32 {
        u32::from_le_bytes([self.u8(), self.u8(), self.u8(), self.u8()])
    }

    pub fn i32(&mut self) -> i32 {
        self.u32() as i32
    }

    pub fn u64(&mut self) -> u64 {
        (self.u32() as u64) | ((self.u32() as u64) << 32)
    }

    pub fn bool(&mut self) -> bool {
        self.u8() & 1 == 1
    }

    /// True with probability about `n`/256.
    pub fn chance(&mut self, n: u8) -> bool {
        self.u8() < n
    }

    /// A value in `lo..=hi` (inclusive; `lo <= hi`).
    pub fn range(&mut self, lo: i64, hi: i64) -> i64 {
        let span = (hi - lo) as u64 + 1;
        lo + (self.u32() as u64 % span) as i64
    }

    pub fn usize_in(&mut self, lo: usize, hi: usize) -> usize {
        self.range(lo as i64, hi as i64) as usize
    }

    /// Mostly small values, sometimes the edges of the type.
    pub fn int_edgy(&mut self, small_lo: i32, small_hi: i32) -> i32 {
        match self.u8() % 16 {
            0 => i32::MIN,
            1 => i32::MAX,
            2 => -1,
            3 => 0,
            4 => self.i32(),
            _ => self.range(small_lo as i64, small_hi as i64) as i32,
        }
    }

    /// A float that is sometimes NaN, infinite, zero, negative or huge.
    pub fn f32_edgy(&mut self, lo: f32, hi: f32) -> f32 {
        match self.u8() % 24 {
            0 => f32::NAN,
            1 => f32::INFINITY,
            2 => f32::NEG_INFINITY,
            3 => 0.0,
            4 => -0.0,
            5 => f32::MAX,
            6 => f32::MIN_POSITIVE / 2.0,
            7 => f32::from_bits(self.u32()),
            _ => lo + (hi - lo) * (self.u16() as f32 / 65535.0),
        }
    }

    /// A DNA sequence of `len` bases; `raw` mixes in arbitrary bytes
    /// (NUL excluded where `nul_free`).
    pub fn dna(&mut self, len: usize, raw: bool, nul_free: bool) -> Vec<u8> {
        const B: &[u8; 4] = b"ACGT";
        (0..len)
            .map(|_| {
                let b = self.u8();
                if raw && b >= 240 {
                    let x = self.u8();
                    if nul_free && x == 0 { b'N' } else { x }
                } else {
                    B[(b & 3) as usize]
                }
            })
            .collect()
    }

    /// A copy of `src` with edits at a rate of `per_mille` / 1000.
    pub fn mutate_dna(&mut self, src: &[u8], per_mille: u32) -> Vec<u8> {
        const B: &[u8; 4] = b"ACGT";
        let mut out = Vec::with_capacity(src.len() + 8);
        for &c in src {
            if (self.u16() as u32 % 1000) < per_mille {
                match self.u8() % 3 {
                    0 => out.push(B[(self.u8() & 3) as usize]),
                    1 => {
                        out.push(B[(self.u8() & 3) as usize]);
                        out.push(c);
                    }
                    _ => {}
                }
            } else {
                out.push(c);
            }
        }
        out
    }

    /// A length: mostly short, sometimes up to `max`.
    pub fn len(&mut self, short: usize, max: usize) -> usize {
        match self.u8() % 8 {
            0 => 0,
            1 => self.usize_in(0, max),
            _ => self.usize_in(0, short),
        }
    }

    pub fn bytes(&mut self, n: usize) -> Vec<u8> {
        (0..n).map(|_| self.u8()).collect()
    }

    /// Whatever is left, as raw bytes (bounded).
    pub fn rest(&mut self, max: usize) -> Vec<u8> {
        let start = self.pos.min(self.data.len());
        let end = (start + max).min(self.data.len());
        self.pos = end;
        self.data[start..end].to_vec()
    }
}

/// splitmix64: a seeded, dependency-free generator of input bytes.
#[derive(Clone)]
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 = self.0.wrapping_add(0x9E37_79B9_7F4A_7C15);
        let mut z = self.0;
        z = (z ^ (z >> 30)).wrapping_mul(0xBF58_476D_1CE4_E5B9);
        z = (z ^ (z >> 27)).wrapping_mul(0x94D0_49BB_1331_11EB);
        z ^ (z >> 31)
    }

    pub fn below(&mut self, n: u64) -> u64 {
        self.next() % n.max(1)
    }

    /// A fresh random input, or a mutation of one from `corpus`.
    pub fn case(&mut self, corpus: &[Vec<u8>], max_len: usize) -> Vec<u8> {
        if !corpus.is_empty() && self.below(2) == 0 {
            let mut v = corpus[self.below(corpus.len() as u64) as usize].clone();
            for _ in 0..1 + self.below(8) {
                match self.below(4) {
                    0 if !v.is_empty() => {
                        let i = self.below(v.len() as u64) as usize;
                        v[i] ^= 1 << self.below(8);
                    }
                    1 if !v.is_empty() => {
                        let i = self.below(v.len() as u64) as usize;
                        v[i] = self.next() as u8;
                    }
                    2 if v.len() < max_len => {
                        let i = self.below(v.len() as u64 + 1) as usize;
                        v.insert(i, self.next() as u8);
                    }
                    _ if !v.is_empty() => {
                        let i = self.below(v.len() as u64) as usize;
                        v.remove(i);
                    }
                    _ => {}
                }
            }
            return v;
        }
        let len = match self.below(4) {
            0 => self.below(64),
            1 => self.below(512),
            _ => self.below(max_len as u64 + 1),
        } as usize;
        (0..len).map(|_| self.next() as u8).collect()
    }
}
