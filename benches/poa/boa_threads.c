/* Many threads calling the BOA ABI once per window, as CONSENT's workers
 * do: create_seq, initialize_seqs_as_lpo, buildup_progressive_lpo (global,
 * matrix_scoring_function), xlate_lpo_to_al, free_lpo_sequence. Windows are
 * CONSENT-like and generated here: 2-32 reads (8 on average) copied with
 * about 12 % errors from a random segment of 32-MAXLEN bases. Each thread
 * takes the next window from a shared counter. A warm-up pass (untimed)
 * runs first, so that a GPU started in the background is up for the timed
 * pass.
 *
 * usage: boa_threads MATRIX THREADS WINDOWS [MAXLEN [SEED [WARMUP]]]
 * prints: "<windows> windows, <threads> threads: <w/s> win/s, checksum <hex>"
 * (the checksum covers every window's MSA rows and does not depend on
 * which thread ran which window). */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "align_score.h"
#include "default.h"
#include "lpo.h"

static ResidueScoreMatrix_T score_matrix;

typedef struct {
    int nreads;
    char **reads;
} Window;

static Window *windows;
static int nwindows, warmup;
static atomic_int next_window;
static _Atomic uint64_t checksum;

static uint64_t rng_state;
static uint64_t rng(void) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return rng_state;
}
static int range(int lo, int hi) { return lo + (int)(rng() % (uint64_t)(hi - lo + 1)); }
static char base(void) { return "ACGT"[rng() % 4]; }

static char *noisy(const char *truth, int len) {
    char *r = malloc((size_t)(2 * len + 2));
    int n = 0;
    for (int i = 0; i < len; i++) {
        int e = (int)(rng() % 100);
        if (e < 4)
            continue; /* deletion */
        if (e < 8) {  /* insertion */
            r[n++] = truth[i];
            r[n++] = base();
        } else if (e < 12) {
            r[n++] = base(); /* substitution (or not) */
        } else {
            r[n++] = truth[i];
        }
    }
    if (n == 0)
        r[n++] = 'A';
    r[n] = '\0';
    return r;
}

static void make_windows(int count, int maxlen) {
    windows = calloc((size_t)count, sizeof *windows);
    nwindows = count;
    char *truth = malloc((size_t)maxlen + 1);
    for (int w = 0; w < count; w++) {
        /* CONSENT cuts windows at anchors: many pieces are short. */
        int len = range(32, maxlen);
        int nreads = (rng() % 4 == 0) ? range(9, 32) : range(2, 8);
        for (int i = 0; i < len; i++)
            truth[i] = base();
        windows[w].nreads = nreads;
        windows[w].reads = calloc((size_t)nreads, sizeof(char *));
        for (int r = 0; r < nreads; r++)
            windows[w].reads[r] = noisy(truth, len);
    }
    free(truth);
}

static uint64_t fnv(uint64_t h, const char *p, size_t n) {
    for (size_t i = 0; i < n; i++) {
        h ^= (unsigned char)p[i];
        h *= 1099511628211ull;
    }
    return h;
}

/* One window through the BOA call sequence; returns a hash of its rows. */
static uint64_t run_window(const Window *w) {
    Sequence_T *seq = NULL;
    int nseq = 0;
    char name[] = "", title[] = "";
    for (int i = 0; i < w->nreads; i++) {
        char *copy = strdup(w->reads[i]);
        if (create_seq(nseq, &seq, name, title, copy, dont_switch_case))
            nseq++;
        free(copy);
    }
    LPOSequence_T **input = calloc((size_t)nseq, sizeof *input);
    for (int i = 0; i < nseq; i++) {
        input[i] = &seq[i];
        initialize_seqs_as_lpo(1, &seq[i], &score_matrix);
    }
    LPOSequence_T *lpo = buildup_progressive_lpo(nseq, input, &score_matrix, 0, 0, NULL,
                                                 matrix_scoring_function, 1, 0);
    uint64_t h = 1469598103934665603ull;
    if (lpo) {
        char **rows = NULL, *block = NULL, *include = NULL;
        int ncol = xlate_lpo_to_al(lpo, score_matrix.nsymbol, score_matrix.symbol, 0, '-', &rows,
                                   &block, &include);
        h = fnv(h, (const char *)&ncol, sizeof ncol);
        for (int i = 0; i < lpo->nsource_seq; i++)
            h = fnv(h, rows[i], (size_t)ncol);
        free(block);
        free(include);
        free(rows);
    }
    for (int i = 0; i < nseq; i++)
        free_lpo_sequence(input[i], 0);
    free(input);
    free(seq);
    return h;
}

static void *worker(void *arg) {
    (void)arg;
    for (;;) {
        int i = atomic_fetch_add(&next_window, 1);
        if (i >= nwindows)
            break;
        uint64_t h = run_window(&windows[i]);
        atomic_fetch_add(&checksum, h * (2 * (uint64_t)i + 1));
    }
    return NULL;
}

static void *warm(void *arg) {
    (void)arg;
    for (;;) {
        int i = atomic_fetch_add(&next_window, 1);
        if (i >= warmup)
            break;
        run_window(&windows[i % nwindows]);
    }
    return NULL;
}

static double now(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + 1e-9 * (double)t.tv_nsec;
}

static void run_threads(int nthreads, void *(*f)(void *)) {
    pthread_t *threads = calloc((size_t)nthreads, sizeof *threads);
    atomic_store(&next_window, 0);
    for (int t = 0; t < nthreads; t++)
        pthread_create(&threads[t], NULL, f, NULL);
    for (int t = 0; t < nthreads; t++)
        pthread_join(threads[t], NULL);
    free(threads);
}

int main(int argc, char **argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: boa_threads MATRIX THREADS WINDOWS [MAXLEN [SEED [WARMUP]]]\n");
        return 2;
    }
    int nthreads = atoi(argv[2]);
    int count = atoi(argv[3]);
    int maxlen = argc > 4 ? atoi(argv[4]) : 500;
    rng_state = argc > 5 ? strtoull(argv[5], NULL, 10) : 20261127;
    warmup = argc > 6 ? atoi(argv[6]) : count / 4;
    if (nthreads < 1 || count < 1 || maxlen < 32 || rng_state == 0) {
        fprintf(stderr, "bad arguments\n");
        return 2;
    }
    if (read_score_matrix(argv[1], &score_matrix) <= 0) {
        fprintf(stderr, "cannot read matrix %s\n", argv[1]);
        return 2;
    }
    make_windows(count, maxlen);
    run_threads(nthreads, warm);
    double t0 = now();
    run_threads(nthreads, worker);
    double t = now() - t0;
    printf("%d windows, %d threads: %.0f win/s, checksum %016llx\n", count, nthreads, count / t,
           (unsigned long long)atomic_load(&checksum));
    for (int i = 0; i < nwindows; i++) {
        for (int r = 0; r < windows[i].nreads; r++)
            free(windows[i].reads[r]);
        free(windows[i].reads);
    }
    free(windows);
    free(score_matrix.gap_penalty_x);
    free(score_matrix.gap_penalty_y);
    return 0;
}
