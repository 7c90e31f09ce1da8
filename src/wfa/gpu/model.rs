//! The kernel's algorithm in plain Rust: the recurrences, range bookkeeping,
//! cut-offs and backtrace codes of `seqshim_wfa_align` in kernels/wfa.cu,
//! with the block's threads run one after the other. It does not model the
//! kernel's barriers, warp reductions, stepped ring slots or its shortcut
//! for scores off the penalties' gcd (those take the general null path
//! here, with the same outcome).
//! Tests hold it against the CPU aligner, which is how the design is checked
//! on machines without a GPU.

use super::plan::{
    METRIC_AFFINE, METRIC_EDIT, METRIC_INDEL, Params, TAG_D_EXT, TAG_D_OPEN, TAG_I_EXT, TAG_I_OPEN,
    TAG_X,
};

const NULL: i32 = i32::MIN / 2;
const C_M: usize = 0;
const C_I: usize = 1;
const C_D: usize = 2;

/// Per-pair bounds the host sets (the kernel's preallocated memory).
pub struct Bounds {
    pub max_score: i32,
    pub code_budget: usize,
    pub max_scores: usize,
    pub path_cap: usize,
}

#[derive(Debug, PartialEq, Eq)]
pub enum Outcome {
    Done {
        score: i32,
        k: i32,
        offset: i32,
        path: Vec<u8>,
    },
    Rescue,
}

/// Longest common prefix of `pattern[v..]` and `text[h..]` over packed words.
pub fn lcp(pattern: &[u32], plen: i32, text: &[u32], tlen: i32, v: i32, h: i32) -> i32 {
    let limit = (plen - v).min(tlen - h);
    let mut n = 0;
    while n < limit {
        let a = load16(pattern, (v + n) as usize);
        let b = load16(text, (h + n) as usize);
        let x = a ^ b;
        if x != 0 {
            n += (x.trailing_zeros() / 2) as i32;
            return n.min(limit);
        }
        n += 16;
    }
    limit.max(0)
}

#[inline]
fn load16(words: &[u32], pos: usize) -> u32 {
    let (w, s) = (pos / 16, 2 * (pos % 16) as u32);
    let lo = words[w];
    let hi = words[w + 1];
    // __funnelshift_r(lo, hi, s)
    (((u64::from(hi) << 32) | u64::from(lo)) >> s) as u32
}

#[derive(Clone, Copy, Default)]
struct Meta {
    present: bool,
    lo: i32,
    hi: i32,
}

struct Ring {
    cells: Vec<i32>,
    meta: Vec<[Meta; 3]>,
    width: usize,
    shift: i32,
    scope: i32,
}

impl Ring {
    fn slot(&self, s: i32) -> usize {
        (s % self.scope) as usize
    }
    fn at(&self, c: usize, s: i32, k: i32) -> usize {
        (self.slot(s) * 3 + c) * self.width + (k + self.shift) as usize
    }
    fn get(&self, c: usize, s: i32, k: i32) -> i32 {
        if s < 0 {
            return NULL;
        }
        let m = self.meta[self.slot(s)][c];
        if !m.present || k < m.lo || k > m.hi {
            NULL
        } else {
            self.cells[self.at(c, s, k)]
        }
    }
    fn live(&self, c: usize, s: i32) -> bool {
        if s < 0 {
            return false;
        }
        let m = self.meta[self.slot(s)][c];
        m.present && m.lo <= m.hi
    }
    fn range(&self, c: usize, s: i32, live: bool) -> (i32, i32) {
        if live {
            let m = self.meta[self.slot(s)][c];
            (m.lo, m.hi)
        } else {
            (1, -1)
        }
    }
    fn set(&mut self, c: usize, s: i32, k: i32, v: i32) {
        let i = self.at(c, s, k);
        self.cells[i] = v;
    }
}

