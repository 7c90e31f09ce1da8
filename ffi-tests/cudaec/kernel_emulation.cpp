// kernels/ec.cu run on the host, for machines without a GPU (CI): one
// launch image (the bytes the runner would upload, see src/ec/gpu/layout.rs)
// goes through the kernel's own code, block after block and thread after
// thread, and comes back edited. The kernels need no cooperation between
// threads beyond thread 0 filling a shared table before the others read it,
// which running thread 0 first preserves.
//
// Usage: kernel_emulation KERNEL IMAGE ARG...
//   KERNEL: seqshim_ec_v1_fix, seqshim_ec_default_fix, seqshim_ec_table_clear,
//           seqshim_ec_count or seqshim_ec_solid
//   IMAGE: the launch image, rewritten in place
//   ARG: p:OFFSET (a pointer into the image), u:N, i:N or l:N, in order
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <vector>

struct Dim {
    unsigned x;
};
static Dim threadIdx, blockIdx, blockDim{128};
#define __global__
#define __device__
#define __forceinline__ inline
#define __shared__ static
static void __syncthreads() {}
// One thread at a time: the atomics are plain read-modify-writes.
static unsigned long long atomicCAS(unsigned long long* p, unsigned long long expected,
                                    unsigned long long desired) {
    unsigned long long old = *p;
    if (old == expected) *p = desired;
    return old;
}
static unsigned atomicAdd(unsigned* p, unsigned v) {
    unsigned old = *p;
    *p = old + v;
    return old;
}
static unsigned atomicOr(unsigned* p, unsigned v) {
    unsigned old = *p;
    *p = old | v;
    return old;
}

#include "ec.cu"

static std::vector<uint8_t> image;
static std::vector<std::string> args;

static void* ptr(size_t i) { return image.data() + std::stoull(args.at(i).substr(2)); }
static uint32_t u(size_t i) { return (uint32_t)std::stoul(args.at(i).substr(2)); }
static int32_t s(size_t i) { return (int32_t)std::stol(args.at(i).substr(2)); }
static uint64_t l(size_t i) { return std::stoull(args.at(i).substr(2)); }

int main(int argc, char** argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: kernel_emulation KERNEL IMAGE ARG...\n");
        return 2;
    }
    std::string kernel = argv[1];
    FILE* f = fopen(argv[2], "rb");
    if (!f) {
        perror(argv[2]);
        return 2;
    }
    fseek(f, 0, SEEK_END);
    image.resize((size_t)ftell(f) + 1);
    fseek(f, 0, SEEK_SET);
    if (fread(image.data(), 1, image.size() - 1, f) != image.size() - 1) {
        perror("read");
        return 2;
    }
    fclose(f);
    for (int i = 3; i < argc; i++) args.push_back(argv[i]);
    uint64_t threads = kernel == "seqshim_ec_v1_fix"        ? u(3)
                       : kernel == "seqshim_ec_default_fix" ? u(4)
                       : kernel == "seqshim_ec_count"       ? u(2)
                                                            : l(2);
    uint64_t blocks = (threads + blockDim.x - 1) / blockDim.x;
    for (uint64_t b = 0; b < blocks; b++) {
        blockIdx.x = (unsigned)b;
        for (unsigned t = 0; t < blockDim.x; t++) {
            threadIdx.x = t;
            if (kernel == "seqshim_ec_v1_fix") {
                seqshim_ec_v1_fix((u8*)ptr(0), (const u8*)ptr(1), (u32*)ptr(2), u(3), u(4), u(5),
                                  s(6), s(7), s(8), s(9), s(10), s(11), s(12), u(13), s(14));
            } else if (kernel == "seqshim_ec_default_fix") {
                seqshim_ec_default_fix((u8*)ptr(0), (const u32*)ptr(1), (const u64*)ptr(2),
                                       (u32*)ptr(3), u(4), l(5), s(6), s(7), s(8), s(9), s(10),
                                       u(11));
            } else if (kernel == "seqshim_ec_table_clear") {
                seqshim_ec_table_clear((u64*)ptr(0), (u32*)ptr(1), l(2));
            } else if (kernel == "seqshim_ec_count") {
                seqshim_ec_count((const u8*)ptr(0), (const u32*)ptr(1), u(2), (u64*)ptr(3),
                                 (u32*)ptr(4), l(5), s(6), (u32*)ptr(7));
            } else if (kernel == "seqshim_ec_solid") {
                seqshim_ec_solid((const u64*)ptr(0), (const u32*)ptr(1), l(2), u(3), (u64*)ptr(4),
                                 u(5), (u32*)ptr(6));
            } else {
                fprintf(stderr, "unknown kernel %s\n", kernel.c_str());
                return 2;
            }
        }
    }
    f = fopen(argv[2], "wb");
    if (!f || fwrite(image.data(), 1, image.size() - 1, f) != image.size() - 1) {
        perror("write");
        return 2;
    }
    fclose(f);
    return 0;
}
