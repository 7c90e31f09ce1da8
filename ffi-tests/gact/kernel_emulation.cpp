// kernels/gact.cu run on the host, for machines without a GPU (CI): each
// warp is 32 coroutines (ucontext) run in turn, every shuffle and
// __syncwarp a round in which each lane runs up to it, so the kernels' own
// code computes the tiles; they must equal the library's CPU
// path (seqshim_gact_align_tile) field for field. This checks the kernel's
// logic (wavefront order, shuffles, the 16-bit packing through the
// pre-sm_90 arithmetic, layout of the direction words, the traceback), not
// its timing or memory model: a real GPU run still has to
// (tests/gact_gpu.rs).
//
// Usage: kernel_emulation [TILES] [SEED]
#include <ucontext.h>

#include <algorithm>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <vector>

extern "C" {
#include "seqshim/gact.h"
}

// The CUDA names the kernel uses, for one warp at a time.
struct Dim {
    unsigned x;
};
static Dim threadIdx, blockIdx, blockDim{32};
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
using std::max;
using std::min;

// ---------------------------------------------------------------- a warp
static ucontext_t lane_ctx[32], main_ctx;
static int cur_lane;
static unsigned warp_base;
static uint64_t slots[32];

// Every lane runs up to its next round, in lane order; the last one hands
// back to lane 0.
static void round_robin() {
    const int me = cur_lane;
    const int next = (me + 1) % 32;
    cur_lane = next;
    threadIdx.x = warp_base + next;
    swapcontext(&lane_ctx[me], &lane_ctx[next]);
}

static void __syncwarp() { round_robin(); }

template <class T>
static T exchange(T v, int from_lane, bool own) {
    uint64_t bits = 0;
    memcpy(&bits, &v, sizeof v);
    slots[cur_lane] = bits;
    round_robin();
    T r = v;
    if (!own) memcpy(&r, &slots[from_lane], sizeof r);
    round_robin();
    return r;
}

template <class T>
static T __shfl_up_sync(unsigned, T v, int d) {
    return exchange(v, cur_lane - d, cur_lane < d);
}

template <class T>
static T __shfl_xor_sync(unsigned, T v, int d) {
    return exchange(v, cur_lane ^ d, false);
}

// ---------------------------------------------------------------- intrinsics
typedef unsigned int uint_t;
static uint_t __byte_perm(uint_t x, uint_t y, uint_t s) {
    const uint64_t both = (uint64_t)x | ((uint64_t)y << 32);
    uint_t r = 0;
    for (int b = 0; b < 4; b++) {
        const uint_t sel = (s >> (4 * b)) & 7u;
        r |= (uint_t)((both >> (8 * sel)) & 0xFFu) << (8 * b);
    }
    return r;
}

static int16_t half_of(uint_t x, int h) { return (int16_t)(uint16_t)(x >> (16 * h)); }
static uint_t from_halves(int lo, int hi) {
    return ((uint_t)(uint16_t)(int16_t)lo) | ((uint_t)(uint16_t)(int16_t)hi << 16);
}
static uint_t __vadd2(uint_t a, uint_t b) {
    return from_halves(half_of(a, 0) + half_of(b, 0), half_of(a, 1) + half_of(b, 1));
}
static uint_t __vmaxs2(uint_t a, uint_t b) {
    return from_halves(std::max(half_of(a, 0), half_of(b, 0)),
                       std::max(half_of(a, 1), half_of(b, 1)));
}
static int __vimax3_s32_relu(int a, int b, int c) { return std::max(std::max(a, b), std::max(c, 0)); }

#include "gact.cu"

// ---------------------------------------------------------------- driver
typedef void (*FillKernel)(u8*, u32, u32, u32, u32);
static FillKernel fill_kernel;
static u8* launch_image;
static u32 launch_params, launch_descs, launch_outs, launch_tiles;

static void lane_main() {
    fill_kernel(launch_image, launch_params, launch_descs, launch_outs, launch_tiles);
    const int me = cur_lane;
    if (me == 31) {
        swapcontext(&lane_ctx[me], &main_ctx);
    } else {
        cur_lane = me + 1;
        threadIdx.x = warp_base + me + 1;
        swapcontext(&lane_ctx[me], &lane_ctx[me + 1]);
    }
}

