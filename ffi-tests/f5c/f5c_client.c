/* A C client of seqshim's f5c ABEA entries, as f5c would call them.
 *
 *   f5c_client                      layout, argument checks, a synthetic read
 *   f5c_client CASES [THREADS]      also every record of CASES (written by
 *                                   tests/ffi_f5c.rs from the fixture):
 *                                   per-read pairs, batch == per-read, and
 *                                   THREADS threads at once == one thread
 *
 * Pairs are printed as "R <index> <n> r,e;r,e;..." for the Rust test to
 * compare with the fixture's expected pairs; every other line is checked
 * verbatim. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <pthread.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seqshim.h"
#include "seqshim/f5c.h"

/* f5c's layouts (x86-64 / aarch64 LP64). */
_Static_assert(sizeof(event_t) == 24, "event_t size");
_Static_assert(offsetof(event_t, start) == 0, "event_t.start");
_Static_assert(offsetof(event_t, length) == 8, "event_t.length");
_Static_assert(offsetof(event_t, mean) == 12, "event_t.mean");
_Static_assert(offsetof(event_t, stdv) == 16, "event_t.stdv");
_Static_assert(sizeof(event_table) == 32, "event_table size");
_Static_assert(offsetof(event_table, n) == 0, "event_table.n");
_Static_assert(offsetof(event_table, start) == 8, "event_table.start");
_Static_assert(offsetof(event_table, end) == 16, "event_table.end");
_Static_assert(offsetof(event_table, event) == 24, "event_table.event");
_Static_assert(sizeof(model_t) == 12, "model_t size");
_Static_assert(offsetof(model_t, level_mean) == 0, "model_t.level_mean");
_Static_assert(offsetof(model_t, level_stdv) == 4, "model_t.level_stdv");
_Static_assert(offsetof(model_t, level_log_stdv) == 8, "model_t.level_log_stdv");
_Static_assert(sizeof(scalings_t) == 16, "scalings_t size");
_Static_assert(offsetof(scalings_t, scale) == 0, "scalings_t.scale");
_Static_assert(offsetof(scalings_t, shift) == 4, "scalings_t.shift");
_Static_assert(offsetof(scalings_t, var) == 8, "scalings_t.var");
_Static_assert(offsetof(scalings_t, log_var) == 12, "scalings_t.log_var");
_Static_assert(sizeof(AlignedPair) == 8, "AlignedPair size");
_Static_assert(offsetof(AlignedPair, ref_pos) == 0, "AlignedPair.ref_pos");
_Static_assert(offsetof(AlignedPair, read_pos) == 4, "AlignedPair.read_pos");
_Static_assert(sizeof(seqshim_abea_batch_opt_t) == 40, "batch opt size");
_Static_assert(offsetof(seqshim_abea_batch_opt_t, models) == 0, "opt.models");
_Static_assert(offsetof(seqshim_abea_batch_opt_t, kmer_size) == 8, "opt.kmer_size");
_Static_assert(offsetof(seqshim_abea_batch_opt_t, max_lf) == 12, "opt.max_lf");
_Static_assert(offsetof(seqshim_abea_batch_opt_t, max_epk) == 16, "opt.max_epk");
_Static_assert(offsetof(seqshim_abea_batch_opt_t, avg_epk) == 20, "opt.avg_epk");
_Static_assert(offsetof(seqshim_abea_batch_opt_t, skip_epk) == 24, "opt.skip_epk");
_Static_assert(offsetof(seqshim_abea_batch_opt_t, mem_frac) == 28, "opt.mem_frac");
_Static_assert(offsetof(seqshim_abea_batch_opt_t, n_cpu_threads) == 32, "opt.n_cpu_threads");
_Static_assert(offsetof(seqshim_abea_batch_opt_t, flags) == 36, "opt.flags");

typedef struct {
    long index;
    scalings_t scaling;
    int32_t len;
    char* sequence;
    event_table et;
} record_t;

typedef struct {
    uint32_t k;
    model_t* models;
    int n;
    record_t* records;
} cases_t;

