// Helpers shared by every seqshim kernel. Included by name through NVRTC's
// in-memory headers, so kernels must not include anything else.
#ifndef SEQSHIM_COMMON_CUH
#define SEQSHIM_COMMON_CUH

typedef unsigned char u8;
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;

// Integer mixing function with full avalanche; the CPU twin lives in
// src/selftest/cpu.rs and must stay identical.
__device__ __forceinline__ u32 seqshim_mix32(u32 x) {
    x ^= x >> 16;
    x *= 0x7feb352dU;
    x ^= x >> 15;
    x *= 0x846ca68bU;
    x ^= x >> 16;
    return x;
}

#endif
