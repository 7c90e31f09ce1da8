/* Small deterministic workloads for every family's batch entry point, each
 * reduced to a 64-bit hash of its results, so that two runs (before and
 * after fork(), or on two threads) can be compared. Shared by the
 * robustness tests in this folder. */
#ifndef SEQSHIM_ROBUST_FAMILIES_H
#define SEQSHIM_ROBUST_FAMILIES_H

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seqshim.h"
#include "seqshim/f5c.h"
#include "seqshim/gact.h"

static uint64_t fam_rng;
static inline uint32_t fam_next(void) {
    fam_rng ^= fam_rng << 13;
    fam_rng ^= fam_rng >> 7;
    fam_rng ^= fam_rng << 17;
    return (uint32_t)(fam_rng >> 11);
}

static inline uint64_t fam_hash(uint64_t h, const void* data, size_t n) {
    const unsigned char* p = data;
    for (size_t i = 0; i < n; ++i) h = (h ^ p[i]) * 0x100000001b3ull;
    return h;
}

static inline void* fam_alloc(size_t n) {
    void* p = calloc(n ? n : 1, 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* `n` random bases, then a copy with about `pct` % point edits. */
static inline void fam_pair(char* a, int n, char* b, int* m, int pct) {
    int j = 0;
    for (int i = 0; i < n; ++i) a[i] = "ACGT"[fam_next() & 3];
    for (int i = 0; i < n; ++i) {
        uint32_t r = fam_next() % 100;
        if (r < (uint32_t)pct / 3) continue; /* deletion */
        if (r < 2 * (uint32_t)pct / 3) b[j++] = "ACGT"[fam_next() & 3]; /* insertion */
        b[j++] = r < (uint32_t)pct ? "ACGT"[fam_next() & 3] : a[i];
    }
    *m = j;
}

/* WFA batch: pairs of `len` bases; hash of statuses, scores and CIGARs. */
static inline int fam_wfa(int pairs, int len, uint64_t* out) {
    fam_rng = 0x1234567ull;
    seqshim_wfa_options_t o;
    seqshim_wfa_batch_t* b = NULL;
    if (seqshim_wfa_options_default(&o) || seqshim_wfa_batch_create(&o, 0, &b)) return 1;
    char* a = fam_alloc((size_t)len);
    char* t = fam_alloc(2 * (size_t)len);
    for (int i = 0; i < pairs; ++i) {
        int m;
        fam_pair(a, len, t, &m, 8);
        if (seqshim_wfa_batch_add(b, a, len, t, m, NULL)) return 1;
    }
    if (seqshim_wfa_batch_run(b)) return 1;
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < pairs; ++i) {
        int32_t status, score;
        const char* ops;
        size_t n;
        if (seqshim_wfa_batch_result(b, (size_t)i, &status, &score)) return 1;
        if (seqshim_wfa_batch_cigar(b, (size_t)i, &ops, &n)) return 1;
        h = fam_hash(h, &status, sizeof status);
        h = fam_hash(h, &score, sizeof score);
        h = fam_hash(h, ops, n);
    }
    seqshim_wfa_batch_destroy(b);
    free(a);
    free(t);
    *out = h;
    return 0;
}

/* POA batch: `windows` windows of `reads` reads of about `len` bases. */
static inline int fam_poa(int windows, int reads, int len, uint64_t* out) {
    fam_rng = 0x7654321ull;
    seqshim_poa_params_t p;
    seqshim_poa_batch_t* b = NULL;
    if (seqshim_poa_params_default(&p) || seqshim_poa_batch_create(&p, 0, &b)) return 1;
    char* base = fam_alloc((size_t)len);
    char** seqs = fam_alloc((size_t)reads * sizeof *seqs);
    uint32_t* lens = fam_alloc((size_t)reads * sizeof *lens);
    for (int r = 0; r < reads; ++r) seqs[r] = fam_alloc(2 * (size_t)len);
    for (int w = 0; w < windows; ++w) {
        for (int r = 0; r < reads; ++r) {
            int m;
            fam_pair(base, len, seqs[r], &m, 10);
            lens[r] = (uint32_t)m;
            if (r == 0) memcpy(base, seqs[0], (size_t)len); /* reads share a template */
        }
        if (seqshim_poa_batch_add_window(b, (uint32_t)reads, (const char* const*)seqs, lens, NULL)) return 1;
    }
    if (seqshim_poa_batch_run(b)) return 1;
    uint64_t h = 0xcbf29ce484222325ull;
    for (int w = 0; w < windows; ++w) {
        const char* cons = NULL;
        uint32_t n = 0;
        int s = seqshim_poa_batch_get_consensus(b, (uint64_t)w, &cons, &n);
        h = fam_hash(h, &s, sizeof s);
        if (s == SEQSHIM_OK) h = fam_hash(h, cons, n);
    }
    seqshim_poa_batch_destroy(b);
    for (int r = 0; r < reads; ++r) free(seqs[r]);
    free(seqs);
    free(lens);
    free(base);
    *out = h;
    return 0;
}

static inline uint32_t fam_rank(const char* s, int k) {
    uint32_t r = 0;
    for (int i = 0; i < k; ++i) r = (r << 2) | (s[i] == 'C' ? 1u : s[i] == 'G' ? 2u : s[i] == 'T' ? 3u : 0u);
    return r;
}

/* ABEA batch: synthetic reads from a made-up 6-mer model. */
static inline int fam_abea(int n, uint64_t* out) {
    static model_t models[4096];
    fam_rng = 0xabcdefull;
    for (int i = 0; i < 4096; ++i) {
        float sd = 1.0f + (float)(fam_next() % 1000) / 1000.0f;
        models[i].level_mean = 60.0f + (float)(fam_next() % 7000) / 100.0f;
        models[i].level_stdv = sd;
        models[i].level_log_stdv = logf(sd);
    }
    char** seqs = fam_alloc((size_t)n * sizeof *seqs);
    int32_t* lens = fam_alloc((size_t)n * sizeof *lens);
    event_table* ets = fam_alloc((size_t)n * sizeof *ets);
    scalings_t* scs = fam_alloc((size_t)n * sizeof *scs);
    AlignedPair** outs = fam_alloc((size_t)n * sizeof *outs);
    int32_t* counts = fam_alloc((size_t)n * sizeof *counts);
    for (int i = 0; i < n; ++i) {
        int len = 300 + (int)(fam_next() % 300);
        lens[i] = len;
        seqs[i] = fam_alloc((size_t)len + 1);
        for (int k = 0; k < len; ++k) seqs[i][k] = "ACGT"[fam_next() & 3];
        ets[i].event = fam_alloc(3 * (size_t)len * sizeof(event_t));
        for (int k = 0; k + 6 <= len; ++k) {
            const model_t* m = &models[fam_rank(seqs[i] + k, 6)];
            int reps = 1 + (int)(fam_next() % 3);
            for (int j = 0; j < reps; ++j) {
                event_t* e = &ets[i].event[ets[i].n++];
                e->start = ets[i].n * 8;
                e->length = 8.0f;
                e->mean = m->level_mean + m->level_stdv * ((float)(fam_next() % 2000) / 1000.0f - 1.0f);
                e->stdv = 1.0f;
            }
        }
        ets[i].end = ets[i].n;
        scs[i].scale = 1.0f;
        scs[i].var = 1.0f;
        outs[i] = fam_alloc((ets[i].n + (size_t)len) * sizeof(AlignedPair));
    }
    seqshim_abea_batch_opt_t opt;
    seqshim_abea_batch_opt_init(&opt);
    opt.models = models;
    opt.kmer_size = 6;
    if (seqshim_abea_align_batch(&opt, n, seqs, lens, ets, scs, outs, counts)) return 1;
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; ++i) {
        h = fam_hash(h, &counts[i], sizeof counts[i]);
        if (counts[i] > 0) h = fam_hash(h, outs[i], (size_t)counts[i] * sizeof(AlignedPair));
        free(seqs[i]);
        free(ets[i].event);
        free(outs[i]);
    }
    free(seqs);
    free(lens);
    free(ets);
    free(scs);
    free(outs);
    free(counts);
    *out = h;
    return 0;
}

