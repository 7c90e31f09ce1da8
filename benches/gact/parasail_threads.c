/* parasail's traced Smith-Waterman on GACT-style tiles, on THREADS
 * threads: the CPU reference for the GPU tile benchmark (issue 22 asks for
 * the GPU against parasail traced on 16 threads of the same host).
 *
 * Tiles: square, 128, 320 and 511 bases a side (the sides of
 * tests/gact_gpu.rs's gpu_vs_cpu_benchmark), the query a copy of a random
 * reference with 15 % divergence (5 % substitutions, 5 % insertions, 5 %
 * deletions) cut or padded to the side; +1/-1, gaps -1/-1 (Darwin's
 * default). Each tile: parasail_sw_trace_striped_16 or
 * parasail_sw_trace_scan_16, then parasail_result_get_cigar (a local
 * alignment with its traceback, parasail's nearest equivalent of a GACT
 * tile). Every thread takes every THREADS-th tile; the clock runs from a
 * barrier before the first tile to the last thread's end; best of REPEATS.
 * GCUPS = side^2 cells a tile, as the GPU benchmark counts them.
 *
 * usage: parasail_threads THREADS [SCALE] [REPEATS]
 *   SCALE multiplies the tile counts (default 1: 65,536 / 16,384 / 8,192).
 * Prints per side one line per function and a "parasail best" line with
 * the faster of the two, which scripts/device-checks/gact.sh divides the
 * GPU's rate by. */
#define _POSIX_C_SOURCE 200809L
#include <parasail.h>
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "bench_tiles.h"

typedef parasail_result_t* (*traced_fn)(const char*, int, const char*, int, int, int,
                                        const parasail_matrix_t*);

/* One pass: what every thread shares and what it returns. */
struct pass {
    traced_fn fn;
    const parasail_matrix_t* matrix;
    const char* refs;
    const char* queries;
    int side, tiles, threads;
    pthread_barrier_t start;
};

struct worker {
    struct pass* pass;
    int id;
    long checksum;
    pthread_t thread;
};

static void* work(void* arg) {
    struct worker* w = arg;
    struct pass* p = w->pass;
    long sum = 0;
    pthread_barrier_wait(&p->start);
    for (int k = w->id; k < p->tiles; k += p->threads) {
        const char* r = p->refs + (size_t)k * p->side;
        const char* q = p->queries + (size_t)k * p->side;
        parasail_result_t* res = p->fn(q, p->side, r, p->side, 1, 1, p->matrix);
        parasail_cigar_t* cigar = parasail_result_get_cigar(res, q, p->side, r, p->side, p->matrix);
        sum += parasail_result_get_score(res) + cigar->len;
        parasail_cigar_free(cigar);
        parasail_result_free(res);
    }
    w->checksum = sum;
    return NULL;
}

/* Seconds of one pass of fn over every tile on `threads` threads. */
static double run_pass(struct pass* p, long* checksum) {
    struct worker* workers = xmalloc((size_t)p->threads * sizeof *workers);
    pthread_barrier_init(&p->start, NULL, (unsigned)p->threads + 1);
    for (int t = 0; t < p->threads; t++) {
        workers[t] = (struct worker){.pass = p, .id = t};
        if (pthread_create(&workers[t].thread, NULL, work, &workers[t]) != 0) {
            fprintf(stderr, "pthread_create failed\n");
            exit(2);
        }
    }
    pthread_barrier_wait(&p->start);
    double t0 = now();
    *checksum = 0;
    for (int t = 0; t < p->threads; t++) {
        pthread_join(workers[t].thread, NULL);
        *checksum += workers[t].checksum;
    }
    double dt = now() - t0;
    pthread_barrier_destroy(&p->start);
    free(workers);
    return dt;
}

int main(int argc, char** argv) {
    int threads = argc > 1 ? atoi(argv[1]) : 16;
    double scale = argc > 2 ? atof(argv[2]) : 1.0;
    int repeats = argc > 3 ? atoi(argv[3]) : 3;
    if (threads < 1 || scale <= 0 || repeats < 1) {
        fprintf(stderr, "usage: parasail_threads THREADS [SCALE] [REPEATS]\n");
        return 2;
    }
    const int sides[3] = {128, 320, 511};
    const int counts[3] = {65536, 16384, 8192};
    const char* names[2] = {"parasail_sw_trace_striped_16", "parasail_sw_trace_scan_16"};
    const traced_fn fns[2] = {parasail_sw_trace_striped_16, parasail_sw_trace_scan_16};
    parasail_matrix_t* matrix = parasail_matrix_create("ACGT", 1, -1);
    printf("parasail traced: %d threads, 15 %% divergence, +1/-1 gaps -1/-1, best of %d\n",
           threads, repeats);
    for (int s = 0; s < 3; s++) {
        int side = sides[s];
        int tiles = (int)(counts[s] * scale);
        if (tiles < threads) tiles = threads;
        char* refs = xmalloc((size_t)tiles * side);
        char* queries = xmalloc((size_t)tiles * side);
        for (int k = 0; k < tiles; k++) {
            char* r = refs + (size_t)k * side;
            char* q = queries + (size_t)k * side;
            for (int i = 0; i < side; i++) r[i] = "ACGT"[rnd(4)];
            int ql = mutate(r, side, q, side);
            for (int i = ql; i < side; i++) q[i] = "ACGT"[rnd(4)];
        }
        double cells = (double)tiles * side * side;
        double best_gcups = 0;
        int best_fn = 0;
        for (int f = 0; f < 2; f++) {
            struct pass p = {.fn = fns[f],
                             .matrix = matrix,
                             .refs = refs,
                             .queries = queries,
                             .side = side,
                             .tiles = tiles,
                             .threads = threads};
            double best = 1e30;
            long checksum = 0;
            for (int rep = 0; rep < repeats; rep++) {
                double dt = run_pass(&p, &checksum);
                if (dt < best) best = dt;
            }
            double gcups = cells / best / 1e9;
            printf("parasail traced: %dx%d @ 15%%: %d tiles, %d threads; %s %.0f tiles/s "
                   "(%.2f GCUPS); checksum %ld\n",
                   side, side, tiles, threads, names[f], tiles / best, gcups, checksum);
            if (gcups > best_gcups) best_gcups = gcups, best_fn = f;
        }
        printf("parasail best: %dx%d %d threads %.2f GCUPS (%s)\n", side, side, threads,
               best_gcups, names[best_fn]);
        free(refs);
        free(queries);
    }
    parasail_matrix_free(matrix);
    return 0;
}
