/* Darwin GACT exports from C, as a Darwin build sees them through
 * include/seqshim/gact.h: layout asserts, argument checks, generated tiles
 * through the single and the batch entry, and (given a cases file written
 * by tests/ffi_gact.rs from the fixtures) every fixture tile and extension
 * compared with Darwin's recorded output, single and batched; and 16 threads
 * calling the single-call entries at once, compared with a single-threaded
 * pass over the same inputs.
 *
 * Usage: gact_client [CASES]
 */
#include <pthread.h>
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <seqshim.h>
#include <seqshim/gact.h>

_Static_assert(sizeof(seqshim_gact_tile_result_t) == 24, "tile result size");
_Static_assert(offsetof(seqshim_gact_tile_result_t, score) == 0, "score");
_Static_assert(offsetof(seqshim_gact_tile_result_t, max_i) == 4, "max_i");
_Static_assert(offsetof(seqshim_gact_tile_result_t, max_j) == 8, "max_j");
_Static_assert(offsetof(seqshim_gact_tile_result_t, ref_steps) == 12, "ref_steps");
_Static_assert(offsetof(seqshim_gact_tile_result_t, query_steps) == 16, "query_steps");
_Static_assert(offsetof(seqshim_gact_tile_result_t, n_ops) == 20, "n_ops");
_Static_assert(sizeof(seqshim_gact_aln_t) == 24, "aln size");
_Static_assert(offsetof(seqshim_gact_aln_t, ref_start) == 0, "ref_start");
_Static_assert(offsetof(seqshim_gact_aln_t, query_start) == 4, "query_start");
_Static_assert(offsetof(seqshim_gact_aln_t, aligned_ref_len) == 8, "aligned_ref_len");
_Static_assert(offsetof(seqshim_gact_aln_t, aligned_query_len) == 12, "aligned_query_len");
_Static_assert(offsetof(seqshim_gact_aln_t, score) == 16, "aln score");
_Static_assert(offsetof(seqshim_gact_aln_t, n_cols) == 20, "n_cols");
_Static_assert(sizeof(seqshim_gact_tile_req_t) == 48, "tile req size");
_Static_assert(offsetof(seqshim_gact_tile_req_t, ref_seq) == 0, "ref_seq");
_Static_assert(offsetof(seqshim_gact_tile_req_t, query_seq) == 8, "query_seq");
_Static_assert(offsetof(seqshim_gact_tile_req_t, ref_len) == 16, "ref_len");
_Static_assert(offsetof(seqshim_gact_tile_req_t, query_len) == 24, "query_len");
_Static_assert(offsetof(seqshim_gact_tile_req_t, query_pos) == 32, "query_pos");
_Static_assert(offsetof(seqshim_gact_tile_req_t, ref_pos) == 36, "ref_pos");
_Static_assert(offsetof(seqshim_gact_tile_req_t, reverse) == 40, "reverse");
_Static_assert(offsetof(seqshim_gact_tile_req_t, first) == 41, "first");
_Static_assert(offsetof(seqshim_gact_tile_req_t, early_terminate) == 44, "early_terminate");
_Static_assert(sizeof(seqshim_gact_extend_req_t) == 56, "extend req size");
_Static_assert(offsetof(seqshim_gact_extend_req_t, ref_str) == 0, "ref_str");
_Static_assert(offsetof(seqshim_gact_extend_req_t, query_str) == 8, "query_str");
_Static_assert(offsetof(seqshim_gact_extend_req_t, ref_length) == 16, "ref_length");
_Static_assert(offsetof(seqshim_gact_extend_req_t, query_length) == 20, "query_length");
_Static_assert(offsetof(seqshim_gact_extend_req_t, ref_pos) == 24, "req ref_pos");
_Static_assert(offsetof(seqshim_gact_extend_req_t, query_pos) == 28, "req query_pos");
_Static_assert(offsetof(seqshim_gact_extend_req_t, aligned_ref) == 32, "aligned_ref");
_Static_assert(offsetof(seqshim_gact_extend_req_t, aligned_query) == 40, "aligned_query");
_Static_assert(offsetof(seqshim_gact_extend_req_t, cap) == 48, "cap");

static int failures = 0;

#define CHECK(cond)                                                       \
    do {                                                                  \
        if (!(cond)) {                                                    \
            fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
            failures++;                                                   \
        }                                                                 \
    } while (0)

