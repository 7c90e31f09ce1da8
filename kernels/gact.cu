// Darwin GACT tiles (AlignWithBT) on the GPU, in three kernels.
//   seqshim_gact_fill16: one warp per tile whose values fit 16 bits (the
//     host's `narrow`), two rows per 32-bit register; see gact_fill16.
//   seqshim_gact_fill: the other tiles, one warp per tile. Lane t owns R = ceil(m / 32)
//     consecutive reference rows and sweeps the query columns one step
//     behind lane t - 1 (an anti-diagonal wavefront of row strips): at step
//     s lane t computes column j = s - t + 1 of its rows, having received
//     the row above its strip through a shuffle. Each lane keeps the H, M
//     and D of its rows in registers, so no DP value touches memory. The
//     4-bit direction code of every cell goes to global memory, eight per
//     32-bit word, laid out by (plane, step, lane) so that a warp writes
//     one contiguous run of words per step. The maximum cell (row-major last
//     maximum) is reduced over the warp at the end.
//   seqshim_gact_trace: one thread per tile walks the traceback over those
//     codes and writes the states, so only the states come back to the host.
//
// All follow src/gact/ (kernel.rs, row_ops.rs, traceback.rs): the same
// recurrence (in 32-bit integers with the same finite minus infinity, or in
// 16-bit halves where that provably gives the same comparisons), the same
// state priority M over I over D, the same open-over-extend flags and the
// same traceback guards.
#include "common.cuh"

#define GACT_NEG_INF (-(1 << 30))
// Largest rows per lane: 16 x 32 lanes = 512 rows >= the 511 upstream allows.
#define GACT_MAX_R 16
#define GACT_MAX_LEN 511
#define GACT_WARPS_PER_BLOCK 4
// Words of one params table entry: sub_mat[25], gap_open, gap_extend, spare.
#define GACT_PARAMS_WORDS 28

// Host twin: `GactTile` in src/gact/gpu/layout.rs (56 bytes).
struct GactTile {
    u64 dir;          // byte offset of the tile's direction words
    u32 ref_codes;    // byte offset of m reference codes, in DP order
    u32 query_codes;  // byte offset of n query codes, in DP order
    u32 ops;          // byte offset of the states written by the traceback
    u32 ops_cap;      // room there
    u32 params;       // index into the params table
    i32 m;            // reference length (rows), 1..=511
    i32 n;            // query length (columns), 1..=511
    i32 ref_pos;      // traceback start when !first
    i32 query_pos;
    u32 first;
    i32 early_terminate;
    u32 narrow;       // 1: filled by seqshim_gact_fill16 (its direction layout)
};
static_assert(sizeof(GactTile) == 56, "GactTile size");
static_assert(SEQSHIM_OFFSETOF(GactTile, dir) == 0, "dir");
static_assert(SEQSHIM_OFFSETOF(GactTile, ref_codes) == 8, "ref_codes");
static_assert(SEQSHIM_OFFSETOF(GactTile, query_codes) == 12, "query_codes");
static_assert(SEQSHIM_OFFSETOF(GactTile, ops) == 16, "ops");
static_assert(SEQSHIM_OFFSETOF(GactTile, ops_cap) == 20, "ops_cap");
static_assert(SEQSHIM_OFFSETOF(GactTile, params) == 24, "params");
static_assert(SEQSHIM_OFFSETOF(GactTile, m) == 28, "m");
static_assert(SEQSHIM_OFFSETOF(GactTile, n) == 32, "n");
static_assert(SEQSHIM_OFFSETOF(GactTile, ref_pos) == 36, "ref_pos");
static_assert(SEQSHIM_OFFSETOF(GactTile, query_pos) == 40, "query_pos");
static_assert(SEQSHIM_OFFSETOF(GactTile, first) == 44, "first");
static_assert(SEQSHIM_OFFSETOF(GactTile, early_terminate) == 48, "early_terminate");
static_assert(SEQSHIM_OFFSETOF(GactTile, narrow) == 52, "narrow");