#[inline]
fn inside(k: i32, o: i32, plen: i32, tlen: i32) -> bool {
    (o as u32) <= tlen as u32 && (o.wrapping_sub(k) as u32) <= plen as u32
}

#[inline]
fn clip(k: i32, o: i32, plen: i32, tlen: i32) -> i32 {
    if inside(k, o, plen, tlen) { o } else { NULL }
}

/// Trims `[lo, hi]` of component `c` at score `s` to its inside cells.
fn trim(r: &mut Ring, c: usize, s: i32, plen: i32, tlen: i32) {
    let slot = r.slot(s);
    let Meta { lo, hi, .. } = r.meta[slot][c];
    let (mut first, mut last) = (i32::MAX, i32::MIN);
    for k in lo..=hi {
        if inside(k, r.cells[r.at(c, s, k)], plen, tlen) {
            first = first.min(k);
            last = last.max(k);
        }
    }
    let m = &mut r.meta[slot][c];
    if last == i32::MIN {
        m.hi = lo - 1;
    } else {
        m.lo = first;
        m.hi = last;
    }
}

/// Aligns one pair as the kernel does.
pub fn align(
    p: &Params,
    pattern: &[u32],
    plen: i32,
    text: &[u32],
    tlen: i32,
    b: &Bounds,
) -> Outcome {
    let scope = p.scope;
    let width = (plen + tlen + 4) as usize;
    let mut r = Ring {
        cells: vec![NULL; scope as usize * 3 * width],
        meta: vec![[Meta::default(); 3]; scope as usize],
        width,
        shift: plen + 1,
        scope,
    };
    let full = p.full != 0;
    // Backtrace codes: per score (lo, hi, base) and one byte per diagonal.
    let mut table: Vec<(i32, i32, usize)> = vec![(1, 0, 0); b.max_scores.max(1)];
    let mut codes: Vec<u32> = Vec::new();
    let mut code_used = 0usize;

    // Score 0.
    let (lo0, hi0) = if p.wide_start != 0 {
        (-p.pattern_begin_free, p.text_begin_free)
    } else {
        (0, 0)
    };
    for k in lo0..=hi0 {
        let v = if k == 0 {
            0
        } else if p.wide_start != 0 {
            if k > 0 { k } else { 0 }
        } else {
            NULL
        };
        r.set(C_M, 0, k, v);
    }
    r.meta[0] = [
        Meta {
            present: true,
            lo: lo0,
            hi: hi0,
        },
        Meta::default(),
        Meta::default(),
    ];
    let mut steps_wait = p.steps_between_cutoffs;
    let mut null_steps = 0;
    let mut score = 0;
    loop {
        // ---- extend score `score`
        let slot = r.slot(score);
        let mm = r.meta[slot][C_M];
        if !mm.present {
            if null_steps > scope {
                return Outcome::Rescue; // unfeasible on the CPU
            }
        } else {
            let mut end_k = i32::MAX;
            for k in mm.lo..=mm.hi {
                let o = r.get(C_M, score, k);
                if o == NULL {
                    continue;
                }
                let o = o + lcp(pattern, plen, text, tlen, o - k, o);
                r.set(C_M, score, k, o);
                let ends = if p.ends_free != 0 {
                    let (h, v) = (o, o - k);
                    (h >= tlen && plen - v <= p.pattern_end_free)
                        || (v >= plen && tlen - h <= p.text_end_free)
                } else {
                    k == tlen - plen && o >= tlen
                };
                if ends {
                    end_k = end_k.min(k);
                }
            }
            if end_k != i32::MAX {
                let offset = r.get(C_M, score, end_k);
                if !full {
                    return Outcome::Done {
                        score,
                        k: end_k,
                        offset,
                        path: Vec::new(),
                    };
                }
                return walk(p, &table, &codes, score, end_k, offset, b);
            }
            if p.wfadaptive != 0 && mm.lo <= mm.hi {
                steps_wait -= 1;
                if steps_wait <= 0 && mm.hi - mm.lo + 1 >= p.min_wavefront_length {
                    let d = |r: &Ring, k: i32| {
                        let o = r.get(C_M, score, k);
                        if o >= 0 {
                            (plen - (o - k)).max(tlen - o)
                        } else {
                            -NULL
                        }
                    };
                    let mut min_d = plen.max(tlen);
                    for k in mm.lo..=mm.hi {
                        min_d = min_d.min(d(&r, k));
                    }
                    let thr = p.max_distance_threshold;
                    let alignment_k = tlen - plen;
                    let top = alignment_k.min(mm.hi);
                    let mut new_lo = mm.lo.max(top);
                    for k in mm.lo..top {
                        if d(&r, k) - min_d <= thr {
                            new_lo = new_lo.min(k);
                        }
                    }
                    let bottom = alignment_k.max(new_lo);
                    let mut new_hi = if bottom < mm.hi { bottom } else { mm.hi };
                    for k in bottom + 1..=mm.hi {
                        if d(&r, k) - min_d <= thr {
                            new_hi = new_hi.max(k);
                        }
                    }
                    r.meta[slot][C_M].lo = new_lo;
                    r.meta[slot][C_M].hi = new_hi;
                    steps_wait = p.steps_between_cutoffs;
                }
                // Upstream clamps I and D to M's range on every cut-off
                // call, also when M was left whole (between cut-off steps or
                // below the minimum length): M is trimmed on its own, so its
                // range can be narrower than theirs, and the cells it drops
                // from them are gone for the later scores.
                if p.metric == METRIC_AFFINE {
                    let Meta { lo, hi, .. } = r.meta[slot][C_M];
                    for c in [C_I, C_D] {
                        let m = &mut r.meta[slot][c];
                        if m.present {
                            m.lo = m.lo.max(lo);
                            m.hi = m.hi.min(hi);
                        }
                    }
                }
            }
        }
        // ---- compute score + 1
        score += 1;
        if score >= b.max_score || (full && score as usize >= b.max_scores) {
            return Outcome::Rescue;
        }
        let out = r.slot(score);
        let (lo, hi);
        if p.metric == METRIC_EDIT || p.metric == METRIC_INDEL {
            let prev = r.meta[r.slot(score - 1)][C_M];
            lo = prev.lo - 1;
            hi = prev.hi + 1;
        } else {
            let misms = r.live(C_M, score - p.mismatch);
            let open = r.live(C_M, score - p.open);
            let affine = p.metric == METRIC_AFFINE;
            let ie = affine && r.live(C_I, score - p.extension);
            let de = affine && r.live(C_D, score - p.extension);
            if !(misms || open || ie || de) {
                null_steps += 1;
                r.meta[out] = [Meta::default(); 3];
                continue;
            }
            null_steps = 0;
            let (mut l, mut h) = r.range(C_M, score - p.mismatch, misms);
            let add = |l: &mut i32, h: &mut i32, (a, b): (i32, i32), dl: i32, dh: i32| {
                *l = (*l).min(a + dl);
                *h = (*h).max(b + dh);
            };
            add(&mut l, &mut h, r.range(C_M, score - p.open, open), -1, 1);
            if affine {
                add(&mut l, &mut h, r.range(C_I, score - p.extension, ie), 1, 1);
                add(
                    &mut l,
                    &mut h,
                    r.range(C_D, score - p.extension, de),
                    -1,
                    -1,
                );
            }
            lo = l;
            hi = h;
        }
        // 4-bit cells, 8 per word, each score from a fresh word.
        let base = code_used.next_multiple_of(8);
        if full {
            let n = (hi - lo + 1).max(0) as usize;
            if base + n > b.code_budget {
                return Outcome::Rescue;
            }
            code_used = base + n;
            codes.resize(code_used.div_ceil(8), 0);
            for w in &mut codes[base / 8..] {
                *w = 0;
            }
            table[score as usize] = (lo, hi, base);
        }
        // Which gap components this score stores.
        let (has_i, has_d) = if p.metric == METRIC_AFFINE {
            let open = r.live(C_M, score - p.open);
            (
                open || r.live(C_I, score - p.extension),
                open || r.live(C_D, score - p.extension),
            )
        } else {
            (false, false)
        };
        let mut outs: Vec<(i32, i32, i32, u8)> = Vec::with_capacity((hi - lo + 1).max(0) as usize);
        for k in lo..=hi {
            let (m, ins, del, code) = cell(p, &r, score, k, plen, tlen);
            outs.push((m, ins, del, code));
        }
        // Writes after all reads: the output slot may be an input's old slot
        // only for scores the recurrences no longer read.
        for (j, k) in (lo..=hi).enumerate() {
            let (m, ins, del, code) = outs[j];
            r.set(C_M, score, k, m);
            if has_i {
                r.set(C_I, score, k, ins);
            }
            if has_d {
                r.set(C_D, score, k, del);
            }
            if full {
                let c = base + j;
                codes[c / 8] |= u32::from(code) << (4 * (c % 8));
            }
        }
        r.meta[out] = [
            Meta {
                present: true,
                lo,
                hi,
            },
            Meta {
                present: has_i,
                lo,
                hi,
            },
            Meta {
                present: has_d,
                lo,
                hi,
            },
        ];
        trim(&mut r, C_M, score, plen, tlen);
        if has_i {
            trim(&mut r, C_I, score, plen, tlen);
        }
        if has_d {
            trim(&mut r, C_D, score, plen, tlen);
        }
        if p.metric == METRIC_EDIT || p.metric == METRIC_INDEL {
            let m = r.meta[out][C_M];
            if m.lo > m.hi {
                return Outcome::Rescue; // stuck: the CPU never succeeds
            }
            if p.metric == METRIC_EDIT && p.ends_free == 0 {
                edit_prune(&mut r, score, plen, tlen);
            }
        }
    }
}

