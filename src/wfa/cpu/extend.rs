//! Diagonal extension over padded copies of the sequences (`wavefront_extend.c`).
//!
//! Upstream pads the pattern with `'?'` and the text with `'!'` and compares 8 bytes at a
//! time without any length check, so the sentinels alone stop a run. We keep the same
//! sentinels (a `'?'` inside the text can match past the pattern end upstream too) and
//! only make the padding longer so that no read can leave the buffers.

use super::wavefront::{OFFSET_NULL, Wavefront};

const PATTERN_PAD: u8 = b'?';
const TEXT_PAD: u8 = b'!';
const SLACK: usize = 16;

/// Padded pattern/text, reused across alignments.
#[derive(Default)]
pub struct PaddedSeqs {
    pattern: Vec<u8>,
    text: Vec<u8>,
    /// Buffer index of pattern position 0 / text position 0.
    pattern_origin: usize,
    text_origin: usize,
}

impl PaddedSeqs {
    /// Loads the pair, reversed for BiWFA's backward aligner (the sentinels stay
    /// where they were).
    pub fn load(&mut self, pattern: &[u8], text: &[u8], reverse: bool) {
        let (plen, tlen) = (pattern.len(), text.len());
        // Runs can only overshoot an end while the other sequence still matches the
        // sentinel, so plen + tlen of tail padding bounds every read.
        let tail = plen + tlen + SLACK;
        self.pattern_origin = tlen + SLACK;
        self.text_origin = SLACK;
        fill(
            &mut self.pattern,
            PATTERN_PAD,
            self.pattern_origin,
            pattern,
            tail,
            reverse,
        );
        fill(
            &mut self.text,
            TEXT_PAD,
            self.text_origin,
            text,
            tail,
            reverse,
        );
    }

    /// Number of equal bytes starting at pattern position `v`, text position `h`.
    #[inline]
    pub fn run_length(&self, v: i32, h: i32) -> i32 {
        self.view().run_length(v, h)
    }

    /// The buffers with their origins, for tight loops.
    #[inline]
    fn view(&self) -> SeqView<'_> {
        SeqView {
            pattern: &self.pattern,
            text: &self.text,
            pattern_origin: self.pattern_origin as isize,
            text_origin: self.text_origin as isize,
        }
    }
}

#[derive(Clone, Copy)]
struct SeqView<'a> {
    pattern: &'a [u8],
    text: &'a [u8],
    pattern_origin: isize,
    text_origin: isize,
}

impl SeqView<'_> {
    /// Compares 8 bytes at a time, like upstream. Most runs end within the first
    /// block, which is read without any branch: the padding guarantees that both
    /// reads lie inside (the clamps only make that visible to the compiler), and
    /// the differing sentinels ('?' vs '!') that a mismatch comes before the end.
    #[inline(always)]
    fn run_length(&self, v: i32, h: i32) -> i32 {
        let pi = (self.pattern_origin + v as isize) as usize;
        let ti = (self.text_origin + h as isize) as usize;
        debug_assert!(pi + 8 <= self.pattern.len() && ti + 8 <= self.text.len());
        let x = first_block(self.pattern, pi) ^ first_block(self.text, ti);
        if x != 0 {
            return (x.trailing_zeros() / 8) as i32;
        }
        self.run_length_from(pi + 8, ti + 8) + 8
    }

    /// The rest of a run longer than 8.
    #[inline(never)]
    fn run_length_from(&self, pi: usize, ti: usize) -> i32 {
        let (Some(p), Some(t)) = (self.pattern.get(pi..), self.text.get(ti..)) else {
            unreachable!("extension outside the padded sequences")
        };
        common_prefix(p, t) as i32
    }
}

/// How many leading bytes `a` and `b` share, compared eight at a time.
fn common_prefix(a: &[u8], b: &[u8]) -> usize {
    let n = a.len().min(b.len());
    let (a, b) = (&a[..n], &b[..n]);
    let mut i = 0;
    while i + 8 <= n {
        let x = u64::from_le_bytes(a[i..i + 8].try_into().expect("8 bytes"))
            ^ u64::from_le_bytes(b[i..i + 8].try_into().expect("8 bytes"));
        if x != 0 {
            return i + x.trailing_zeros() as usize / 8;
        }
        i += 8;
    }
    i + a[i..]
        .iter()
        .zip(&b[i..])
        .take_while(|(x, y)| x == y)
        .count()
}

