/* The `make demo` program: shows which backend seqshim picked on this
 * machine and why, then runs the selftest through the scheduler (on the GPU
 * when one is usable) and times it. Each kernel family adds its section:
 * POA aligns one CONSENT window through the BOA ABI and the batch API. */
#define _GNU_SOURCE
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "seqshim.h"
/* the BOA mirror ABI (include/boa), as CONSENT calls it */
#include "align_score.h"
#include "lpo.h"

/* Writes a POA v2 matrix file with BOA's DNA scoring (+5 match on A, C, G,
 * T; -10 otherwise; 5 per gap position) and returns its path. */
static int write_dna_matrix(char *path) {
    static const char symbols[] = "ARNDCQEGHILKMFPSTWYVBZX?agtcu]n";
    int fd = mkstemp(path);
    if (fd < 0) return -1;
    FILE *f = fdopen(fd, "w");
    if (!f) return -1;
    fprintf(f, "GAP-PENALTIES=5 5 5\n");
    for (const char *c = symbols; *c; c++) fprintf(f, " %c", *c);
    fputc('\n', f);
    for (const char *r = symbols; *r; r++) {
        fputc(*r, f);
        for (const char *c = symbols; *c; c++)
            fprintf(f, " %d", (*r == *c && strchr("ACGT", *r)) ? 5 : -10);
        fputc('\n', f);
    }
    return fclose(f);
}

/* One CONSENT window through the BOA ABI, then the same window through the
 * native batch API. */
static int poa_section(void) {
    static const char *reads[] = {
        "ACGTACGTAAGGTTCCAGTTGACCA", "ACGTTCGTAAGGTCCAGTTGACCAT", "ACGAACGTAAGGTTCAGTTGAACCA",
        "ACGTACGTAAGTTCCAGTTGACCA",  "ACGTACGTAAGGTTCCAGTGACCA",
    };
    const int n = 5;
    char path[] = "/tmp/seqshim-demo-matrix-XXXXXX";
    if (write_dna_matrix(path) != 0) return 1;
    static ResidueScoreMatrix_T matrix;
    int nsymbol = read_score_matrix(path, &matrix);
    unlink(path);
    if (nsymbol <= 0) return 1;

    Sequence_T *seq = NULL;
    for (int i = 0; i < n; i++) {
        char *copy = strdup(reads[i]);
        create_seq(i, &seq, "", "", copy, dont_switch_case);
        free(copy);
    }
    LPOSequence_T *input[5];
    for (int i = 0; i < n; i++) {
        input[i] = &seq[i];
        initialize_seqs_as_lpo(1, &seq[i], &matrix);
    }
    LPOSequence_T *lpo =
        buildup_progressive_lpo(n, input, &matrix, 0, 0, NULL, matrix_scoring_function, 1, 0);
    char **rows = NULL, *block = NULL, *include = NULL;
    int ncol = xlate_lpo_to_al(lpo, matrix.nsymbol, matrix.symbol, 0, '-', &rows, &block, &include);
    printf("BOA ABI (read_score_matrix ... xlate_lpo_to_al), %d reads, %d columns:\n", n, ncol);
    for (int i = 0; i < lpo->nsource_seq; i++) printf("  %.*s\n", ncol, rows[i]);
    free(rows);
    free(block);
    for (int i = 0; i < n; i++) free_lpo_sequence(input[i], 0);
    free(seq);
    free(matrix.gap_penalty_x);
    free(matrix.gap_penalty_y);

    seqshim_poa_params_t params;
    seqshim_poa_params_default(&params);
    seqshim_poa_batch_t *batch = NULL;
    uint64_t id = 0;
    const char *cons = NULL;
    uint32_t len = 0;
    if (seqshim_poa_batch_create(&params, 1, &batch) != SEQSHIM_OK ||
        seqshim_poa_batch_add_window(batch, (uint32_t)n, reads, NULL, &id) != SEQSHIM_OK ||
        seqshim_poa_batch_run(batch) != SEQSHIM_OK ||
        seqshim_poa_batch_get_consensus(batch, id, &cons, &len) != SEQSHIM_OK) {
        seqshim_poa_batch_destroy(batch);
        return 1;
    }
    printf("consensus (column majority, seqshim_poa_batch_*):\n  %s\n", cons);
    seqshim_poa_batch_destroy(batch);
    uint64_t on_gpu = 0, on_cpu = 0;
    int gpus = seqshim_poa_routing(&on_gpu, &on_cpu);
    char info[2048];
    seqshim_backend_info(info, sizeof info);
    const char *reason = strstr(info, "reason: ");
    if (gpus > 0 && on_gpu > 0) {
        printf("POA: the batch's window on the GPU (%llu on %d GPU%s, %llu on the CPU)\n",
               (unsigned long long)on_gpu, gpus, gpus == 1 ? "" : "s", (unsigned long long)on_cpu);
    } else if (reason) {
        printf("POA: the batch's window on the CPU pool: no GPU in use (%.*s)\n",
               (int)strcspn(reason + 8, "\n"), reason + 8);
    } else {
        printf("POA: the batch's window on the CPU pool: the POA kernel is unavailable or did "
               "not take it (SEQSHIM_LOG=info says why)\n");
    }
    return 0;
}

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void) {
    printf("== seqshim %s ==\n\n", seqshim_version());

    int needed = seqshim_backend_info(NULL, 0);
    if (needed < 0) {
        fprintf(stderr, "backend_info failed: %s\n", seqshim_strerror(needed));
        return 1;
    }
    char *info = malloc((size_t)needed + 1);
    if (!info) return 1;
    seqshim_backend_info(info, (size_t)needed + 1);
    printf("-- backend --\n%s\n", info);
    free(info);

    printf("-- selftest (262,144 values through the scheduler) --\n");
    for (int run = 1; run <= 2; ++run) {
        double start = now_ms();
        int status = seqshim_selftest();
        printf("run %d: %s (%.1f ms)%s\n", run, seqshim_strerror(status), now_ms() - start,
               run == 1 ? " [includes kernel compile or cache load on a GPU]" : "");
        if (status != SEQSHIM_OK) return 1;
    }

    needed = seqshim_backend_info(NULL, 0);
    info = malloc((size_t)needed + 1);
    if (!info) return 1;
    seqshim_backend_info(info, (size_t)needed + 1);
    printf("\n-- after the selftest --\n%s", info);
    free(info);
    printf("\n-- POA (BOA / CONSENT) --\n");
    if (poa_section() != 0) {
        fprintf(stderr, "POA section failed\n");
        return 1;
    }
    printf("\nSet SEQSHIM_LOG=info to see each decision, SEQSHIM_BACKEND=cpu to force the CPU.\n");
    return 0;
}
