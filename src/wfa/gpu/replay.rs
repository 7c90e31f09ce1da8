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

/// Length of the common run of `pattern[v..]` and `text[h..]`.
fn run_length(pattern: &[u8], text: &[u8], v: i32, h: i32) -> i32 {
    if v < 0 || h < 0 {
        return 0;
    }
    match (pattern.get(v as usize..), text.get(h as usize..)) {
        (Some(a), Some(b)) => crate::wfa::cpu::common_prefix(a, b) as i32,
        _ => 0,
    }
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
    pattern: &[u8],
    text: &[u8],
    end_score: i32,
    end_k: i32,
    end_offset: i32,
    path: &[u8],
) -> Option<Vec<u8>> {
    SCRATCH.with(|scratch| {
        let scratch = &mut *scratch.borrow_mut();
        scratch.states.clear();
        scratch.ops.clear();
        replay(
            p,
            pattern,
            text,
            (end_score, end_k, end_offset),
            path,
            scratch,
        )?;
        // Built end first: the exact-size result, in order.
        Some(scratch.ops.iter().rev().copied().collect())
    })
}

/// Fills `scratch.ops` with the operations, last first.
fn replay(
    p: &Params,
    pattern: &[u8],
    text: &[u8],
    (end_score, end_k, end_offset): (i32, i32, i32),
    path: &[u8],
    scratch: &mut Scratch,
) -> Option<()> {
    let (plen, tlen) = (pattern.len() as i32, text.len() as i32);
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
        out: pre0 + run_length(pattern, text, pre0 - k, pre0),
    });
    for i in (0..n).rev() {
        let value = match path[i] {
            TAG_X | TAG_I_OPEN | TAG_I_EXT => states[i + 1].out + 1,
            _ => states[i + 1].out,
        };
        let st = &mut states[i];
        st.pre = value;
        st.out = if st.mat == Mat::M {
            value + run_length(pattern, text, value - st.k, value)
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