// Host twin: `GactTileOut` in src/gact/gpu/layout.rs (32 bytes).
struct GactTileOut {
    i32 score;        // max H if first, else H at the traceback start
    i32 max_i;        // 1-based maximum cell if first, else 0
    i32 max_j;
    i32 ref_steps;
    i32 query_steps;
    i32 n_ops;
    i32 status;       // GACT_DONE when the states are complete
    i32 spare;
};
static_assert(sizeof(GactTileOut) == 32, "GactTileOut size");
static_assert(SEQSHIM_OFFSETOF(GactTileOut, score) == 0, "score");
static_assert(SEQSHIM_OFFSETOF(GactTileOut, max_i) == 4, "max_i");
static_assert(SEQSHIM_OFFSETOF(GactTileOut, max_j) == 8, "max_j");
static_assert(SEQSHIM_OFFSETOF(GactTileOut, ref_steps) == 12, "ref_steps");
static_assert(SEQSHIM_OFFSETOF(GactTileOut, query_steps) == 16, "query_steps");
static_assert(SEQSHIM_OFFSETOF(GactTileOut, n_ops) == 20, "n_ops");
static_assert(SEQSHIM_OFFSETOF(GactTileOut, status) == 24, "status");
static_assert(SEQSHIM_OFFSETOF(GactTileOut, spare) == 28, "spare");

#define GACT_DONE 1
#define GACT_OPS_OVERFLOW 2

// The wavefront geometry of a tile, shared by both kernels (the host's
// `Geometry` in src/gact/gpu/layout.rs computes the same numbers).
struct GactGeom {
    int r;       // rows per lane
    int lanes;   // lanes owning at least one row
    int steps;   // wavefront steps: n + lanes - 1
    int planes;  // direction words per lane and step: ceil(r / 8)
};

__device__ __forceinline__ GactGeom gact_geom(int m, int n) {
    GactGeom g;
    g.r = (m + 31) / 32;
    g.lanes = (m + g.r - 1) / g.r;
    g.steps = n + g.lanes - 1;
    g.planes = (g.r + 7) / 8;
    return g;
}

// Warp-wide lexicographic maximum of (value, i, j): upstream keeps the
// row-major last maximum, i.e. the largest H, then the largest i, then j.
__device__ __forceinline__ void gact_reduce_best(int& v, int& bi, int& bj) {
    for (int off = 16; off > 0; off >>= 1) {
        int ov = __shfl_xor_sync(0xffffffffu, v, off);
        int oi = __shfl_xor_sync(0xffffffffu, bi, off);
        int oj = __shfl_xor_sync(0xffffffffu, bj, off);
        bool take = ov > v || (ov == v && (oi > bi || (oi == bi && oj > bj)));
        if (take) {
            v = ov;
            bi = oi;
            bj = oj;
        }
    }
}

// The tile's result, written by lane 0 once the warp has agreed on it: a
// first tile reports its best cell, a later one the start cell's score
// (H >= 0 everywhere, and only one lane holds that cell, so a max finds it).
template <bool FIRST>
__device__ __forceinline__ void gact_write_result(GactTileOut* out, int best, int best_i,
                                                  int best_j, int pos, int lane) {
    if (FIRST) {
        gact_reduce_best(best, best_i, best_j);
        if (lane == 0) {
            out->score = best;
            out->max_i = best_i;
            out->max_j = best_j;
        }
    } else {
        for (int off = 16; off > 0; off >>= 1) {
            pos = max(pos, __shfl_xor_sync(0xffffffffu, pos, off));
        }
        if (lane == 0) {
            out->score = pos;
            out->max_i = 0;
            out->max_j = 0;
        }
    }
}