/// One output diagonal: M (clipped), I, D and the backtrace code.
fn cell(p: &Params, r: &Ring, s: i32, k: i32, plen: i32, tlen: i32) -> (i32, i32, i32, u8) {
    let (vx, vi, vd, iext, dext);
    if p.metric == METRIC_AFFINE {
        let misms = r.get(C_M, s - p.mismatch, k);
        let io = r.get(C_M, s - p.open, k - 1);
        let ie = r.get(C_I, s - p.extension, k - 1);
        let dop = r.get(C_M, s - p.open, k + 1);
        let de = r.get(C_D, s - p.extension, k + 1);
        vx = misms + 1;
        vi = io.max(ie) + 1;
        vd = dop.max(de);
        iext = ie >= io;
        dext = de >= dop;
    } else {
        let (sx, so) = if p.metric == METRIC_EDIT || p.metric == METRIC_INDEL {
            (s - 1, s - 1)
        } else {
            (s - p.mismatch, s - p.open)
        };
        vx = if p.metric == METRIC_INDEL {
            NULL
        } else {
            r.get(C_M, sx, k) + 1
        };
        vi = r.get(C_M, so, k - 1) + 1;
        vd = r.get(C_M, so, k + 1);
        iext = false;
        dext = false;
    }
    let m = vd.max(vx.max(vi));
    // The CPU backtrace's preference among equal offsets: X, then D, then I.
    let src: u8 = if m < 0 {
        0
    } else if vx == m {
        1
    } else if vd == m {
        3
    } else {
        2
    };
    let code = src | (u8::from(iext) << 2) | (u8::from(dext) << 3);
    (clip(k, m, plen, tlen), vi, vd, code)
}

