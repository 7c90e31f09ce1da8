// Darwin GACT tiles (AlignWithBT) on the GPU, in two kernels.
//   seqshim_gact_fill: one warp per tile. Lane t owns R = ceil(m / 32)
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
// Both follow src/gact/ (kernel.rs, row_ops.rs, traceback.rs) operation for
// operation: the same recurrence in 32-bit integers with the same finite
// minus infinity, the same state priority M over I over D, the same
// open-over-extend flags and the same traceback guards.
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
    u32 spare;
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
static_assert(SEQSHIM_OFFSETOF(GactTile, spare) == 52, "spare");

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

    if (FIRST) {
        gact_reduce_best(best, best_i, best_j);
        if (lane == 0) {
            out->score = best;
            out->max_i = best_i;
            out->max_j = best_j;
        }
    } else {
        // H >= 0 everywhere and only one lane holds the start cell.
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

// Direction code of 1-based cell (i, j); 0 on the borders (spec §4.1).
__device__ __forceinline__ u32 gact_dir_at(const u32* dir, const GactGeom& g, int i, int j) {
    if (i <= 0 || j <= 0) return 0;
    const int lane = (i - 1) / g.r;
    const int r = (i - 1) - lane * g.r;
    const int s = j - 1 + lane;
    const int plane = r >> 3;
    const u32 word = dir[((size_t)plane * g.steps + s) * g.lanes + lane];
    return (word >> (4 * (r & 7))) & 15u;
}

// The walk of src/gact/traceback.rs: stops on Z or, checked before each
// state, once either sequence consumed early_terminate bases.
extern "C" __global__ void __launch_bounds__(128)
seqshim_gact_trace(u8* image, u32 desc_off, u32 out_off, u32 n_tiles) {
    const u32 tile = blockIdx.x * blockDim.x + threadIdx.x;
    if (tile >= n_tiles) return;
    const GactTile t = ((const GactTile*)(image + desc_off))[tile];
    GactTileOut* out = (GactTileOut*)(image + out_off) + tile;
    const GactGeom g = gact_geom(t.m, t.n);
    const u32* dir = (const u32*)(image + t.dir);
    u8* ops = image + t.ops;
    int i = t.first ? out->max_i : t.ref_pos;
    int j = t.first ? out->max_j : t.query_pos;
    const long long limit = t.early_terminate;
    int ref_steps = 0, query_steps = 0, n_ops = 0, status = GACT_DONE;
    u32 state = gact_dir_at(dir, g, i, j) & 3u;
    while (state != 0) {
        if (ref_steps >= limit || query_steps >= limit) break;
        if ((u32)n_ops >= t.ops_cap) {
            status = GACT_OPS_OVERFLOW;
            break;
        }
        ops[n_ops++] = (u8)state;
        if (state == 3) {
            state = (i > 1 && j > 1) ? gact_dir_at(dir, g, i - 1, j - 1) & 3u : 0u;
            i = i > 0 ? i - 1 : 0;
            j = j > 0 ? j - 1 : 0;
            ref_steps++;
            query_steps++;
        } else if (state == 2) {
            // The flag of the current cell says whether this I opened here.
            state = i > 1 ? ((gact_dir_at(dir, g, i, j) & 8u) ? 3u : 2u) : 0u;
            i--;
            ref_steps++;
        } else {
            state = j > 1 ? ((gact_dir_at(dir, g, i, j) & 4u) ? 3u : 1u) : 0u;
            j--;
            query_steps++;
        }
    }
    out->ref_steps = ref_steps;
    out->query_steps = query_steps;
    out->n_ops = n_ops;
    out->status = status;
}