template <bool FIRST>
__device__ __forceinline__ void gact_fill_tile(u8* image, const GactTile& t, const int* sub,
                                               int go, int ge, const u8* q, GactTileOut* out,
                                               int lane) {
    const int m = t.m, n = t.n;
    const GactGeom g = gact_geom(m, n);
    const int row0 = lane * g.r;  // 0-based first row of this lane
    const int rows = min(g.r, max(m - row0, 0));
    const bool owner = lane < g.lanes;

    // Reference codes of this lane's rows, 4 bits each (code 4 pads).
    u32 rc_lo = 0x44444444u, rc_hi = 0x44444444u;
    const u8* ref = image + t.ref_codes;
#pragma unroll
    for (int r = 0; r < GACT_MAX_R; r++) {
        if (r < rows) {
            u32 c = ref[row0 + r];
            if (r < 8) {
                rc_lo = (rc_lo & ~(15u << (4 * r))) | (c << (4 * r));
            } else {
                rc_hi = (rc_hi & ~(15u << (4 * (r - 8)))) | (c << (4 * (r - 8)));
            }
        }
    }

    // H, M, D of column j - 1 for every row of the strip (column 0: H = M
    // = 0, D = -inf).
    int hl[GACT_MAX_R], ml[GACT_MAX_R], dl[GACT_MAX_R];
#pragma unroll
    for (int r = 0; r < GACT_MAX_R; r++) {
        hl[r] = 0;
        ml[r] = 0;
        dl[r] = GACT_NEG_INF;
    }
    // The row above the strip, from lane - 1: column j (recv_*) and H of
    // column j - 1 (recv_h_prev).
    int recv_h = 0, recv_m = 0, recv_i = GACT_NEG_INF, recv_h_prev = 0;
    int best = -1, best_i = 0, best_j = 0;
    int pos = 0;
    // The row of the traceback start inside this strip (0-based), if any.
    const int pos_r = t.ref_pos - 1 - row0;

    u32* dir = (u32*)(image + t.dir);
    for (int s = 0; s < g.steps; s++) {
        const int j = s - lane + 1;
        int up_h, up_m, up_i, diag;
        if (lane == 0) {
            // Row 0: H = M = 0, I = -inf.
            up_h = 0;
            up_m = 0;
            up_i = GACT_NEG_INF;
            diag = 0;
        } else {
            up_h = recv_h;
            up_m = recv_m;
            up_i = recv_i;
            diag = j == 1 ? 0 : recv_h_prev;
        }
        if (owner && j >= 1 && j <= n) {
            const int* srow = sub + 5 * q[j - 1];
            u32 w0 = 0, w1 = 0;
#pragma unroll
            for (int r = 0; r < GACT_MAX_R; r++) {
                if (r >= g.r) break;
                const u32 rc = r < 8 ? (rc_lo >> (4 * r)) & 15u : (rc_hi >> (4 * (r - 8))) & 15u;
                const int mv = diag + srow[rc];
                const int io = up_m + go, ie = up_i + ge;
                const int iv = max(io, ie);
                const int dop = ml[r] + go, de = dl[r] + ge;
                const int dv = max(dop, de);
                // max(M, I, D, 0): one instruction on sm_90 (DPX), emulated
                // with the same integer result before.
                const int hv = __vimax3_s32_relu(mv, iv, dv);
                // State with upstream's priority M over I over D, Z when no
                // candidate is positive; flags: D / I opened here.
                u32 st = hv <= 0 ? 0u : (mv == hv ? 3u : (iv == hv ? 2u : 1u));
                u32 code = st | (dop >= de ? 4u : 0u) | (io >= ie ? 8u : 0u);
                if (r < 8) {
                    w0 |= code << (4 * r);
                } else {
                    w1 |= code << (4 * (r - 8));
                }
                diag = hl[r];
                hl[r] = hv;
                ml[r] = mv;
                dl[r] = dv;
                up_h = hv;
                up_m = mv;
                up_i = iv;
                if (FIRST) {
                    // Within a lane j only grows, so ">= best_i" is the
                    // row-major-last rule.
                    const int i = row0 + r + 1;
                    if (r < rows && (hv > best || (hv == best && i >= best_i))) {
                        best = hv;
                        best_i = i;
                        best_j = j;
                    }
                }
            }
            if (!FIRST && j == t.query_pos) {
                // The traceback start's H, once per lane rather than a test
                // per cell.
#pragma unroll
                for (int r = 0; r < GACT_MAX_R; r++) {
                    if (r == pos_r) pos = hl[r];
                }
            }
            dir[(size_t)s * g.lanes + lane] = w0;
            if (g.planes > 1) {
                dir[((size_t)g.steps + s) * g.lanes + lane] = w1;
            }
        }
        // The strip's last row goes to the lane below for the next step.
        recv_h_prev = recv_h;
        recv_h = __shfl_up_sync(0xffffffffu, up_h, 1);
        recv_m = __shfl_up_sync(0xffffffffu, up_m, 1);
        recv_i = __shfl_up_sync(0xffffffffu, up_i, 1);
    }

    gact_write_result<FIRST>(out, best, best_i, best_j, pos, lane);
}

