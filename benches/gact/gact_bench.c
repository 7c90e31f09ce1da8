/* `make bench-gact`: GACT on the CPU, seqshim against parasail on the same
 * tiles, and whole extensions against Darwin's recorded speed.
 *
 * Tiles: 320x320, the query a copy of a random reference with 15 %
 * divergence (5 % substitutions, 5 % insertions, 5 % deletions) cut or
 * padded to 320; Darwin's default scoring (+1/-1, gap -1/-1), first = 0,
 * early_terminate 200 (T - O for 320/120), half forward and half reverse
 * (the workload of the fixtures README's AlignWithBT timing).
 *   - seqshim, one thread: seqshim_gact_align_tile in a loop;
 *   - seqshim, all cores: seqshim_gact_align_tile_batch on all tiles;
 *   - parasail, one thread: parasail_sw_trace_striped_16 and
 *     parasail_sw_trace_scan_16 plus parasail_result_get_cigar (a local
 *     alignment with its traceback, the nearest parasail equivalent).
 * Extensions: 10 kb pairs at 15 % divergence, anchor mid-read, T = 320,
 * O = 120: seqshim_gact_extend in a loop and seqshim_gact_extend_batch.
 *
 * Darwin itself is not run here: its rates are the recorded anchors of
 * the fixtures README and the GACT spec (section 9.3), measured on a
 * 2-vCPU VM of the same kind, and are printed as such.
 *
 * Usage: gact_bench [TILES] [REPEATS] [PAIRS]
 */
#define _POSIX_C_SOURCE 200809L
#include <parasail.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include <seqshim.h>
#include <seqshim/gact.h>

enum { T = 320, ET = 200, EXT_LEN = 10000 };

/* Recorded Darwin anchors (single thread, 2-vCPU AMD EPYC VM). */
#define DARWIN_TILES_PER_S 1201.0 /* fixtures README: AlignWithBT, -O4, median of 25 */
#define DARWIN_EXT_MS_LO 90.0     /* spec 9.3: GACT() on a 10 kb pair, 90-97 ms */
#define DARWIN_EXT_MS_HI 97.0

#include "bench_tiles.h"

static void check(int32_t st, const char* what) {
    if (st != 0) {
        fprintf(stderr, "%s failed: %s\n", what, seqshim_strerror(st));
        exit(1);
    }
}

