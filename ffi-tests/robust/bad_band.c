/* An inverted band (band_min_k > band_max_k) through the WFA batch API
 * and wavefront_align: the batch refuses it at creation with
 * SEQSHIM_E_ARG (it used to run, panic inside, and report SEQSHIM_E_DEVICE
 * on a machine without a GPU), and wavefront_align returns -1 with a
 * cleared CIGAR score, for every metric, without a panic reaching stderr.
 * Prints "bad band: all ok". */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>
#include <time.h>

#include "seqshim.h"
#include "wavefront/wavefront_align.h"

int main(void) {
    int ok = 1;
    const char* p = "ACGTACGTACGTAAGTACGTTTGACCA";
    const char* t = "ACGTACGAACGTACGTACGTTGACCA";
    const int metrics[4] = {SEQSHIM_WFA_METRIC_INDEL, SEQSHIM_WFA_METRIC_EDIT, SEQSHIM_WFA_METRIC_GAP_LINEAR,
                            SEQSHIM_WFA_METRIC_GAP_AFFINE};
    for (int m = 0; m < 4; ++m) {
        for (int h = 0; h < 2; ++h) {
            seqshim_wfa_options_t o;
            seqshim_wfa_options_default(&o);
            o.metric = metrics[m];
            o.heuristic = h ? SEQSHIM_WFA_HEURISTIC_BANDED_ADAPTIVE : SEQSHIM_WFA_HEURISTIC_BANDED_STATIC;
            o.band_min_k = 5;
            o.band_max_k = -5;
            o.steps_between_cutoffs = 1;
            seqshim_wfa_batch_t* b = NULL;
            int s = seqshim_wfa_batch_create(&o, 0, &b);
            if (s != SEQSHIM_E_ARG || b != NULL) {
                printf("batch, metric %d, %s band (5,-5): create returned %d, not SEQSHIM_E_ARG\n",
                       metrics[m], h ? "adaptive" : "static", s);
                ok = 0;
                if (b) {
                    size_t i;
                    int32_t st = 0, score = 0;
                    seqshim_wfa_batch_add(b, p, (int32_t)strlen(p), t, (int32_t)strlen(t), &i);
                    s = seqshim_wfa_batch_run(b);
                    int r = seqshim_wfa_batch_result(b, 0, &st, &score);
                    printf("  run %d, result %d (%s)\n", s, r, seqshim_strerror(r));
                    seqshim_wfa_batch_destroy(b);
                }
            }
        }
    }
    const distance_metric_t dm[4] = {indel, edit, gap_linear, gap_affine};
    for (int m = 0; m < 4; ++m) {
        wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
        a.distance_metric = dm[m];
        a.heuristic.strategy = wf_heuristic_banded_static;
        a.heuristic.min_k = 5;
        a.heuristic.max_k = -5;
        wavefront_aligner_t* w = wavefront_aligner_new(&a);
        int rc = wavefront_align(w, p, (int)strlen(p), t, (int)strlen(t));
        if (rc != -1 || w->cigar->score != INT32_MIN) {
            printf("wavefront_align, metric %d, static band (5,-5): rc %d, score %d\n", m, rc, w->cigar->score);
            ok = 0;
        }
        /* The aligner stays usable. */
        wavefront_aligner_set_heuristic_none(w);
        rc = wavefront_align(w, p, (int)strlen(p), t, (int)strlen(t));
        if (rc != 0) {
            printf("wavefront_align, metric %d, no band afterwards: rc %d\n", m, rc);
            ok = 0;
        }
        wavefront_aligner_delete(w);
    }
    printf("%s\n", ok ? "bad band: all ok" : "bad band: FAILED");
    return ok ? 0 : 1;
}