extern "C" __global__ void __launch_bounds__(32 * GACT_WARPS_PER_BLOCK)
seqshim_gact_fill(u8* image, u32 params_off, u32 desc_off, u32 out_off, u32 n_tiles) {
    __shared__ u8 query_s[GACT_WARPS_PER_BLOCK][GACT_MAX_LEN + 1];
    __shared__ int params_s[GACT_WARPS_PER_BLOCK][GACT_PARAMS_WORDS];
    const int warp = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;
    const u32 tile = blockIdx.x * GACT_WARPS_PER_BLOCK + warp;
    // Whole warps leave together; nothing below synchronises the block.
    if (tile >= n_tiles) return;
    const GactTile t = ((const GactTile*)(image + desc_off))[tile];
    if (t.narrow) return;
    const int* params = (const int*)(image + params_off) + (size_t)t.params * GACT_PARAMS_WORDS;
    if (lane < GACT_PARAMS_WORDS) params_s[warp][lane] = params[lane];
    const u8* query = image + t.query_codes;
    for (int j = lane; j < t.n; j += 32) query_s[warp][j] = query[j];
    __syncwarp();
    GactTileOut* out = (GactTileOut*)(image + out_off) + tile;
    const int go = params_s[warp][25], ge = params_s[warp][26];
    if (t.first) {
        gact_fill_tile<true>(image, t, params_s[warp], go, ge, query_s[warp], out, lane);
    } else {
        gact_fill_tile<false>(image, t, params_s[warp], go, ge, query_s[warp], out, lane);
    }
}

// ---------------------------------------------------------------- 16 bits
// seqshim_gact_fill16 runs the same recurrence on two rows at once, one in
// each 16-bit half of a register. Lane t owns 2 * RH consecutive rows: a
// top strip (rows row0 .. row0 + RH - 1, low halves) and a bottom strip
// (the next RH rows, high halves) that runs one column behind the top, so
// packed row k holds top row k at column jt and bottom row k at column
// jt - 1: a wavefront of 64 strips in which every packed operation does
// two cells. The top strip's first row reads the row above the lane (a
// shuffle, as in seqshim_gact_fill), the bottom strip's first row reads
// the top strip's last row of the step before, in registers.
//
// Values are stored as 16 * v + tag. The tag's bits 3-2 rank the
// candidates of H as upstream's priority does (Z 3 over M 2 over I 1 over
// D 0), bit 1 of an I value says "opened here" and bit 0 of a D value the
// same, the open candidate carrying the flag so that it wins ties as
// upstream's ">=" does. A max of tagged values is then the max of the values
// with upstream's tie rules, so the state and both flags of a cell fall out
// of three maxima and two logic operations: the direction nibble is H's
// tag with the I and D flags (decoded by gact_nibble16). Z is the candidate
// 16 * 0 + 12: it beats every candidate of value <= 0.
//
// The host sends a tile here only when (min(m, n) + 1) * max(s, 0) <= 2000
// and min(s, 0) + gap_open + gap_extend >= -1000 (`narrow` in
// src/gact/gpu/layout.rs). Then every real value v lies in [-1000, 2000]
// and the minus infinity GACT16_NEG_INF = -1024 is only ever added once to
// gap_extend (>= -1000): every stored 16 * v + tag lies in [-32384, 32015],
// so no half overflows, and -1024 + gap_extend stays below every real
// candidate, so every comparison has the 32-bit kernel's outcome.
#define GACT16_MAX_RH 8  // 2 x 8 rows x 32 lanes = 512 rows >= 511
#define GACT16_NEG_INF (-1024)
#define GACT16_CLEAR 0xFFF0FFF0u  // drops the tags of both halves

