// Wavefront alignment on the GPU, equal pair for pair to src/wfa/cpu.rs.
//
// seqshim_wfa_align: a pool of workers (one per block) takes pairs from an
// atomic counter; the block's threads share the diagonals of each wavefront,
// with a barrier where one phase of a score step reads what another wrote.
// Reductions over a wavefront (its live range, the wf-adaptive and edit
// cut-offs) fold in registers and across each warp, then take one shared
// atomic per warp. A block of one warp (pairs up to a few kbp) is compiled
// apart (ONE_WARP): warp syncs for barriers, warp reductions for atomics.
// The kernel is issue-bound, so the per-step bookkeeping that every warp
// repeats is kept lean: ring slots are stepped, not divided, the null
// scores between multiples of the penalties' gcd are stepped over in a
// tight loop, and cells are addressed by 32-bit index. src/wfa/gpu/model.rs
// has this kernel's recurrences, range bookkeeping, cut-offs and backtrace
// codes in Rust and is tested against the CPU aligner; it runs the threads
// one after the other, so it does not check the barriers, the warp
// reductions, the gcd shortcut for null steps or the extension of each M
// cell by the thread that computed it. Keep the two in step.
//
// Per worker: a ring of the last `scope` wavefronts (M, I, D offsets), in
// shared memory when the launch gives it room, else in the worker's global
// slice; for full alignment also a 4-bit backtrace code per computed cell
// and a per-score table locating them. Codes: bits 0-1 the source the CPU
// backtrace picks in M (0 none, 1 mismatch, 2 insertion, 3 deletion; among
// equal offsets mismatch, then deletion, then insertion), bit 2 insertion
// extends, bit 3 deletion extends (extension wins ties). After the end is
// found thread 0 walks the codes back to score 0, writing one tag per X/I/D
// operation, then replays the walk (re-extending it to recover the matches)
// into run-length operations; the host only expands those, and replays the
// tags itself where the runs had no room.
#include "common.cuh"

#define WFA_NULL (-1073741824)
#define WFA_M 0
#define WFA_I 1
#define WFA_D 2
#define WFA_INDEL 0
#define WFA_EDIT 1
#define WFA_LINEAR 2
#define WFA_AFFINE 3
#define WFA_TAG_X 1
#define WFA_TAG_I_OPEN 2
#define WFA_TAG_I_EXT 3
#define WFA_TAG_D_OPEN 4
#define WFA_TAG_D_EXT 5
#define WFA_BIG 0x7fffffff
#define WFA_SMALL (-0x7fffffff - 1)

// Host twin: `Params::to_le_bytes` in src/wfa/gpu/plan.rs.
struct WfaParams {
    i32 metric, mismatch, open, extension, scope, ends_free;
    i32 pattern_begin_free, text_begin_free, pattern_end_free, text_end_free;
    i32 wide_start, wfadaptive, min_wavefront_length, max_distance_threshold;
    i32 steps_between_cutoffs, full;
};

// Host twin: `WfaPair` in src/wfa/gpu/runner.rs (40 bytes, little-endian),
// with the same offsets asserted below.
struct WfaPair {
    u64 pattern;  // byte offset of u32 words, 16 bases each, plus one spare
    u64 text;
    u64 result;   // byte offset of i32[8]: status, score, k, offset, n_path, path_at,
                  // runs_at, n_runs (-1: not replayed); status 1 done, 0 given
                  // up, 2 out of worker memory
    i32 plen, tlen;
    i32 max_score;  // give up at this score (upstream's wavefront table size)
    i32 path_cap;   // most path tags the pair may take in the path area
};
static_assert(sizeof(WfaPair) == 40, "WfaPair size");
static_assert(SEQSHIM_OFFSETOF(WfaPair, pattern) == 0, "WfaPair::pattern");
static_assert(SEQSHIM_OFFSETOF(WfaPair, text) == 8, "WfaPair::text");
static_assert(SEQSHIM_OFFSETOF(WfaPair, result) == 16, "WfaPair::result");
static_assert(SEQSHIM_OFFSETOF(WfaPair, plen) == 24, "WfaPair::plen");
static_assert(SEQSHIM_OFFSETOF(WfaPair, tlen) == 28, "WfaPair::tlen");
static_assert(SEQSHIM_OFFSETOF(WfaPair, max_score) == 32, "WfaPair::max_score");
static_assert(SEQSHIM_OFFSETOF(WfaPair, path_cap) == 36, "WfaPair::path_cap");

// Full alignment: the path tags of all pairs share one area, each pair
// taking room for its longest possible walk from a bump counter, so that
// the used part is one range (with a slot of path_cap bytes per pair, a
// 1 kbp launch copied 34 MB for paths that hold a few dozen tags each). The
// host copies it back only when a walk is left for it to replay.
struct WfaPaths {
    unsigned char* area;
    u32* used;
    u64 bytes;
};

// Full alignment: each pair's operations as runs (`count << 2 | code`,
// codes M, X, I, D; last first), taken from one area by a bump counter
// (words), `2 * tags + 5` words a pair at most (host twin: `replay::max_runs`).
struct WfaRuns {
    u32* area;
    u32* used;
    u64 words;
};

struct WfaShared {
    i32 pair;
    i32 end_k;
    i32 first[3];
    i32 last[3];
    i32 adapt_min;  // wf-adaptive: least distance to the end
    i32 prune_min;  // edit prune: least distance to the end
    i32 cut_first;
    i32 cut_last;
};

__device__ __forceinline__ u32 wfa_load16(const u32* __restrict__ w, int pos) {
    return __funnelshift_r(w[pos >> 4], w[(pos >> 4) + 1], (pos & 15) * 2);
}