static void run_fill(FillKernel k) {
    fill_kernel = k;
    const unsigned block = 32 * GACT_WARPS_PER_BLOCK;
    static std::vector<char> stacks(32 * (256 << 10));
    for (u32 b = 0; b * GACT_WARPS_PER_BLOCK < launch_tiles; b++) {
        for (unsigned w = 0; w < GACT_WARPS_PER_BLOCK; w++) {
            blockIdx.x = b;
            blockDim.x = block;
            warp_base = 32 * w;
            for (int l = 0; l < 32; l++) {
                getcontext(&lane_ctx[l]);
                lane_ctx[l].uc_stack.ss_sp = &stacks[(size_t)l * (256 << 10)];
                lane_ctx[l].uc_stack.ss_size = 256 << 10;
                lane_ctx[l].uc_link = nullptr;
                makecontext(&lane_ctx[l], lane_main, 0);
            }
            cur_lane = 0;
            threadIdx.x = warp_base;
            swapcontext(&main_ctx, &lane_ctx[0]);
        }
    }
}

static size_t align128(size_t n) { return (n + 127) / 128 * 128; }

static uint8_t code_of(char c) {
    switch (c) {
        case 'A': case 'a': return 0;
        case 'C': case 'c': return 1;
        case 'G': case 'g': return 2;
        case 'T': case 't': return 3;
        default: return 4;
    }
}

struct Tile {
    std::string ref, query;
    int32_t sub[25];
    int32_t gap_open, gap_extend;
    int32_t ref_pos, query_pos, early_terminate;
    bool reverse, first;
};

// Random tiles over the parameter grid: sides 1..511, divergence 0..30 %,
// N bases, several scorings (zero gap open included), every flag.
static std::vector<Tile> random_tiles(int count, uint64_t seed) {
    std::mt19937_64 rng(seed);
    auto below = [&](uint64_t n) { return (int)(rng() % n); };
    // The last two: at the 16-bit kernel's lower bound (-500 - 400 - 100),
    // and too wide for it on all but the smallest tiles.
    const int schemes[6][4] = {{1, -1, -1, -1}, {2, -1, -2, -2}, {5, -4, -10, -1},
                               {1, -3, 0, -1},  {4, -500, -400, -100}, {100, -90, -300, -40}};
    std::vector<Tile> tiles(count);
    for (Tile& t : tiles) {
        const int m = 1 + below(below(4) == 0 ? 511 : 200);
        const int n = below(3) == 0 ? m : 1 + below(below(4) == 0 ? 511 : 200);
        const char* alphabet = below(10) == 0 ? "ACGTN" : "ACGT";
        const int letters = (int)strlen(alphabet);
        for (int i = 0; i < m; i++) t.ref += alphabet[below(letters)];
        const int divergence = below(31);
        for (int i = 0; (int)t.query.size() < n; i++) {
            char c = i < m ? t.ref[i] : alphabet[below(letters)];
            if (below(100) < divergence) c = alphabet[below(letters)];
            t.query += c;
        }
        const int* s = schemes[below(6)];
        for (int k = 0; k < 25; k++) {
            const bool n_pair = k / 5 == 4 || k % 5 == 4;
            t.sub[k] = n_pair ? -below(2) : (k / 5 == k % 5 ? s[0] : s[1]);
        }
        t.gap_open = s[2];
        t.gap_extend = s[3];
        t.reverse = below(2);
        t.first = below(2);
        t.ref_pos = below(2) ? m : below(m + 1);
        t.query_pos = t.ref_pos == m ? n : below(n + 1);
        t.early_terminate = below(5) == 0 ? below(20) - 2 : 1 + below(400);
    }
    return tiles;
}