__device__ __forceinline__ u32 gact_pack2(int v) { return ((u32)v & 0xFFFFu) * 0x10001u; }

// Packed 16-bit arithmetic: single DPX instructions on sm_90; before, the
// SIMD intrinsics compute the same values (no half overflows, see above).
__device__ __forceinline__ u32 gact_add2(u32 a, u32 b) {
#if __CUDA_ARCH__ >= 900
    return __viaddmax_s16x2(a, b, 0x80008000u);
#else
    return __vadd2(a, b);
#endif
}

__device__ __forceinline__ u32 gact_addmax2(u32 a, u32 b, u32 c) {
#if __CUDA_ARCH__ >= 900
    return __viaddmax_s16x2(a, b, c);
#else
    return __vmaxs2(__vadd2(a, b), c);
#endif
}

__device__ __forceinline__ u32 gact_max3_2(u32 a, u32 b, u32 c) {
#if __CUDA_ARCH__ >= 900
    return __vimax3_s16x2(a, b, c);
#else
    return __vmaxs2(__vmaxs2(a, b), c);
#endif
}

// The values of the low and the high half (tags dropped).
__device__ __forceinline__ int gact_lo16(u32 x) { return ((int)(x << 16)) >> 20; }
__device__ __forceinline__ int gact_hi16(u32 x) { return ((int)x) >> 20; }

struct Gact16Geom {
    int rh;      // packed rows per lane (rows per strip)
    int lanes;   // lanes owning at least one row
    int steps;   // n + 2 * lanes - 1: the last lane's bottom strip ends at n
    int planes;  // direction words per lane and step: ceil(rh / 4)
};

__device__ __forceinline__ Gact16Geom gact16_geom(int m, int n) {
    Gact16Geom g;
    g.rh = (m + 63) / 64;
    g.lanes = (m + 2 * g.rh - 1) / (2 * g.rh);
    g.steps = n + 2 * g.lanes - 1;
    g.planes = (g.rh + 3) / 4;
    return g;
}

// Keeps (v, i, j) if it is lexicographically larger: the row-major last
// maximum. Both strips of a lane feed one maximum, so the order of the
// updates must not matter.
__device__ __forceinline__ void gact_take_best(int v, int i, int j, int& bv, int& bi, int& bj) {
    if (v > bv || (v == bv && (i > bi || (i == bi && j > bj)))) {
        bv = v;
        bi = i;
        bj = j;
    }
}

