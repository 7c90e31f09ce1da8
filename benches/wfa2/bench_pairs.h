/* Random pairs for the WFA2 C benchmarks (wfa2_bench.c, wfa2_memory.c): one
 * generator, so that both measure the same kind of pair. */
#ifndef SEQSHIM_BENCH_PAIRS_H
#define SEQSHIM_BENCH_PAIRS_H

#include <stdint.h>

/* splitmix64; set rng_state to seed it. */
static uint64_t rng_state;
static inline uint64_t next_u64(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static inline double unit(void) { return (next_u64() >> 11) * (1.0 / 9007199254740992.0); }
static inline char base(void) { return "ACGT"[next_u64() & 3]; }

/* text = pattern with each position edited with probability `err`
 * (substitution, one-base insertion or deletion, equally likely). */
static inline void make_pair(int len, double err, char *pattern, char *text, int *text_len) {
    for (int i = 0; i < len; i++) pattern[i] = base();
    int t = 0;
    for (int i = 0; i < len; i++) {
        if (unit() < err) {
            switch (next_u64() % 3) {
            case 0: { char c; do c = base(); while (c == pattern[i]); text[t++] = c; break; }
            case 1: text[t++] = base(); text[t++] = pattern[i]; break;
            default: break;
            }
        } else {
            text[t++] = pattern[i];
        }
    }
    *text_len = t;
}

#endif
