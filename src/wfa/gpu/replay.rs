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

use super::plan::{METRIC_EDIT, METRIC_INDEL, Params, TAG_D_EXT, TAG_I_EXT, TAG_I_OPEN, TAG_X};

#[derive(Clone, Copy, PartialEq, Eq)]
enum Mat {
    M,
    I,
    D,
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

/// One state of the path: the matrix, diagonal and score it is in, and (for
/// M) its offset before and after extension.
#[derive(Clone, Copy)]
struct State {
    mat: Mat,
    k: i32,
    score: i32,
    pre: i32,
    out: i32,
}

/// Working memory of [`operations`], kept per thread: a batch replays
/// thousands of pairs on each pool thread, so the path states and the
/// operations (reserved at their largest possible size) are built in
/// buffers that stay warm, and a pair costs one allocation of exactly its
/// operations.
#[derive(Default)]
struct Scratch {
    states: Vec<State>,
    ops: Vec<u8>,
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
) -> Option<Vec<u8>> {
    SCRATCH.with(|scratch| {
        let scratch = &mut *scratch.borrow_mut();
        scratch.states.clear();
        scratch.ops.clear();
        replay(p, pair, (end_score, end_k, end_offset), path, scratch)?;
        // Built end first: the exact-size result, in order.
        Some(scratch.ops.iter().rev().copied().collect())
    })
}

/// Fills `scratch.ops` with the operations, last first.
fn replay(
    p: &Params,
    pair: &PackedPair<'_>,
    (end_score, end_k, end_offset): (i32, i32, i32),
    path: &[u8],
    scratch: &mut Scratch,
) -> Option<()> {
    let (plen, tlen) = (pair.pattern_len, pair.text_len);
    let n = path.len();
    let linear = p.metric != super::plan::METRIC_AFFINE;
    let (dx, dopen, dext) = if p.metric == METRIC_EDIT || p.metric == METRIC_INDEL {
        (1, 1, 1)
    } else {
        (p.mismatch, p.open, p.extension)
    };
    // States along the path, end first.
    let states = &mut scratch.states;
    states.reserve(n + 1);
    let (mut m, mut k, mut s) = (Mat::M, end_k, end_score);
    for &tag in path {
        states.push(State {
            mat: m,
            k,
            score: s,
            pre: 0,
            out: 0,
        });
        let (next, dk, ds) = match tag {
            TAG_X => (Mat::M, 0, dx),
            TAG_I_OPEN => (Mat::M, -1, dopen),
            TAG_I_EXT if !linear => (Mat::I, -1, dext),
            super::plan::TAG_D_OPEN => (Mat::M, 1, dopen),
            TAG_D_EXT if !linear => (Mat::D, 1, dext),
            _ => return None,
        };
        m = next;
        k += dk;
        s -= ds;
    }
    if m != Mat::M || s != 0 {
        return None;
    }
    // Offsets forward from score 0: `pre` is an M cell before extension (the
    // backtrace's source offset), `out` what later cells read.
    let pre0 = k.max(0);
    states.push(State {
        mat: m,
        k,
        score: s,
        pre: pre0,
        out: pre0 + run_length(pair, pre0 - k, pre0),
    });
    for i in (0..n).rev() {
        let value = match path[i] {
            TAG_X | TAG_I_OPEN | TAG_I_EXT => states[i + 1].out + 1,
            _ => states[i + 1].out,
        };
        let st = &mut states[i];
        st.pre = value;
        st.out = if st.mat == Mat::M {
            value + run_length(pair, value - st.k, value)
        } else {
            value
        };
    }
    if states[0].out != end_offset {
        return None;
    }
    // The CPU backtrace loop (`backtrace::affine` / `backtrace::linear`).
    let ops = &mut scratch.ops;
    ops.reserve((plen + tlen) as usize);
    let push_n = |ops: &mut Vec<u8>, op: u8, n: i32| {
        ops.resize(ops.len() + n.max(0) as usize, op);
    };
    let mut offset = end_offset;
    let mut k = end_k;
    let mut v = offset - k;
    let mut h = offset;
    if v < plen {
        push_n(ops, b'D', plen - v);
    }
    if h < tlen {
        push_n(ops, b'I', tlen - h);
    }
    let mut i = 0;
    let mut m = Mat::M;
    while v > 0 && h > 0 && states[i].score > 0 {
        if i == n {
            return None;
        }
        if m == Mat::M {
            let src = states[i].pre;
            push_n(ops, b'M', offset - src);
            offset = src;
            v = offset - k;
            h = offset;
            if v <= 0 || h <= 0 {
                break;
            }
        }
        match path[i] {
            TAG_X => {
                ops.push(b'X');
                offset -= 1;
            }
            TAG_I_OPEN | TAG_I_EXT => {
                ops.push(b'I');
                k -= 1;
                offset -= 1;
            }
            _ => {
                ops.push(b'D');
                k += 1;
            }
        }
        m = states[i + 1].mat;
        i += 1;
        v = offset - k;
        h = offset;
    }
    if m == Mat::M {
        if v > 0 && h > 0 {
            let n = v.min(h);
            push_n(ops, b'M', n);
            v -= n;
            h -= n;
        }
        push_n(ops, b'D', v);
        push_n(ops, b'I', h);
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
