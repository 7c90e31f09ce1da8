/* The native batch API against the per-window BOA ABI path: every window's
 * consensus and MSA from seqshim_poa_batch_* must equal what CONSENT's call
 * sequence (plus BMEAN's lone/identical-read shortcut) gives; bad inputs
 * must give their error codes. usage: batch_api MATRIX WINDOWS */
#define _POSIX_C_SOURCE 200809L
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "align_score.h"
#include "lpo.h"
#include "seqshim.h"

static ResidueScoreMatrix_T score_matrix;
static int failures;

#define CHECK(what, cond)                                               \
    do {                                                                \
        if (!(cond)) {                                                  \
            printf("FAILED %s (line %d)\n", what, __LINE__);            \
            failures++;                                                 \
        }                                                               \
    } while (0)

typedef struct {
    int nreads;
    char **reads;
} Window;

typedef struct {
    int status; /* 0 ok, 1 empty */
    char *consensus;
    int nrows, ncols;
    char *msa; /* row-major */
} Expected;

static void majority(char **rows, int nrows, int ncol, char *out) {
    int k = 0;
    for (int c = 0; c < ncol; c++) {
        int a = 0, cc = 0, g = 0, t = 0, other = 0;
        for (int r = 0; r < nrows; r++) {
            switch (rows[r][c]) {
            case 'A': a++; break;
            case 'C': cc++; break;
            case 'G': g++; break;
            case 'T': t++; break;
            default: other++;
            }
        }
        if (other > a && other > cc && other > g && other > t)
            continue;
        if (a > cc && a > g && a > t)
            out[k++] = 'A';
        else if (cc > a && cc > g && cc > t)
            out[k++] = 'C';
        else if (g > a && g > cc && g > t)
            out[k++] = 'G';
        else if (t > a && t > g && t > cc)
            out[k++] = 'T';
        else if (rows[0][c] != '-')
            out[k++] = rows[0][c];
    }
    out[k] = '\0';
}

/* CONSENT's per-window path on the BOA ABI. */
static Expected abi_path(const Window *w) {
    Expected e = {1, NULL, 0, 0, NULL};
    Sequence_T *seq = NULL;
    int nseq = 0;
    for (int i = 0; i < w->nreads && nseq < 150; i++) {
        if (w->reads[i][0] == '\0')
            continue;
        char *copy = strdup(w->reads[i]);
        create_seq(nseq++, &seq, "", "", copy, dont_switch_case);
        free(copy);
    }
    if (nseq == 0) {
        e.consensus = strdup("");
        return e;
    }
    LPOSequence_T **input = calloc((size_t)nseq, sizeof *input);
    for (int i = 0; i < nseq; i++) {
        input[i] = &seq[i];
        initialize_seqs_as_lpo(1, &seq[i], &score_matrix);
    }
    LPOSequence_T *lpo = buildup_progressive_lpo(nseq, input, &score_matrix, 0, 0, NULL,
                                                 matrix_scoring_function, 1, 0);
    char **rows = NULL, *block = NULL;
    e.ncols = xlate_lpo_to_al(lpo, score_matrix.nsymbol, score_matrix.symbol, 0, '-', &rows, &block, NULL);
    e.nrows = lpo->nsource_seq;
    e.msa = block;
    e.consensus = malloc((size_t)e.ncols + 1);
    majority(rows, e.nrows, e.ncols, e.consensus);
    int identical = 1;
    for (int i = 1; i < w->nreads; i++)
        identical &= strcmp(w->reads[i], w->reads[0]) == 0;
    if (w->nreads == 1 || identical) { /* BMEAN returns such windows unchanged */
        free(e.consensus);
        e.consensus = strdup(w->reads[0]);
    }
    e.status = 0;
    free(rows);
    for (int i = 0; i < nseq; i++)
        free_lpo_sequence(input[i], 0);
    free(input);
    free(seq);
    return e;
}

static Window *windows;
static int nwindows;

static void read_windows(const char *path) {
    FILE *f = fopen(path, "r");
    if (!f) {
        perror(path);
        exit(2);
    }
    char *line = NULL;
    size_t cap = 0;
    ssize_t n;
    Window cur = {0, NULL};
    for (;;) {
        n = getline(&line, &cap, f);
        if (n > 0 && line[n - 1] == '\n')
            line[--n] = '\0';
        if (n <= 0) {
            if (cur.nreads > 0) {
                windows = realloc(windows, (size_t)(nwindows + 1) * sizeof *windows);
                windows[nwindows++] = cur;
                cur.nreads = 0;
                cur.reads = NULL;
            }
            if (n < 0)
                break;
            continue;
        }
        cur.reads = realloc(cur.reads, (size_t)(cur.nreads + 1) * sizeof *cur.reads);
        cur.reads[cur.nreads++] = strdup(strcmp(line, ".") ? line : "");
    }
    free(line);
    fclose(f);
}