/// `wavefront_compute_edit_exact_prune`.
fn edit_prune(r: &mut Ring, s: i32, plen: i32, tlen: i32) {
    let slot = r.slot(s);
    let Meta { lo, hi, .. } = r.meta[slot][C_M];
    if hi - lo + 1 < 1000 {
        return;
    }
    let best = |k: i32, o: i32| ((plen - (o - k)) - (tlen - o)).abs();
    let worst = |k: i32, o: i32| (plen - (o - k)).max(tlen - o);
    let g = |r: &Ring, k: i32| r.cells[r.at(C_M, s, k)];
    let sample_k = lo + (hi - lo) / 2;
    let sample = g(r, sample_k);
    if sample < 0 {
        return;
    }
    let smax = worst(sample_k, sample);
    if best(lo, g(r, lo)) <= smax && best(hi, g(r, hi)) <= smax {
        return;
    }
    let mut smw = i32::MAX;
    for k in lo..=hi {
        let o = g(r, k);
        if o >= 0 {
            smw = smw.min(worst(k, o));
        }
    }
    let mut new_lo = hi + 1;
    for k in lo..=hi {
        if best(k, g(r, k)) <= smw {
            new_lo = new_lo.min(k);
        }
    }
    let mut new_hi = hi.min(new_lo);
    for k in new_lo + 1..=hi {
        if best(k, g(r, k)) <= smw {
            new_hi = new_hi.max(k);
        }
    }
    r.meta[slot][C_M].lo = new_lo;
    r.meta[slot][C_M].hi = new_hi;
}

