// kernels/poa.cu run on the host, for machines without a GPU (CI): a block
// is as many std::threads as it has CUDA threads and every __syncthreads a
// barrier between them, so the kernel's own code builds the windows'
// graphs. tests/poa_kernel_emulated.rs packs the launch images with the
// library's own layout, runs them through this program and compares the
// results with the CPU path. This checks the kernel's logic (wavefront
// order, tie rules, traceback, fusion, layout), not its timing or memory
// model: a real GPU run still has to (tests/poa_gpu.rs).
//
// Usage: kernel_emulation IMAGE DESCS_AT WINDOWS BLOCK
//   runs the launch in the file IMAGE in place.
#include <algorithm>
#include <barrier>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <thread>
#include <vector>

// The CUDA names the kernel uses, for one block at a time.
struct Dim {
    unsigned x;
};
static thread_local Dim threadIdx, blockIdx;
static Dim blockDim{32};
#define __global__
#define __device__
#define __forceinline__ inline
#define __launch_bounds__(...)
#define __shared__ static
using std::max;
using std::min;

static std::barrier<>* block_barrier;
static void __syncthreads() { block_barrier->arrive_and_wait(); }

#include "poa.cu"

int main(int argc, char** argv) {
    if (argc != 5) {
        fprintf(stderr, "usage: %s IMAGE DESCS_AT WINDOWS BLOCK\n", argv[0]);
        return 2;
    }
    FILE* f = fopen(argv[1], "rb");
    if (!f) {
        perror(argv[1]);
        return 1;
    }
    fseek(f, 0, SEEK_END);
    const long size = ftell(f);
    fseek(f, 0, SEEK_SET);
    // 8-byte aligned, as device memory is (at least).
    std::vector<uint64_t> words((size + 7) / 8 + 1);
    u8* image = (u8*)words.data();
    if (fread(image, 1, size, f) != (size_t)size) {
        perror("read");
        return 1;
    }
    fclose(f);
    const u32 descs = (u32)strtoul(argv[2], nullptr, 10);
    const u32 windows = (u32)strtoul(argv[3], nullptr, 10);
    blockDim.x = (unsigned)strtoul(argv[4], nullptr, 10);
    for (u32 b = 0; b < windows; b++) {
        std::barrier<> barrier((std::ptrdiff_t)blockDim.x);
        block_barrier = &barrier;
        std::vector<std::thread> threads;
        for (unsigned t = 0; t < blockDim.x; t++) {
            threads.emplace_back([=] {
                threadIdx.x = t;
                blockIdx.x = b;
                seqshim_poa_windows(image, descs, windows);
            });
        }
        for (auto& t : threads) t.join();
    }
    f = fopen(argv[1], "wb");
    if (!f || fwrite(image, 1, size, f) != (size_t)size) {
        perror("write");
        return 1;
    }
    fclose(f);
    return 0;
}
