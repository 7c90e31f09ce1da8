/* The WFA batch API against wavefront_align: for each configuration, every
 * pair of a batch (half copied, half borrowed) must give the status, score
 * and CIGAR that one wavefront_aligner_t with the same attributes gives
 * calling wavefront_align on each pair in turn; the SAM-style string must
 * be the run-length form of those operations. Then every error path.
 *
 * usage: batch_api [PAIRS_PER_CONFIGURATION [SEED]]
 * Prints one summary line and "all ok" on success. */
#include <limits.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "seqshim.h"
#include "wavefront/wfa.h"

static int failures;
#define CHECK(cond, ...)                                                       \
    do {                                                                       \
        if (!(cond)) {                                                         \
            failures++;                                                        \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);               \
            fprintf(stderr, __VA_ARGS__);                                      \
            fputc('\n', stderr);                                               \
        }                                                                      \
    } while (0)

static uint64_t rng;
static uint64_t next_u64(void) {
    uint64_t z = (rng += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static char base(void) { return "ACGT"[next_u64() & 3]; }

struct pair {
    char *p, *t;
    int plen, tlen;
};

/* Random pairs of 20-620 bases at up to 15 % edits, then edge cases. */
static struct pair *make_pairs(int n, int with_edges, int *count) {
    static const char *edges[][2] = {
        {"", ""}, {"", "ACGT"}, {"ACGT", ""}, {"A", "A"}, {"A", "C"},
        {"NNNNACGT", "ACGTACGT"}, {"acgtACGT", "ACGTACGT"}, {"ACGTACGTACGTACGTACGT", "AC"},
    };
    int n_edges = with_edges ? (int)(sizeof edges / sizeof edges[0]) : 0;
    struct pair *v = calloc((size_t)(n + n_edges), sizeof *v);
    for (int i = 0; i < n; i++) {
        int len = 20 + (int)(next_u64() % 600);
        double err = (double)(next_u64() % 16) / 100.0;
        v[i].p = malloc((size_t)len + 1);
        v[i].t = malloc((size_t)len * 2 + 1);
        for (int j = 0; j < len; j++) v[i].p[j] = base();
        int t = 0;
        for (int j = 0; j < len; j++) {
            double u = (double)(next_u64() >> 11) / 9007199254740992.0;
            if (u < err / 3) {
                v[i].t[t++] = base();
            } else if (u < 2 * err / 3) {
                /* deletion */
            } else if (u < err) {
                v[i].t[t++] = v[i].p[j];
                v[i].t[t++] = base();
            } else {
                v[i].t[t++] = v[i].p[j];
            }
        }
        v[i].plen = len;
        v[i].tlen = t;
    }
    for (int e = 0; e < n_edges; e++) {
        v[n + e].plen = (int)strlen(edges[e][0]);
        v[n + e].tlen = (int)strlen(edges[e][1]);
        v[n + e].p = malloc((size_t)v[n + e].plen + 1);
        v[n + e].t = malloc((size_t)v[n + e].tlen + 1);
        memcpy(v[n + e].p, edges[e][0], (size_t)v[n + e].plen + 1);
        memcpy(v[n + e].t, edges[e][1], (size_t)v[n + e].tlen + 1);
    }
    *count = n + n_edges;
    return v;
}

static void free_pairs(struct pair *v, int n) {
    for (int i = 0; i < n; i++) {
        free(v[i].p);
        free(v[i].t);
    }
    free(v);
}

enum { H_NONE, H_WFADAPTIVE, H_XDROP, H_BANDED };

struct config {
    const char *name;
    int metric, match, mismatch, indel, go, ge, go2, ge2;
    int span, pbf, pef, tbf, tef;
    int scope, heuristic, h1, h2, h3, memory, max_score;
};

static const struct config configs[] = {
    {"default (affine, wf-adaptive)", 3, 0, 4, 2, 6, 2, 24, 1, 0, 0, 0, 0, 0, 1, H_WFADAPTIVE, 10, 50, 1, 0, INT_MAX},
    {"affine exact", 3, 0, 4, 2, 6, 2, 24, 1, 0, 0, 0, 0, 0, 1, H_NONE, 0, 0, 0, 0, INT_MAX},
    {"affine exact score-only", 3, 0, 4, 2, 6, 2, 24, 1, 0, 0, 0, 0, 0, 0, H_NONE, 0, 0, 0, 0, INT_MAX},
    {"affine wf-adaptive score-only", 3, 0, 4, 2, 6, 2, 24, 1, 0, 0, 0, 0, 0, 0, H_WFADAPTIVE, 10, 50, 1, 0, INT_MAX},
    {"affine ends-free", 3, 0, 4, 2, 6, 2, 24, 1, 1, 0, 10, 0, 10, 1, H_NONE, 0, 0, 0, 0, INT_MAX},
    {"affine match -1, med memory", 3, -1, 4, 2, 6, 2, 24, 1, 0, 0, 0, 0, 0, 1, H_NONE, 0, 0, 0, 1, INT_MAX},
    {"affine-2p wf-adaptive", 4, 0, 4, 2, 6, 2, 24, 1, 0, 0, 0, 0, 0, 1, H_WFADAPTIVE, 10, 50, 1, 0, INT_MAX},
    {"linear, low memory", 2, 0, 4, 2, 6, 2, 24, 1, 0, 0, 0, 0, 0, 1, H_NONE, 0, 0, 0, 2, INT_MAX},
    {"edit", 1, 0, 4, 2, 6, 2, 24, 1, 0, 0, 0, 0, 0, 1, H_NONE, 0, 0, 0, 0, INT_MAX},
    {"indel score-only", 0, 0, 4, 2, 6, 2, 24, 1, 0, 0, 0, 0, 0, 0, H_NONE, 0, 0, 0, 0, INT_MAX},
    {"affine x-drop", 3, 0, 4, 2, 6, 2, 24, 1, 0, 0, 0, 0, 0, 1, H_XDROP, 40, 1, 0, 0, INT_MAX},
    {"affine banded static", 3, 0, 4, 2, 6, 2, 24, 1, 0, 0, 0, 0, 0, 1, H_BANDED, -8, 8, 0, 0, INT_MAX},
    {"affine banded static score-only", 3, 0, 4, 2, 6, 2, 24, 1, 0, 0, 0, 0, 0, 0, H_BANDED, -8, 8, 0, 0, INT_MAX},
    {"affine max score 60", 3, 0, 4, 2, 6, 2, 24, 1, 0, 0, 0, 0, 0, 1, H_NONE, 0, 0, 0, 0, 60},
};

static void options_of(const struct config *c, seqshim_wfa_options_t *o, int device) {
    seqshim_wfa_options_default(o);
    o->metric = c->metric;
    o->match_score = c->match;
    o->mismatch = c->mismatch;
    o->indel = c->indel;
    o->gap_opening = c->go;
    o->gap_extension = c->ge;
    o->gap_opening2 = c->go2;
    o->gap_extension2 = c->ge2;
    o->span = c->span;
    o->pattern_begin_free = c->pbf;
    o->pattern_end_free = c->pef;
    o->text_begin_free = c->tbf;
    o->text_end_free = c->tef;
    o->scope = c->scope;
    o->memory_mode = c->memory;
    o->max_alignment_score = c->max_score;
    o->device = device;
    switch (c->heuristic) {
    case H_NONE: o->heuristic = SEQSHIM_WFA_HEURISTIC_NONE; break;
    case H_WFADAPTIVE:
        o->heuristic = SEQSHIM_WFA_HEURISTIC_WFADAPTIVE;
        o->min_wavefront_length = c->h1;
        o->max_distance_threshold = c->h2;
        o->steps_between_cutoffs = c->h3;
        break;
    case H_XDROP:
        o->heuristic = SEQSHIM_WFA_HEURISTIC_XDROP;
        o->drop = c->h1;
        o->steps_between_cutoffs = c->h2;
        break;
    default:
        o->heuristic = SEQSHIM_WFA_HEURISTIC_BANDED_STATIC;
        o->band_min_k = c->h1;
        o->band_max_k = c->h2;
        break;
    }
}

static wavefront_aligner_t *aligner_of(const struct config *c) {
    wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
    a.distance_metric = (distance_metric_t)c->metric;
    a.linear_penalties.match = c->match;
    a.linear_penalties.mismatch = c->mismatch;
    a.linear_penalties.indel = c->indel;
    a.affine_penalties.match = c->match;
    a.affine_penalties.mismatch = c->mismatch;
    a.affine_penalties.gap_opening = c->go;
    a.affine_penalties.gap_extension = c->ge;
    a.affine2p_penalties.match = c->match;
    a.affine2p_penalties.mismatch = c->mismatch;
    a.affine2p_penalties.gap_opening1 = c->go;
    a.affine2p_penalties.gap_extension1 = c->ge;
    a.affine2p_penalties.gap_opening2 = c->go2;
    a.affine2p_penalties.gap_extension2 = c->ge2;
    a.alignment_scope = c->scope ? compute_alignment : compute_score;
    a.alignment_form.span = c->span ? alignment_endsfree : alignment_end2end;
    a.alignment_form.pattern_begin_free = c->pbf;
    a.alignment_form.pattern_end_free = c->pef;
    a.alignment_form.text_begin_free = c->tbf;
    a.alignment_form.text_end_free = c->tef;
    a.memory_mode = (wavefront_memory_t)c->memory;
    a.heuristic.strategy = wf_heuristic_none;
    a.system.max_alignment_score = c->max_score;
    wavefront_aligner_t *wf = wavefront_aligner_new(&a);
    if (!wf) return NULL;
    switch (c->heuristic) {
    case H_WFADAPTIVE: wavefront_aligner_set_heuristic_wfadaptive(wf, c->h1, c->h2, c->h3); break;
    case H_XDROP: wavefront_aligner_set_heuristic_xdrop(wf, c->h1, c->h2); break;
    case H_BANDED: wavefront_aligner_set_heuristic_banded_static(wf, c->h1, c->h2); break;
    default: break;
    }
    return wf;
}

/* The run-length form of WFA2 operations, written independently of seqshim. */
static void rle(const char *ops, int n, char *out) {
    int at = 0;
    for (int i = 0; i < n;) {
        int j = i;
        while (j < n && ops[j] == ops[i]) j++;
        at += sprintf(out + at, "%d%c", j - i, ops[i]);
        i = j;
    }
    out[at] = '\0';
}

/* Aligns `pairs` both ways with configuration `c`; returns pairs identical. */
static long compare_config(const struct config *c, struct pair *pairs, int n, int device, long *compared) {
    seqshim_wfa_options_t o;
    options_of(c, &o, device);
    seqshim_wfa_batch_t *b = NULL;
    int rc = seqshim_wfa_batch_create(&o, (size_t)n, &b);
    CHECK(rc == SEQSHIM_OK && b, "%s: create -> %d", c->name, rc);
    if (!b) return 0;
    wavefront_aligner_t *wf = aligner_of(c);
    CHECK(wf != NULL, "%s: wavefront_aligner_new", c->name);
    if (!wf) {
        seqshim_wfa_batch_destroy(b);
        return 0;
    }
    int *index = calloc((size_t)n, sizeof *index);
    for (int i = 0; i < n; i++) {
        size_t at = (size_t)-1;
        rc = (i % 2 ? seqshim_wfa_batch_add_borrowed : seqshim_wfa_batch_add)(
            b, pairs[i].p, pairs[i].plen, pairs[i].t, pairs[i].tlen, &at);
        int too_short = c->span && (pairs[i].plen < c->pef || pairs[i].tlen < c->tef);
        CHECK(rc == (too_short ? SEQSHIM_E_LIMIT : SEQSHIM_OK), "%s: add %d -> %d", c->name, i, rc);
        index[i] = rc == SEQSHIM_OK ? (int)at : -1;
    }
    CHECK(seqshim_wfa_batch_run(b) == SEQSHIM_OK, "%s: run", c->name);
    size_t to_gpu = 9, to_cpu = 9;
    CHECK(seqshim_wfa_batch_routing(b, &to_gpu, &to_cpu) == SEQSHIM_OK &&
              to_gpu + to_cpu == seqshim_wfa_batch_size(b),
          "%s: routing %zu + %zu", c->name, to_gpu, to_cpu);
    long same = 0;
    char *sam = malloc(4 * 2 * 1300 + 16), *want_sam = malloc(4 * 2 * 1300 + 16);
    for (int i = 0; i < n; i++) {
        if (index[i] < 0) continue;
        ++*compared;
        int want = wavefront_align(wf, pairs[i].p, pairs[i].plen, pairs[i].t, pairs[i].tlen);
        int status = 99, score = 99;
        rc = seqshim_wfa_batch_result(b, (size_t)index[i], &status, &score);
        int ok = (rc == SEQSHIM_OK || (rc == SEQSHIM_E_REFUSED && want == -1)) && status == want;
        /* Where wavefront_align keeps the previous pair's score (score-only
         * alignments that did not finish), a batch reports INT_MIN. */
        int want_score = (c->scope == 0 && want != 0) ? INT_MIN : wf->cigar->score;
        ok = ok && score == want_score;
        const char *ops = NULL;
        size_t len = 0;
        int n_ops = wf->cigar->end_offset - wf->cigar->begin_offset;
        if (rc == SEQSHIM_OK) {
            ok = ok && seqshim_wfa_batch_cigar(b, (size_t)index[i], &ops, &len) == SEQSHIM_OK;
            ok = ok && (int)len == n_ops &&
                 (n_ops == 0 || memcmp(ops, wf->cigar->operations + wf->cigar->begin_offset, len) == 0);
            rle(wf->cigar->operations + wf->cigar->begin_offset, n_ops, want_sam);
            size_t needed = 0;
            ok = ok && seqshim_wfa_batch_cigar_sam(b, (size_t)index[i], sam, 4 * 2 * 1300 + 16, &needed) ==
                           SEQSHIM_OK;
            ok = ok && strcmp(sam, want_sam) == 0 && needed == strlen(want_sam) + 1;
        }
        if (ok) {
            same++;
        } else {
            CHECK(0, "%s: pair %d (%d x %d): batch rc=%d status=%d score=%d ops=%zu | wavefront_align %d score=%d ops=%d",
                  c->name, i, pairs[i].plen, pairs[i].tlen, rc, status, score, len, want, wf->cigar->score, n_ops);
        }
    }
    free(sam);
    free(want_sam);
    free(index);
    wavefront_aligner_delete(wf);
    seqshim_wfa_batch_destroy(b);
    return same;
}

static void bad_input(void) {
    seqshim_wfa_options_t o;
    seqshim_wfa_batch_t *b = NULL;
    CHECK(seqshim_wfa_options_default(NULL) == SEQSHIM_E_NULL, "options_default(NULL)");
    seqshim_wfa_options_default(&o);
    CHECK(seqshim_wfa_batch_create(NULL, 0, &b) == SEQSHIM_E_NULL && !b, "create(NULL options)");
    CHECK(seqshim_wfa_batch_create(&o, 0, NULL) == SEQSHIM_E_NULL, "create(NULL out)");
    o.metric = 77;
    CHECK(seqshim_wfa_batch_create(&o, 0, &b) == SEQSHIM_E_OPTION && !b, "unknown metric");
    seqshim_wfa_options_default(&o);
    o.heuristic = 99;
    CHECK(seqshim_wfa_batch_create(&o, 0, &b) == SEQSHIM_E_OPTION && !b, "unknown heuristic");
    seqshim_wfa_options_default(&o);
    o.memory_mode = SEQSHIM_WFA_MEMORY_ULTRALOW;
    CHECK(seqshim_wfa_batch_create(&o, 0, &b) == SEQSHIM_E_OPTION && !b, "ultralow");
    seqshim_wfa_options_default(&o);
    o.gap_extension = 0;
    CHECK(seqshim_wfa_batch_create(&o, 0, &b) == SEQSHIM_E_OPTION && !b, "gap extension 0");
    seqshim_wfa_options_default(&o);
    o.match_score = 3;
    CHECK(seqshim_wfa_batch_create(&o, 0, &b) == SEQSHIM_E_OPTION && !b, "positive match");
    seqshim_wfa_options_default(&o);
    o.span = SEQSHIM_WFA_SPAN_ENDS_FREE;
    o.pattern_begin_free = -1;
    CHECK(seqshim_wfa_batch_create(&o, 0, &b) == SEQSHIM_E_OPTION && !b, "negative ends-free");
    seqshim_wfa_options_default(&o);
    o.device = -7;
    CHECK(seqshim_wfa_batch_create(&o, 0, &b) == SEQSHIM_E_OPTION && !b, "device -7");

    /* A good batch, then everything wrong with pairs and results. */
    seqshim_wfa_options_default(&o);
    o.span = SEQSHIM_WFA_SPAN_ENDS_FREE;
    o.text_end_free = 3;
    CHECK(seqshim_wfa_batch_create(&o, SIZE_MAX, &b) == SEQSHIM_OK && b, "create with a wild hint");
    size_t at = 42;
    CHECK(seqshim_wfa_batch_add(NULL, "ACGT", 4, "ACGT", 4, &at) == SEQSHIM_E_NULL, "add to NULL");
    CHECK(seqshim_wfa_batch_add(b, NULL, 4, "ACGT", 4, &at) == SEQSHIM_E_NULL, "NULL pattern");
    CHECK(seqshim_wfa_batch_add_borrowed(b, "ACGT", 4, NULL, 4, &at) == SEQSHIM_E_NULL, "NULL text");
    CHECK(seqshim_wfa_batch_add(b, "ACGT", -1, "ACGT", 4, &at) == SEQSHIM_E_LIMIT, "negative length");
    CHECK(seqshim_wfa_batch_add(b, "ACGT", INT_MAX, "ACGT", INT_MAX, &at) == SEQSHIM_E_LIMIT,
          "huge lengths");
    CHECK(seqshim_wfa_batch_add(b, "ACGT", 4, "AC", 2, &at) == SEQSHIM_E_LIMIT,
          "text shorter than its end-free length");
    CHECK(at == 42 && seqshim_wfa_batch_size(b) == 0, "refused pairs are not added");
    CHECK(seqshim_wfa_batch_add(b, NULL, 0, "ACGT", 4, &at) == SEQSHIM_OK && at == 0, "empty pattern");
    CHECK(seqshim_wfa_batch_add(b, "ACGTTT", 6, "ACGAAT", 6, NULL) == SEQSHIM_OK, "NULL out_index");
    int status = 5, score = 5;
    CHECK(seqshim_wfa_batch_result(b, 0, &status, &score) == SEQSHIM_E_STATE && status == 5,
          "result before run");
    CHECK(seqshim_wfa_batch_run(NULL) == SEQSHIM_E_NULL, "run(NULL)");
    CHECK(seqshim_wfa_batch_run(b) == SEQSHIM_OK, "run");
    CHECK(seqshim_wfa_batch_result(b, 2, &status, &score) == SEQSHIM_E_INDEX, "index past the end");
    CHECK(seqshim_wfa_batch_result(NULL, 0, &status, &score) == SEQSHIM_E_NULL, "result(NULL)");
    CHECK(seqshim_wfa_batch_result(b, 1, NULL, NULL) == SEQSHIM_OK, "result with NULL outputs");
    const char *ops = NULL;
    size_t len = 0;
    CHECK(seqshim_wfa_batch_cigar(b, 1, NULL, &len) == SEQSHIM_E_NULL, "cigar(NULL ops)");
    CHECK(seqshim_wfa_batch_cigar(b, 1, &ops, &len) == SEQSHIM_OK && len == 6, "cigar");
    size_t needed = 0;
    char small[3];
    CHECK(seqshim_wfa_batch_cigar_sam(b, 1, NULL, 0, &needed) == SEQSHIM_E_BUFFER && needed > 3,
          "SAM size query");
    CHECK(seqshim_wfa_batch_cigar_sam(b, 1, small, sizeof small, &needed) == SEQSHIM_E_BUFFER,
          "SAM into a small buffer");
    CHECK(seqshim_wfa_batch_cigar_sam(b, 1, NULL, 10, &needed) == SEQSHIM_E_NULL, "SAM into NULL");
    char *exact = malloc(needed);
    CHECK(seqshim_wfa_batch_cigar_sam(b, 1, exact, needed, NULL) == SEQSHIM_OK &&
              strlen(exact) + 1 == needed,
          "SAM into an exact buffer");
    free(exact);
    CHECK(seqshim_wfa_batch_routing(NULL, NULL, NULL) == SEQSHIM_E_NULL, "routing(NULL)");
    CHECK(seqshim_wfa_batch_reset(NULL) == SEQSHIM_E_NULL, "reset(NULL)");
    CHECK(seqshim_wfa_batch_reset(b) == SEQSHIM_OK && seqshim_wfa_batch_size(b) == 0, "reset");
    CHECK(seqshim_wfa_batch_result(b, 0, &status, &score) == SEQSHIM_E_INDEX, "result after reset");
    CHECK(seqshim_wfa_batch_add(b, "GATTACA", 7, "GATCACA", 7, &at) == SEQSHIM_OK && at == 0,
          "add after reset");
    CHECK(seqshim_wfa_batch_run(b) == SEQSHIM_OK &&
              seqshim_wfa_batch_result(b, 0, &status, &score) == SEQSHIM_OK && status == 0,
          "run after reset");
    seqshim_wfa_batch_destroy(b);
    seqshim_wfa_batch_destroy(NULL);
    printf("bad input: %s\n", failures ? "FAILED" : "ok");
}

int main(int argc, char **argv) {
    int n = argc > 1 ? atoi(argv[1]) : 300;
    rng = argc > 2 ? strtoull(argv[2], NULL, 10) : 12345;
    long total = 0, same = 0;
    int nconf = (int)(sizeof configs / sizeof configs[0]);
    for (int k = 0; k < nconf; k++) {
        int count = 0;
        struct pair *pairs = make_pairs(n, configs[k].span == 0, &count);
        int device = k % 2 ? SEQSHIM_WFA_DEVICE_CPU : SEQSHIM_WFA_DEVICE_ANY;
        same += compare_config(&configs[k], pairs, count, device, &total);
        free_pairs(pairs, count);
    }
    printf("wfa batch: %d configurations, %ld pairs, %ld identical to wavefront_align\n", nconf, total, same);
    bad_input();
    if (failures) {
        printf("%d failures\n", failures);
        return 1;
    }
    printf("all ok\n");
    return 0;
}
