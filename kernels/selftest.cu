// The selftest kernel: exercises compile, cache, upload, launch and download
// with a result the CPU can check exactly. One thread per value, grid-stride.
#include "common.cuh"

extern "C" __global__ void seqshim_selftest(const u32* __restrict__ input,
                                            u32* __restrict__ output,
                                            u32 count, u32 rounds) {
    for (u32 i = blockIdx.x * blockDim.x + threadIdx.x; i < count;
         i += gridDim.x * blockDim.x) {
        u32 x = input[i];
        for (u32 r = 0; r < rounds; ++r) {
            x = seqshim_mix32(x + r);
        }
        output[i] = x;
    }
}