/// The backtrace walk over the codes: one tag per X/I/D operation from the
/// end towards score 0.
fn walk(
    p: &Params,
    table: &[(i32, i32, usize)],
    codes: &[u32],
    end_score: i32,
    end_k: i32,
    offset: i32,
    b: &Bounds,
) -> Outcome {
    let mut path = Vec::new();
    let (mut mat, mut s, mut k) = (C_M, end_score, end_k);
    let affine = p.metric == METRIC_AFFINE;
    let (sx, so, se) = if p.metric == METRIC_EDIT || p.metric == METRIC_INDEL {
        (1, 1, 1)
    } else {
        (p.mismatch, p.open, p.extension)
    };
    // The room the kernel takes for the path in its path area: each tag
    // takes at least the least penalty off the score.
    let least = sx.min(so).min(se);
    let room = if least > 0 {
        ((end_score / least + 1) as usize).min(b.path_cap)
    } else {
        b.path_cap
    };
    while s > 0 {
        let (lo, hi, base) = table[s as usize];
        if k < lo || k > hi {
            return Outcome::Rescue;
        }
        let c = base + (k - lo) as usize;
        let code = ((codes[c / 8] >> (4 * (c % 8))) & 15) as u8;
        let tag = match mat {
            C_M => match code & 3 {
                1 => TAG_X,
                2 if code & 4 != 0 => TAG_I_EXT,
                2 => TAG_I_OPEN,
                3 if code & 8 != 0 => TAG_D_EXT,
                3 => TAG_D_OPEN,
                _ => return Outcome::Rescue,
            },
            C_I => {
                if code & 4 != 0 {
                    TAG_I_EXT
                } else {
                    TAG_I_OPEN
                }
            }
            _ => {
                if code & 8 != 0 {
                    TAG_D_EXT
                } else {
                    TAG_D_OPEN
                }
            }
        };
        if path.len() >= room {
            return Outcome::Rescue;
        }
        path.push(tag);
        match tag {
            TAG_X => {
                s -= sx;
                mat = C_M;
            }
            TAG_I_OPEN => {
                s -= so;
                k -= 1;
                mat = C_M;
            }
            TAG_I_EXT => {
                s -= se;
                k -= 1;
                mat = C_I;
            }
            TAG_D_OPEN => {
                s -= so;
                k += 1;
                mat = C_M;
            }
            _ => {
                s -= se;
                k += 1;
                mat = C_D;
            }
        }
        let _ = affine;
    }
    if mat != C_M || s != 0 {
        return Outcome::Rescue;
    }
    Outcome::Done {
        score: end_score,
        k: end_k,
        offset,
        path,
    }
}
