// Helpers shared by every seqshim kernel. Included by name through NVRTC's
// in-memory headers, so kernels must not include anything else.
#ifndef SEQSHIM_COMMON_CUH
#define SEQSHIM_COMMON_CUH

typedef unsigned char u8;
typedef unsigned int u32;
typedef int i32;
typedef unsigned long long u64;

// offsetof without <cstddef>, which NVRTC does not provide, as a constant
// expression: for the static_asserts that pin a struct shared with the host
// to the offsets its Rust twin (a `device_struct!`) asserts too. NVRTC has
// no __builtin_offsetof; its front end's __INTADDR__ makes the classic
// null-pointer form a constant.
#ifdef __CUDACC_RTC__
#define SEQSHIM_OFFSETOF(type, field) \
    ((unsigned long long)__INTADDR__(&(((type*)0)->field)))
#else
#define SEQSHIM_OFFSETOF(type, field) __builtin_offsetof(type, field)
#endif

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