int main(int argc, char **argv) {
    if (argc < 3)
        return 2;
    if (read_score_matrix(argv[1], &score_matrix) <= 0)
        return 2;
    read_windows(argv[2]);

    seqshim_poa_params_t params;
    CHECK("params default", seqshim_poa_params_default(&params) == SEQSHIM_OK);
    CHECK("params default NULL", seqshim_poa_params_default(NULL) == SEQSHIM_E_NULL);
    seqshim_poa_batch_t *b = NULL;
    CHECK("create", seqshim_poa_batch_create(&params, (size_t)nwindows, &b) == SEQSHIM_OK && b != NULL);
    CHECK("create with a null out", seqshim_poa_batch_create(&params, 0, NULL) == SEQSHIM_E_NULL);
    for (int i = 0; i < nwindows; i++) {
        uint64_t id = 99;
        uint32_t *lens = malloc(sizeof *lens * (size_t)windows[i].nreads);
        for (int r = 0; r < windows[i].nreads; r++)
            lens[r] = (uint32_t)strlen(windows[i].reads[r]);
        /* odd windows by NUL-terminated strings, even ones with lengths */
        CHECK("add_window", seqshim_poa_batch_add_window(b, (uint32_t)windows[i].nreads,
                                                         (const char *const *)windows[i].reads,
                                                         i % 2 ? NULL : lens, &id) == SEQSHIM_OK);
        CHECK("window ids in order", id == (uint64_t)i);
        free(lens);
    }
    CHECK("size", seqshim_poa_batch_size(b) == (size_t)nwindows);
    CHECK("status before run", seqshim_poa_batch_window_status(b, 0) == SEQSHIM_E_STATE);
    const char *cons = NULL;
    uint32_t len = 0, nrows = 0, ncols = 0;
    CHECK("consensus before run", seqshim_poa_batch_get_consensus(b, 0, &cons, &len) == SEQSHIM_E_STATE);
    CHECK("run", seqshim_poa_batch_run(b) == SEQSHIM_OK);

    int same = 0;
    for (int i = 0; i < nwindows; i++) {
        Expected e = abi_path(&windows[i]);
        int st = seqshim_poa_batch_window_status(b, (uint64_t)i);
        int ok = st == (e.status ? SEQSHIM_E_EMPTY : SEQSHIM_OK);
        ok &= seqshim_poa_batch_get_consensus(b, (uint64_t)i, &cons, &len) == st;
        ok &= len == strlen(e.consensus) && !strcmp(cons, e.consensus);
        if (!e.status) {
            const char *rows = NULL;
            ok &= seqshim_poa_batch_get_msa(b, (uint64_t)i, &nrows, &ncols, &rows) == SEQSHIM_OK;
            ok &= (int)nrows == e.nrows && (int)ncols == e.ncols &&
                  !memcmp(rows, e.msa, (size_t)nrows * ncols);
        }
        if (ok)
            same++;
        else
            printf("window %d differs: batch \"%s\" abi \"%s\"\n", i, cons ? cons : "(null)", e.consensus);
        free(e.consensus);
        free(e.msa);
    }
    CHECK("every window equals the ABI path", same == nwindows);
    printf("%d of %d windows identical to the per-window ABI path\n", same, nwindows);

    /* the one-shot call gives the same consensi */
    uint32_t *nseq = malloc(sizeof *nseq * (size_t)nwindows);
    const char *const **seqs = malloc(sizeof *seqs * (size_t)nwindows);
    char **outs = malloc(sizeof *outs * (size_t)nwindows);
    seqshim_status *stats = malloc(sizeof *stats * (size_t)nwindows);
    for (int i = 0; i < nwindows; i++) {
        nseq[i] = (uint32_t)windows[i].nreads;
        seqs[i] = (const char *const *)windows[i].reads;
    }
    CHECK("consensus_many", seqshim_poa_consensus_many(&params, (size_t)nwindows, nseq, seqs, NULL, outs, NULL, stats) == SEQSHIM_OK);
    for (int i = 0; i < nwindows; i++) {
        seqshim_poa_batch_get_consensus(b, (uint64_t)i, &cons, &len);
        CHECK("consensus_many equals the batch", outs[i] && !strcmp(outs[i], cons) &&
                                                     stats[i] == seqshim_poa_batch_window_status(b, (uint64_t)i));
        free(outs[i]);
    }
    free(nseq);
    free(seqs);
    free(outs);
    free(stats);

    /* bad inputs */
    CHECK("unknown id", seqshim_poa_batch_window_status(b, (uint64_t)nwindows) == SEQSHIM_E_INDEX);
    CHECK("null batch status", seqshim_poa_batch_window_status(NULL, 0) == SEQSHIM_E_NULL);
    CHECK("null batch add", seqshim_poa_batch_add_window(NULL, 0, NULL, NULL, NULL) == SEQSHIM_E_NULL);
    CHECK("null reads", seqshim_poa_batch_add_window(b, 2, NULL, NULL, NULL) == SEQSHIM_E_NULL);
    const char *nullread[1] = {NULL};
    uint32_t badlen[1] = {5};
    CHECK("null read with a length", seqshim_poa_batch_add_window(b, 1, nullread, badlen, NULL) == SEQSHIM_E_NULL);
    CHECK("too many reads", seqshim_poa_batch_add_window(b, SEQSHIM_POA_MAX_READS + 1, nullread, NULL, NULL) == SEQSHIM_E_LIMIT);
    CHECK("null run", seqshim_poa_batch_run(NULL) == SEQSHIM_E_NULL);
    CHECK("null consensus out", seqshim_poa_batch_get_consensus(b, 0, NULL, NULL) == SEQSHIM_E_NULL);
    uint64_t empty_id = 0;
    const char *empties[2] = {"", " "};
    seqshim_poa_batch_add_window(b, 1, empties, NULL, &empty_id);
    seqshim_poa_batch_run(b);
    CHECK("empty window", seqshim_poa_batch_window_status(b, empty_id) == SEQSHIM_E_EMPTY);
    CHECK("reset", seqshim_poa_batch_reset(b) == SEQSHIM_OK && seqshim_poa_batch_size(b) == 0 &&
                       seqshim_poa_batch_window_status(b, 0) == SEQSHIM_E_INDEX);
    CHECK("reset NULL", seqshim_poa_batch_reset(NULL) == SEQSHIM_E_NULL);
    seqshim_poa_batch_destroy(b);
    /* a second destroy of the same handle is recognised and ignored */
    seqshim_poa_batch_destroy(b);
    seqshim_poa_batch_destroy(NULL);

    b = NULL;
    CHECK("create NULL", seqshim_poa_batch_create(NULL, 0, &b) == SEQSHIM_E_NULL && b == NULL);
    seqshim_poa_params_t bad = params;
    bad.align_mode = SEQSHIM_POA_ALIGN_SEMIGLOBAL;
    CHECK("semi-global refused", seqshim_poa_batch_create(&bad, 0, &b) == SEQSHIM_E_OPTION && b == NULL);
    bad = params;
    bad.consensus_mode = 7;
    CHECK("unknown consensus refused", seqshim_poa_batch_create(&bad, 0, &b) == SEQSHIM_E_OPTION && b == NULL);
    bad = params;
    bad.max_seqs_per_window = 0;
    CHECK("max_seqs 0 refused", seqshim_poa_batch_create(&bad, 0, &b) == SEQSHIM_E_OPTION && b == NULL);
    bad = params;
    bad.match_score = SEQSHIM_POA_MAX_SCORE + 1;
    CHECK("huge match refused", seqshim_poa_batch_create(&bad, 0, &b) == SEQSHIM_E_OPTION && b == NULL);
    bad = params;
    bad.gap_open = -1000000;
    CHECK("huge gap refused", seqshim_poa_batch_create(&bad, 0, &b) == SEQSHIM_E_OPTION && b == NULL);
    bad = params;
    bad.mismatch = -(int32_t)SEQSHIM_POA_MAX_SCORE;
    CHECK("score at the bound accepted", seqshim_poa_batch_create(&bad, 0, &b) == SEQSHIM_OK && b != NULL);
    seqshim_poa_batch_destroy(b);
    bad = params;
    bad.want_msa = 0;
    b = NULL;
    CHECK("create without MSAs", seqshim_poa_batch_create(&bad, 0, &b) == SEQSHIM_OK);
    const char *one[1] = {"ACGT"};
    const char *rows = NULL;
    seqshim_poa_batch_add_window(b, 1, one, NULL, NULL);
    seqshim_poa_batch_run(b);
    CHECK("no MSA kept", seqshim_poa_batch_get_msa(b, 0, &nrows, &ncols, &rows) == SEQSHIM_E_OPTION);
    seqshim_poa_batch_destroy(b);

    for (int i = 0; i < nwindows; i++) {
        for (int r = 0; r < windows[i].nreads; r++)
            free(windows[i].reads[r]);
        free(windows[i].reads);
    }
    free(windows);
    free(score_matrix.gap_penalty_x);
    free(score_matrix.gap_penalty_y);
    printf("%s\n", failures ? "FAILED" : "all ok");
    return failures != 0;
}
