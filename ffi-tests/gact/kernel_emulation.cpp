// kernels/gact.cu run on the host, for machines without a GPU (CI): each
// warp is 32 std::threads and every shuffle a barrier between them, so the
// kernel's own code computes the tiles; they must equal the library's CPU
// path (seqshim_gact_align_tile) field for field. This checks the kernel's
// logic (wavefront order, shuffles, layout of the direction words, the
// traceback), not its timing or memory model: a real GPU run still has to
// (tests/gact_gpu.rs).
//
// Usage: kernel_emulation [TILES] [SEED]
#include <algorithm>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <random>
#include <string>
#include <thread>
#include <vector>

extern "C" {
#include "seqshim/gact.h"
}

// The CUDA names the kernel uses, for one block at a time.
struct Dim {
    unsigned x;
};
static thread_local Dim threadIdx, blockIdx;
static Dim blockDim{128};
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
using std::max;
using std::min;

static const int kWarps = 4;  // GACT_WARPS_PER_BLOCK
static std::barrier<>* warp_barrier[kWarps];
static int exchange[kWarps][32];

static int shuffle_from(int value, int src) {
    const int warp = threadIdx.x >> 5, lane = threadIdx.x & 31;
    exchange[warp][lane] = value;
    warp_barrier[warp]->arrive_and_wait();
    const int got = exchange[warp][src];
    warp_barrier[warp]->arrive_and_wait();
    return got;
}
static int __shfl_up_sync(unsigned, int value, int delta) {
    const int lane = threadIdx.x & 31;
    return shuffle_from(value, lane >= delta ? lane - delta : lane);
}
static int __shfl_xor_sync(unsigned, int value, int mask) {
    return shuffle_from(value, (threadIdx.x & 31) ^ mask);
}
static void __syncwarp() { warp_barrier[threadIdx.x >> 5]->arrive_and_wait(); }
static int __vimax3_s32_relu(int a, int b, int c) { return max(max(a, b), max(c, 0)); }

#include "gact.cu"

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
    const int schemes[4][4] = {{1, -1, -1, -1}, {2, -1, -2, -2}, {5, -4, -10, -1}, {1, -3, 0, -1}};
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
        const int* s = schemes[below(4)];
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
    const int count = argc > 1 ? atoi(argv[1]) : 200;
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
    for (int k = 0; k < count; k++) {
        const GactGeom g = gact_geom((int)tiles[k].ref.size(), (int)tiles[k].query.size());
        dir[k] = at;
        at = align128(at + 4 * (size_t)g.planes * g.steps * g.lanes);
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
                      (u32)k, m, n, t.ref_pos, t.query_pos, t.first, t.early_terminate, 0};
        memcpy(&image[descs_at + sizeof d * k], &d, sizeof d);
        for (int i = 0; i < m; i++) image[codes[k] + i] = code_of(t.reverse ? t.ref[m - 1 - i] : t.ref[i]);
        for (int j = 0; j < n; j++)
            image[codes[k] + m + j] = code_of(t.reverse ? t.query[n - 1 - j] : t.query[j]);
    }

    for (int block = 0; block < (count + kWarps - 1) / kWarps; block++) {
        // Warps past the last tile leave at once, as on the GPU, so only
        // the busy ones synchronise.
        for (int w = 0; w < kWarps; w++) warp_barrier[w] = new std::barrier<>(32);
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < 32 * kWarps; t++) {
            threads.emplace_back([&, t, block] {
                threadIdx.x = t;
                blockIdx.x = (unsigned)block;
                seqshim_gact_fill(image.data(), (u32)params_at, (u32)descs_at, (u32)outs_at,
                                  (u32)count);
            });
        }
        for (std::thread& t : threads) t.join();
        for (int w = 0; w < kWarps; w++) delete warp_barrier[w];
    }
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
    printf("emulated gact kernel: %d tiles, %d differ\n", count, differ);
    return differ == 0 ? 0 : 1;
}
