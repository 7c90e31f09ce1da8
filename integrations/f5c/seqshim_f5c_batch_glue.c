/* f5c's batch-boundary entry points on seqshim's ABEA batch API, for
 * building f5c the way its GPU build is built (-DHAVE_CUDA=1, the same
 * meth_main.c / f5c.c flow) without nvcc and without f5c's CUDA sources.
 * See README.md here, "Whole batches: f5c's GPU build on seqshim".
 *
 * With HAVE_CUDA defined, f5c's host code calls three functions that its
 * CUDA objects would define:
 *   init_cuda(core)   once, from init_core(), unless --disable-cuda=yes;
 *   align_cuda(core, db)  once per batch of reads, from align_db();
 *   free_cuda(core)   once, from free_core().
 * This file defines them. align_cuda hands every alignable read of the batch
 * to seqshim_abea_align_batch in one call; seqshim splits the batch between
 * the GPU (when one is usable) and its CPU pool by f5c's own routing rules
 * (--cuda-max-lf, --cuda-max-epk) and returns, for every read, exactly the
 * pairs f5c's CPU align() computes. No f5c source file is edited.
 *
 * It must be compiled as C++ with f5c's include paths and -DHAVE_CUDA=1, so
 * that core_t and db_t have the layout f5c's objects were compiled with:
 *   g++ -g -Wall -O2 -std=c++11 -DHAVE_CUDA=1 -I src -I slow5lib/include \
 *       -I"$SEQSHIM/include" -x c++ -c seqshim_f5c_batch_glue.c \
 *       -o build/seqshim_f5c_batch_glue.o
 */
#ifndef HAVE_CUDA
#error "compile with -DHAVE_CUDA=1, as f5c's objects it is linked with"
#endif

#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

#include <vector>

/* f5c's own headers, from the f5c tree being built (-I src). */
#include "f5c.h"
#include "f5cmisc.h"

/* seqshim's header declares structs with f5c's layout under f5c's names
 * (event_t, event_table, ...). f5c.h has just declared the real ones, so
 * seqshim's declarations go into a namespace of their own: the functions keep
 * their C names (extern "C"), the duplicate types stay apart. */
namespace seqshim_c {
#include "seqshim/f5c.h"
}

/* The two sets of types must agree byte for byte: a pointer to f5c's array
 * is passed where seqshim's type is declared. */