int main(int argc, char** argv) {
    int n_tiles = argc > 1 ? atoi(argv[1]) : 256;
    int repeats = argc > 2 ? atoi(argv[2]) : 5;
    int n_pairs = argc > 3 ? atoi(argv[3]) : 16;
    long cores = sysconf(_SC_NPROCESSORS_ONLN);
    int32_t sub[25];
    for (int q = 0; q < 5; q++)
        for (int r = 0; r < 5; r++) sub[5 * q + r] = (q == 4 || r == 4) ? 0 : (q == r ? 1 : -1);

    char* refs = xmalloc((size_t)n_tiles * T);
    char* queries = xmalloc((size_t)n_tiles * T);
    seqshim_gact_tile_req_t* reqs = xmalloc((size_t)n_tiles * sizeof *reqs);
    seqshim_gact_tile_result_t* res = xmalloc((size_t)n_tiles * sizeof *res);
    uint8_t* arena = xmalloc((size_t)n_tiles * 2 * T);
    for (int k = 0; k < n_tiles; k++) {
        char* r = refs + (size_t)k * T;
        char* q = queries + (size_t)k * T;
        for (int i = 0; i < T; i++) r[i] = "ACGT"[rnd(4)];
        int ql = mutate(r, T, q, T);
        for (int i = ql; i < T; i++) q[i] = "ACGT"[rnd(4)];
        memset(&reqs[k], 0, sizeof reqs[k]);
        reqs[k].ref_seq = r;
        reqs[k].query_seq = q;
        reqs[k].ref_len = reqs[k].query_len = T;
        reqs[k].ref_pos = reqs[k].query_pos = T;
        reqs[k].reverse = k % 2;
        reqs[k].first = false;
        reqs[k].early_terminate = ET;
    }
    double cells = (double)n_tiles * T * T;
    printf("GACT on the CPU: %d tiles of 320x320 at 15 %% divergence, Darwin scoring, best of %d; "
           "%ld cores online\n",
           n_tiles, repeats, cores);

    /* seqshim, one thread */
    double best1 = 1e30;
    long check1 = 0;
    for (int rep = 0; rep < repeats; rep++) {
        double t0 = now();
        long sum = 0;
        for (int k = 0; k < n_tiles; k++) {
            seqshim_gact_tile_result_t out;
            check(seqshim_gact_align_tile(reqs[k].ref_seq, T, reqs[k].query_seq, T, sub, -1, -1,
                                          T, T, reqs[k].reverse, false, ET, arena, 2 * T, &out),
                  "seqshim_gact_align_tile");
            sum += out.score + (long)out.n_ops;
        }
        double dt = now() - t0;
        if (dt < best1) best1 = dt;
        check1 = sum;
    }
    /* seqshim, all cores */
    double best_all = 1e30;
    long check_all = 0;
    for (int rep = 0; rep < repeats; rep++) {
        double t0 = now();
        check(seqshim_gact_align_tile_batch(reqs, (uint32_t)n_tiles, sub, -1, -1, arena, 2 * T,
                                            res),
              "seqshim_gact_align_tile_batch");
        double dt = now() - t0;
        if (dt < best_all) best_all = dt;
        check_all = 0;
        for (int k = 0; k < n_tiles; k++) check_all += res[k].score + (long)res[k].n_ops;
    }
    if (check1 != check_all) {
        fprintf(stderr, "batch results differ from single calls\n");
        return 1;
    }
    /* parasail, one thread, traced */
    parasail_matrix_t* matrix = parasail_matrix_create("ACGT", 1, -1);
    const char* pnames[2] = {"parasail_sw_trace_striped_16", "parasail_sw_trace_scan_16"};
    double pbest[2] = {1e30, 1e30};
    for (int f = 0; f < 2; f++) {
        for (int rep = 0; rep < repeats; rep++) {
            double t0 = now();
            long sum = 0;
            for (int k = 0; k < n_tiles; k++) {
                const char* r = reqs[k].ref_seq;
                const char* q = reqs[k].query_seq;
                parasail_result_t* pr = f == 0 ? parasail_sw_trace_striped_16(q, T, r, T, 1, 1, matrix)
                                               : parasail_sw_trace_scan_16(q, T, r, T, 1, 1, matrix);
                parasail_cigar_t* cigar = parasail_result_get_cigar(pr, q, T, r, T, matrix);
                sum += parasail_result_get_score(pr) + cigar->len;
                parasail_cigar_free(cigar);
                parasail_result_free(pr);
            }
            double dt = now() - t0;
            if (dt < pbest[f]) pbest[f] = dt;
            if (sum == 0) printf("(empty)\n");
        }
    }
    parasail_matrix_free(matrix);

    printf("%-46s %10s %8s %s\n", "tiles", "tiles/s", "GCUPS", "ratio");
    printf("%-46s %10.0f %8.3f %s\n", "seqshim align_tile, 1 thread", n_tiles / best1,
           cells / best1 / 1e9, "1.00");
    printf("%-46s %10.0f %8.3f %.2f x seqshim 1 thread\n", "seqshim align_tile_batch, all cores",
           n_tiles / best_all, cells / best_all / 1e9, best1 / best_all);
    for (int f = 0; f < 2; f++)
        printf("%-46s %10.0f %8.3f seqshim 1 thread = %.2f x, all cores = %.2f x\n", pnames[f],
               n_tiles / pbest[f], cells / pbest[f] / 1e9, pbest[f] / best1, pbest[f] / best_all);
    printf("%-46s %10.0f %8.3f seqshim 1 thread = %.2f x, all cores = %.2f x\n",
           "Darwin AlignWithBT, 1 thread (anchor*)", DARWIN_TILES_PER_S,
           DARWIN_TILES_PER_S * T * T / 1e9, (n_tiles / best1) / DARWIN_TILES_PER_S,
           (n_tiles / best_all) / DARWIN_TILES_PER_S);

    /* whole extensions */
    char* er = xmalloc((size_t)n_pairs * EXT_LEN);
    char* eq = xmalloc((size_t)n_pairs * 2 * EXT_LEN);
    seqshim_gact_extend_req_t* ereq = xmalloc((size_t)n_pairs * sizeof *ereq);
    seqshim_gact_aln_t* eout = xmalloc((size_t)n_pairs * sizeof *eout);
    int32_t* est = xmalloc((size_t)n_pairs * sizeof *est);
    double full_cells = 0;
    for (int k = 0; k < n_pairs; k++) {
        char* r = er + (size_t)k * EXT_LEN;
        char* q = eq + (size_t)k * 2 * EXT_LEN;
        for (int i = 0; i < EXT_LEN; i++) r[i] = "ACGT"[rnd(4)];
        int ql = mutate(r, EXT_LEN, q, 2 * EXT_LEN);
        memset(&ereq[k], 0, sizeof ereq[k]);
        ereq[k].ref_str = r;
        ereq[k].query_str = q;
        ereq[k].ref_length = EXT_LEN;
        ereq[k].query_length = (uint32_t)ql;
        ereq[k].ref_pos = EXT_LEN / 2;
        ereq[k].query_pos = ql / 2;
        ereq[k].cap = EXT_LEN + (uint32_t)ql;
        ereq[k].aligned_ref = xmalloc(ereq[k].cap);
        ereq[k].aligned_query = xmalloc(ereq[k].cap);
        full_cells += (double)EXT_LEN * ql;
    }
    double ebest1 = 1e30, ebest_all = 1e30;
    long cols1 = 0, cols_all = 0;
    for (int rep = 0; rep < repeats; rep++) {
        double t0 = now();
        long cols = 0;
        for (int k = 0; k < n_pairs; k++) {
            seqshim_gact_aln_t out;
            check(seqshim_gact_extend(ereq[k].ref_str, ereq[k].query_str, sub, -1, -1, T, 120,
                                      ereq[k].ref_pos, ereq[k].query_pos, ereq[k].ref_length,
                                      ereq[k].query_length, 0, ereq[k].aligned_ref,
                                      ereq[k].aligned_query, ereq[k].cap, &out),
                  "seqshim_gact_extend");
            cols += out.n_cols;
        }
        double dt = now() - t0;
        if (dt < ebest1) ebest1 = dt;
        cols1 = cols;
        t0 = now();
        check(seqshim_gact_extend_batch(ereq, (uint32_t)n_pairs, sub, -1, -1, T, 120, 0, eout,
                                        est),
              "seqshim_gact_extend_batch");
        dt = now() - t0;
        if (dt < ebest_all) ebest_all = dt;
        cols_all = 0;
        for (int k = 0; k < n_pairs; k++) cols_all += eout[k].n_cols;
    }
    if (cols1 != cols_all) {
        fprintf(stderr, "extension batch results differ from single calls\n");
        return 1;
    }
    printf("\n%d extensions of 10 kb pairs at 15 %% divergence (T=320, O=120, anchor mid-read), "
           "best of %d; GCUPS = full-DP-equivalent (10 kb x 10 kb cells per pair)\n",
           n_pairs, repeats);
    printf("%-46s %10s %8s %s\n", "extensions", "pairs/s", "GCUPS", "ratio");
    printf("%-46s %10.1f %8.3f %s\n", "seqshim extend, 1 thread", n_pairs / ebest1,
           full_cells / ebest1 / 1e9, "1.00");
    printf("%-46s %10.1f %8.3f %.2f x seqshim 1 thread\n", "seqshim extend_batch, all cores",
           n_pairs / ebest_all, full_cells / ebest_all / 1e9, ebest1 / ebest_all);
    double d_lo = 1000.0 / DARWIN_EXT_MS_HI, d_hi = 1000.0 / DARWIN_EXT_MS_LO;
    printf("%-46s %4.1f-%4.1f %3.2f-%3.2f seqshim 1 thread = %.1f-%.1f x, all cores = %.1f-%.1f x\n",
           "Darwin GACT(), 1 thread (anchor*)", d_lo, d_hi, d_lo * 1e8 / 1e9,
           d_hi * 1e8 / 1e9, (n_pairs / ebest1) / d_hi, (n_pairs / ebest1) / d_lo,
           (n_pairs / ebest_all) / d_hi, (n_pairs / ebest_all) / d_lo);
    printf("\n* recorded anchors, not measured here: Darwin AlignWithBT 1,201 tiles/s (same tile "
           "workload; data/gact/README.md,\n  'Upstream speed'), Darwin GACT() 90-97 ms per 10 kb "
           "pair (spec gact.md section 9.3); both single-thread on a 2-vCPU VM.\n");
    printf("(checksums: tiles %ld, extension columns %ld)\n", check1, cols1);

    for (int k = 0; k < n_pairs; k++) free(ereq[k].aligned_ref), free(ereq[k].aligned_query);
    free(er), free(eq), free(ereq), free(eout), free(est);
    free(refs), free(queries), free(reqs), free(res), free(arena);
    return 0;
}