__device__ __forceinline__ int wfa_lcp(const u32* __restrict__ P, int plen,
                                       const u32* __restrict__ T, int tlen, int v, int h) {
    const int limit = min(plen - v, tlen - h);
    int n = 0;
    while (n < limit) {
        const u32 x = wfa_load16(P, v + n) ^ wfa_load16(T, h + n);
        if (x != 0) {
            n += (__ffs(x) - 1) >> 1;
            return min(n, limit);
        }
        n += 16;
    }
    return max(limit, 0);
}

// Cell `k` of an M wavefront extended along its matches from offset `o`;
// folds `k` into `end_k` when the alignment can end there.
__device__ __forceinline__ int wfa_extend(const WfaParams& p, const u32* __restrict__ P, int plen,
                                          const u32* __restrict__ T, int tlen, int k, int o,
                                          int* end_k) {
    o += wfa_lcp(P, plen, T, tlen, o - k, o);
    bool ends;
    if (p.ends_free) {
        const int h = o, v = o - k;
        ends = (h >= tlen && plen - v <= p.pattern_end_free) ||
               (v >= plen && tlen - h <= p.text_end_free);
    } else {
        ends = k == tlen - plen && o >= tlen;
    }
    if (ends) atomicMin(end_k, k);
    return o;
}

__device__ __forceinline__ bool wfa_inside(int k, int o, int plen, int tlen) {
    return (u32)o <= (u32)tlen && (u32)(o - k) <= (u32)plen;
}

// The last `scope` wavefronts, slot s % scope holding score s. Slots are
// stepped along with the score (no division in the loop): `back` is the
// slot `d` scores before `slot`, for 0 <= d < scope.
struct WfaRing {
    i32* cells;
    // Per wavefront (slot * 3 + component): present, lo, hi. In dynamic
    // shared memory sized by the launch's scope (host twin: `spans_bytes`
    // in src/wfa/gpu/runner.rs). A static array for the largest scope took
    // 2.3 KB a block; with 32 one-warp blocks per SM (1 kbp pairs) the
    // driver then carved 132 KB of shared memory out of L1, 64 KB now
    // (ncu, 1 kbp 5 % launches: L1 hit rate 53 -> 66 %).
    i32* spans;
    WfaShared* sh;
    int width, shift, scope;

    __device__ __forceinline__ i32& present(int m) const { return spans[3 * m]; }
    __device__ __forceinline__ i32& lo(int m) const { return spans[3 * m + 1]; }
    __device__ __forceinline__ i32& hi(int m) const { return spans[3 * m + 2]; }

    __device__ __forceinline__ int back(int slot, int d) const {
        const int t = slot - d;
        return t < 0 ? t + scope : t;
    }
    // Index in `cells` of diagonal 0 of component `c` in `slot` (32-bit:
    // the host keeps the ring under 2^31 cells), and its address.
    __device__ __forceinline__ int index0(int c, int slot) const {
        return (slot * 3 + c) * width + shift;
    }
    __device__ __forceinline__ i32* at0(int c, int slot) const { return cells + index0(c, slot); }
};

// Clamps the present gap wavefronts (I, D) of `slot` to [lo, hi], M's
// range after a cut-off call (upstream equates them to M).
__device__ __forceinline__ void wfa_clamp_gaps(const WfaRing& r, int slot, int lo, int hi) {
    for (int c = WFA_I; c <= WFA_D; ++c) {
        const int m = slot * 3 + c;
        if (r.present(m)) {
            r.lo(m) = max(r.lo(m), lo);
            r.hi(m) = min(r.hi(m), hi);
        }
    }
}

__device__ __forceinline__ int wfa_gcd(int a, int b) {
    while (b != 0) {
        const int t = a % b;
        a = b;
        b = t;
    }
    return a;
}

__device__ __forceinline__ int wfa_dist(int o, int k, int plen, int tlen) {
    return o >= 0 ? max(plen - (o - k), tlen - o) : -WFA_NULL;
}

__device__ __forceinline__ int wfa_best(int k, int o, int plen, int tlen) {
    return abs((plen - (o - k)) - (tlen - o));
}

#define WFA_FULL_MASK 0xffffffffu

__device__ __forceinline__ int wfa_warp_min(int v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_min_sync(WFA_FULL_MASK, v);
#else
    for (int o = 16; o > 0; o >>= 1) v = min(v, __shfl_xor_sync(WFA_FULL_MASK, v, o));
    return v;
#endif
}

__device__ __forceinline__ int wfa_warp_max(int v) {
#if __CUDA_ARCH__ >= 800
    return __reduce_max_sync(WFA_FULL_MASK, v);
#else
    for (int o = 16; o > 0; o >>= 1) v = max(v, __shfl_xor_sync(WFA_FULL_MASK, v, o));
    return v;
#endif
}

// The OR of `word` over the 8 lanes (8j..8j+7) that share a code word.
// Shuffles: a masked __reduce_or_sync measured 5-8 % slower on an H200.
__device__ __forceinline__ u32 wfa_or8(u32 word) {
    word |= __shfl_xor_sync(WFA_FULL_MASK, word, 1);
    word |= __shfl_xor_sync(WFA_FULL_MASK, word, 2);
    word |= __shfl_xor_sync(WFA_FULL_MASK, word, 4);
    return word;
}

// Folds every thread's `v` into `*target`: one shared atomic per warp
// instead of one per thread (atomics on one address serialise). Every
// thread of the block must call it.
__device__ __forceinline__ void wfa_block_min(int* target, int v) {
    v = wfa_warp_min(v);
    if ((threadIdx.x & 31) == 0 && v != WFA_BIG) atomicMin(target, v);
}

