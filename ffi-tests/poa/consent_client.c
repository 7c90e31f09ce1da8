/* A client shaped like BOA-era CONSENT/BMEAN: per window, the exact call
 * sequence of BMEAN's consensus_POA (read_score_matrix once into a global,
 * create_seq on a malloc'ed copy then stringptr_free, initialize_seqs_as_lpo
 * one sequence at a time, buildup_progressive_lpo with
 * matrix_scoring_function, global, input order, xlate_lpo_to_al with '-',
 * free_lpo_sequence on every input), then the column-majority consensus.
 *
 * usage: consent_client MATRIX WINDOWS [THREADS]
 * WINDOWS holds one read per line, windows separated by blank lines, "."
 * standing for an empty read. With THREADS > 1 every thread runs every
 * window at once; the outputs must all equal the first thread's, which is
 * printed. */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "align_score.h"
#include "default.h"
#include "layout.h"
#include "lpo.h"

#define MAX_MSA 150

static ResidueScoreMatrix_T score_matrix; /* read once, shared, as BMEAN does */

typedef struct {
    int nreads;
    char **reads;
} Window;

static Window *windows;
static int nwindows;

/* Column majority over the MSA rows (CONSENT's rule). */
static void majority(FILE *out, char **rows, int nrows, int ncol) {
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
            fputc('A', out);
        else if (cc > a && cc > g && cc > t)
            fputc('C', out);
        else if (g > a && g > cc && g > t)
            fputc('G', out);
        else if (t > a && t > g && t > cc)
            fputc('T', out);
        else if (rows[0][c] != '-')
            fputc(rows[0][c], out);
    }
}

/* BMEAN's consensus_POA + majority for one window. */
static void consensus_window(FILE *out, const Window *w) {
    Sequence_T *seq = NULL;
    int nseq = 0;
    char name[] = "", title[] = "";
    for (int i = 0; i < w->nreads && nseq < MAX_MSA; i++) {
        if (w->reads[i][0] == '\0')
            continue;
        stringptr tmp = STRINGPTR_EMPTY_INIT;
        tmp.p = malloc(strlen(w->reads[i]) + 1);
        strcpy(tmp.p, w->reads[i]);
        if (create_seq(nseq, &seq, name, title, tmp.p, dont_switch_case)) {
            nseq++;
            stringptr_free(&tmp);
        }
    }
    if (nseq == 0) {
        fprintf(out, "consensus: \n");
        return;
    }
    LPOSequence_T **input = NULL;
    CALLOC(input, nseq, LPOSequence_T *);
    for (int i = 0; i < nseq; i++) {
        input[i] = &seq[i];
        initialize_seqs_as_lpo(1, &seq[i], &score_matrix);
    }
    LPOSequence_T *lpo = buildup_progressive_lpo(nseq, input, &score_matrix, 0, 0, NULL,
                                                 matrix_scoring_function, 1, 0);
    char **rows = NULL, *block = NULL, *include = NULL;
    int ncol = xlate_lpo_to_al(lpo, score_matrix.nsymbol, score_matrix.symbol, 0, '-', &rows,
                               &block, &include);
    for (int i = 0; i < lpo->nsource_seq; i++)
        fprintf(out, "%.*s\n", ncol, rows[i]);
    fprintf(out, "consensus: ");
    majority(out, rows, lpo->nsource_seq, ncol);
    fputc('\n', out);
    FREE(block);
    FREE(include);
    FREE(rows);
    for (int i = 0; i < nseq; i++)
        free_lpo_sequence(input[i], 0);
    FREE(input);
    FREE(seq);
}

typedef struct {
    char *text;
    size_t len;
} Output;

static void *run_all(void *arg) {
    Output *o = arg;
    FILE *out = open_memstream(&o->text, &o->len);
    for (int i = 0; i < nwindows; i++) {
        fprintf(out, "window %d\n", i);
        consensus_window(out, &windows[i]);
    }
    fclose(out);
    return NULL;
}

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
    if (argc < 3) {
        fprintf(stderr, "usage: consent_client MATRIX WINDOWS [THREADS]\n");
        return 2;
    }
    int nthreads = argc > 3 ? atoi(argv[3]) : 1;
    if (nthreads < 1)
        nthreads = 1;
    if (read_score_matrix(argv[1], &score_matrix) <= 0) {
        WARN_MSG(USERR, (ERRTXT, "Error reading matrix file %s.", argv[1]), "test");
        return 2;
    }
    read_windows(argv[2]);
    Output *outputs = calloc((size_t)nthreads, sizeof *outputs);
    pthread_t *threads = calloc((size_t)nthreads, sizeof *threads);
    for (int t = 0; t < nthreads; t++)
        pthread_create(&threads[t], NULL, run_all, &outputs[t]);
    int status = 0;
    for (int t = 0; t < nthreads; t++)
        pthread_join(threads[t], NULL);
    for (int t = 1; t < nthreads; t++) {
        if (outputs[t].len != outputs[0].len || memcmp(outputs[t].text, outputs[0].text, outputs[0].len)) {
            fprintf(stderr, "thread %d output differs from thread 0\n", t);
            status = 1;
        }
    }
    fwrite(outputs[0].text, 1, outputs[0].len, stdout);
    for (int t = 0; t < nthreads; t++)
        free(outputs[t].text);
    free(outputs);
    free(threads);
    for (int i = 0; i < nwindows; i++) {
        for (int r = 0; r < windows[i].nreads; r++)
            free(windows[i].reads[r]);
        free(windows[i].reads);
    }
    free(windows);
    free(score_matrix.gap_penalty_x);
    free(score_matrix.gap_penalty_y);
    return status;
}