static void* xmalloc(size_t n) {
    void* p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

static void darwin_default(int32_t sub[25]) {
    for (int q = 0; q < 5; q++)
        for (int r = 0; r < 5; r++) sub[5 * q + r] = (q == 4 || r == 4) ? 0 : (q == r ? 1 : -1);
}

static uint64_t rng_state = 0x9E3779B97F4A7C15ull;
static uint32_t rnd(uint32_t n) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

static void random_bases(char* s, int n) {
    for (int i = 0; i < n; i++) s[i] = "ACGT"[rnd(4)];
}

/* ---------------------------------------------------------------- bad input */
static void bad_input(void) {
    int32_t sub[25];
    darwin_default(sub);
    char a[600], b[600];
    random_bases(a, 600);
    memcpy(b, a, 600);
    uint8_t ops[1200];
    seqshim_gact_tile_result_t res;

    /* null pointers */
    CHECK(seqshim_gact_align_tile(a, 10, b, 10, sub, -1, -1, 10, 10, false, true, 200, ops, 1200,
                                  NULL) == SEQSHIM_E_NULL);
    CHECK(seqshim_gact_align_tile(a, 10, b, 10, NULL, -1, -1, 10, 10, false, true, 200, ops, 1200,
                                  &res) == SEQSHIM_E_NULL);
    CHECK(seqshim_gact_align_tile(NULL, 10, b, 10, sub, -1, -1, 10, 10, false, true, 200, ops,
                                  1200, &res) == SEQSHIM_E_NULL);
    CHECK(seqshim_gact_align_tile(a, 10, NULL, 10, sub, -1, -1, 10, 10, false, true, 200, ops,
                                  1200, &res) == SEQSHIM_E_NULL);
    CHECK(seqshim_gact_align_tile(a, 10, b, 10, sub, -1, -1, 10, 10, false, true, 200, NULL, 5,
                                  &res) == SEQSHIM_E_NULL);
    /* empty tiles may pass null */
    CHECK(seqshim_gact_align_tile(NULL, 0, NULL, 0, sub, -1, -1, 0, 0, false, true, 200, NULL, 0,
                                  &res) == 0);
    CHECK(res.n_ops == 0 && res.score == 0);
    /* tile beyond 511 */
    CHECK(seqshim_gact_align_tile(a, 512, b, 10, sub, -1, -1, 10, 512, false, true, 200, ops, 1200,
                                  &res) == SEQSHIM_E_LIMIT);
    CHECK(seqshim_gact_align_tile(a, 10, b, 512, sub, -1, -1, 512, 10, false, true, 200, ops, 1200,
                                  &res) == SEQSHIM_E_LIMIT);
    CHECK(res.score == 0 && res.n_ops == 0);
    CHECK(seqshim_gact_align_tile(a, 511, b, 511, sub, -1, -1, 511, 511, false, true, 2000, ops,
                                  1200, &res) == 0);
    CHECK(res.score == 511 && res.n_ops == 511 && res.max_i == 511 && res.max_j == 511);
    /* ops_cap too small */
    CHECK(seqshim_gact_align_tile(a, 100, b, 100, sub, -1, -1, 100, 100, false, false, 200, ops, 99,
                                  &res) == SEQSHIM_E_BUFFER);
    CHECK(seqshim_gact_align_tile(a, 100, b, 100, sub, -1, -1, 100, 100, false, false, 200, ops,
                                  100, &res) == 0);
    CHECK(res.n_ops == 100);
    /* bad parameters */
    CHECK(seqshim_gact_align_tile(a, -2, b, 10, sub, -1, -1, 10, 10, false, true, 200, ops, 1200,
                                  &res) == SEQSHIM_E_ARG);
    CHECK(seqshim_gact_align_tile(a, 10, b, 10, sub, 1, -1, 10, 10, false, true, 200, ops, 1200,
                                  &res) == SEQSHIM_E_ARG);
    CHECK(seqshim_gact_align_tile(a, 10, b, 10, sub, -1, -1, 11, 10, false, false, 200, ops, 1200,
                                  &res) == SEQSHIM_E_ARG);

    /* extensions */
    seqshim_gact_aln_t aln;
    char ar[1200], aq[1200];
    CHECK(seqshim_gact_extend(a, b, sub, -1, -1, 320, 120, 300, 300, 600, 600, 0, ar, aq, 1200,
                              NULL) == SEQSHIM_E_NULL);
    CHECK(seqshim_gact_extend(a, b, NULL, -1, -1, 320, 120, 300, 300, 600, 600, 0, ar, aq, 1200,
                              &aln) == SEQSHIM_E_NULL);
    CHECK(seqshim_gact_extend(NULL, b, sub, -1, -1, 320, 120, 300, 300, 600, 600, 0, ar, aq, 1200,
                              &aln) == SEQSHIM_E_NULL);
    CHECK(seqshim_gact_extend(a, b, sub, -1, -1, 320, 120, 300, 300, 600, 600, 0, NULL, aq, 1200,
                              &aln) == SEQSHIM_E_NULL);
    CHECK(seqshim_gact_extend(a, b, sub, -1, -1, 320, 120, 300, 300, 600, 600, 0, ar, aq, 599,
                              &aln) == SEQSHIM_E_BUFFER);
    CHECK(aln.n_cols == 0 && aln.score == 0);
    CHECK(seqshim_gact_extend(a, b, sub, -1, -1, 320, 120, 300, 300, 600, 600, 0, ar, aq, 600,
                              &aln) == 0);
    CHECK(aln.n_cols == 600 && aln.score == 600 && aln.ref_start == 0 && memcmp(ar, a, 600) == 0);
    CHECK(seqshim_gact_extend(a, b, sub, -1, -1, 320, 120, 300, 300, 600, 600, 35, ar, aq, 1200,
                              &aln) == SEQSHIM_E_OPTION);
    CHECK(seqshim_gact_extend(a, b, sub, -1, -1, 512, 120, 300, 300, 600, 600, 0, ar, aq, 1200,
                              &aln) == SEQSHIM_E_LIMIT);
    CHECK(seqshim_gact_extend(a, b, sub, -1, -1, 0, 0, 300, 300, 600, 600, 0, ar, aq, 1200,
                              &aln) == SEQSHIM_E_ARG);
    CHECK(seqshim_gact_extend(a, b, sub, -1, -1, 320, 120, -1, 300, 600, 600, 0, ar, aq, 1200,
                              &aln) == SEQSHIM_E_ARG);
    /* a seed past the length (Darwin's read_overlaps seeds into a padded
     * reference): the buffer is read up to the seed, never past it */
    char padded[700];
    memcpy(padded, a, 600);
    memset(padded + 600, 'N', 50);
    memset(padded + 650, 'T', 50);
    CHECK(seqshim_gact_extend(padded, b, sub, -1, -1, 320, 120, 650, 300, 600, 600, 0, ar, aq,
                              1200, &aln) == 0);
    seqshim_gact_aln_t first_run = aln;
    memset(padded + 650, 'G', 50);
    CHECK(seqshim_gact_extend(padded, b, sub, -1, -1, 320, 120, 650, 300, 600, 600, 0, ar, aq,
                              1200, &aln) == 0);
    CHECK(memcmp(&first_run, &aln, sizeof aln) == 0 && aln.ref_start + aln.aligned_ref_len <= 650);
    /* no positive cell at the anchor: Darwin would loop forever */
    char as[600], cs[600];
    memset(as, 'A', 600);
    memset(cs, 'C', 600);
    CHECK(seqshim_gact_extend(as, cs, sub, -1, -1, 320, 120, 300, 300, 600, 600, 0, ar, aq, 1200,
                              &aln) == SEQSHIM_E_REFUSED);

    /* tile batch: nulls, an idle slot, a failing request among good ones */
    seqshim_gact_tile_req_t reqs[3];
    memset(reqs, 0, sizeof reqs);
    for (int k = 0; k < 3; k++) {
        reqs[k].ref_seq = a;
        reqs[k].query_seq = b;
        reqs[k].ref_len = reqs[k].query_len = 50;
        reqs[k].ref_pos = reqs[k].query_pos = 50;
        reqs[k].early_terminate = 200;
    }
    seqshim_gact_tile_result_t results[3];
    uint8_t arena[3 * 100];
    CHECK(seqshim_gact_align_tile_batch(NULL, 3, sub, -1, -1, arena, 100, results) ==
          SEQSHIM_E_NULL);
    CHECK(seqshim_gact_align_tile_batch(reqs, 3, NULL, -1, -1, arena, 100, results) ==
          SEQSHIM_E_NULL);
    CHECK(seqshim_gact_align_tile_batch(reqs, 3, sub, -1, -1, NULL, 100, results) ==
          SEQSHIM_E_NULL);
    CHECK(seqshim_gact_align_tile_batch(reqs, 3, sub, -1, -1, arena, 100, NULL) ==
          SEQSHIM_E_NULL);
    CHECK(seqshim_gact_align_tile_batch(NULL, 0, sub, -1, -1, NULL, 0, NULL) == 0);
    reqs[1].ref_len = -1; /* idle */
    results[1].score = 77;
    CHECK(seqshim_gact_align_tile_batch(reqs, 3, sub, -1, -1, arena, 100, results) == 0);
    CHECK(results[0].score == 50 && results[0].n_ops == 50 && results[1].score == 0 &&
          results[1].n_ops == 0 && results[2].n_ops == 50);
    reqs[1].ref_len = 512;
    CHECK(seqshim_gact_align_tile_batch(reqs, 3, sub, -1, -1, arena, 100, results) ==
          SEQSHIM_E_LIMIT);
    CHECK(results[0].n_ops == 50 && results[1].n_ops == 0 && results[2].n_ops == 50);
    reqs[1].ref_len = 50;
    CHECK(seqshim_gact_align_tile_batch(reqs, 3, sub, -1, -1, arena, 49, results) ==
          SEQSHIM_E_BUFFER);

    /* extend batch */
    seqshim_gact_extend_req_t ereq[2];
    memset(ereq, 0, sizeof ereq);
    char br[2][1200], bq[2][1200];
    for (int k = 0; k < 2; k++) {
        ereq[k].ref_str = a;
        ereq[k].query_str = b;
        ereq[k].ref_length = ereq[k].query_length = 600;
        ereq[k].ref_pos = ereq[k].query_pos = 100 + 200 * k;
        ereq[k].aligned_ref = br[k];
        ereq[k].aligned_query = bq[k];
        ereq[k].cap = 1200;
    }
    seqshim_gact_aln_t eout[2];
    int32_t est[2];
    CHECK(seqshim_gact_extend_batch(ereq, 2, NULL, -1, -1, 320, 120, 0, eout, est) ==
          SEQSHIM_E_NULL);
    CHECK(seqshim_gact_extend_batch(ereq, 2, sub, -1, -1, 320, 120, 0, NULL, est) ==
          SEQSHIM_E_NULL);
    CHECK(seqshim_gact_extend_batch(ereq, 2, sub, -1, -1, 320, 120, 0, eout, NULL) ==
          SEQSHIM_E_NULL);
    CHECK(seqshim_gact_extend_batch(ereq, 2, sub, -1, -1, 320, 120, 1, eout, est) ==
          SEQSHIM_E_OPTION);
    ereq[1].cap = 10;
    CHECK(seqshim_gact_extend_batch(ereq, 2, sub, -1, -1, 320, 120, 0, eout, est) ==
          SEQSHIM_E_BUFFER);
    CHECK(est[0] == 0 && est[1] == SEQSHIM_E_BUFFER && eout[0].n_cols == 600 && eout[1].n_cols == 0);
    ereq[1].cap = 1200;
    ereq[1].query_str = NULL;
    CHECK(seqshim_gact_extend_batch(ereq, 2, sub, -1, -1, 320, 120, 0, eout, est) ==
          SEQSHIM_E_NULL);
    CHECK(est[0] == 0 && est[1] == SEQSHIM_E_NULL);
    printf("bad input: ok\n");
}

/* ---------------------------------------------------------------- generated */
static bool same_tile(const seqshim_gact_tile_result_t* x, const seqshim_gact_tile_result_t* y) {
    return memcmp(x, y, sizeof *x) == 0;
}

static void generated(void) {
    enum { N = 200, STRIDE = 1024 };
    int32_t sub[25];
    darwin_default(sub);
    char* refs = xmalloc((size_t)N * 511);
    char* queries = xmalloc((size_t)N * 511);
    seqshim_gact_tile_req_t* reqs = xmalloc(N * sizeof *reqs);
    seqshim_gact_tile_result_t* single = xmalloc(N * sizeof *single);
    seqshim_gact_tile_result_t* batch = xmalloc(N * sizeof *batch);
    uint8_t* ops_single = xmalloc((size_t)N * STRIDE);
    uint8_t* ops_batch = xmalloc((size_t)N * STRIDE);
    int equal = 0;
    for (int k = 0; k < N; k++) {
        char* r = refs + (size_t)k * 511;
        char* q = queries + (size_t)k * 511;
        int rl = (int)rnd(512), ql = (int)rnd(512);
        random_bases(r, rl);
        for (int i = 0; i < ql; i++) q[i] = (i < rl && rnd(100) < 85) ? r[i] : "ACGT"[rnd(4)];
        memset(&reqs[k], 0, sizeof reqs[k]);
        reqs[k].ref_seq = r;
        reqs[k].query_seq = q;
        reqs[k].ref_len = rl;
        reqs[k].query_len = ql;
        reqs[k].ref_pos = rl;
        reqs[k].query_pos = ql;
        reqs[k].reverse = k % 2;
        reqs[k].first = (k / 2) % 2;
        reqs[k].early_terminate = 200;
        CHECK(seqshim_gact_align_tile(r, rl, q, ql, sub, -1, -1, ql, rl, reqs[k].reverse,
                                      reqs[k].first, 200, ops_single + (size_t)k * STRIDE, STRIDE,
                                      &single[k]) == 0);
    }
    CHECK(seqshim_gact_align_tile_batch(reqs, N, sub, -1, -1, ops_batch, STRIDE, batch) == 0);
    for (int k = 0; k < N; k++)
        equal += same_tile(&single[k], &batch[k]) &&
                 memcmp(ops_single + (size_t)k * STRIDE, ops_batch + (size_t)k * STRIDE,
                        single[k].n_ops) == 0;
    CHECK(equal == N);
    /* The tests run with SEQSHIM_BACKEND=cpu: no GPU, every tile on the CPU. */
    uint64_t on_gpu = 1, on_cpu = 0;
    CHECK(seqshim_gact_tile_routing(&on_gpu, &on_cpu) == 0 && on_gpu == 0 && on_cpu >= N);
    CHECK(seqshim_gact_tile_routing(NULL, NULL) == 0);
    printf("generated: %d tiles, %d batch results equal\n", N, equal);
    free(refs), free(queries), free(reqs), free(single), free(batch), free(ops_single),
        free(ops_batch);
}

/* ---------------------------------------------------------------- threads */
/* 16 threads call seqshim_gact_align_tile and seqshim_gact_extend at once,
 * each over every input (starting at a different one), and compare with a
 * single-threaded pass made first. */
enum { TH_THREADS = 16, TH_TILES = 48, TH_EXTS = 6, TH_EXT_LEN = 2000, TH_STRIDE = 1024 };

typedef struct {
    char ref[511], query[511];
    int rl, ql;
    bool reverse, first;
    int32_t sub[25], gap_open, gap_extend;
    seqshim_gact_tile_result_t want;
    uint8_t want_ops[TH_STRIDE];
} th_tile;

typedef struct {
    char ref[TH_EXT_LEN], query[TH_EXT_LEN];
    uint32_t ql;
    int32_t ref_pos, query_pos;
    seqshim_gact_aln_t want;
    char want_ref[2 * TH_EXT_LEN], want_query[2 * TH_EXT_LEN];
} th_ext;

static th_tile th_tiles[TH_TILES];
static th_ext th_exts[TH_EXTS];

/* A copy of r with about pct % substitutions, insertions and deletions
 * (a third each), at most cap bytes; returns its length. */
static int mutate(const char* r, int rl, char* q, int cap, int pct) {
    int n = 0;
    for (int i = 0; i < rl && n < cap;) {
        uint32_t roll = rnd(300);
        if (roll < (uint32_t)pct) {
            q[n++] = "ACGT"[rnd(4)];
            i++;
        } else if (roll < 2u * (uint32_t)pct) {
            q[n++] = "ACGT"[rnd(4)];
        } else if (roll < 3u * (uint32_t)pct) {
            i++;
        } else {
            q[n++] = r[i++];
        }
    }
    return n;
}

static int32_t th_run_tile(const th_tile* t, uint8_t* ops, seqshim_gact_tile_result_t* got) {
    return seqshim_gact_align_tile(t->ref, t->rl, t->query, t->ql, t->sub, t->gap_open,
                                   t->gap_extend, t->ql, t->rl, t->reverse, t->first, 200, ops,
                                   TH_STRIDE, got);
}

static int32_t th_run_ext(const th_ext* e, char* ar, char* aq, seqshim_gact_aln_t* got) {
    int32_t sub[25];
    darwin_default(sub);
    return seqshim_gact_extend(e->ref, e->query, sub, -1, -1, 320, 120, e->ref_pos, e->query_pos,
                               TH_EXT_LEN, e->ql, 0, ar, aq, 2 * TH_EXT_LEN, got);
}

static void* th_worker(void* arg) {
    int id = (int)(intptr_t)arg;
    long bad = 0;
    uint8_t ops[TH_STRIDE];
    char* ar = xmalloc(2 * TH_EXT_LEN);
    char* aq = xmalloc(2 * TH_EXT_LEN);
    for (int n = 0; n < TH_TILES + TH_EXTS; n++) {
        int k = (n + id * 7) % (TH_TILES + TH_EXTS);
        if (k < TH_TILES) {
            const th_tile* t = &th_tiles[k];
            seqshim_gact_tile_result_t got;
            bad += th_run_tile(t, ops, &got) != 0 || !same_tile(&got, &t->want) ||
                   memcmp(ops, t->want_ops, got.n_ops) != 0;
        } else {
            const th_ext* e = &th_exts[k - TH_TILES];
            seqshim_gact_aln_t got;
            bad += th_run_ext(e, ar, aq, &got) != 0 || memcmp(&got, &e->want, sizeof got) != 0 ||
                   memcmp(ar, e->want_ref, got.n_cols) != 0 ||
                   memcmp(aq, e->want_query, got.n_cols) != 0;
        }
    }
    free(ar), free(aq);
    return (void*)(intptr_t)bad;
}

static void threads(void) {
    for (int k = 0; k < TH_TILES; k++) {
        th_tile* t = &th_tiles[k];
        memset(t, 0, sizeof *t);
        t->rl = 1 + (int)rnd(511);
        random_bases(t->ref, t->rl);
        t->ql = mutate(t->ref, t->rl, t->query, 511, 45);
        t->reverse = k % 2;
        t->first = (k / 2) % 2;
        if (k % 3 == 0) {
            darwin_default(t->sub);
            t->gap_open = t->gap_extend = -1;
        } else {
            for (int i = 0; i < 25; i++) t->sub[i] = (i / 5 == 4 || i % 5 == 4) ? 0 : -4;
            for (int i = 0; i < 4; i++) t->sub[6 * i] = 5;
            t->gap_open = -10;
            t->gap_extend = -1;
        }
        CHECK(th_run_tile(t, t->want_ops, &t->want) == 0);
    }
    for (int k = 0; k < TH_EXTS; k++) {
        th_ext* e = &th_exts[k];
        random_bases(e->ref, TH_EXT_LEN);
        e->ql = (uint32_t)mutate(e->ref, TH_EXT_LEN, e->query, TH_EXT_LEN, 45);
        e->ref_pos = TH_EXT_LEN / 2;
        e->query_pos = (int32_t)e->ql / 2;
        CHECK(th_run_ext(e, e->want_ref, e->want_query, &e->want) == 0);
    }
    pthread_t th[TH_THREADS];
    for (int i = 0; i < TH_THREADS; i++)
        CHECK(pthread_create(&th[i], NULL, th_worker, (void*)(intptr_t)i) == 0);
    long bad = 0;
    for (int i = 0; i < TH_THREADS; i++) {
        void* ret = NULL;
        CHECK(pthread_join(th[i], &ret) == 0);
        bad += (long)(intptr_t)ret;
    }
    CHECK(bad == 0);
    printf("threads: %d threads x (%d tiles + %d extensions), %ld differ from one thread\n",
           TH_THREADS, TH_TILES, TH_EXTS, bad);
}

/* ---------------------------------------------------------------- fixture cases */
/* A whitespace-separated token of any length ("." stands for empty). */
static char* token(FILE* f) {
    size_t cap = 64, n = 0;
    char* s = xmalloc(cap);
    int c;
    while ((c = fgetc(f)) != EOF && (c == ' ' || c == '\n' || c == '\t')) {
    }
    if (c == EOF) {
        free(s);
        return NULL;
    }
    do {
        if (n + 1 >= cap) {
            cap *= 2;
            char* t = realloc(s, cap);
            if (!t) exit(2);
            s = t;
        }
        s[n++] = (char)c;
    } while ((c = fgetc(f)) != EOF && c != ' ' && c != '\n' && c != '\t');
    s[n] = 0;
    if (strcmp(s, ".") == 0) s[0] = 0;
    return s;
}

static long num(FILE* f) {
    char* t = token(f);
    if (!t) {
        fprintf(stderr, "truncated cases file\n");
        exit(2);
    }
    long v = strtol(t, NULL, 10);
    free(t);
    return v;
}

typedef struct {
    char *ref, *query, *ops;
    int32_t sub[25], gap_open, gap_extend;
    seqshim_gact_tile_req_t req;
    seqshim_gact_tile_result_t want;
} tile_case;

typedef struct {
    int32_t sub[25], gap_open, gap_extend, tile_size, tile_overlap;
    seqshim_gact_extend_req_t req;
    seqshim_gact_aln_t want;
    char *want_ref, *want_query;
} ext_case;

static bool same_scoring(const int32_t* a, const int32_t* b) {
    return memcmp(a, b, 27 * sizeof(int32_t)) == 0;
}

static bool tile_matches(const tile_case* c, const seqshim_gact_tile_result_t* got,
                         const uint8_t* ops) {
    bool ok = got->score == c->want.score && got->ref_steps == c->want.ref_steps &&
              got->query_steps == c->want.query_steps && got->n_ops == c->want.n_ops;
    if (c->req.first) ok = ok && got->max_i == c->want.max_i && got->max_j == c->want.max_j;
    for (uint32_t k = 0; ok && k < got->n_ops; k++) ok = ops[k] == (uint8_t)(c->ops[k] - '0');
    return ok;
}

static void fixture(const char* path) {
    FILE* f = fopen(path, "r");
    if (!f) {
        fprintf(stderr, "cannot open %s\n", path);
        exit(2);
    }
    long n_seqs = num(f);
    char** seqs = xmalloc((size_t)n_seqs * sizeof *seqs);
    for (long k = 0; k < n_seqs; k++) seqs[k] = token(f);
    long n_tiles = num(f);
    tile_case* tiles = xmalloc((size_t)n_tiles * sizeof *tiles);
    for (long k = 0; k < n_tiles; k++) {
        tile_case* c = &tiles[k];
        memset(c, 0, sizeof *c);
        c->ref = token(f);
        c->query = token(f);
        for (int i = 0; i < 25; i++) c->sub[i] = (int32_t)num(f);
        c->gap_open = (int32_t)num(f);
        c->gap_extend = (int32_t)num(f);
        c->req.ref_seq = c->ref;
        c->req.query_seq = c->query;
        c->req.ref_len = (int64_t)strlen(c->ref);
        c->req.query_len = (int64_t)strlen(c->query);
        c->req.query_pos = (int32_t)num(f);
        c->req.ref_pos = (int32_t)num(f);
        c->req.reverse = num(f) != 0;
        c->req.first = num(f) != 0;
        c->req.early_terminate = (int32_t)num(f);
        c->want.score = (int32_t)num(f);
        c->want.max_i = (int32_t)num(f);
        c->want.max_j = (int32_t)num(f);
        c->want.ref_steps = (int32_t)num(f);
        c->want.query_steps = (int32_t)num(f);
        c->want.n_ops = (uint32_t)num(f);
        c->ops = token(f);
    }
    long n_ext = num(f);
    ext_case* exts = xmalloc((size_t)n_ext * sizeof *exts);
    for (long k = 0; k < n_ext; k++) {
        ext_case* c = &exts[k];
        memset(c, 0, sizeof *c);
        const char* r = seqs[num(f)];
        const char* q = seqs[num(f)];
        for (int i = 0; i < 25; i++) c->sub[i] = (int32_t)num(f);
        c->gap_open = (int32_t)num(f);
        c->gap_extend = (int32_t)num(f);
        c->tile_size = (int32_t)num(f);
        c->tile_overlap = (int32_t)num(f);
        c->req.ref_str = r;
        c->req.query_str = q;
        c->req.ref_length = (uint32_t)strlen(r);
        c->req.query_length = (uint32_t)strlen(q);
        c->req.ref_pos = (int32_t)num(f);
        c->req.query_pos = (int32_t)num(f);
        c->req.cap = c->req.ref_length + c->req.query_length;
        c->want.ref_start = (uint32_t)num(f);
        c->want.query_start = (uint32_t)num(f);
        c->want.aligned_ref_len = (uint32_t)num(f);
        c->want.aligned_query_len = (uint32_t)num(f);
        c->want.score = (int32_t)num(f);
        c->want.n_cols = (uint32_t)num(f);
        c->want_ref = token(f);
        c->want_query = token(f);
    }
    fclose(f);

    /* tiles: single calls, then batches of consecutive rows with one scoring */
    long matched = 0, batch_equal = 0;
    uint8_t ops[1024];
    for (long k = 0; k < n_tiles; k++) {
        tile_case* c = &tiles[k];
        seqshim_gact_tile_result_t got;
        int32_t st = seqshim_gact_align_tile(
            c->req.ref_seq, c->req.ref_len, c->req.query_seq, c->req.query_len, c->sub,
            c->gap_open, c->gap_extend, c->req.query_pos, c->req.ref_pos, c->req.reverse,
            c->req.first, c->req.early_terminate, ops, sizeof ops, &got);
        if (st == 0 && tile_matches(c, &got, ops))
            matched++;
        else if (failures++ < 10)
            fprintf(stderr, "tile %ld differs (status %d)\n", k, (int)st);
    }
    for (long start = 0; start < n_tiles;) {
        long end = start + 1;
        while (end < n_tiles && same_scoring(tiles[end].sub, tiles[start].sub)) end++;
        long n = end - start;
        seqshim_gact_tile_req_t* reqs = xmalloc((size_t)n * sizeof *reqs);
        seqshim_gact_tile_result_t* res = xmalloc((size_t)n * sizeof *res);
        uint8_t* arena = xmalloc((size_t)n * 1024);
        for (long k = 0; k < n; k++) reqs[k] = tiles[start + k].req;
        CHECK(seqshim_gact_align_tile_batch(reqs, (uint32_t)n, tiles[start].sub,
                                            tiles[start].gap_open, tiles[start].gap_extend, arena,
                                            1024, res) == 0);
        for (long k = 0; k < n; k++)
            batch_equal += tile_matches(&tiles[start + k], &res[k], arena + (size_t)k * 1024);
        free(reqs), free(res), free(arena);
        start = end;
    }
    CHECK(matched == n_tiles && batch_equal == n_tiles);
    printf("tiles: %ld of %ld match, %ld batched match\n", matched, n_tiles, batch_equal);

    /* extensions: single calls, then batches by scoring and tiling */
    matched = 0;
    batch_equal = 0;
    for (long k = 0; k < n_ext; k++) {
        ext_case* c = &exts[k];
        char* ar = xmalloc(c->req.cap);
        char* aq = xmalloc(c->req.cap);
        seqshim_gact_aln_t got;
        int32_t st = seqshim_gact_extend(
            c->req.ref_str, c->req.query_str, c->sub, c->gap_open, c->gap_extend, c->tile_size,
            c->tile_overlap, c->req.ref_pos, c->req.query_pos, c->req.ref_length,
            c->req.query_length, 0, ar, aq, c->req.cap, &got);
        bool ok = st == 0 && memcmp(&got, &c->want, sizeof got) == 0 &&
                  memcmp(ar, c->want_ref, got.n_cols) == 0 &&
                  memcmp(aq, c->want_query, got.n_cols) == 0;
        if (ok)
            matched++;
        else if (failures++ < 10)
            fprintf(stderr, "extension %ld differs (status %d)\n", k, (int)st);
        free(ar), free(aq);
    }
    for (long start = 0; start < n_ext;) {
        long end = start + 1;
        while (end < n_ext && same_scoring(exts[end].sub, exts[start].sub) &&
               exts[end].tile_size == exts[start].tile_size &&
               exts[end].tile_overlap == exts[start].tile_overlap)
            end++;
        long n = end - start;
        seqshim_gact_extend_req_t* reqs = xmalloc((size_t)n * sizeof *reqs);
        seqshim_gact_aln_t* out = xmalloc((size_t)n * sizeof *out);
        int32_t* st = xmalloc((size_t)n * sizeof *st);
        for (long k = 0; k < n; k++) {
            reqs[k] = exts[start + k].req;
            reqs[k].aligned_ref = xmalloc(reqs[k].cap);
            reqs[k].aligned_query = xmalloc(reqs[k].cap);
        }
        const ext_case* c0 = &exts[start];
        CHECK(seqshim_gact_extend_batch(reqs, (uint32_t)n, c0->sub, c0->gap_open, c0->gap_extend,
                                        c0->tile_size, c0->tile_overlap, 0, out, st) == 0);
        for (long k = 0; k < n; k++) {
            const ext_case* c = &exts[start + k];
            batch_equal += st[k] == 0 && memcmp(&out[k], &c->want, sizeof out[k]) == 0 &&
                           memcmp(reqs[k].aligned_ref, c->want_ref, out[k].n_cols) == 0 &&
                           memcmp(reqs[k].aligned_query, c->want_query, out[k].n_cols) == 0;
            free(reqs[k].aligned_ref), free(reqs[k].aligned_query);
        }
        free(reqs), free(out), free(st);
        start = end;
    }
    CHECK(matched == n_ext && batch_equal == n_ext);
    printf("extensions: %ld of %ld match, %ld batched match\n", matched, n_ext, batch_equal);

    for (long k = 0; k < n_tiles; k++) free(tiles[k].ref), free(tiles[k].query), free(tiles[k].ops);
    for (long k = 0; k < n_ext; k++) free(exts[k].want_ref), free(exts[k].want_query);
    for (long k = 0; k < n_seqs; k++) free(seqs[k]);
    free(tiles), free(exts), free(seqs);
}

int main(int argc, char** argv) {
    bad_input();
    generated();
    threads();
    if (argc > 1) fixture(argv[1]);
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    return 0;
}