__device__ __forceinline__ void wfa_block_max(int* target, int v) {
    v = wfa_warp_max(v);
    if ((threadIdx.x & 31) == 0 && v != WFA_SMALL) atomicMax(target, v);
}

// A block of one warp (the worker size for pairs up to a few kbp) needs no
// barrier and no shared atomics: a warp's lanes see each other's shared
// writes after __syncwarp, and a warp reduction hands every lane the
// result. ncu put a third of the instructions of a 1 kbp launch in the
// per-step bookkeeping that the many-warp protocol costs.
template <bool ONE_WARP>
__device__ __forceinline__ void wfa_sync() {
    if constexpr (ONE_WARP) {
        __syncwarp();
    } else {
        __syncthreads();
    }
}

// The least `v` over the block, folded with `init`. Many warps: through
// `*target` (holding `init`, reset by the caller once every thread has read
// it); ends with a barrier.
template <bool ONE_WARP>
__device__ __forceinline__ int wfa_min_of(int* target, int init, int v) {
    if constexpr (ONE_WARP) {
        return min(init, wfa_warp_min(v));
    } else {
        wfa_block_min(target, v);
        __syncthreads();
        return *target;
    }
}

template <bool ONE_WARP>
__device__ __forceinline__ int wfa_max_of(int* target, int init, int v) {
    if constexpr (ONE_WARP) {
        return max(init, wfa_warp_max(v));
    } else {
        wfa_block_max(target, v);
        __syncthreads();
        return *target;
    }
}

// One input wavefront of a score step, read straight from the ring: whether
// it exists, its range and the address of diagonal 0, looked up once per
// step.
struct WfaSource {
    const i32* cells;
    int at0;  // index of diagonal 0 in `cells`
    int lo, hi;
    bool present;

    __device__ __forceinline__ int get(int k) const {
        return (k >= lo && k <= hi) ? cells[at0 + k] : WFA_NULL;
    }
    // What upstream calls a non-null wavefront.
    __device__ __forceinline__ bool live() const { return present && lo <= hi; }
};

// Component `c` of score `s` (in `slot`); an absent source for s < 0.
__device__ __forceinline__ WfaSource wfa_source(const WfaRing& r, int c, int s, int slot) {
    WfaSource x;
    x.cells = r.cells;
    x.at0 = 0;
    x.lo = 1;
    x.hi = 0;
    x.present = false;
    if (s >= 0) {
        const int m = slot * 3 + c;
        if (r.present(m)) {
            x.present = true;
            x.lo = r.lo(m);
            x.hi = r.hi(m);
            x.at0 = r.index0(c, slot);
        }
    }
    return x;
}

#define WFA_RUN_M 0u
#define WFA_RUN_X 1u
#define WFA_RUN_I 2u
#define WFA_RUN_D 3u

// What a tag does (matrix it leads to, diagonal step, cost); false for a tag
// the metric cannot produce.
__device__ __forceinline__ bool wfa_step(int tag, bool linear, int sx, int so, int se, int* mat,
                                         int* dk, int* ds) {
    switch (tag) {
        case WFA_TAG_X: *mat = WFA_M; *dk = 0; *ds = sx; return true;
        case WFA_TAG_I_OPEN: *mat = WFA_M; *dk = -1; *ds = so; return true;
        case WFA_TAG_I_EXT: *mat = WFA_I; *dk = -1; *ds = se; return !linear;
        case WFA_TAG_D_OPEN: *mat = WFA_M; *dk = 1; *ds = so; return true;
        case WFA_TAG_D_EXT: *mat = WFA_D; *dk = 1; *ds = se; return !linear;
        default: return false;
    }
}

__device__ __forceinline__ int wfa_run_length(const u32* __restrict__ P, int plen,
                                              const u32* __restrict__ T, int tlen, int v, int h) {
    return (v < 0 || h < 0) ? 0 : wfa_lcp(P, plen, T, tlen, v, h);
}