int main(int argc, char** argv) {
    const int count = argc > 1 ? atoi(argv[1]) : 500;
    const uint64_t seed = argc > 2 ? strtoull(argv[2], nullptr, 10) : 1;
    const std::vector<Tile> tiles = random_tiles(count, seed);

    // The launch image of src/gact/gpu/layout.rs, one scoring per tile.
    const size_t params_at = 0, descs_at = align128(4 * GACT_PARAMS_WORDS * count);
    size_t at = descs_at + sizeof(GactTile) * count;
    std::vector<size_t> codes(count), ops(count), cap(count), dir(count);
    for (int k = 0; k < count; k++) {
        codes[k] = at;
        at += tiles[k].ref.size() + tiles[k].query.size();
    }
    const size_t outs_at = align128(at);
    at = outs_at + sizeof(GactTileOut) * count;
    for (int k = 0; k < count; k++) {
        ops[k] = at;
        const size_t et = (size_t)max(tiles[k].early_terminate, 0);
        cap[k] = min(tiles[k].ref.size() + tiles[k].query.size(), 2 * et);
        at += cap[k];
    }
    at = align128(at);
    // The 16-bit kernel's bounds (`narrow` in src/gact/gpu/layout.rs).
    std::vector<bool> narrow(count);
    for (int k = 0; k < count; k++) {
        const Tile& t = tiles[k];
        int s_max = 0, s_min = 0;
        for (int v : t.sub) {
            s_max = max(s_max, v);
            s_min = min(s_min, v);
        }
        const long sides = (long)min(t.ref.size(), t.query.size());
        narrow[k] = (sides + 1) * s_max <= 2000 && s_min + t.gap_open + t.gap_extend >= -1000;
    }
    for (int k = 0; k < count; k++) {
        const int m = (int)tiles[k].ref.size(), n = (int)tiles[k].query.size();
        size_t words;
        if (narrow[k]) {
            const Gact16Geom g = gact16_geom(m, n);
            words = (size_t)g.planes * g.steps * g.lanes;
        } else {
            const GactGeom g = gact_geom(m, n);
            words = (size_t)g.planes * g.steps * g.lanes;
        }
        dir[k] = at;
        at = align128(at + 4 * words);
    }
    std::vector<uint8_t> image(at, 0xa5);
    for (int k = 0; k < count; k++) {
        const Tile& t = tiles[k];
        const int m = (int)t.ref.size(), n = (int)t.query.size();
        int32_t params[GACT_PARAMS_WORDS] = {0};
        memcpy(params, t.sub, sizeof t.sub);
        params[25] = t.gap_open;
        params[26] = t.gap_extend;
        memcpy(&image[params_at + sizeof params * k], params, sizeof params);
        GactTile d = {dir[k], (u32)codes[k], (u32)(codes[k] + m), (u32)ops[k], (u32)cap[k],
                      (u32)k, m, n, t.ref_pos, t.query_pos, t.first, t.early_terminate,
                      (u32)narrow[k]};
        memcpy(&image[descs_at + sizeof d * k], &d, sizeof d);
        for (int i = 0; i < m; i++) image[codes[k] + i] = code_of(t.reverse ? t.ref[m - 1 - i] : t.ref[i]);
        for (int j = 0; j < n; j++)
            image[codes[k] + m + j] = code_of(t.reverse ? t.query[n - 1 - j] : t.query[j]);
    }

    launch_image = image.data();
    launch_params = (u32)params_at;
    launch_descs = (u32)descs_at;
    launch_outs = (u32)outs_at;
    launch_tiles = (u32)count;
    run_fill(seqshim_gact_fill16);
    run_fill(seqshim_gact_fill);
    blockDim.x = 128;
    for (int k = 0; k < count; k++) {
        blockIdx.x = (unsigned)k / 128;
        threadIdx.x = (unsigned)k % 128;
        seqshim_gact_trace(image.data(), (u32)descs_at, (u32)outs_at, (u32)count);
    }

    int differ = 0;
    for (int k = 0; k < count; k++) {
        const Tile& t = tiles[k];
        std::vector<uint8_t> want_ops(t.ref.size() + t.query.size() + 1);
        seqshim_gact_tile_result_t want;
        const int32_t status = seqshim_gact_align_tile(
            t.ref.data(), (int64_t)t.ref.size(), t.query.data(), (int64_t)t.query.size(), t.sub,
            t.gap_open, t.gap_extend, t.query_pos, t.ref_pos, t.reverse, t.first,
            t.early_terminate, want_ops.data(), (uint32_t)want_ops.size(), &want);
        GactTileOut got;
        memcpy(&got, &image[outs_at + sizeof got * k], sizeof got);
        const bool same = status == 0 && got.status == GACT_DONE && got.score == want.score &&
                          got.ref_steps == want.ref_steps && got.query_steps == want.query_steps &&
                          (uint32_t)got.n_ops == want.n_ops &&
                          memcmp(&image[ops[k]], want_ops.data(), want.n_ops) == 0 &&
                          (!t.first || (got.max_i == want.max_i && got.max_j == want.max_j));
        if (!same && ++differ <= 5) {
            printf("tile %d (%zux%zu, first %d, reverse %d, start (%d, %d), et %d): kernel score %d "
                   "max (%d, %d) steps (%d, %d) %d states, status %d; CPU status %d score %d max "
                   "(%d, %d) steps (%d, %d) %u states\n",
                   k, t.ref.size(), t.query.size(), t.first, t.reverse, t.ref_pos, t.query_pos,
                   t.early_terminate, got.score, got.max_i, got.max_j, got.ref_steps,
                   got.query_steps, got.n_ops, got.status, status, want.score, want.max_i,
                   want.max_j, want.ref_steps, want.query_steps, want.n_ops);
        }
    }
    const long n_narrow = std::count(narrow.begin(), narrow.end(), true);
    printf("emulated gact kernel: %d tiles (%ld in 16 bits), %d differ\n", count, n_narrow, differ);
    return differ == 0 ? 0 : 1;
}
