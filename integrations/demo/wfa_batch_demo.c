/* The WFA section of `make demo`: many pairs through the native batch API
 * (GPU and CPU pool at once), then a WFA2-lib-style client with several
 * threads calling wavefront_align (batched onto the GPU by seqshim when one
 * is in use). Both are checked against one aligner calling wavefront_align
 * on every pair in turn. Says so when everything ran on the CPU. */
#define _GNU_SOURCE
#include <pthread.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seqshim.h"
#include "wavefront/wfa.h"

#define PAIRS 20000
#define LEN 150
#define THREADS 8

static char *pat[PAIRS], *txt[PAIRS];
static int plen[PAIRS], tlen[PAIRS];
static int ref_score[PAIRS];
static char *ref_cigar[PAIRS];

static uint64_t rng = 42;
static uint64_t next_u64(void) {
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

static void make_pairs(void) {
    for (int i = 0; i < PAIRS; i++) {
        pat[i] = malloc(LEN);
        txt[i] = malloc(2 * LEN);
        int k = 0;
        for (int j = 0; j < LEN; j++) pat[i][j] = "ACGT"[next_u64() & 3];
        for (int j = 0; j < LEN; j++) {
            int r = (int)(next_u64() % 60);
            if (r == 0) {
                txt[i][k++] = "ACGT"[next_u64() & 3];
            } else if (r == 1) {
            } else if (r == 2) {
                txt[i][k++] = pat[i][j];
                txt[i][k++] = 'A';
            } else {
                txt[i][k++] = pat[i][j];
            }
        }
        plen[i] = LEN;
        tlen[i] = k;
    }
}

static wavefront_aligner_t *new_aligner(void) {
    wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
    a.heuristic.strategy = wf_heuristic_none;
    return wavefront_aligner_new(&a);
}

static char *ops_of(const wavefront_aligner_t *wf) {
    int n = wf->cigar->end_offset - wf->cigar->begin_offset;
    char *s = malloc((size_t)n + 1);
    memcpy(s, wf->cigar->operations + wf->cigar->begin_offset, (size_t)n);
    s[n] = '\0';
    return s;
}

static int mismatches_in_threads;
static int next_pair;
static pthread_mutex_t lock = PTHREAD_MUTEX_INITIALIZER;

static void *client(void *arg) {
    (void)arg;
    wavefront_aligner_t *wf = new_aligner();
    for (;;) {
        pthread_mutex_lock(&lock);
        int i = next_pair++;
        pthread_mutex_unlock(&lock);
        if (i >= PAIRS) break;
        wavefront_align(wf, pat[i], plen[i], txt[i], tlen[i]);
        char *ops = ops_of(wf);
        if (wf->cigar->score != ref_score[i] || strcmp(ops, ref_cigar[i]) != 0) {
            pthread_mutex_lock(&lock);
            mismatches_in_threads++;
            pthread_mutex_unlock(&lock);
        }
        free(ops);
    }
    wavefront_aligner_delete(wf);
    return NULL;
}

int main(void) {
    char info[1024];
    seqshim_backend_info(info, sizeof info);
    int on_cpu = strstr(info, "backend: cpu") != NULL;
    printf("-- WFA: batch API and transparent wavefront_align batching --\n");
    if (on_cpu) {
        const char *why = strstr(info, "reason: ");
        printf("on the CPU: no GPU present (%.*s)\n", why ? (int)strcspn(why + 8, "\n") : 0, why ? why + 8 : "");
    } else {
        printf("GPU in use: pairs the WFA kernel reproduces exactly go to it, the rest to the CPU pool\n");
    }
    make_pairs();

    /* The reference: one aligner, every pair in turn. */
    wavefront_aligner_t *wf = new_aligner();
    double t0 = now();
    for (int i = 0; i < PAIRS; i++) {
        wavefront_align(wf, pat[i], plen[i], txt[i], tlen[i]);
        ref_score[i] = wf->cigar->score;
        ref_cigar[i] = ops_of(wf);
    }
    double t_one = now() - t0;
    wavefront_aligner_delete(wf);
    printf("one aligner, one thread: %d pairs of %d bp in %.3f s (%.0f aln/s)\n", PAIRS, LEN, t_one,
           PAIRS / t_one);

    /* The batch API: borrowed pairs, one run. */
    seqshim_wfa_options_t o;
    seqshim_wfa_options_default(&o);
    o.heuristic = SEQSHIM_WFA_HEURISTIC_NONE;
    seqshim_wfa_batch_t *b = NULL;
    if (seqshim_wfa_batch_create(&o, PAIRS, &b) != SEQSHIM_OK) return 1;
    t0 = now();
    for (int i = 0; i < PAIRS; i++) seqshim_wfa_batch_add_borrowed(b, pat[i], plen[i], txt[i], tlen[i], NULL);
    seqshim_wfa_batch_run(b);
    double t_batch = now() - t0;
    size_t to_gpu = 0, to_cpu = 0;
    seqshim_wfa_batch_routing(b, &to_gpu, &to_cpu);
    int differ = 0;
    for (int i = 0; i < PAIRS; i++) {
        int32_t status = 0, score = 0;
        const char *ops = NULL;
        size_t len = 0;
        if (seqshim_wfa_batch_result(b, (size_t)i, &status, &score) != SEQSHIM_OK ||
            seqshim_wfa_batch_cigar(b, (size_t)i, &ops, &len) != SEQSHIM_OK || score != ref_score[i] ||
            len != strlen(ref_cigar[i]) || memcmp(ops, ref_cigar[i], len) != 0)
            differ++;
    }
    char sam[2048];
    seqshim_wfa_batch_cigar_sam(b, 0, sam, sizeof sam, NULL);
    printf("batch API: %d pairs in %.3f s (%.0f aln/s; %zu offered to the GPU, %zu on the CPU pool), "
           "%d differ from wavefront_align\n",
           PAIRS, t_batch, PAIRS / t_batch, to_gpu, to_cpu, differ);
    printf("  pair 0: score %d, CIGAR %s\n", ref_score[0], sam);
    /* A GPU without a WFA runner (or a configuration routed to the CPU)
     * leaves every pair on the CPU; say so rather than claim batching. */
    int gpu_used = !on_cpu && to_gpu > 0;
    seqshim_wfa_batch_destroy(b);

    /* The transparent path: several threads, one aligner each. */
    pthread_t tid[THREADS];
    t0 = now();
    for (int i = 0; i < THREADS; i++) pthread_create(&tid[i], NULL, client, NULL);
    for (int i = 0; i < THREADS; i++) pthread_join(tid[i], NULL);
    double t_threads = now() - t0;
    const char *opt_in = getenv("SEQSHIM_WFA_TRANSPARENT");
    int transparent = opt_in != NULL && strcmp(opt_in, "1") == 0;
    printf("wavefront_align from %d threads (%s): %d pairs in %.3f s (%.0f aln/s), %d differ\n", THREADS,
           on_cpu         ? "on the CPU: no GPU present"
           : !transparent ? "on the CPU: the transparent GPU path is opt-in, SEQSHIM_WFA_TRANSPARENT=1"
           : gpu_used     ? "concurrent calls batched onto the GPU"
                          : "on the CPU: the GPU takes none of these pairs",
           PAIRS, t_threads,
           PAIRS / t_threads, mismatches_in_threads);
    for (int i = 0; i < PAIRS; i++) {
        free(pat[i]);
        free(txt[i]);
        free(ref_cigar[i]);
    }
    if (differ || mismatches_in_threads) return 1;
    printf("WFA: all results agree\n");
    return 0;
}