/* GACT tile batch: `n` 300 x 300 tiles at 10 % divergence. */
static inline int fam_gact(int n, uint64_t* out) {
    enum { L = 300 };
    fam_rng = 0x5eed5eedull;
    int32_t sub[25];
    for (int q = 0; q < 5; ++q)
        for (int r = 0; r < 5; ++r) sub[5 * q + r] = (q == r && q < 4) ? 2 : -3;
    char* refs = fam_alloc((size_t)n * L);
    char* qrys = fam_alloc((size_t)n * 2 * L);
    seqshim_gact_tile_req_t* reqs = fam_alloc((size_t)n * sizeof *reqs);
    for (int i = 0; i < n; ++i) {
        int m;
        fam_pair(refs + (size_t)i * L, L, qrys + (size_t)i * 2 * L, &m, 10);
        if (m > 511) m = 511;
        reqs[i].ref_seq = refs + (size_t)i * L;
        reqs[i].query_seq = qrys + (size_t)i * 2 * L;
        reqs[i].ref_len = L;
        reqs[i].query_len = m;
        reqs[i].first = true;
        reqs[i].early_terminate = 2 * L;
    }
    uint32_t stride = 2 * L + 512;
    uint8_t* ops = fam_alloc((size_t)n * stride);
    seqshim_gact_tile_result_t* res = fam_alloc((size_t)n * sizeof *res);
    if (seqshim_gact_align_tile_batch(reqs, (uint32_t)n, sub, -4, -1, ops, stride, res)) return 1;
    uint64_t h = 0xcbf29ce484222325ull;
    for (int i = 0; i < n; ++i) {
        h = fam_hash(h, &res[i], sizeof res[i]);
        h = fam_hash(h, ops + (size_t)i * stride, res[i].n_ops);
    }
    free(refs);
    free(qrys);
    free(reqs);
    free(ops);
    free(res);
    *out = h;
    return 0;
}

