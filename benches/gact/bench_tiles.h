/* Tile generation shared by the GACT benchmarks (gact_bench.c,
 * parasail_threads.c), so that both measure the same kind of tiles: an
 * xorshift generator, and a reference copy with 5 % substitutions, 5 %
 * insertions and 5 % deletions. */
#ifndef SEQSHIM_BENCH_TILES_H
#define SEQSHIM_BENCH_TILES_H

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static inline uint32_t rnd(uint32_t n) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static inline void* xmalloc(size_t n) {
    void* p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static inline double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

/* A copy of r (rl bases, A/C/G/T) with 5 % substitutions, 5 % insertions
 * and 5 % deletions, at most cap bytes; returns its length. */
static inline int mutate(const char* r, int rl, char* q, int cap) {
    int n = 0;
    for (int i = 0; i < rl && n < cap; i++) {
        uint32_t roll = rnd(100);
        if (roll < 5) {
            q[n++] = "ACGT"[(strchr("ACGT", r[i]) - "ACGT" + 1 + (int)rnd(3)) % 4];
        } else if (roll < 10) {
            q[n++] = "ACGT"[rnd(4)];
            if (n < cap) q[n++] = r[i];
        } else if (roll >= 15) {
            q[n++] = r[i];
        }
    }
    return n;
}

#endif
