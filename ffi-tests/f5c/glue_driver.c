/* Calls f5c's names, provided by integrations/f5c/seqshim_f5c_glue.c, the
 * way f5c's own code does, and checks them against the seqshim_f5c_* entries. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seqshim/f5c.h"

int32_t align(AlignedPair* out_2, char* sequence, int32_t sequence_len, event_table events,
              model_t* models, uint32_t kmer_size, scalings_t scaling, float sample_rate);
scalings_t estimate_scalings_using_mom(char* sequence, int32_t sequence_len, model_t* pore_model,
                                       uint32_t kmer_size, event_table et);

int main(void) {
    static model_t models[4096];
    for (unsigned i = 0; i < 4096; ++i) {
        models[i].level_mean = 70.0f + (float)((i * 53u) % 60u);
        models[i].level_stdv = 1.7f;
        models[i].level_log_stdv = logf(1.7f);
    }
    enum { LEN = 400 };
    char seq[LEN + 1];
    unsigned x = 7;
    for (int i = 0; i < LEN; ++i) {
        x = x * 1664525u + 1013904223u;
        seq[i] = "ACGT"[(x >> 20) & 3];
    }
    seq[LEN] = 0;
    enum { N = 2 * (LEN - 5) };
    static event_t ev[N];
    for (int i = 0; i < N; ++i) {
        unsigned r = 0;
        for (int j = 0; j < 6; ++j) {
            char c = seq[i / 2 + j];
            r = (r << 2) | (c == 'C' ? 1u : c == 'G' ? 2u : c == 'T' ? 3u : 0u);
        }
        ev[i].start = (uint64_t)i;
        ev[i].length = 4.0f;
        ev[i].mean = models[r].level_mean + ((i % 3) - 1) * 0.4f;
        ev[i].stdv = 1.0f;
    }
    event_table et = {N, 0, N, ev};
    scalings_t s = estimate_scalings_using_mom(seq, LEN, models, 6, et);
    scalings_t t = seqshim_f5c_estimate_scalings_using_mom(seq, LEN, models, 6, et);
    static AlignedPair a[N + LEN], b[N + LEN];
    int32_t na = align(a, seq, LEN, et, models, 6, s, 4000.0f);
    int32_t nb = seqshim_f5c_align(b, seq, LEN, et, models, 6, t, 4000.0f);
    int same = memcmp(&s, &t, 2 * sizeof(float)) == 0 && na == nb && na > 0 &&
               memcmp(a, b, (size_t)na * sizeof(AlignedPair)) == 0;
    printf("glue: %s\n", same ? "f5c names forward to seqshim" : "MISMATCH");
    return same ? 0 : 1;
}