// The walk `path[0..n]` (end first) of a pair that ended at (score, end_k,
// offset) as runs in `out` (room for `out_cap`), last first: the CPU
// backtrace loop run on offsets recovered by re-extending the path forward
// from score 0. `pre` (room for `pre_cap`) holds each state's offset before
// extension. Returns the number of runs, or -1 where the walk does not
// replay (the host then tries, and the CPU path aligns what it refuses).
// Line for line the twin of `replay::runs` in src/wfa/gpu/replay.rs.
__device__ int wfa_replay(const WfaParams& p, const u32* __restrict__ P, int plen,
                          const u32* __restrict__ T, int tlen, int end_score, int end_k,
                          int end_offset, const u8* path, int n, i32* pre, int pre_cap,
                          u32* out, int out_cap) {
    const bool unit = p.metric == WFA_EDIT || p.metric == WFA_INDEL;
    const bool linear = p.metric != WFA_AFFINE;
    const int sx = unit ? 1 : p.mismatch;
    const int so = unit ? 1 : p.open;
    const int se = unit ? 1 : p.extension;
    if (n + 1 > pre_cap) return -1;
    int mat = WFA_M, k = end_k, s = end_score, dk, ds;
    for (int i = 0; i < n; ++i) {
        if (!wfa_step(path[i], linear, sx, so, se, &mat, &dk, &ds)) return -1;
        k += dk;
        s -= ds;
    }
    if (mat != WFA_M || s != 0) return -1;
    int value = max(k, 0);
    pre[n] = value;
    int reach = value + wfa_run_length(P, plen, T, tlen, value - k, value);
    for (int i = n - 1; i >= 0; --i) {
        const int tag = path[i];
        wfa_step(tag, linear, sx, so, se, &mat, &dk, &ds);
        k -= dk;
        value = (tag == WFA_TAG_X || tag == WFA_TAG_I_OPEN || tag == WFA_TAG_I_EXT) ? reach + 1
                                                                                      : reach;
        pre[i] = value;
        int here = WFA_M;
        if (i > 0) wfa_step(path[i - 1], linear, sx, so, se, &here, &dk, &ds);
        reach = here == WFA_M ? value + wfa_run_length(P, plen, T, tlen, value - k, value) : value;
    }
    if (reach != end_offset) return -1;
    int runs = 0;
#define WFA_EMIT(code, count)                                    \
    do {                                                         \
        const int c_ = (count);                                  \
        if (c_ > 0) {                                            \
            if (runs >= out_cap) return -1;                      \
            out[runs++] = ((u32)c_ << 2) | (code);               \
        }                                                        \
    } while (0)
    int offset = end_offset;
    k = end_k;
    int v = offset - k, h = offset;
    if (v < plen) WFA_EMIT(WFA_RUN_D, plen - v);
    if (h < tlen) WFA_EMIT(WFA_RUN_I, tlen - h);
    int i = 0;
    int m = WFA_M;
    s = end_score;
    while (v > 0 && h > 0 && s > 0) {
        if (i == n) return -1;
        if (m == WFA_M) {
            const int source = pre[i];
            WFA_EMIT(WFA_RUN_M, offset - source);
            offset = source;
            v = offset - k;
            h = offset;
            if (v <= 0 || h <= 0) break;
        }
        const int tag = path[i];
        wfa_step(tag, linear, sx, so, se, &mat, &dk, &ds);
        if (tag == WFA_TAG_X) {
            WFA_EMIT(WFA_RUN_X, 1);
            offset -= 1;
        } else if (tag == WFA_TAG_I_OPEN || tag == WFA_TAG_I_EXT) {
            WFA_EMIT(WFA_RUN_I, 1);
            offset -= 1;
        } else {
            WFA_EMIT(WFA_RUN_D, 1);
        }
        k += dk;
        s -= ds;
        m = mat;
        i += 1;
        v = offset - k;
        h = offset;
    }
    if (m == WFA_M) {
        if (v > 0 && h > 0) {
            const int c = min(v, h);
            WFA_EMIT(WFA_RUN_M, c);
            v -= c;
            h -= c;
        }
        WFA_EMIT(WFA_RUN_D, v);
        WFA_EMIT(WFA_RUN_I, h);
    }
#undef WFA_EMIT
    return runs;
}