#define SEQSHIM_SAME_LAYOUT(T)                                                                \
    static_assert(sizeof(T) == sizeof(seqshim_c::T) && alignof(T) == alignof(seqshim_c::T), \
                  #T " differs between f5c and seqshim/f5c.h")
SEQSHIM_SAME_LAYOUT(event_t);
SEQSHIM_SAME_LAYOUT(event_table);
SEQSHIM_SAME_LAYOUT(model_t);
SEQSHIM_SAME_LAYOUT(scalings_t);
SEQSHIM_SAME_LAYOUT(AlignedPair);
static_assert(offsetof(event_t, mean) == offsetof(seqshim_c::event_t, mean), "event_t.mean");
static_assert(offsetof(event_table, n) == offsetof(seqshim_c::event_table, n), "event_table.n");
static_assert(offsetof(event_table, event) == offsetof(seqshim_c::event_table, event),
              "event_table.event");
static_assert(offsetof(model_t, level_log_stdv) == offsetof(seqshim_c::model_t, level_log_stdv),
              "model_t.level_log_stdv");
static_assert(offsetof(scalings_t, shift) == offsetof(seqshim_c::scalings_t, shift),
              "scalings_t.shift");
static_assert(offsetof(AlignedPair, read_pos) == offsetof(seqshim_c::AlignedPair, read_pos),
              "AlignedPair.read_pos");

/* f5c's GPU options, as f5c's CUDA code reads them, for seqshim's batch. */
static seqshim_c::seqshim_abea_batch_opt_t batch_options(const core_t* core) {
    seqshim_c::seqshim_abea_batch_opt_t opt;
    seqshim_c::seqshim_abea_batch_opt_init(&opt);
    opt.models = reinterpret_cast<const seqshim_c::model_t*>(core->model);
    opt.kmer_size = core->kmer_size;
    opt.max_lf = core->opt.cuda_max_readlen;                 /* --cuda-max-lf */
    opt.max_epk = core->opt.cuda_max_avg_events_per_kmer;    /* --cuda-max-epk */
    opt.avg_epk = core->opt.cuda_avg_events_per_kmer;        /* --cuda-avg-epk */
    opt.skip_epk = AVG_EVENTS_PER_KMER_MAX;                  /* f5c's over-segmentation skip */
    /* --cuda-mem-frac: f5c takes 0.9 of the free memory unless the user gave
     * a fraction strictly between 0 and 1. */
    float frac = core->opt.cuda_mem_frac;
    opt.mem_frac = (frac > 0.0f && frac < 1.0f) ? frac : 0.9f;
    opt.n_cpu_threads = core->opt.num_thread;
    return opt;
}

void init_cuda(core_t* core) {
    /* The timers f5c prints for a GPU run (meth_main.c, resquiggle.c);
     * init_core() does not zero them. */
    core->align_kernel_time = 0;
    core->align_pre_kernel_time = 0;
    core->align_core_kernel_time = 0;
    core->align_post_kernel_time = 0;
    core->extra_load_cpu = 0;
    core->align_cuda_malloc = 0;
    core->align_cuda_memcpy = 0;
    core->align_cuda_postprocess = 0;
    core->align_cuda_preprocess = 0;
    core->align_cuda_total_kernel = 0;
    core->previous_mem = -1;
    core->previous_count_mem = 0;
    core->previous_load = -1;
    core->previous_count_load = 0;
    /* seqshim owns every device buffer; f5c's own arrays are not used. */
    core->cuda = NULL;
    if (core->opt.verbosity > 0) {
        fprintf(stderr,
                "[%s] ABEA through seqshim %s: each batch on the GPU when one is usable, "
                "else on seqshim's CPU pool (SEQSHIM_LOG=info says which)\n",
                __func__, seqshim_c::seqshim_version());
    }
}

void free_cuda(core_t* core) {
    /* Device memory is seqshim's, released when the process exits. */
    core->cuda = NULL;
}

void align_cuda(core_t* core, db_t* db) {
    double t0 = realtime();
    int32_t n_bam_rec = db->n_bam_rec;

    /* The reads f5c would align on either device: a good signal, at least
     * one event, a pair buffer. The others get 0 pairs, as in f5c. The
     * over-segmentation skip (events per base >= 15) is seqshim's, with
     * f5c's arithmetic. */
    std::vector<int32_t> index;
    std::vector<char*> sequences;
    std::vector<int32_t> lens;
    std::vector<event_table> events;
    std::vector<scalings_t> scalings;
    std::vector<AlignedPair*> outs;
    index.reserve(n_bam_rec);
    sequences.reserve(n_bam_rec);
    lens.reserve(n_bam_rec);
    events.reserve(n_bam_rec);
    scalings.reserve(n_bam_rec);
    outs.reserve(n_bam_rec);
    for (int32_t i = 0; i < n_bam_rec; i++) {
        db->n_event_align_pairs[i] = 0;
        if (db->sig[i]->nsample > 0 && db->et[i].n > 0 && db->event_align_pairs[i] != NULL &&
            db->read[i] != NULL) {
            index.push_back(i);
            sequences.push_back(db->read[i]);
            lens.push_back(db->read_len[i]);
            events.push_back(db->et[i]);
            scalings.push_back(db->scalings[i]);
            outs.push_back(db->event_align_pairs[i]);
        }
    }
    int32_t n = (int32_t)index.size();
    std::vector<int32_t> n_pairs(n, 0);
    double t1 = realtime();
    core->align_cuda_preprocess += t1 - t0;

    seqshim_c::seqshim_abea_batch_opt_t opt = batch_options(core);
    seqshim_c::seqshim_status status = seqshim_c::seqshim_abea_align_batch(
        &opt, n, sequences.data(), lens.data(),
        reinterpret_cast<const seqshim_c::event_table*>(events.data()),
        reinterpret_cast<const seqshim_c::scalings_t*>(scalings.data()),
        reinterpret_cast<seqshim_c::AlignedPair* const*>(outs.data()), n_pairs.data());
    double t2 = realtime();
    /* The whole batch call, GPU and CPU pool together, is the "kernel". */
    core->align_kernel_time += t2 - t1;
    core->align_core_kernel_time += t2 - t1;
    if (status != seqshim_c::SEQSHIM_OK) {
        fprintf(stderr, "[%s] seqshim_abea_align_batch failed on a batch of %d reads: %s\n",
                __func__, (int)n, seqshim_c::seqshim_strerror(status));
        exit(EXIT_FAILURE);
    }

    for (int32_t j = 0; j < n; j++) {
        db->n_event_align_pairs[index[j]] = n_pairs[j];
    }
    core->align_cuda_postprocess += realtime() - t2;
}
