/* The GACT section of `make demo`: one seed extended with Darwin's classic
 * GACT (seqshim_gact_extend), its two gapped strings and score printed, then
 * a batch of 320x320 tiles through seqshim_gact_align_tile_batch, timed,
 * saying whether it ran on the GPU or why it ran on the CPU. */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seqshim.h"
#include "seqshim/gact.h"

#define TILES 2000
#define T 320

static uint64_t rng = 7;
static uint32_t rnd(uint32_t n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

/* A copy of r with about 5 % substitutions, 5 % insertions and 5 %
 * deletions, at most cap bytes; returns its length. */
static int mutate(const char *r, int rl, char *q, int cap) {
    int n = 0;
    for (int i = 0; i < rl && n < cap; i++) {
        uint32_t roll = rnd(100);
        if (roll < 5) {
            q[n++] = "ACGT"[rnd(4)];
        } else if (roll < 10) {
            q[n++] = "ACGT"[rnd(4)];
            if (n < cap) q[n++] = r[i];
        } else if (roll >= 15) {
            q[n++] = r[i];
        }
    }
    return n;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + 1e-9 * (double)ts.tv_nsec;
}

int main(void) {
    int32_t sub[25]; /* Darwin's default scoring: +1/-1, N 0, gaps -1/-1 */
    for (int q = 0; q < 5; q++)
        for (int r = 0; r < 5; r++) sub[5 * q + r] = (q == 4 || r == 4) ? 0 : (q == r ? 1 : -1);

    printf("-- GACT (Darwin's tile alignment): one seed extended, T=32, O=12 --\n");
    char ref[72], query[96];
    for (int i = 0; i < 72; i++) ref[i] = "ACGT"[rnd(4)];
    int ql = mutate(ref, 72, query, 96);
    char aligned_ref[168], aligned_query[168];
    seqshim_gact_aln_t aln;
    int32_t st = seqshim_gact_extend(ref, query, sub, -1, -1, 32, 12, 36, ql / 2, 72, (uint32_t)ql,
                                     0, aligned_ref, aligned_query, sizeof aligned_ref, &aln);
    if (st != 0) {
        fprintf(stderr, "seqshim_gact_extend: %s\n", seqshim_strerror(st));
        return 1;
    }
    printf("seed at ref 36, query %d; aligned ref %u..%u, query %u..%u, score %d\n", ql / 2,
           aln.ref_start, aln.ref_start + aln.aligned_ref_len, aln.query_start,
           aln.query_start + aln.aligned_query_len, aln.score);
    printf("  ref   %.*s\n  query %.*s\n", (int)aln.n_cols, aligned_ref, (int)aln.n_cols,
           aligned_query);

    /* A batch of tiles: on the GPUs when seqshim uses any, else on its CPU pool. */
    char *refs = malloc((size_t)TILES * T), *queries = malloc((size_t)TILES * T);
    seqshim_gact_tile_req_t *reqs = calloc(TILES, sizeof *reqs);
    seqshim_gact_tile_result_t *res = calloc(TILES, sizeof *res);
    uint8_t *arena = malloc((size_t)TILES * 2 * T);
    if (!refs || !queries || !reqs || !res || !arena) return 1;
    for (int k = 0; k < TILES; k++) {
        char *r = refs + (size_t)k * T, *q = queries + (size_t)k * T;
        for (int i = 0; i < T; i++) r[i] = "ACGT"[rnd(4)];
        int n = mutate(r, T, q, T);
        for (int i = n; i < T; i++) q[i] = "ACGT"[rnd(4)];
        reqs[k].ref_seq = r;
        reqs[k].query_seq = q;
        reqs[k].ref_len = reqs[k].query_len = T;
        reqs[k].ref_pos = reqs[k].query_pos = T;
        reqs[k].reverse = k % 2;
        reqs[k].first = false;
        reqs[k].early_terminate = 200;
    }
    double t0 = now();
    st = seqshim_gact_align_tile_batch(reqs, TILES, sub, -1, -1, arena, 2 * T, res);
    double dt = now() - t0;
    if (st != 0) {
        fprintf(stderr, "seqshim_gact_align_tile_batch: %s\n", seqshim_strerror(st));
        return 1;
    }
    /* The first tile again through the single call: the same result. */
    seqshim_gact_tile_result_t one;
    uint8_t ops[2 * T];
    st = seqshim_gact_align_tile(refs, T, queries, T, sub, -1, -1, T, T, false, false, 200, ops,
                                 sizeof ops, &one);
    bool same = st == 0 && memcmp(&one, &res[0], sizeof one) == 0 &&
                memcmp(ops, arena, one.n_ops) == 0;
    long states = 0;
    for (int k = 0; k < TILES; k++) states += res[k].n_ops;
    printf("%d tiles of %dx%d (15%% divergence) through seqshim_gact_align_tile_batch: "
           "%.0f tiles/s, %.2f GCUPS (%.1f states per tile; first tile %s the single call)\n",
           TILES, T, T, TILES / dt, (double)TILES * T * T / dt / 1e9, (double)states / TILES,
           same ? "equals" : "DIFFERS from");
    uint64_t on_gpu = 0, on_cpu = 0;
    int gpus = seqshim_gact_tile_routing(&on_gpu, &on_cpu);
    char info[2048];
    seqshim_backend_info(info, sizeof info);
    const char *reason = strstr(info, "reason: ");
    if (gpus > 0 && on_gpu > 0) {
        printf("GACT: tile batch on the GPU (%llu tiles on %d GPU%s, %llu on the CPU)\n",
               (unsigned long long)on_gpu, gpus, gpus == 1 ? "" : "s",
               (unsigned long long)on_cpu);
    } else if (reason) {
        printf("GACT: tile batch on the CPU pool: no GPU in use (%.*s)\n",
               (int)strcspn(reason + 8, "\n"), reason + 8);
    } else {
        printf("GACT: tile batch on the CPU pool: the GACT kernel is unavailable on the GPU "
               "(SEQSHIM_LOG=info says why)\n");
    }
    free(refs), free(queries), free(reqs), free(res), free(arena);
    return same ? 0 : 1;
}
