/* The ABEA part of `make demo`: f5c's event alignment through seqshim.
 *
 *   seqshim-abea-demo FIXTURE_DIR   real R9.4 reads with f5c's expected pairs
 *   seqshim-abea-demo               synthetic reads (no fixture at hand)
 *
 * Aligns every read with seqshim_f5c_align (f5c's signature) and again with
 * the batch entry, checks the two agree (and, for the fixture, equal f5c's
 * pairs), and prints the throughput in band cells per second. */
#define _POSIX_C_SOURCE 200809L
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seqshim.h"
#include "seqshim/f5c.h"

typedef struct {
    char* sequence;
    int32_t len;
    event_table et;
    scalings_t scaling;
    int32_t n_expected; /* -1: unknown (synthetic) */
    AlignedPair* expected;
} read_t;

static double now_s(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + ts.tv_nsec / 1e9;
}

static void* xmalloc(size_t n) {
    void* p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* Opens a fixture file, decompressing .gz through gzip(1). */
static FILE* open_table(const char* dir, const char* name, int* piped) {
    char path[4096];
    snprintf(path, sizeof path, "%s/%s", dir, name);
    size_t n = strlen(path);
    *piped = n > 3 && strcmp(path + n - 3, ".gz") == 0;
    if (!*piped) return fopen(path, "r");
    char cmd[4200];
    snprintf(cmd, sizeof cmd, "gzip -dc '%s'", path);
    return popen(cmd, "r");
}

static void close_table(FILE* f, int piped) {
    if (piped)
        pclose(f);
    else
        fclose(f);
}

/* Loads the fixture (format in its README); returns the number of reads. */
static int load_fixture(const char* dir, model_t* models, read_t** out) {
    char* line = NULL;
    size_t cap = 0;
    int piped;
    FILE* f = open_table(dir, "model_r94_dna_6mer.tsv", &piped);
    if (!f) return -1;
    int m = 0;
    if (getline(&line, &cap, f) < 0) return -1; /* header */
    while (m < 4096 && getline(&line, &cap, f) > 0) {
        char* p = strchr(line, '\t');
        if (!p) break;
        models[m].level_mean = strtof(p + 1, &p);
        models[m].level_stdv = strtof(p, &p);
        models[m].level_log_stdv = strtof(p, &p);
        ++m;
    }
    close_table(f, piped);
    if (m != 4096) return -1;

    int n = 0, room = 128;
    read_t* reads = xmalloc((size_t)room * sizeof *reads);
    f = open_table(dir, "reads.tsv.gz", &piped);
    if (!f || getline(&line, &cap, f) < 0) return -1;
    while (getline(&line, &cap, f) > 0) {
        if (n == room) {
            room *= 2;
            read_t* grown = realloc(reads, (size_t)room * sizeof *reads);
            if (!grown) return -1;
            reads = grown;
        }
        read_t* r = &reads[n++];
        memset(r, 0, sizeof *r);
        char* p = strchr(line, '\t');          /* after index */
        p = p ? strchr(p + 1, '\t') : NULL;    /* after read_id */
        if (!p) return -1;
        r->scaling.scale = strtof(p + 1, &p);
        r->scaling.shift = strtof(p, &p);
        r->scaling.var = 1.0f;
        r->et.n = strtoul(p, &p, 10);
        r->et.end = r->et.n;
        while (*p == '\t') ++p;
        size_t len = strcspn(p, "\r\n");
        r->sequence = xmalloc(len + 1);
        memcpy(r->sequence, p, len);
        r->sequence[len] = 0;
        r->len = (int32_t)len;
        r->et.event = xmalloc(r->et.n * sizeof(event_t));
    }
    close_table(f, piped);

    f = open_table(dir, "events.tsv.gz", &piped);
    if (!f || getline(&line, &cap, f) < 0) return -1;
    for (int i = 0; i < n; ++i) {
        for (size_t e = 0; e < reads[i].et.n; ++e) {
            if (getline(&line, &cap, f) <= 0) return -1;
            char* p = strchr(line, '\t');
            if (!p) return -1;
            event_t* ev = &reads[i].et.event[e];
            ev->start = strtoull(p + 1, &p, 10);
            ev->length = strtof(p, &p);
            ev->mean = strtof(p, &p);
            ev->stdv = strtof(p, &p);
        }
    }
    close_table(f, piped);

    f = open_table(dir, "expected.tsv.gz", &piped);
    if (!f || getline(&line, &cap, f) < 0) return -1;
    for (int i = 0; i < n; ++i) {
        if (getline(&line, &cap, f) <= 0) return -1;
        char* p = strchr(line, '\t');
        if (!p) return -1;
        read_t* r = &reads[i];
        r->n_expected = (int32_t)strtol(p + 1, &p, 10);
        r->expected = xmalloc((size_t)r->n_expected * sizeof(AlignedPair));
        for (int32_t k = 0; k < r->n_expected; ++k) {
            ++p; /* tab or ';' */
            r->expected[k].ref_pos = (int)strtol(p, &p, 10);
            ++p; /* ',' */
            r->expected[k].read_pos = (int)strtol(p, &p, 10);
        }
    }
    close_table(f, piped);
    free(line);
    *out = reads;
    return n;
}

static uint32_t rank6(const char* s) {
    uint32_t r = 0;
    for (int i = 0; i < 6; ++i) r = (r << 2) | (s[i] == 'C' ? 1u : s[i] == 'G' ? 2u : s[i] == 'T' ? 3u : 0u);
    return r;
}

/* Reads drawn from a made-up 6-mer model: 1 to 3 events per k-mer with noise. */
static int synthetic(model_t* models, read_t** out) {
    uint64_t x = 0x5eedULL;
#define NEXT() (x = x * 6364136223846793005ULL + 1442695040888963407ULL, (uint32_t)(x >> 33))
    for (int i = 0; i < 4096; ++i) {
        float sd = 1.0f + (float)(NEXT() % 1000) / 1000.0f;
        models[i].level_mean = 60.0f + (float)(NEXT() % 7000) / 100.0f;
        models[i].level_stdv = sd;
        models[i].level_log_stdv = logf(sd);
    }
    int n = 64;
    read_t* reads = xmalloc((size_t)n * sizeof *reads);
    for (int i = 0; i < n; ++i) {
        read_t* r = &reads[i];
        memset(r, 0, sizeof *r);
        r->len = 2000 + (int32_t)(NEXT() % 4000);
        r->sequence = xmalloc((size_t)r->len + 1);
        for (int32_t k = 0; k < r->len; ++k) r->sequence[k] = "ACGT"[NEXT() & 3];
        r->sequence[r->len] = 0;
        r->et.event = xmalloc(3 * (size_t)r->len * sizeof(event_t));
        for (int32_t k = 0; k + 6 <= r->len; ++k) {
            const model_t* m = &models[rank6(r->sequence + k)];
            int reps = 1 + (int)(NEXT() % 3);
            for (int j = 0; j < reps; ++j) {
                event_t* e = &r->et.event[r->et.n++];
                e->start = r->et.n * 8;
                e->length = 8.0f;
                e->mean = m->level_mean + m->level_stdv * ((float)(NEXT() % 2000) / 1000.0f - 1.0f);
                e->stdv = 1.0f;
            }
        }
        r->et.end = r->et.n;
        r->scaling.scale = 1.0f;
        r->scaling.var = 1.0f;
        r->n_expected = -1;
    }
#undef NEXT
    *out = reads;
    return n;
}

static int same(const AlignedPair* a, int32_t na, const AlignedPair* b, int32_t nb) {
    return na == nb && (na == 0 || memcmp(a, b, (size_t)na * sizeof *a) == 0);
}

int main(int argc, char** argv) {
    static model_t models[4096];
    read_t* reads = NULL;
    const char* source = "synthetic reads (no fixture given)";
    int n = -1;
    if (argc > 1) {
        n = load_fixture(argv[1], models, &reads);
        if (n < 0) {
            fprintf(stderr, "cannot read the ABEA fixture in %s\n", argv[1]);
            return 1;
        }
        source = "fixture: E. coli R9.4 reads, f5c's expected pairs";
    } else {
        n = synthetic(models, &reads);
    }
    double cells = 0, events = 0, bases = 0;
    for (int i = 0; i < n; ++i) {
        cells += ((double)reads[i].et.n + 1 + (reads[i].len - 6 + 1) + 1) * 100.0;
        events += (double)reads[i].et.n;
        bases += reads[i].len;
    }
    printf("-- ABEA: f5c align() through seqshim --\n%s\n", source);
    printf("%d reads, %.0f events, %.0f bases, %.1f M band cells\n", n, events, bases, cells / 1e6);

    AlignedPair** single = xmalloc((size_t)n * sizeof *single);
    int32_t* single_n = xmalloc((size_t)n * sizeof *single_n);
    double start = now_s();
    for (int i = 0; i < n; ++i) {
        single[i] = xmalloc((reads[i].et.n + (size_t)reads[i].len) * sizeof(AlignedPair));
        single_n[i] = seqshim_f5c_align(single[i], reads[i].sequence, reads[i].len, reads[i].et, models, 6,
                                        reads[i].scaling, 4000.0f);
    }
    double per_read_s = now_s() - start;
    int match_f5c = 0, known = 0, passed = 0;
    for (int i = 0; i < n; ++i) {
        passed += single_n[i] > 0;
        if (reads[i].n_expected < 0) continue;
        ++known;
        match_f5c += same(single[i], single_n[i], reads[i].expected, reads[i].n_expected);
    }
    printf("seqshim_f5c_align, one read at a time: %.3f s, %.1f M cells/s, %d of %d reads pass QC\n", per_read_s,
           cells / per_read_s / 1e6, passed, n);
    if (known) printf("  identical to f5c's pairs: %d of %d reads\n", match_f5c, known);

    char** seqs = xmalloc((size_t)n * sizeof *seqs);
    int32_t* lens = xmalloc((size_t)n * sizeof *lens);
    event_table* ets = xmalloc((size_t)n * sizeof *ets);
    scalings_t* scs = xmalloc((size_t)n * sizeof *scs);
    AlignedPair** outs = xmalloc((size_t)n * sizeof *outs);
    int32_t* counts = xmalloc((size_t)n * sizeof *counts);
    for (int i = 0; i < n; ++i) {
        seqs[i] = reads[i].sequence;
        lens[i] = reads[i].len;
        ets[i] = reads[i].et;
        scs[i] = reads[i].scaling;
        outs[i] = xmalloc((reads[i].et.n + (size_t)reads[i].len) * sizeof(AlignedPair));
    }
    seqshim_abea_batch_opt_t opt;
    seqshim_abea_batch_opt_init(&opt);
    opt.models = models;
    opt.kmer_size = 6;
    int status = SEQSHIM_OK;
    double batch_s = 0;
    for (int run = 0; run < 2 && status == SEQSHIM_OK; ++run) {
        start = now_s();
        status = seqshim_abea_align_batch(&opt, n, seqs, lens, ets, scs, outs, counts);
        batch_s = now_s() - start;
    }
    if (status != SEQSHIM_OK) {
        printf("seqshim_abea_align_batch failed: %s\n", seqshim_strerror(status));
        return 1;
    }
    int agree = 0;
    for (int i = 0; i < n; ++i) agree += same(outs[i], counts[i], single[i], single_n[i]);
    printf("seqshim_abea_align_batch, all reads at once: %.3f s, %.1f M cells/s (%.1fx one at a time)\n", batch_s,
           cells / batch_s / 1e6, per_read_s / batch_s);
    printf("  identical to one at a time: %d of %d reads\n", agree, n);

    /* The same reads through the batch lifecycle: create, add, run, result. */
    seqshim_abea_batch_t* batch = NULL;
    status = seqshim_abea_batch_create(&opt, (size_t)n, &batch);
    for (int i = 0; i < n && status == SEQSHIM_OK; ++i)
        status = seqshim_abea_batch_add(batch, seqs[i], lens[i], ets[i].event, ets[i].n, scs[i], NULL);
    start = now_s();
    if (status == SEQSHIM_OK) status = seqshim_abea_batch_run(batch);
    double handle_s = now_s() - start;
    int handle_agree = 0;
    for (int i = 0; i < n && status == SEQSHIM_OK; ++i) {
        const AlignedPair* got = NULL;
        size_t n_got = 0;
        if (seqshim_abea_batch_result(batch, (size_t)i, &got, &n_got) == SEQSHIM_OK)
            handle_agree += same(got, (int32_t)n_got, single[i], single_n[i]);
    }
    seqshim_abea_batch_destroy(batch);
    printf("seqshim_abea_batch_run (create, add, run, result): %.3f s, status %s\n", handle_s,
           seqshim_strerror(status));
    printf("  identical to one at a time: %d of %d reads\n", handle_agree, n);

    int ok = agree == n && handle_agree == n && match_f5c == known && passed > 0;
    for (int i = 0; i < n; ++i) {
        free(single[i]);
        free(outs[i]);
        free(reads[i].sequence);
        free(reads[i].et.event);
        free(reads[i].expected);
    }
    free(single);
    free(single_n);
    free(outs);
    free(counts);
    free(seqs);
    free(lens);
    free(ets);
    free(scs);
    free(reads);
    printf("%s\n", ok ? "ABEA: all results agree" : "ABEA: RESULTS DIFFER");
    return ok ? 0 : 1;
}