/* EC: 36 bp reads at 40x of a 3 kb genome with 1 % substitutions. */
static inline int fam_ec(uint64_t* out) {
    enum { G = 3000, L = 36, N = 3333 };
    fam_rng = 0xec0ec0ull;
    char* genome = fam_alloc(G);
    for (int i = 0; i < G; ++i) genome[i] = "ACGT"[fam_next() & 3];
    char* seqs = fam_alloc((size_t)N * L);
    uint32_t* lens = fam_alloc(N * sizeof *lens);
    uint32_t* trim = fam_alloc(N * sizeof *trim);
    uint8_t* status = fam_alloc(N);
    for (int i = 0; i < N; ++i) {
        uint32_t at = fam_next() % (G - L);
        for (int k = 0; k < L; ++k) {
            char c = genome[at + (uint32_t)k];
            seqs[(size_t)i * L + (size_t)k] = fam_next() % 100 == 0 ? "ACGT"[fam_next() & 3] : c;
        }
        lens[i] = L;
    }
    seqshim_ec_params p;
    seqshim_ec_spectrum* s = NULL;
    if (seqshim_ec_params_default(&p, 0) || seqshim_ec_spectrum_new(&p, N, &s) ||
        seqshim_ec_spectrum_add(s, seqs, L, lens, N) || seqshim_ec_spectrum_finalize(s) ||
        seqshim_ec_correct_batch(s, &p, seqs, L, lens, N, status, trim))
        return 1;
    seqshim_ec_spectrum_free(s);
    uint64_t h = 0xcbf29ce484222325ull;
    h = fam_hash(h, seqs, (size_t)N * L);
    h = fam_hash(h, lens, N * sizeof *lens);
    h = fam_hash(h, status, N);
    h = fam_hash(h, trim, N * sizeof *trim);
    free(genome);
    free(seqs);
    free(lens);
    free(trim);
    free(status);
    *out = h;
    return 0;
}

#endif
