/* A WFA2-lib client as real tools are written: T threads, one aligner each,
 * calling wavefront_align pair after pair. Built against libwfa2.so.0; run
 * it on the distribution's library and again with LD_PRELOAD=libseqshim.so.0
 * (whose concurrent wavefront_align calls are batched onto the GPU when one
 * is in use) and compare the checksums.
 *
 * usage: wfa_threads THREADS PAIRS LENGTH DIVERGENCE none|adaptive
 * Attributes: wavefront_aligner_attr_default (gap-affine 0,4,6,2, full
 * CIGAR), with the heuristic switched off for `none` and left at the
 * default wf-adaptive for `adaptive`. Prints one line: seconds, alignments
 * per second and a checksum over every status, score and CIGAR in pair
 * order. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wavefront/wfa.h"

static uint64_t rng_state;
static uint64_t next_u64(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double unit(void) { return (double)(next_u64() >> 11) * (1.0 / 9007199254740992.0); }
static char base(void) { return "ACGT"[next_u64() & 3]; }

static int n_pairs, exact;
static char **pat, **txt;
static int *plen, *tlen;
static uint64_t *sums;
static atomic_int next_pair;

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ULL; }

static void *worker(void *arg) {
    (void)arg;
    wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
    if (exact) a.heuristic.strategy = wf_heuristic_none;
    wavefront_aligner_t *wf = wavefront_aligner_new(&a);
    for (;;) {
        int i = atomic_fetch_add(&next_pair, 1);
        if (i >= n_pairs) break;
        int status = wavefront_align(wf, pat[i], plen[i], txt[i], tlen[i]);
        uint64_t h = mix(mix(1469598103934665603ULL, (uint64_t)(int64_t)status),
                         (uint64_t)(int64_t)wf->cigar->score);
        for (int k = wf->cigar->begin_offset; k < wf->cigar->end_offset; k++)
            h = mix(h, (uint8_t)wf->cigar->operations[k]);
        sums[i] = h;
    }
    wavefront_aligner_delete(wf);
    return NULL;
}

int main(int argc, char **argv) {
    if (argc < 6) {
        fprintf(stderr, "usage: %s THREADS PAIRS LENGTH DIVERGENCE none|adaptive\n", argv[0]);
        return 2;
    }
    int threads = atoi(argv[1]);
    n_pairs = atoi(argv[2]);
    int len = atoi(argv[3]);
    double err = atof(argv[4]);
    exact = strcmp(argv[5], "none") == 0;
    if (threads < 1 || n_pairs < 1 || len < 1) return 2;
    rng_state = (uint64_t)len * 7919 + (uint64_t)(err * 1000);
    pat = malloc(sizeof(char *) * (size_t)n_pairs);
    txt = malloc(sizeof(char *) * (size_t)n_pairs);
    plen = malloc(sizeof(int) * (size_t)n_pairs);
    tlen = malloc(sizeof(int) * (size_t)n_pairs);
    sums = calloc((size_t)n_pairs, sizeof *sums);
    for (int i = 0; i < n_pairs; i++) {
        pat[i] = malloc((size_t)len);
        txt[i] = malloc((size_t)len * 2 + 1);
        for (int j = 0; j < len; j++) pat[i][j] = base();
        int k = 0;
        for (int j = 0; j < len; j++) {
            double u = unit();
            if (u < err / 3) {
                txt[i][k++] = base();
            } else if (u < 2 * err / 3) {
            } else if (u < err) {
                txt[i][k++] = pat[i][j];
                txt[i][k++] = base();
            } else {
                txt[i][k++] = pat[i][j];
            }
        }
        plen[i] = len;
        tlen[i] = k;
    }
    pthread_t *tid = malloc(sizeof(pthread_t) * (size_t)threads);
    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    for (int i = 0; i < threads; i++) pthread_create(&tid[i], NULL, worker, NULL);
    for (int i = 0; i < threads; i++) pthread_join(tid[i], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double dt = (double)(t1.tv_sec - t0.tv_sec) + (double)(t1.tv_nsec - t0.tv_nsec) * 1e-9;
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n_pairs; i++) h = mix(h, sums[i]);
    printf("wfa threads: %s %d bp %.0f%% %d pairs, %d threads: %.3f s, %.0f aln/s, checksum %016llx\n",
           exact ? "none" : "adaptive", len, err * 100, n_pairs, threads, dt, n_pairs / dt,
           (unsigned long long)h);
    for (int i = 0; i < n_pairs; i++) {
        free(pat[i]);
        free(txt[i]);
    }
    free(pat), free(txt), free(plen), free(tlen), free(sums), free(tid);
    return 0;
}