template <int RH, bool FIRST>
__device__ __forceinline__ void gact_fill16_tile(u8* image, const GactTile& t, const int* sub,
                                                 int go, int ge, const u8* q, u32* prof,
                                                 GactTileOut* out, int lane) {
    const int m = t.m, n = t.n;
    const Gact16Geom g = gact16_geom(m, n);
    const int row0 = lane * 2 * RH;
    const bool owner = lane < g.lanes;

    // The lane's column of the profile: for query code c and packed row k,
    // 16 * s + 8 (an M tag) of the top row (low) and the bottom row (high).
    // Rows past m score as code 4; nothing reads their cells.
    const u8* ref = image + t.ref_codes;
#pragma unroll
    for (int k = 0; k < RH; k++) {
        const int rt = row0 + k, rb = row0 + RH + k;
        const int ct = rt < m ? ref[rt] : 4;
        const int cb = rb < m ? ref[rb] : 4;
#pragma unroll
        for (int c = 0; c < 5; c++) {
            const u32 lo = (u32)(16 * sub[5 * c + ct] + 8) & 0xFFFFu;
            const u32 hi = (u32)(16 * sub[5 * c + cb] + 8) << 16;
            prof[(c * GACT16_MAX_RH + k) * 32 + lane] = lo | hi;
        }
    }

    const u32 c_io = gact_pack2(16 * go - 2);  // M above + go, as I opened (tag 4 | 2)
    const u32 c_ie = gact_pack2(16 * ge + 4);  // I above + ge, as I extended (tag 4)
    const u32 c_do = gact_pack2(16 * go - 7);  // M left + go, as D opened (tag 0 | 1)
    const u32 c_de = gact_pack2(16 * ge);      // D left + ge, as D extended (tag 0)
    const u32 z = gact_pack2(12);
    const u32 m0 = gact_pack2(8);  // M = 0
    const u32 neg = gact_pack2(16 * GACT16_NEG_INF);

    // H (tags dropped), M (tagged) and D (tags dropped) of the column left
    // of each packed row; column 0: H = M = 0, D = -inf.
    u32 hl[RH], ml[RH], dl[RH];
#pragma unroll
    for (int k = 0; k < RH; k++) {
        hl[k] = 0;
        ml[k] = m0;
        dl[k] = neg;
    }
    // From lane - 1 (high halves: its bottom strip's last row): H, M, I of
    // column jt (recv_*) and H of column jt - 1 (recv_h_prev).
    u32 recv_h = 0, recv_m = 0, recv_i = 0, recv_h_prev = 0;
    // H of the last packed row at the start of the previous step and its I
    // (tags dropped) of the previous step: the low halves (the top strip's
    // last row) feed the bottom strip, the high halves go to lane + 1.
    u32 top_h_prev = 0, last_i = neg;
    int best = -1, best_i = 0, best_j = 0;
    int pos = 0;
    const int pos_r = t.ref_pos - 1 - row0;

    u32* dir = (u32*)(image + t.dir);
    for (int s = 0; s < g.steps; s++) {
        const int jt = s - 2 * lane + 1;  // top strip's column
        const int jb = jt - 1;            // bottom strip's column
        if (owner && jt >= 1 && jb <= n) {
            // Row 0 above lane 0: H = M = 0, I = -inf.
            const u32 ext_h = (lane == 0 || jt == 1) ? 0u : recv_h_prev;
            const u32 ext_m = lane == 0 ? m0 : recv_m;
            const u32 ext_i = lane == 0 ? neg : recv_i;
            // Low half from lane - 1's high half, high half from the top
            // strip's last row (low half).
            u32 diag = __byte_perm(ext_h, top_h_prev, 0x5432);
            u32 up_m = __byte_perm(ext_m, ml[RH - 1], 0x5432);
            u32 up_i = __byte_perm(ext_i, last_i, 0x5432);
            top_h_prev = hl[RH - 1];
            const int qt = jt <= n ? q[jt - 1] : 0;
            const int qb = jb >= 1 ? q[jb - 1] : 0;
            const u32* pt = prof + qt * (GACT16_MAX_RH * 32) + lane;
            const u32* pb = prof + qb * (GACT16_MAX_RH * 32) + lane;
            u32 w0 = 0, w1 = 0;
#pragma unroll
            for (int k = 0; k < RH; k++) {
                const u32 s2 = __byte_perm(pt[k * 32], pb[k * 32], 0x7610);
                const u32 mt = gact_add2(diag, s2);
                const u32 it = gact_addmax2(up_i, c_ie, gact_add2(up_m, c_io));
                const u32 dt = gact_addmax2(dl[k], c_de, gact_add2(ml[k], c_do));
                const u32 ht = gact_max3_2(mt, it, __vmaxs2(dt, z));
                const u32 nib = (ht & 0x000C000Cu) | ((it | dt) & 0x00030003u);
                if (k < 4) {
                    w0 |= nib << (4 * k);
                } else {
                    w1 |= nib << (4 * (k - 4));
                }
                diag = hl[k];
                hl[k] = ht & GACT16_CLEAR;
                ml[k] = mt;
                dl[k] = dt & GACT16_CLEAR;
                up_m = mt;
                up_i = it & GACT16_CLEAR;
                if (FIRST) {
                    const int it_row = row0 + k + 1, ib_row = row0 + RH + k + 1;
                    if (jt <= n && it_row <= m) {
                        gact_take_best(gact_lo16(hl[k]), it_row, jt, best, best_i, best_j);
                    }
                    if (jb >= 1 && ib_row <= m) {
                        gact_take_best(gact_hi16(hl[k]), ib_row, jb, best, best_i, best_j);
                    }
                }
            }
            last_i = up_i;
            if (jb == 0) {
                // The bottom strip computed column 0: put back the border.
#pragma unroll
                for (int k = 0; k < RH; k++) {
                    hl[k] = __byte_perm(hl[k], 0u, 0x7610);
                    ml[k] = __byte_perm(ml[k], m0, 0x7610);
                    dl[k] = __byte_perm(dl[k], neg, 0x7610);
                }
            }
            if (!FIRST) {
#pragma unroll
                for (int k = 0; k < RH; k++) {
                    if (jt == t.query_pos && k == pos_r) pos = gact_lo16(hl[k]);
                    if (jb >= 1 && jb == t.query_pos && RH + k == pos_r) pos = gact_hi16(hl[k]);
                }
            }
            dir[(size_t)s * g.lanes + lane] = w0;
            if (RH > 4) {
                dir[((size_t)g.steps + s) * g.lanes + lane] = w1;
            }
        }
        recv_h_prev = recv_h;
        recv_h = __shfl_up_sync(0xffffffffu, hl[RH - 1], 1);
        recv_m = __shfl_up_sync(0xffffffffu, ml[RH - 1], 1);
        recv_i = __shfl_up_sync(0xffffffffu, last_i, 1);
    }

    gact_write_result<FIRST>(out, best, best_i, best_j, pos, lane);
}