// One pair; every thread of the block calls it, control flow is uniform.
//
// Barriers (wfa_sync: one for a one-warp block): a step does not open with
// one, so the rule is that nothing a thread reads after a step's last
// barrier is written by the next step before that step's first barrier
// (the edit prune's sample, read from the wavefront the next step extends,
// has its own barrier for this). Shared values (the many-warp reductions'
// targets) are reset by thread 0 right after their last reader has passed a
// barrier, so a step does not open with a reset and the two barriers it
// would need; end_k is reset once per pair, and the pair ends when it
// changes.
template <bool ONE_WARP>
__device__ void wfa_align_pair(const WfaParams& p, unsigned char* base, const WfaPair& d,
                               WfaRing& r, int4* __restrict__ table, u32* __restrict__ codes,
                               int max_scores, long long code_budget, const WfaPaths& paths,
                               const WfaRuns& runs) {
    WfaShared* sh = r.sh;
    const int tid = threadIdx.x;
    const int nt = ONE_WARP ? 32 : blockDim.x;
    const int nt_log2 = ONE_WARP ? 5 : __ffs(nt) - 1;  // blocks are a power of two
    const int plen = d.plen, tlen = d.tlen;
    const u32* __restrict__ P = (const u32*)(base + d.pattern);
    const u32* __restrict__ T = (const u32*)(base + d.text);
    i32* result = (i32*)(base + d.result);
    const bool full = p.full != 0;
    const int scope = p.scope;
    const bool affine = p.metric == WFA_AFFINE;
    const bool unit = p.metric == WFA_EDIT || p.metric == WFA_INDEL;
    r.width = plen + tlen + 4;
    r.shift = plen + 1;
    r.scope = scope;

    // Score 0.
    const int lo0 = p.wide_start ? -p.pattern_begin_free : 0;
    const int hi0 = p.wide_start ? p.text_begin_free : 0;
    {
        i32* m0 = r.at0(WFA_M, 0);
        for (int k = lo0 + tid; k <= hi0; k += nt) {
            int v;
            if (k == 0) v = 0;
            else if (p.wide_start) v = k > 0 ? k : 0;  // (wide_start implies ends-free)
            else v = WFA_NULL;
            m0[k] = v;
        }
    }
    for (int i = tid; i < scope * 3; i += nt) {
        r.present(i) = (i == WFA_M) ? 1 : 0;
        r.lo(i) = (i == WFA_M) ? lo0 : 0;
        r.hi(i) = (i == WFA_M) ? hi0 : 0;
    }
    if (tid == 0) {
        sh->end_k = WFA_BIG;
        sh->adapt_min = max(plen, tlen);
        sh->prune_min = WFA_BIG;
        sh->cut_first = WFA_BIG;
        sh->cut_last = WFA_SMALL;
        for (int c = 0; c < 3; ++c) {
            sh->first[c] = WFA_BIG;
            sh->last[c] = WFA_SMALL;
        }
    }
    wfa_sync<ONE_WARP>();

    // Every wavefront lies on a multiple of the penalties' gcd (score 0
    // does, and each recurrence adds a penalty): the scores in between are
    // null steps known in advance, taken in a tight loop that reads nothing
    // from the ring. With (x, o+e, e) = (4, 8, 2) that is every other score.
    // The model takes the general null path; same outcome.
    const int stride =
        unit ? 1 : max(wfa_gcd(wfa_gcd(p.mismatch, p.open), affine ? p.extension : 0), 1);
    int phase = 0;  // score % stride

    // A cell of M is extended by the thread that computes it, right away
    // (its offset is in a register, not read back in a loop of its own),
    // except where the edit prune needs the offsets before extension (it
    // runs between computing a wavefront and extending it). Score 0 and,
    // without fusion, every score are extended at the top of their step.
    // The extension of a cell depends on that cell alone, and the end, the
    // wf-adaptive cut and the next step still see the extended wavefront.
    const bool fused = !(p.metric == WFA_EDIT && !p.ends_free);
    int steps_wait = p.steps_between_cutoffs;
    int null_steps = 0;
    long long code_used = 0;
    int score = 0;
    int cur = 0;  // the slot of `score`
    bool done = false;  // uniform
    int short_of_memory = 0;  // uniform: the worker's slice was too small
    int end_k = 0;
    for (;;) {
        // ---- extend `score`
        const int mi = cur * 3 + WFA_M;
        const bool present = r.present(mi) != 0;
        const int lo = r.lo(mi), hi = r.hi(mi);
        i32* const m_cells = r.at0(WFA_M, cur);
        if (!present) {
            if (null_steps > scope) break;  // unfeasible: the CPU path decides
        } else {
            if (score == 0 || !fused) {
                for (int k = lo + tid; k <= hi; k += nt) {
                    const int o = m_cells[k];
                    if (o != WFA_NULL) m_cells[k] = wfa_extend(p, P, plen, T, tlen, k, o, &sh->end_k);
                }
                wfa_sync<ONE_WARP>();
            }
            if (sh->end_k != WFA_BIG) {
                end_k = sh->end_k;
                done = true;
                break;
            }
            if (p.wfadaptive && lo <= hi) {
                steps_wait -= 1;
                if (steps_wait <= 0 && hi - lo + 1 >= p.min_wavefront_length) {
                    int mine = WFA_BIG;
                    for (int k = lo + tid; k <= hi; k += nt)
                        mine = min(mine, wfa_dist(m_cells[k], k, plen, tlen));
                    const int min_d = wfa_min_of<ONE_WARP>(&sh->adapt_min, max(plen, tlen), mine);
                    const int thr = p.max_distance_threshold;
                    const int alignment_k = tlen - plen;
                    const int top = min(alignment_k, hi);
                    mine = WFA_BIG;
                    for (int k = lo + tid; k < top; k += nt) {
                        if (wfa_dist(m_cells[k], k, plen, tlen) - min_d <= thr)
                            mine = min(mine, k);
                    }
                    const int new_lo =
                        min(wfa_min_of<ONE_WARP>(&sh->cut_first, WFA_BIG, mine), max(lo, top));
                    const int bottom = max(alignment_k, new_lo);
                    mine = WFA_SMALL;
                    for (int k = bottom + 1 + tid; k <= hi; k += nt) {
                        if (wfa_dist(m_cells[k], k, plen, tlen) - min_d <= thr)
                            mine = max(mine, k);
                    }
                    const int new_hi = max(wfa_max_of<ONE_WARP>(&sh->cut_last, WFA_SMALL, mine),
                                           bottom < hi ? bottom : hi);
                    wfa_sync<ONE_WARP>();
                    if (tid == 0) {
                        r.lo(mi) = new_lo;
                        r.hi(mi) = new_hi;
                        if (affine) wfa_clamp_gaps(r, cur, new_lo, new_hi);
                        sh->adapt_min = max(plen, tlen);
                        sh->cut_first = WFA_BIG;
                        sh->cut_last = WFA_SMALL;
                    }
                    steps_wait = p.steps_between_cutoffs;
                    wfa_sync<ONE_WARP>();
                } else if (affine) {
                    // Upstream clamps I and D to M's range on every cut-off
                    // call, also when M is left whole (between cut-off steps
                    // or below the minimum length): M is trimmed on its own,
                    // so its range can be narrower than theirs, and the cells
                    // it drops from them are gone for the later scores (a
                    // gap opened past M's end must not be extended).
                    if (tid == 0) wfa_clamp_gaps(r, cur, lo, hi);
                    wfa_sync<ONE_WARP>();
                }
            }
        }
        // ---- compute `score + 1`
        score += 1;
        if (score >= d.max_score) break;
        if (full && score >= max_scores) {
            short_of_memory = 1;
            break;
        }
        int out = cur + 1 == scope ? 0 : cur + 1;
        cur = out;
        phase = phase + 1 == stride ? 0 : phase + 1;
        if (phase != 0) {
            // Null steps up to the next multiple of the stride: each marks
            // its slot empty and makes the checks the loop's top and the
            // score step make for an absent wavefront.
            bool stop = false;
            for (;;) {
                null_steps += 1;
                if (tid < 3) r.present(out * 3 + tid) = 0;
                if (null_steps > scope) {
                    stop = true;  // unfeasible: the CPU path decides
                    break;
                }
                score += 1;
                if (score >= d.max_score) {
                    stop = true;
                    break;
                }
                if (full && score >= max_scores) {
                    short_of_memory = 1;
                    stop = true;
                    break;
                }
                out = cur + 1 == scope ? 0 : cur + 1;
                cur = out;
                phase = phase + 1 == stride ? 0 : phase + 1;
                if (phase == 0) break;
            }
            // The slots marked above are read as sources after this.
            wfa_sync<ONE_WARP>();
            if (stop) break;
        }
        WfaSource s_x, s_o, s_ie, s_de;
        int clo, chi;
        bool has_i = false, has_d = false;
        if (unit) {
            // Score - 1 always has an M wavefront (a step without one ends
            // the pair below).
            s_o = wfa_source(r, WFA_M, score - 1, r.back(out, 1));
            s_x = p.metric == WFA_INDEL ? wfa_source(r, WFA_M, -1, 0) : s_o;
            s_ie = wfa_source(r, WFA_I, -1, 0);
            s_de = s_ie;
            clo = s_o.lo - 1;
            chi = s_o.hi + 1;
        } else {
            s_x = wfa_source(r, WFA_M, score - p.mismatch, r.back(out, p.mismatch));
            s_o = wfa_source(r, WFA_M, score - p.open, r.back(out, p.open));
            const int se = affine ? score - p.extension : -1;
            const int e_slot = r.back(out, p.extension);
            s_ie = wfa_source(r, WFA_I, se, e_slot);
            s_de = wfa_source(r, WFA_D, se, e_slot);
            const bool misms = s_x.live();
            const bool open = s_o.live();
            const bool ie = s_ie.live();
            const bool de = s_de.live();
            if (!(misms || open || ie || de)) {
                // No thread reads this slot's flags before the barrier.
                null_steps += 1;
                if (tid < 3) r.present(out * 3 + tid) = 0;
                wfa_sync<ONE_WARP>();
                continue;
            }
            null_steps = 0;
            has_i = affine && (open || ie);
            has_d = affine && (open || de);
            clo = 1;
            chi = -1;
            if (misms) {
                clo = s_x.lo;
                chi = s_x.hi;
            }
            if (open) {
                clo = min(clo, s_o.lo - 1);
                chi = max(chi, s_o.hi + 1);
            } else {
                clo = min(clo, 0);
                chi = max(chi, 0);
            }
            if (affine) {
                clo = min(clo, ie ? s_ie.lo + 1 : 2);
                chi = max(chi, ie ? s_ie.hi + 1 : 0);
                clo = min(clo, de ? s_de.lo - 1 : 0);
                chi = max(chi, de ? s_de.hi - 1 : -2);
            }
        }
        // Codes are 4-bit cells, 8 per word; each score starts a new word, so
        // lanes 8j..8j+7 of a warp hold the cells of one word and write it
        // whole (no clearing, no atomics).
        const long long code_base = (code_used + 7) & ~7LL;
        u32* step_codes = codes;
        if (full) {
            const long long n = chi >= clo ? (long long)(chi - clo + 1) : 0;
            if (code_base + n > code_budget) {
                short_of_memory = 1;
                break;
            }
            code_used = code_base + n;
            step_codes = codes + (code_base >> 3);
            if (tid == 0) table[score] = make_int4(clo, chi, (int)(code_base & 0x7fffffff), (int)(code_base >> 31));
        }
        // Cells by 32-bit index from `r.cells` (one multiply-add an
        // address, where 64-bit pointers took five instructions a store).
        i32* const cells = r.cells;
        const int out_m = r.index0(WFA_M, out);
        const int out_i = r.index0(WFA_I, out);
        const int out_d = r.index0(WFA_D, out);
        int first_m = WFA_BIG, last_m = WFA_SMALL;
        int first_i = WFA_BIG, last_i = WFA_SMALL;
        int first_d = WFA_BIG, last_d = WFA_SMALL;
        const int rounds = chi >= clo ? ((chi - clo) >> nt_log2) + 1 : 0;  // uniform
        for (int round = 0; round < rounds; ++round) {
            const int k = clo + round * nt + tid;
            const bool valid = k <= chi;
            u32 code = 0;
            if (valid) {
                int vx, vi, vd;
                bool iext = false, dext = false;
                if (affine) {
                    const int io = s_o.get(k - 1);
                    const int ie = s_ie.get(k - 1);
                    const int dop = s_o.get(k + 1);
                    const int de = s_de.get(k + 1);
                    vx = s_x.get(k) + 1;
                    vi = max(io, ie) + 1;
                    vd = max(dop, de);
                    iext = ie >= io;
                    dext = de >= dop;
                } else {
                    vx = s_x.get(k) + 1;
                    vi = s_o.get(k - 1) + 1;
                    vd = s_o.get(k + 1);
                }
                const int m = max(vd, max(vx, vi));
                const u32 src = m < 0 ? 0u : (vx == m ? 1u : (vd == m ? 3u : 2u));
                const bool m_in = wfa_inside(k, m, plen, tlen);
                int m_cell = WFA_NULL;
                if (m_in) {
                    m_cell = fused ? wfa_extend(p, P, plen, T, tlen, k, m, &sh->end_k) : m;
                    first_m = min(first_m, k);
                    last_m = max(last_m, k);
                }
                cells[out_m + k] = m_cell;
                if (has_i) {
                    cells[out_i + k] = vi;
                    if (wfa_inside(k, vi, plen, tlen)) {
                        first_i = min(first_i, k);
                        last_i = max(last_i, k);
                    }
                }
                if (has_d) {
                    cells[out_d + k] = vd;
                    if (wfa_inside(k, vd, plen, tlen)) {
                        first_d = min(first_d, k);
                        last_d = max(last_d, k);
                    }
                }
                code = src | (iext ? 4u : 0u) | (dext ? 8u : 0u);
            }
            if (full) {
                // round * nt is a multiple of 8, so cell c & 7 == tid & 7.
                const u32 word = wfa_or8(code << (4 * (tid & 7)));
                if ((tid & 7) == 0 && valid) step_codes[(round * nt + tid) >> 3] = word;
            }
        }
        if constexpr (ONE_WARP) {
            // Every lane has the ranges; lane c writes component c's.
            first_m = wfa_warp_min(first_m);
            last_m = wfa_warp_max(last_m);
            if (has_i) {
                first_i = wfa_warp_min(first_i);
                last_i = wfa_warp_max(last_i);
            }
            if (has_d) {
                first_d = wfa_warp_min(first_d);
                last_d = wfa_warp_max(last_d);
            }
            if (tid < 3) {
                const int first = tid == WFA_M ? first_m : tid == WFA_I ? first_i : first_d;
                const int last = tid == WFA_M ? last_m : tid == WFA_I ? last_i : last_d;
                const bool has = tid == WFA_M || (tid == WFA_I ? has_i : has_d);
                const int m = out * 3 + tid;
                r.present(m) = has ? 1 : 0;
                r.lo(m) = last == WFA_SMALL ? clo : first;
                r.hi(m) = last == WFA_SMALL ? clo - 1 : last;
            }
            __syncwarp();
        } else {
            wfa_block_min(&sh->first[WFA_M], first_m);
            wfa_block_max(&sh->last[WFA_M], last_m);
            if (has_i) {
                wfa_block_min(&sh->first[WFA_I], first_i);
                wfa_block_max(&sh->last[WFA_I], last_i);
            }
            if (has_d) {
                wfa_block_min(&sh->first[WFA_D], first_d);
                wfa_block_max(&sh->last[WFA_D], last_d);
            }
            __syncthreads();
            if (tid == 0) {
                const bool has[3] = {true, has_i, has_d};
                for (int c = 0; c < 3; ++c) {
                    const int m = out * 3 + c;
                    r.present(m) = has[c] ? 1 : 0;
                    if (sh->last[c] == WFA_SMALL) {
                        r.lo(m) = clo;
                        r.hi(m) = clo - 1;
                    } else {
                        r.lo(m) = sh->first[c];
                        r.hi(m) = sh->last[c];
                    }
                    sh->first[c] = WFA_BIG;
                    sh->last[c] = WFA_SMALL;
                }
            }
            __syncthreads();
        }
        if (unit) {
            const int mo = out * 3 + WFA_M;
            const int elo = r.lo(mo), ehi = r.hi(mo);
            if (elo > ehi) break;  // stuck: the CPU path never succeeds
            if (p.metric == WFA_EDIT && !p.ends_free && ehi - elo + 1 >= 1000) {
                // wavefront_compute_edit_exact_prune.
                const i32* m_out = cells + out_m;
                const int sample_k = elo + (ehi - elo) / 2;
                const int sample = m_out[sample_k];
                bool prune = sample >= 0;
                if (prune) {
                    const int smax = max(plen - (sample - sample_k), tlen - sample);
                    const int ol = m_out[elo];
                    const int oh = m_out[ehi];
                    prune = !(wfa_best(elo, ol, plen, tlen) <= smax && wfa_best(ehi, oh, plen, tlen) <= smax);
                }
                // The next step extends these cells in place: every thread
                // has read its sample first (else a warp could decide
                // differently and the barriers below would pair up wrongly).
                wfa_sync<ONE_WARP>();
                if (prune) {
                    int mine = WFA_BIG;
                    for (int k = elo + tid; k <= ehi; k += nt) {
                        const int o = m_out[k];
                        if (o >= 0) mine = min(mine, max(plen - (o - k), tlen - o));
                    }
                    const int smw = wfa_min_of<ONE_WARP>(&sh->prune_min, WFA_BIG, mine);
                    mine = WFA_BIG;
                    for (int k = elo + tid; k <= ehi; k += nt) {
                        if (wfa_best(k, m_out[k], plen, tlen) <= smw)
                            mine = min(mine, k);
                    }
                    const int new_lo =
                        min(wfa_min_of<ONE_WARP>(&sh->cut_first, WFA_BIG, mine), ehi + 1);
                    int last = WFA_SMALL;
                    for (int k = new_lo + 1 + tid; k <= ehi; k += nt) {
                        if (wfa_best(k, m_out[k], plen, tlen) <= smw)
                            last = max(last, k);
                    }
                    const int new_hi = max(wfa_max_of<ONE_WARP>(&sh->cut_last, WFA_SMALL, last),
                                           min(ehi, new_lo));
                    wfa_sync<ONE_WARP>();
                    if (tid == 0) {
                        r.lo(mo) = new_lo;
                        r.hi(mo) = new_hi;
                        sh->prune_min = WFA_BIG;
                        sh->cut_first = WFA_BIG;
                        sh->cut_last = WFA_SMALL;
                    }
                    wfa_sync<ONE_WARP>();
                }
            }
        }
    }

    if (tid != 0) return;
    if (!done) {
        result[0] = short_of_memory ? 2 : 0;
        return;
    }
    const int offset = r.at0(WFA_M, cur)[end_k];
    int n_path = 0;
    bool ok = true;
    int path_at = 0;
    const u8* path = nullptr;
    if (full) {
        const int sx = unit ? 1 : p.mismatch;
        const int so = unit ? 1 : p.open;
        const int se = unit ? 1 : p.extension;
        // Each tag takes at least the least penalty off the score.
        const int least = min(sx, min(so, se));
        const int room = least > 0 ? min(score / least + 1, d.path_cap) : d.path_cap;
        const u32 at = atomicAdd(paths.used, (u32)room);
        if ((u64)at + (u64)room > paths.bytes) {
            result[0] = 0;  // no room (the host sizes the area so that it never happens)
            return;
        }
        path_at = (int)at;
        u8* tags = paths.area + at;
        path = tags;
        int mat = WFA_M, s = score, k = end_k;
        while (s > 0) {
            const int4 t = table[s];
            if (k < t.x || k > t.y) { ok = false; break; }
            const long long cb = (long long)t.z | ((long long)t.w << 31);
            const long long c = cb + (k - t.x);
            const u32 code = (codes[c >> 3] >> (4 * (c & 7))) & 15u;
            int tag;
            if (mat == WFA_M) {
                const u32 src = code & 3u;
                if (src == 0) { ok = false; break; }
                tag = src == 1 ? WFA_TAG_X
                    : src == 2 ? ((code & 4u) ? WFA_TAG_I_EXT : WFA_TAG_I_OPEN)
                               : ((code & 8u) ? WFA_TAG_D_EXT : WFA_TAG_D_OPEN);
            } else if (mat == WFA_I) {
                tag = (code & 4u) ? WFA_TAG_I_EXT : WFA_TAG_I_OPEN;
            } else {
                tag = (code & 8u) ? WFA_TAG_D_EXT : WFA_TAG_D_OPEN;
            }
            if (n_path >= room) { ok = false; break; }
            tags[n_path++] = (u8)tag;
            switch (tag) {
                case WFA_TAG_X: s -= sx; mat = WFA_M; break;
                case WFA_TAG_I_OPEN: s -= so; k -= 1; mat = WFA_M; break;
                case WFA_TAG_I_EXT: s -= se; k -= 1; mat = WFA_I; break;
                case WFA_TAG_D_OPEN: s -= so; k += 1; mat = WFA_M; break;
                default: s -= se; k += 1; mat = WFA_D; break;
            }
        }
        if (mat != WFA_M || s != 0) ok = false;
    }
    // The walk as runs, into the area's room for it; the score table, read
    // no more, holds the replay's offsets.
    int runs_at = 0, n_runs = -1;
    if (full && ok && runs.words > 0) {
        const u32 room = 2u * (u32)n_path + 5u;
        const u32 at = atomicAdd(runs.used, room);
        if ((u64)at + room <= runs.words) {
            runs_at = (int)at;
            n_runs = wfa_replay(p, P, plen, T, tlen, score, end_k, offset, path, n_path,
                                (i32*)table, 4 * max_scores, runs.area + at, (int)room);
        }
    }
    result[6] = runs_at;
    result[7] = n_runs;
    result[1] = score;
    result[2] = end_k;
    result[3] = offset;
    result[4] = n_path;
    result[5] = path_at;
    result[0] = ok ? 1 : 0;
}