static void* xmalloc(size_t n) {
    void* p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static float from_bits(unsigned bits) {
    float f;
    memcpy(&f, &bits, sizeof f);
    return f;
}

static int read_cases(const char* path, cases_t* c) {
    FILE* f = fopen(path, "r");
    if (!f) return -1;
    unsigned n_models = 0;
    if (fscanf(f, " M %u %u", &c->k, &n_models) != 2) goto bad;
    c->models = xmalloc(n_models * sizeof(model_t));
    for (unsigned i = 0; i < n_models; ++i) {
        unsigned a, b, d;
        if (fscanf(f, " %x %x %x", &a, &b, &d) != 3) goto bad;
        c->models[i].level_mean = from_bits(a);
        c->models[i].level_stdv = from_bits(b);
        c->models[i].level_log_stdv = from_bits(d);
    }
    if (fscanf(f, " N %d", &c->n) != 1 || c->n < 0) goto bad;
    c->records = xmalloc((size_t)c->n * sizeof(record_t));
    for (int r = 0; r < c->n; ++r) {
        record_t* rec = &c->records[r];
        unsigned scale, shift;
        size_t n_events;
        if (fscanf(f, " R %ld %x %x %d %zu", &rec->index, &scale, &shift, &rec->len, &n_events) != 5)
            goto bad;
        rec->scaling.scale = from_bits(scale);
        rec->scaling.shift = from_bits(shift);
        rec->scaling.var = 1.0f;
        rec->scaling.log_var = 0.0f;
        rec->sequence = xmalloc((size_t)rec->len + 1);
        char fmt[32];
        snprintf(fmt, sizeof fmt, " %%%ds", rec->len);
        if (fscanf(f, fmt, rec->sequence) != 1) goto bad;
        rec->et.n = n_events;
        rec->et.start = 0;
        rec->et.end = n_events;
        rec->et.event = xmalloc(n_events * sizeof(event_t));
        for (size_t e = 0; e < n_events; ++e) {
            unsigned long long start;
            unsigned length, mean, stdv;
            if (fscanf(f, " %llu %x %x %x", &start, &length, &mean, &stdv) != 4) goto bad;
            rec->et.event[e].start = start;
            rec->et.event[e].length = from_bits(length);
            rec->et.event[e].mean = from_bits(mean);
            rec->et.event[e].stdv = from_bits(stdv);
        }
    }
    fclose(f);
    return 0;
bad:
    fclose(f);
    return -2;
}

static AlignedPair* out_for(const record_t* r) {
    return xmalloc((r->et.n + (size_t)r->len) * sizeof(AlignedPair));
}

static int32_t align_record(const cases_t* c, const record_t* r, AlignedPair* out) {
    return seqshim_f5c_align(out, r->sequence, r->len, r->et, c->models, c->k, r->scaling, 4000.0f);
}

static int same_pairs(const AlignedPair* a, int32_t na, const AlignedPair* b, int32_t nb) {
    if (na != nb) return 0;
    for (int32_t i = 0; i < na; ++i)
        if (a[i].ref_pos != b[i].ref_pos || a[i].read_pos != b[i].read_pos) return 0;
    return 1;
}

/* ---------------------------------------------------------------- synthetic */

static uint32_t rank_of(const char* s, uint32_t k) {
    uint32_t r = 0;
    for (uint32_t i = 0; i < k; ++i) {
        uint32_t b = s[i] == 'C' ? 1 : s[i] == 'G' ? 2 : s[i] == 'T' ? 3 : 0;
        r = (r << 2) | b;
    }
    return r;
}

/* A 6-mer model and a read whose events sit on the model levels, 2 per k-mer. */
static void synthetic(cases_t* c, record_t* r) {
    c->k = 6;
    c->n = 1;
    c->models = xmalloc(4096 * sizeof(model_t));
    for (uint32_t i = 0; i < 4096; ++i) {
        c->models[i].level_mean = 60.0f + (float)((i * 37u) % 70u);
        c->models[i].level_stdv = 1.5f;
        c->models[i].level_log_stdv = logf(1.5f);
    }
    r->index = 0;
    r->len = 300;
    r->sequence = xmalloc(301);
    uint32_t x = 12345;
    for (int i = 0; i < r->len; ++i) {
        x = x * 1103515245u + 12345u;
        r->sequence[i] = "ACGT"[(x >> 16) & 3];
    }
    r->sequence[r->len] = 0;
    size_t n_kmers = (size_t)r->len - 5;
    r->et.n = 2 * n_kmers;
    r->et.start = 0;
    r->et.end = r->et.n;
    r->et.event = xmalloc(r->et.n * sizeof(event_t));
    for (size_t i = 0; i < r->et.n; ++i) {
        event_t* e = &r->et.event[i];
        e->start = i * 5;
        e->length = 5.0f;
        e->mean = c->models[rank_of(r->sequence + i / 2, 6)].level_mean + ((i & 1) ? 0.3f : -0.2f);
        e->stdv = 1.0f;
    }
    r->scaling.scale = 1.0f;
    r->scaling.shift = 0.0f;
    r->scaling.var = 1.0f;
    r->scaling.log_var = 0.0f;
}

static void argument_checks(const cases_t* c, const record_t* r) {
    AlignedPair* out = out_for(r);
    int32_t n = align_record(c, r, out);
    int shaped = n > 0 && out[0].ref_pos == 0 && out[n - 1].ref_pos == r->len - 6;
    for (int32_t i = 1; i < n; ++i) {
        int dk = out[i].ref_pos - out[i - 1].ref_pos, de = out[i].read_pos - out[i - 1].read_pos;
        if (!((dk == 1 && de == 1) || (dk == 0 && de == 1) || (dk == 1 && de == 0))) shaped = 0;
    }
    printf("synthetic read aligned: %s\n", shaped ? "yes" : "NO");

    event_table no_array = r->et;
    no_array.event = NULL;
    event_table empty = r->et;
    empty.n = 0;
    printf("align null out_2: %d\n",
           seqshim_f5c_align(NULL, r->sequence, r->len, r->et, c->models, 6, r->scaling, 0));
    printf("align null sequence: %d\n",
           seqshim_f5c_align(out, NULL, r->len, r->et, c->models, 6, r->scaling, 0));
    printf("align negative length: %d\n",
           seqshim_f5c_align(out, r->sequence, -5, r->et, c->models, 6, r->scaling, 0));
    printf("align null events: %d\n",
           seqshim_f5c_align(out, r->sequence, r->len, no_array, c->models, 6, r->scaling, 0));
    printf("align no events: %d\n",
           seqshim_f5c_align(out, r->sequence, r->len, empty, c->models, 6, r->scaling, 0));
    printf("align null models: %d\n",
           seqshim_f5c_align(out, r->sequence, r->len, r->et, NULL, 6, r->scaling, 0));
    printf("align k=0: %d\n", seqshim_f5c_align(out, r->sequence, r->len, r->et, c->models, 0, r->scaling, 0));
    printf("align k=10: %d\n", seqshim_f5c_align(out, r->sequence, r->len, r->et, c->models, 10, r->scaling, 0));
    printf("align shorter than k: %d\n",
           seqshim_f5c_align(out, r->sequence, 5, r->et, c->models, 6, r->scaling, 0));

    scalings_t s = seqshim_f5c_estimate_scalings_using_mom(r->sequence, r->len, c->models, 6, r->et);
    printf("mom synthetic: scale %s shift %s var %.1f\n", fabsf(s.scale - 1.0f) < 0.05f ? "~1" : "OFF",
           fabsf(s.shift) < 2.0f ? "~0" : "OFF", (double)s.var);
    s = seqshim_f5c_estimate_scalings_using_mom(NULL, r->len, c->models, 6, r->et);
    printf("mom null sequence: %s\n", isnan(s.scale) && isnan(s.shift) ? "nan" : "NUMBER");
    s = seqshim_f5c_estimate_scalings_using_mom(r->sequence, r->len, c->models, 12, r->et);
    printf("mom k=12: %s\n", isnan(s.scale) ? "nan" : "NUMBER");

    /* Batch argument checks: nothing may be written on error. */
    seqshim_abea_batch_opt_t opt;
    seqshim_abea_batch_opt_init(&opt);
    printf("batch defaults: max_lf %.1f max_epk %.1f avg_epk %.1f skip_epk %.1f mem_frac %.1f\n",
           (double)opt.max_lf, (double)opt.max_epk, (double)opt.avg_epk, (double)opt.skip_epk,
           (double)opt.mem_frac);
    opt.models = c->models;
    opt.kmer_size = 6;
    char* seqs[1] = {r->sequence};
    int32_t lens[1] = {r->len};
    AlignedPair* outs[1] = {out};
    int32_t counts[1] = {-7};
    printf("batch null opt: %d\n", seqshim_abea_align_batch(NULL, 1, seqs, lens, &r->et, &r->scaling, outs, counts));
    printf("batch negative count: %d\n",
           seqshim_abea_align_batch(&opt, -1, seqs, lens, &r->et, &r->scaling, outs, counts));
    printf("batch zero reads: %d\n", seqshim_abea_align_batch(&opt, 0, NULL, NULL, NULL, NULL, NULL, NULL));
    printf("batch null sequences: %d\n",
           seqshim_abea_align_batch(&opt, 1, NULL, lens, &r->et, &r->scaling, outs, counts));
    printf("batch null counts: %d\n", seqshim_abea_align_batch(&opt, 1, seqs, lens, &r->et, &r->scaling, outs, NULL));
    int32_t bad_len[1] = {-1};
    printf("batch negative length: %d\n",
           seqshim_abea_align_batch(&opt, 1, seqs, bad_len, &r->et, &r->scaling, outs, counts));
    AlignedPair* no_out[1] = {NULL};
    printf("batch null out_pairs[0]: %d\n",
           seqshim_abea_align_batch(&opt, 1, seqs, lens, &r->et, &r->scaling, no_out, counts));
    printf("batch null events[0].event: %d\n",
           seqshim_abea_align_batch(&opt, 1, seqs, lens, &no_array, &r->scaling, outs, counts));
    seqshim_abea_batch_opt_t bad = opt;
    bad.kmer_size = 0;
    printf("batch k=0: %d\n", seqshim_abea_align_batch(&bad, 1, seqs, lens, &r->et, &r->scaling, outs, counts));
    bad = opt;
    bad.models = NULL;
    printf("batch null models: %d\n", seqshim_abea_align_batch(&bad, 1, seqs, lens, &r->et, &r->scaling, outs, counts));
    bad = opt;
    bad.skip_epk = 0.0f;
    printf("batch skip_epk=0: %d\n", seqshim_abea_align_batch(&bad, 1, seqs, lens, &r->et, &r->scaling, outs, counts));
    bad = opt;
    bad.mem_frac = 1.5f;
    printf("batch mem_frac=1.5: %d\n", seqshim_abea_align_batch(&bad, 1, seqs, lens, &r->et, &r->scaling, outs, counts));
    bad = opt;
    bad.mem_frac = 0.0f;
    printf("batch mem_frac=0: %d\n", seqshim_abea_align_batch(&bad, 1, seqs, lens, &r->et, &r->scaling, outs, counts));
    bad = opt;
    bad.avg_epk = NAN;
    printf("batch avg_epk=nan: %d\n", seqshim_abea_align_batch(&bad, 1, seqs, lens, &r->et, &r->scaling, outs, counts));
    bad = opt;
    bad.flags = 2u;
    printf("batch unknown flag: %d\n", seqshim_abea_align_batch(&bad, 1, seqs, lens, &r->et, &r->scaling, outs, counts));
    bad = opt;
    bad.avg_epk = 1.0e12f;
    printf("batch avg_epk=1e12: %d\n", seqshim_abea_align_batch(&bad, 1, seqs, lens, &r->et, &r->scaling, outs, counts));
    AlignedPair* odd_out[1] = {(AlignedPair*)((char*)out + 1)};
    printf("batch misaligned out_pairs[0]: %d\n",
           seqshim_abea_align_batch(&opt, 1, seqs, lens, &r->et, &r->scaling, odd_out, counts));
    printf("batch counts untouched: %s\n", counts[0] == -7 ? "yes" : "NO");
    int status = seqshim_abea_align_batch(&opt, 1, seqs, lens, &r->et, &r->scaling, outs, counts);
    printf("batch synthetic: %d, same count as align: %s\n", status, counts[0] == n ? "yes" : "NO");
    free(out);
}

/* ---------------------------------------------------------------- fixture */

typedef struct {
    const cases_t* c;
    AlignedPair** expect;
    const int32_t* expect_n;
    int first;
    int differ;
} worker_t;

static void* worker(void* arg) {
    worker_t* w = arg;
    const cases_t* c = w->c;
    for (int i = 0; i < c->n; ++i) {
        int r = (w->first + i) % c->n;
        AlignedPair* out = out_for(&c->records[r]);
        int32_t n = align_record(c, &c->records[r], out);
        if (!same_pairs(out, n, w->expect[r], w->expect_n[r])) w->differ++;
        free(out);
    }
    return NULL;
}

static int fixture(const cases_t* c, int threads) {
    AlignedPair** pairs = xmalloc((size_t)c->n * sizeof *pairs);
    int32_t* n_pairs = xmalloc((size_t)c->n * sizeof *n_pairs);
    for (int r = 0; r < c->n; ++r) {
        const record_t* rec = &c->records[r];
        pairs[r] = out_for(rec);
        n_pairs[r] = align_record(c, rec, pairs[r]);
        printf("R %ld %d ", rec->index, n_pairs[r]);
        for (int32_t i = 0; i < n_pairs[r]; ++i)
            printf(i ? ";%d,%d" : "%d,%d", pairs[r][i].ref_pos, pairs[r][i].read_pos);
        printf("\n");
    }

    /* The batch entry, defaults and CPU-only, must give the per-read pairs. */
    char** seqs = xmalloc((size_t)c->n * sizeof *seqs);
    int32_t* lens = xmalloc((size_t)c->n * sizeof *lens);
    event_table* ets = xmalloc((size_t)c->n * sizeof *ets);
    scalings_t* scs = xmalloc((size_t)c->n * sizeof *scs);
    AlignedPair** outs = xmalloc((size_t)c->n * sizeof *outs);
    int32_t* counts = xmalloc((size_t)c->n * sizeof *counts);
    for (int r = 0; r < c->n; ++r) {
        seqs[r] = c->records[r].sequence;
        lens[r] = c->records[r].len;
        ets[r] = c->records[r].et;
        scs[r] = c->records[r].scaling;
        outs[r] = out_for(&c->records[r]);
    }
    seqshim_abea_batch_opt_t opt;
    seqshim_abea_batch_opt_init(&opt);
    opt.models = c->models;
    opt.kmer_size = c->k;
    const char* names[3] = {"default", "force-cpu", "skip_epk=1"};
    for (int mode = 0; mode < 3; ++mode) {
        opt.flags = mode == 1 ? SEQSHIM_ABEA_FORCE_CPU : 0;
        opt.skip_epk = mode == 2 ? 1.0f : 15.0f;
        for (int r = 0; r < c->n; ++r) counts[r] = -7;
        int status = seqshim_abea_align_batch(&opt, c->n, seqs, lens, ets, scs, outs, counts);
        int same = 0, zero = 0;
        for (int r = 0; r < c->n; ++r) {
            same += same_pairs(outs[r], counts[r], pairs[r], n_pairs[r]);
            zero += counts[r] == 0;
        }
        if (mode < 2)
            printf("batch %s: status %d, %d of %d reads identical to per-read\n", names[mode], status, same,
                   c->n);
        else
            printf("batch %s: status %d, %d of %d reads skipped\n", names[mode], status, zero, c->n);
    }

    /* The batch lifecycle: create, add one at a time, run, read by index. */
    seqshim_abea_batch_opt_init(&opt);
    opt.models = c->models;
    opt.kmer_size = c->k;
    seqshim_abea_batch_t* batch = NULL;
    int lifecycle = seqshim_abea_batch_create(&opt, (size_t)c->n, &batch);
    const AlignedPair* got = NULL;
    size_t n_got = 0;
    for (int r = 0; r < c->n && lifecycle == SEQSHIM_OK; ++r) {
        size_t index = 99;
        lifecycle = seqshim_abea_batch_add(batch, seqs[r], lens[r], ets[r].event, ets[r].n, scs[r], &index);
        if (index != (size_t)r) lifecycle = -99;
    }
    int before_run = seqshim_abea_batch_result(batch, 0, &got, &n_got);
    if (lifecycle == SEQSHIM_OK) lifecycle = seqshim_abea_batch_run(batch);
    int same = 0;
    for (int r = 0; r < c->n && lifecycle == SEQSHIM_OK; ++r)
        if (seqshim_abea_batch_result(batch, (size_t)r, &got, &n_got) == SEQSHIM_OK)
            same += same_pairs(got, (int32_t)n_got, pairs[r], n_pairs[r]);
    int past_end = seqshim_abea_batch_result(batch, (size_t)c->n, &got, &n_got);
    size_t size = seqshim_abea_batch_size(batch);
    int reset = seqshim_abea_batch_reset(batch);
    size_t after_reset = seqshim_abea_batch_size(batch);
    seqshim_abea_batch_destroy(batch);
    seqshim_abea_batch_destroy(batch); /* a second destroy is ignored */
    printf("handle: status %d, %d of %d reads identical to per-read; before run %d, past end %d, "
           "size %zu, reset %d, size after %zu\n",
           lifecycle, same, c->n, before_run, past_end, size, reset, after_reset);

    for (int r = 0; r < c->n; ++r) free(outs[r]);
    free(outs);
    free(counts);
    free(seqs);
    free(lens);
    free(ets);
    free(scs);

    /* Many threads at once, each starting at another record. */
    pthread_t* tids = xmalloc((size_t)threads * sizeof *tids);
    worker_t* ws = xmalloc((size_t)threads * sizeof *ws);
    for (int t = 0; t < threads; ++t) {
        ws[t] = (worker_t){c, pairs, n_pairs, (t * 13) % (c->n ? c->n : 1), 0};
        if (pthread_create(&tids[t], NULL, worker, &ws[t]) != 0) {
            printf("pthread_create failed\n");
            return 1;
        }
    }
    int differ = 0;
    for (int t = 0; t < threads; ++t) {
        pthread_join(tids[t], NULL);
        differ += ws[t].differ;
    }
    printf("threads: %d x %d calls, %d differ from one thread\n", threads, c->n, differ);
    free(tids);
    free(ws);
    for (int r = 0; r < c->n; ++r) free(pairs[r]);
    free(pairs);
    free(n_pairs);
    return 0;
}

static void free_cases(cases_t* c) {
    for (int r = 0; r < c->n; ++r) {
        free(c->records[r].sequence);
        free(c->records[r].et.event);
    }
    free(c->records);
    free(c->models);
}

int main(int argc, char** argv) {
    cases_t syn;
    record_t syn_read;
    synthetic(&syn, &syn_read);
    syn.records = &syn_read;
    argument_checks(&syn, &syn_read);
    free(syn_read.sequence);
    free(syn_read.et.event);
    free(syn.models);

    if (argc < 2) return 0;
    cases_t c;
    memset(&c, 0, sizeof c);
    int status = read_cases(argv[1], &c);
    if (status != 0) {
        printf("cannot read %s (%d)\n", argv[1], status);
        return 1;
    }
    int threads = argc > 2 ? atoi(argv[2]) : 8;
    status = fixture(&c, threads > 0 ? threads : 1);
    free_cases(&c);
    return status;
}
