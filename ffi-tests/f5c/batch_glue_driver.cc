/* Drives integrations/f5c/seqshim_f5c_batch_glue.c the way f5c's host code
 * does with HAVE_CUDA (init_cuda, align_cuda per batch, free_cuda), on the
 * f5c-shaped declarations in f5c_shaped/, and checks every read of the
 * batch against seqshim_f5c_align called on its own: the pairs f5c's
 * align_single() would give, or 0 for the reads f5c does not align. */
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <vector>

#include "f5c.h"
#include "f5cmisc.h"

namespace seqshim_c {
#include "seqshim/f5c.h"
}

static unsigned rank6(const char* s) {
    unsigned r = 0;
    for (int j = 0; j < 6; ++j) {
        char c = s[j];
        r = (r << 2) | (c == 'C' ? 1u : c == 'G' ? 2u : c == 'T' ? 3u : 0u);
    }
    return r;
}

struct Read {
    std::vector<char> seq;
    std::vector<event_t> events;
    signal_t sig;
    std::vector<AlignedPair> pairs;
};

/* A read of `len` bases with about `epk` events per base that follow the
 * model, so that it aligns. */
static void make_read(Read& r, const model_t* models, int len, int epk_num, int epk_den,
                      unsigned seed) {
    r.seq.assign(len + 1, 0);
    unsigned x = seed;
    for (int i = 0; i < len; ++i) {
        x = x * 1664525u + 1013904223u;
        r.seq[i] = "ACGT"[(x >> 20) & 3];
    }
    int n_kmers = len >= 6 ? len - 5 : 0;
    int n = n_kmers * epk_num / epk_den;
    r.events.resize(n);
    for (int i = 0; i < n; ++i) {
        int k = (int)((long)i * n_kmers / (n > 0 ? n : 1));
        r.events[i].start = (uint64_t)i;
        r.events[i].length = 4.0f;
        r.events[i].mean = models[rank6(&r.seq[k])].level_mean + ((i % 3) - 1) * 0.4f;
        r.events[i].stdv = 1.0f;
    }
    r.sig.rawptr = NULL;
    r.sig.nsample = 1000;
    r.sig.sample_rate = 4000.0f;
    r.pairs.assign(2 * (size_t)n + 1, AlignedPair{-1, -1});
}

int main(void) {
    static model_t models[4096];
    for (unsigned i = 0; i < 4096; ++i) {
        models[i].level_mean = 70.0f + (float)((i * 53u) % 60u);
        models[i].level_stdv = 1.7f;
        models[i].level_log_stdv = logf(1.7f);
    }

    core_t core;
    memset(&core, 0xff, sizeof core); /* f5c's init_core() leaves the timers unset */
    core.model = models;
    core.kmer_size = 6;
    core.opt.num_thread = 4;
    core.opt.verbosity = 0;
    core.opt.cuda_mem_frac = 1.0f; /* f5c's default: "unset" */
    core.opt.cuda_max_readlen = 3.0f;
    core.opt.cuda_avg_events_per_kmer = 2.0f;
    core.opt.cuda_max_avg_events_per_kmer = 5.0f;

    /* 0 good; 1 no signal; 2 no events; 3 over-segmented (15.75 events per
     * base); 4 long (past 3x the mean length: f5c's CPU list); 5 short;
     * 6 many events per base (7: past --cuda-max-epk, under the skip). */
    const int N = 7;
    std::vector<Read> reads(N);
    make_read(reads[0], models, 400, 2, 1, 7);
    make_read(reads[1], models, 300, 2, 1, 11);
    reads[1].sig.nsample = 0;
    make_read(reads[2], models, 200, 0, 1, 13);
    make_read(reads[3], models, 40, 18, 1, 17); /* 630 events, 15.75 per base */
    make_read(reads[4], models, 3000, 2, 1, 19);
    make_read(reads[5], models, 60, 3, 2, 23);
    make_read(reads[6], models, 150, 7, 1, 29);

    std::vector<char*> read_ptrs(N);
    std::vector<int32_t> read_lens(N);
    std::vector<signal_t*> sigs(N);
    std::vector<event_table> ets(N);
    std::vector<scalings_t> scalings(N);
    std::vector<AlignedPair*> outs(N);
    std::vector<int32_t> n_pairs(N, -7);
    for (int i = 0; i < N; ++i) {
        read_ptrs[i] = reads[i].seq.data();
        read_lens[i] = (int32_t)reads[i].seq.size() - 1;
        sigs[i] = &reads[i].sig;
        size_t n = reads[i].events.size();
        ets[i] = event_table{n, 0, n, n ? reads[i].events.data() : NULL};
        seqshim_c::scalings_t s = seqshim_c::seqshim_f5c_estimate_scalings_using_mom(
            read_ptrs[i], read_lens[i], reinterpret_cast<seqshim_c::model_t*>(models), 6,
            *reinterpret_cast<seqshim_c::event_table*>(&ets[i]));
        memcpy(&scalings[i], &s, sizeof s);
        outs[i] = n ? reads[i].pairs.data() : NULL;
    }
    db_t db;
    db.n_bam_rec = N;
    db.read = read_ptrs.data();
    db.read_len = read_lens.data();
    db.sig = sigs.data();
    db.et = ets.data();
    db.scalings = scalings.data();
    db.event_align_pairs = outs.data();
    db.n_event_align_pairs = n_pairs.data();

    init_cuda(&core);
    int ok = core.cuda == NULL && core.align_kernel_time == 0 && core.align_cuda_preprocess == 0 &&
             core.align_cuda_memcpy == 0 && core.extra_load_cpu == 0;
    if (!ok) printf("init_cuda left a timer unset\n");
    align_cuda(&core, &db);
    align_cuda(&core, &db); /* a second batch through the same core */

    int aligned = 0;
    for (int i = 0; i < N; ++i) {
        int32_t expect = 0;
        std::vector<AlignedPair> want(reads[i].events.size() + read_lens[i] + 1);
        bool f5c_aligns = reads[i].sig.nsample > 0 && !reads[i].events.empty() &&
                          (float)reads[i].events.size() / (float)read_lens[i] <
                              AVG_EVENTS_PER_KMER_MAX;
        if (f5c_aligns) {
            expect = seqshim_c::seqshim_f5c_align(
                reinterpret_cast<seqshim_c::AlignedPair*>(want.data()), read_ptrs[i],
                read_lens[i], *reinterpret_cast<seqshim_c::event_table*>(&ets[i]),
                reinterpret_cast<seqshim_c::model_t*>(models), 6,
                *reinterpret_cast<seqshim_c::scalings_t*>(&scalings[i]), 4000.0f);
        }
        bool same = n_pairs[i] == expect &&
                    (expect == 0 ||
                     memcmp(want.data(), outs[i], (size_t)expect * sizeof(AlignedPair)) == 0);
        if (!same) {
            printf("read %d: %d pairs, expected %d\n", i, n_pairs[i], expect);
            ok = 0;
        }
        if (expect > 0) aligned++;
    }
    if (aligned != 4) {
        printf("%d reads aligned, expected 4\n", aligned);
        ok = 0;
    }
    if (!(core.align_kernel_time >= 0 && core.align_cuda_preprocess >= 0)) ok = 0;
    free_cuda(&core);
    printf("batch glue: %s\n", ok ? "align_cuda gives align_single's pairs" : "MISMATCH");
    return ok ? 0 : 1;
}
