//! Turns the kernel's backtrace walk into the CPU path's CIGAR.
//!
//! The kernel returns where the alignment ended and, per X/I/D operation from
//! the end towards the start, which source the CPU backtrace would pick there
//! (the choice depends only on the wavefront cells, so the kernel makes it in
//! the forward pass with the backtrace's own preference among equal offsets).
//! Matches are not stored: walking the path forward from score 0 and
//! re-extending each M cell recovers every offset, and with those offsets the
//! CPU backtrace loop below runs as it does on the CPU, stopping and padding
//! the ends exactly where it does.
//!
//! The kernel runs this replay itself (`wfa_replay` in kernels/wfa.cu, a
//! line-for-line twin of [`runs`]) and returns run-length operations, which
//! the host keeps as they are ([`Operations`]); the host replays a path only
//! where the kernel had no room to. Keep the two in step.

use super::plan::{METRIC_EDIT, METRIC_INDEL, Params, TAG_D_EXT, TAG_I_EXT, TAG_I_OPEN, TAG_X};
use crate::wfa::Operations;

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mat {
    M,
    I,
    D,
}

// Run codes: a run is `count << 2 | code`, the code indexing
// `operations::RUN_LETTERS`.
const RUN_M: u32 = 0;
const RUN_X: u32 = 1;
const RUN_I: u32 = 2;
const RUN_D: u32 = 3;

/// Most runs a walk of `tags` tags replays to: the two end paddings, an M
/// run and an operation per tag, and the last M, D and I runs.
pub fn max_runs(tags: usize) -> usize {
    2 * tags + 5
}

/// A pair as the kernel read it: 2-bit codes, packed as `plan::pack_le`
/// writes them (the staging copy the host still holds after a launch).
/// Replaying from it reads a quarter of the bytes of the sequences and
/// compares 28 bases at a time.
#[derive(Clone, Copy)]
pub struct PackedPair<'a> {
    pub pattern: &'a [u8],
    pub pattern_len: i32,
    pub text: &'a [u8],
    pub text_len: i32,
}

/// Bases compared per step: what a 64-bit load at any base position holds.
const STEP: i32 = 28;

/// The 2-bit codes from base `pos` on, first base in the low bits (`STEP`
/// bases or more are valid; bytes past the buffer read as zero).
#[inline]
fn codes_at(packed: &[u8], pos: i32) -> u64 {
    let at = (pos / 4) as usize;
    let word = match packed.get(at..at + 8) {
        Some(bytes) => u64::from_le_bytes(bytes.try_into().expect("8 bytes")),
        None => {
            let mut bytes = [0u8; 8];
            let have = packed.len().saturating_sub(at).min(8);
            bytes[..have].copy_from_slice(&packed[at..at + have]);
            u64::from_le_bytes(bytes)
        }
    };
    word >> (2 * (pos % 4))
}

/// Length of the common run of `pattern[v..]` and `text[h..]`.
fn run_length(pair: &PackedPair<'_>, v: i32, h: i32) -> i32 {
    if v < 0 || h < 0 {
        return 0;
    }
    let limit = (pair.pattern_len - v).min(pair.text_len - h);
    let mut n = 0;
    while n < limit {
        let differ = (codes_at(pair.pattern, v + n) ^ codes_at(pair.text, h + n))
            & ((1u64 << (2 * STEP)) - 1);
        if differ != 0 {
            return (n + differ.trailing_zeros() as i32 / 2).min(limit);
        }
        n += STEP;
    }
    limit.max(0)
}

/// What a tag does: the matrix it leads to, its step in diagonals and its
/// cost; `None` for a tag the metric cannot produce.
#[inline]
fn step(tag: u8, linear: bool, (dx, dopen, dext): (i32, i32, i32)) -> Option<(Mat, i32, i32)> {
    match tag {
        TAG_X => Some((Mat::M, 0, dx)),
        TAG_I_OPEN => Some((Mat::M, -1, dopen)),
        TAG_I_EXT if !linear => Some((Mat::I, -1, dext)),
        super::plan::TAG_D_OPEN => Some((Mat::M, 1, dopen)),
        TAG_D_EXT if !linear => Some((Mat::D, 1, dext)),
        _ => None,
    }
}

/// Working memory of [`operations`], kept per thread so that a pair costs
/// one allocation of exactly its runs.
#[derive(Default)]
struct Scratch {
    pre: Vec<i32>,
    runs: Vec<u32>,
}

thread_local! {
    static SCRATCH: std::cell::RefCell<Scratch> = std::cell::RefCell::default();
}

/// The CIGAR operations of a pair the kernel finished, or `None` when the
/// walk does not replay to the end cell the kernel reported (the pair then
/// goes to the CPU path).
pub fn operations(
    p: &Params,
    pair: &PackedPair<'_>,
    end_score: i32,
    end_k: i32,
    end_offset: i32,
    path: &[u8],
) -> Option<Operations> {
    SCRATCH.with(|scratch| {
        let scratch = &mut *scratch.borrow_mut();
        runs(
            p,
            pair,
            (end_score, end_k, end_offset),
            path,
            &mut scratch.pre,
            &mut scratch.runs,
        )?;
        let most = (pair.pattern_len + pair.text_len).max(0) as usize;
        // Last run first, as the kernel writes them.
        let n = scratch.runs.len();
        Operations::from_shared_runs(&std::sync::Arc::from(&scratch.runs[..]), 0..n, most)
    })
}