template <int RH>
__device__ __forceinline__ void gact_fill16_rh(u8* image, const GactTile& t, const int* sub, int go,
                                               int ge, const u8* q, u32* prof, GactTileOut* out,
                                               int lane) {
    if (t.first) {
        gact_fill16_tile<RH, true>(image, t, sub, go, ge, q, prof, out, lane);
    } else {
        gact_fill16_tile<RH, false>(image, t, sub, go, ge, q, prof, out, lane);
    }
}

extern "C" __global__ void __launch_bounds__(32 * GACT_WARPS_PER_BLOCK)
seqshim_gact_fill16(u8* image, u32 params_off, u32 desc_off, u32 out_off, u32 n_tiles) {
    __shared__ u8 query_s[GACT_WARPS_PER_BLOCK][GACT_MAX_LEN + 1];
    __shared__ int params_s[GACT_WARPS_PER_BLOCK][GACT_PARAMS_WORDS];
    __shared__ u32 prof_s[GACT_WARPS_PER_BLOCK][5 * GACT16_MAX_RH * 32];
    const int warp = threadIdx.x >> 5;
    const int lane = threadIdx.x & 31;
    const u32 tile = blockIdx.x * GACT_WARPS_PER_BLOCK + warp;
    // Whole warps leave together; nothing below synchronises the block.
    if (tile >= n_tiles) return;
    const GactTile t = ((const GactTile*)(image + desc_off))[tile];
    if (!t.narrow) return;
    const int* params = (const int*)(image + params_off) + (size_t)t.params * GACT_PARAMS_WORDS;
    if (lane < GACT_PARAMS_WORDS) params_s[warp][lane] = params[lane];
    const u8* query = image + t.query_codes;
    for (int j = lane; j < t.n; j += 32) query_s[warp][j] = query[j];
    __syncwarp();
    GactTileOut* out = (GactTileOut*)(image + out_off) + tile;
    const int* sub = params_s[warp];
    const int go = sub[25], ge = sub[26];
    const u8* q = query_s[warp];
    u32* prof = prof_s[warp];
    // The strips' height is a template argument so that every register
    // array is indexed by constants.
    switch ((t.m + 63) / 64) {
        case 1: gact_fill16_rh<1>(image, t, sub, go, ge, q, prof, out, lane); break;
        case 2: gact_fill16_rh<2>(image, t, sub, go, ge, q, prof, out, lane); break;
        case 3: gact_fill16_rh<3>(image, t, sub, go, ge, q, prof, out, lane); break;
        case 4: gact_fill16_rh<4>(image, t, sub, go, ge, q, prof, out, lane); break;
        case 5: gact_fill16_rh<5>(image, t, sub, go, ge, q, prof, out, lane); break;
        case 6: gact_fill16_rh<6>(image, t, sub, go, ge, q, prof, out, lane); break;
        case 7: gact_fill16_rh<7>(image, t, sub, go, ge, q, prof, out, lane); break;
        default: gact_fill16_rh<8>(image, t, sub, go, ge, q, prof, out, lane); break;
    }
}