// base: the arena. params: WfaParams. counter: u32[3], zero at launch: the
// next pair, the path area's bytes taken, the runs area's words taken.
// pairs: WfaPair[n_pairs]. path_area: path_bytes for the path tags.
// runs_area: runs_words for the operations (none: the host replays).
// workers: worker_stride bytes per block: the ring (unless it lives in
// dynamic shared memory), then int4[max_scores], then codes.
// Dynamic shared memory: the ring's spans, then the ring if it is there.
// At most 256 threads a block; four such blocks per SM cap the registers at
// 64 a thread: unbounded, the kernel took 107, which left the SMs a quarter
// full, and on an H200 it ran 20-30 % slower. (ncu still counts local
// memory spill requests under the cap: 1.46 M in a 1 kbp launch.)
extern "C" __global__ void __launch_bounds__(256, 4)
seqshim_wfa_align(unsigned char* base, const WfaParams* __restrict__ params, u32* counter,
                  const WfaPair* __restrict__ pairs, u32 n_pairs, unsigned char* workers,
                  u64 worker_stride, u64 ring_bytes, int ring_in_shared, int max_scores,
                  u64 code_budget, unsigned char* path_area, u64 path_bytes, u32* runs_area,
                  u64 runs_words) {
    extern __shared__ i32 wfa_dynamic[];
    __shared__ WfaShared sh;
    const WfaParams p = *params;
    unsigned char* mine = workers + worker_stride * blockIdx.x;
    WfaRing r;
    // The spans, then (when it is there) the ring, 16-byte aligned.
    r.spans = wfa_dynamic;
    r.cells = ring_in_shared ? wfa_dynamic + ((9 * p.scope + 3) & ~3) : (i32*)mine;
    r.sh = &sh;
    int4* table = (int4*)(mine + (ring_in_shared ? 0 : ring_bytes));
    u32* codes = (u32*)(table + max_scores);
    WfaPaths paths;
    paths.area = path_area;
    paths.used = counter + 1;
    paths.bytes = path_bytes;
    WfaRuns runs;
    runs.area = runs_area;
    runs.used = counter + 2;
    runs.words = runs_words;
    for (;;) {
        if (threadIdx.x == 0) sh.pair = (int)atomicAdd(counter, 1u);
        __syncthreads();
        const int pi = sh.pair;
        __syncthreads();
        if (pi >= (int)n_pairs) return;
        const WfaPair d = pairs[pi];
        if (blockDim.x == 32) {
            wfa_align_pair<true>(p, base, d, r, table, codes, max_scores, (long long)code_budget,
                                 paths, runs);
        } else {
            wfa_align_pair<false>(p, base, d, r, table, codes, max_scores, (long long)code_budget,
                                  paths, runs);
        }
        __syncthreads();
    }
}