/// The 8 bytes at `i`, or at the last full block if `i` lay beyond it (which the
/// padding rules out); the clamp replaces the bounds check.
#[inline(always)]
fn first_block(buf: &[u8], i: usize) -> u64 {
    let last = buf.len().saturating_sub(8);
    let i = i.min(last);
    match buf.get(i..).and_then(|b| b.first_chunk::<8>()) {
        Some(b) => u64::from_le_bytes(*b),
        None => 0,
    }
}

fn fill(buf: &mut Vec<u8>, pad: u8, origin: usize, seq: &[u8], tail: usize, reverse: bool) {
    buf.clear();
    buf.resize(origin, pad);
    if reverse {
        buf.extend(seq.iter().rev());
    } else {
        buf.extend_from_slice(seq);
    }
    buf.resize(origin + seq.len() + tail, pad);
}

/// Extends every non-NULL offset of `m` in place.
#[inline(never)]
pub fn extend_all(seqs: &PaddedSeqs, m: &mut Wavefront) {
    let (lo, hi, base) = (m.lo, m.hi, m.base);
    if lo > hi {
        return;
    }
    let seqs = seqs.view();
    let cells = &mut m.offs[(lo - base) as usize..=(hi - base) as usize];
    for (k, off) in (lo..).zip(cells.iter_mut()) {
        let o = *off;
        if o != OFFSET_NULL {
            *off = o + seqs.run_length(o - k, o);
        }
    }
}

/// Like [`extend_all`], returning the largest antidiagonal (`2 * offset - k`, at
/// least 0) reached, which BiWFA uses to tell when the two directions may meet.
#[inline(never)]
pub fn extend_all_max(seqs: &PaddedSeqs, m: &mut Wavefront) -> i32 {
    let (lo, hi, base) = (m.lo, m.hi, m.base);
    if lo > hi {
        return 0;
    }
    let mut max_ak = 0;
    let seqs = seqs.view();
    let cells = &mut m.offs[(lo - base) as usize..=(hi - base) as usize];
    for (k, off) in (lo..).zip(cells.iter_mut()) {
        let o = *off;
        if o != OFFSET_NULL {
            let e = o + seqs.run_length(o - k, o);
            *off = e;
            max_ak = max_ak.max(2 * e - k);
        }
    }
    max_ak
}

/// A client's match function (`match_funct(v, h, arguments)`): non-zero when pattern
/// position `v` matches text position `h`. It is also what stops a run at the ends.
pub type MatchFn = dyn Fn(i32, i32) -> bool + Send + Sync;

/// Extension with a custom match function (`wavefront_extend_matches_custom`): every
/// diagonal in ascending k; with `ends_free`, stops at the first that may end the
/// alignment and returns it.
pub fn extend_custom(
    f: &MatchFn,
    m: &mut Wavefront,
    ends_free: Option<(i32, i32, i32, i32)>,
) -> Option<(i32, i32)> {
    for k in m.lo..=m.hi {
        let mut o = m.get(k);
        if o == OFFSET_NULL {
            continue;
        }
        while f(o - k, o) {
            o += 1;
        }
        m.set(k, o);
        if let Some((plen, tlen, pattern_end_free, text_end_free)) = ends_free {
            let (h, v) = (o, o - k);
            if (h >= tlen && plen - v <= pattern_end_free)
                || (v >= plen && tlen - h <= text_end_free)
            {
                return Some((k, o));
            }
        }
    }
    None
}

/// Ends-free variant: extends in ascending k and stops at the first diagonal that may
/// end the alignment, returning `(k, offset)` of that diagonal.
pub fn extend_endsfree(
    seqs: &PaddedSeqs,
    m: &mut Wavefront,
    plen: i32,
    tlen: i32,
    pattern_end_free: i32,
    text_end_free: i32,
) -> Option<(i32, i32)> {
    let (lo, hi) = (m.lo, m.hi);
    for k in lo..=hi {
        let o = m.get(k);
        if o == OFFSET_NULL {
            continue;
        }
        let o = o + seqs.run_length(o - k, o);
        m.set(k, o);
        let (h, v) = (o, o - k);
        if h >= tlen && plen - v <= pattern_end_free {
            return Some((k, o));
        }
        if v >= plen && tlen - h <= text_end_free {
            return Some((k, o));
        }
    }
    None
}

/// Extends one offset on diagonal `k`, as the wavefront extension did (the
/// med/low backtrace rebuilds offsets with it).
pub fn extend_one(seqs: &PaddedSeqs, f: Option<&MatchFn>, k: i32, offset: i32) -> i32 {
    match f {
        Some(f) => {
            let mut o = offset;
            while f(o - k, o) {
                o += 1;
            }
            o
        }
        None => offset + seqs.run_length(offset - k, offset),
    }
}