/// Fills `out` with the pair's operations as runs (`count << 2 | code`,
/// codes indexing `operations::RUN_LETTERS`), last first, at most [`max_runs`] of them.
/// `pre` is working memory: the offset of each state of the path before its
/// extension (the kernel keeps it in its score table, which the walk no
/// longer needs).
pub fn runs(
    p: &Params,
    pair: &PackedPair<'_>,
    (end_score, end_k, end_offset): (i32, i32, i32),
    path: &[u8],
    pre: &mut Vec<i32>,
    out: &mut Vec<u32>,
) -> Option<()> {
    let (plen, tlen) = (pair.pattern_len, pair.text_len);
    let n = path.len();
    let linear = p.metric != super::plan::METRIC_AFFINE;
    let costs = if p.metric == METRIC_EDIT || p.metric == METRIC_INDEL {
        (1, 1, 1)
    } else {
        (p.mismatch, p.open, p.extension)
    };
    // State i is the path after its first i tags (state 0 the end cell).
    // Where the walk arrives, and that it arrives at score 0 in M.
    let (mut m, mut k, mut s) = (Mat::M, end_k, end_score);
    for &tag in path {
        let (next, dk, ds) = step(tag, linear, costs)?;
        m = next;
        k += dk;
        s -= ds;
    }
    if m != Mat::M || s != 0 {
        return None;
    }
    // Offsets forward from score 0: `pre[i]` is state i's offset before
    // extension (the backtrace's source offset in M), `reach` what the
    // state before it reads.
    pre.clear();
    pre.resize(n + 1, 0);
    let mut value = k.max(0);
    pre[n] = value;
    let mut reach = value + run_length(pair, value - k, value);
    for i in (0..n).rev() {
        let tag = path[i];
        k -= step(tag, linear, costs)?.1;
        value = if matches!(tag, TAG_X | TAG_I_OPEN | TAG_I_EXT) {
            reach + 1
        } else {
            reach
        };
        pre[i] = value;
        let mat = if i == 0 {
            Mat::M
        } else {
            step(path[i - 1], linear, costs)?.0
        };
        reach = if mat == Mat::M {
            value + run_length(pair, value - k, value)
        } else {
            value
        };
    }
    if reach != end_offset {
        return None;
    }
    // The CPU backtrace loop (`backtrace::affine` / `backtrace::linear`).
    out.clear();
    let mut emit = |code: u32, count: i32| {
        if count > 0 {
            out.push((count as u32) << 2 | code);
        }
    };
    let mut offset = end_offset;
    let mut k = end_k;
    let mut v = offset - k;
    let mut h = offset;
    if v < plen {
        emit(RUN_D, plen - v);
    }
    if h < tlen {
        emit(RUN_I, tlen - h);
    }
    let (mut i, mut m, mut s) = (0, Mat::M, end_score);
    while v > 0 && h > 0 && s > 0 {
        if i == n {
            return None;
        }
        if m == Mat::M {
            let source = pre[i];
            emit(RUN_M, offset - source);
            offset = source;
            v = offset - k;
            h = offset;
            if v <= 0 || h <= 0 {
                break;
            }
        }
        let tag = path[i];
        let (next, dk, ds) = step(tag, linear, costs)?;
        match tag {
            TAG_X => {
                emit(RUN_X, 1);
                offset -= 1;
            }
            TAG_I_OPEN | TAG_I_EXT => {
                emit(RUN_I, 1);
                offset -= 1;
            }
            _ => emit(RUN_D, 1),
        }
        k += dk;
        s -= ds;
        m = next;
        i += 1;
        v = offset - k;
        h = offset;
    }
    if m == Mat::M {
        if v > 0 && h > 0 {
            let n = v.min(h);
            emit(RUN_M, n);
            v -= n;
            h -= n;
        }
        emit(RUN_D, v);
        emit(RUN_I, h);
    }
    Some(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::wfa::gpu::plan;

    /// The packed run length equals a byte-by-byte count at every pair of
    /// positions, whatever bytes follow each packed sequence (the staging
    /// buffer holds the next sequence or old padding there).
    #[test]
    fn packed_runs_equal_byte_runs() {
        let mut state = 0x9e37_79b9_7f4a_7c15u64;
        let mut next = move || {
            state ^= state << 13;
            state ^= state >> 7;
            state ^= state << 17;
            state
        };
        for round in 0..200 {
            let plen = (next() % 90) as usize;
            let pattern: Vec<u8> = (0..plen).map(|_| b"ACGT"[(next() % 4) as usize]).collect();
            // Mostly the pattern, so that long runs occur.
            let mut text: Vec<u8> = pattern
                .iter()
                .map(|&b| {
                    if next() % 20 == 0 {
                        b"ACGT"[(next() % 4) as usize]
                    } else {
                        b
                    }
                })
                .collect();
            text.truncate((next() % 90) as usize);
            let packed = |seq: &[u8], garbage: usize, fill: u8| {
                let mut out = vec![fill; 4 * plan::packed_words(seq.len()) + garbage];
                plan::pack_le(seq, &mut out);
                out
            };
            let fill = (next() & 0xff) as u8;
            let (pp, tp) = (
                packed(&pattern, round % 13, fill),
                packed(&text, round % 7, !fill),
            );
            let pair = PackedPair {
                pattern: &pp,
                pattern_len: pattern.len() as i32,
                text: &tp,
                text_len: text.len() as i32,
            };
            for v in -1..=pattern.len() as i32 {
                for h in -1..=text.len() as i32 {
                    let want = if v < 0 || h < 0 {
                        0
                    } else {
                        pattern[v as usize..]
                            .iter()
                            .zip(&text[h as usize..])
                            .take_while(|(a, b)| a == b)
                            .count() as i32
                    };
                    assert_eq!(run_length(&pair, v, h), want, "round {round}, v {v}, h {h}");
                }
            }
        }
    }
}
