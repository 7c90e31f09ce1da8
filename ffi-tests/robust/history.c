/* A batch result depends only on its pair and configuration: the batch
 * CPU path reuses one aligner per thread, whose wavefront table once only
 * grew, so a pair refused in a fresh process was aligned after the same
 * thread had aligned a longer pair. Aligns the same pairs (indel distance,
 * banded adaptive (2,5,0), 1,115 x 1,117 bases, and gap-affine pairs with
 * a narrow static band) before and after a batch of long pairs, and with
 * wavefront_align on a fresh aligner; all three must agree. Prints
 * "history: all ok". */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seqshim.h"
#include "wavefront/wavefront_align.h"

static uint64_t state;
static uint32_t next(void) {
    state ^= state << 13;
    state ^= state >> 7;
    state ^= state << 17;
    return (uint32_t)(state >> 11);
}

static void make_pair(char* p, int plen, char* t, int tlen, int div) {
    for (int i = 0; i < plen; ++i) p[i] = "ACGT"[next() & 3];
    for (int i = 0; i < tlen; ++i) t[i] = (i < plen && (int)(next() % 100) >= div) ? p[i] : "ACGT"[next() & 3];
}

typedef struct {
    int32_t call, status, score;
    char cigar[4096];
} outcome_t;

static int run_batch(const seqshim_wfa_options_t* o, const char* p, int plen, const char* t, int tlen,
                     outcome_t* out) {
    seqshim_wfa_batch_t* b = NULL;
    if (seqshim_wfa_batch_create(o, 1, &b) || seqshim_wfa_batch_add(b, p, plen, t, tlen, NULL) ||
        seqshim_wfa_batch_run(b))
        return 1;
    memset(out, 0, sizeof *out);
    out->call = seqshim_wfa_batch_result(b, 0, &out->status, &out->score);
    size_t needed = 0;
    if (out->call == SEQSHIM_OK)
        seqshim_wfa_batch_cigar_sam(b, 0, out->cigar, sizeof out->cigar, &needed);
    seqshim_wfa_batch_destroy(b);
    return 0;
}

/* A batch of long pairs, which grows every pool thread's aligner. */
static int long_pairs(const seqshim_wfa_options_t* o) {
    enum { N = 8, L = 4000 };
    static char p[L], t[L];
    seqshim_wfa_batch_t* b = NULL;
    if (seqshim_wfa_batch_create(o, N, &b)) return 1;
    for (int i = 0; i < N; ++i) {
        make_pair(p, L, t, L, 3);
        if (seqshim_wfa_batch_add(b, p, L, t, L, NULL)) return 1;
    }
    int rc = seqshim_wfa_batch_run(b);
    seqshim_wfa_batch_destroy(b);
    return rc;
}

int main(void) {
    int ok = 1;
    static char p[1200], t[1200];
    for (int c = 0; c < 2; ++c) {
        seqshim_wfa_options_t o;
        seqshim_wfa_options_default(&o);
        wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
        if (c == 0) {
            o.metric = SEQSHIM_WFA_METRIC_INDEL;
            o.heuristic = SEQSHIM_WFA_HEURISTIC_BANDED_ADAPTIVE;
            o.band_min_k = 2;
            o.band_max_k = 5;
            o.steps_between_cutoffs = 0;
            a.distance_metric = indel;
            a.heuristic.strategy = wf_heuristic_banded_adaptive;
            a.heuristic.min_k = 2;
            a.heuristic.max_k = 5;
            a.heuristic.steps_between_cutoffs = 0;
        } else {
            o.heuristic = SEQSHIM_WFA_HEURISTIC_BANDED_STATIC;
            o.band_min_k = -1;
            o.band_max_k = 1;
            a.heuristic.strategy = wf_heuristic_banded_static;
            a.heuristic.min_k = -1;
            a.heuristic.max_k = 1;
        }
        for (int div = 10; div <= 50; div += 20) {
            const int plen = c == 0 ? 1115 : 1100, tlen = c == 0 ? 1117 : 1140;
            state = 88172645463325252ull + 7919 + (uint64_t)div;
            make_pair(p, plen, t, tlen, div);
            outcome_t fresh, after;
            if (run_batch(&o, p, plen, t, tlen, &fresh) || long_pairs(&o) ||
                run_batch(&o, p, plen, t, tlen, &after)) {
                printf("config %d div %d: a batch call failed\n", c, div);
                return 1;
            }
            wavefront_aligner_t* w = wavefront_aligner_new(&a);
            int rc = wavefront_align(w, p, plen, t, tlen);
            printf("config %d div %d: batch before %d/%d/%d, after %d/%d/%d, wavefront_align %d/%d\n", c, div,
                   fresh.call, fresh.status, fresh.score, after.call, after.status, after.score, rc,
                   w->cigar->score);
            if (memcmp(&fresh, &after, sizeof fresh)) {
                printf("  the batch result changed after a batch of long pairs\n");
                ok = 0;
            }
            if (fresh.status != rc || (rc == 0 && fresh.score != w->cigar->score)) {
                printf("  the batch differs from wavefront_align\n");
                ok = 0;
            }
            wavefront_aligner_delete(w);
        }
    }
    printf("%s\n", ok ? "history: all ok" : "history: FAILED");
    return ok ? 0 : 1;
}