// Direction code of 1-based cell (i, j) in seqshim_gact_fill's layout; 0
// on the borders (spec §4.1).
struct GactWideDirs {
    const u32* dir;
    GactGeom g;
    __device__ __forceinline__ u32 at(int i, int j) const {
        if (i <= 0 || j <= 0) return 0;
        const int lane = (i - 1) / g.r;
        const int r = (i - 1) - lane * g.r;
        const int s = j - 1 + lane;
        const int plane = r >> 3;
        const u32 word = dir[((size_t)plane * g.steps + s) * g.lanes + lane];
        return (word >> (4 * (r & 7))) & 15u;
    }
};

// The same from seqshim_gact_fill16's nibbles: bits 3-2 the tag (Z 3, M 2,
// I 1, D 0; the state is tag + 1 mod 4), bit 1 "I opened", bit 0 "D opened".
struct GactNarrowDirs {
    const u32* dir;
    Gact16Geom g;
    __device__ __forceinline__ u32 at(int i, int j) const {
        if (i <= 0 || j <= 0) return 0;
        const int row = i - 1;
        const int lane = row / (2 * g.rh);
        const int rr = row - lane * 2 * g.rh;
        const int half = rr >= g.rh ? 1 : 0;
        const int k = rr - half * g.rh;
        const int s = j - 1 + 2 * lane + half;
        const u32 word = dir[((size_t)(k >> 2) * g.steps + s) * g.lanes + lane];
        const u32 nib = (word >> (16 * half + 4 * (k & 3))) & 15u;
        return (((nib >> 2) + 1) & 3u) | ((nib & 1u) << 2) | ((nib & 2u) << 2);
    }
};

// The walk of src/gact/traceback.rs: stops on Z or, checked before each
// state, once either sequence consumed early_terminate bases.
template <class Dirs>
__device__ __forceinline__ void gact_walk(const GactTile& t, const Dirs& d, u8* ops,
                                          GactTileOut* out) {
    int i = t.first ? out->max_i : t.ref_pos;
    int j = t.first ? out->max_j : t.query_pos;
    const long long limit = t.early_terminate;
    int ref_steps = 0, query_steps = 0, n_ops = 0, status = GACT_DONE;
    u32 state = d.at(i, j) & 3u;
    while (state != 0) {
        if (ref_steps >= limit || query_steps >= limit) break;
        if ((u32)n_ops >= t.ops_cap) {
            status = GACT_OPS_OVERFLOW;
            break;
        }
        ops[n_ops++] = (u8)state;
        if (state == 3) {
            state = (i > 1 && j > 1) ? d.at(i - 1, j - 1) & 3u : 0u;
            i = i > 0 ? i - 1 : 0;
            j = j > 0 ? j - 1 : 0;
            ref_steps++;
            query_steps++;
        } else if (state == 2) {
            // The flag of the current cell says whether this I opened here.
            state = i > 1 ? ((d.at(i, j) & 8u) ? 3u : 2u) : 0u;
            i--;
            ref_steps++;
        } else {
            state = j > 1 ? ((d.at(i, j) & 4u) ? 3u : 1u) : 0u;
            j--;
            query_steps++;
        }
    }
    out->ref_steps = ref_steps;
    out->query_steps = query_steps;
    out->n_ops = n_ops;
    out->status = status;
}

extern "C" __global__ void __launch_bounds__(128)
seqshim_gact_trace(u8* image, u32 desc_off, u32 out_off, u32 n_tiles) {
    const u32 tile = blockIdx.x * blockDim.x + threadIdx.x;
    if (tile >= n_tiles) return;
    const GactTile t = ((const GactTile*)(image + desc_off))[tile];
    GactTileOut* out = (GactTileOut*)(image + out_off) + tile;
    const u32* dir = (const u32*)(image + t.dir);
    u8* ops = image + t.ops;
    if (t.narrow) {
        gact_walk(t, GactNarrowDirs{dir, gact16_geom(t.m, t.n)}, ops, out);
    } else {
        gact_walk(t, GactWideDirs{dir, gact_geom(t.m, t.n)}, ops, out);
    }
}
