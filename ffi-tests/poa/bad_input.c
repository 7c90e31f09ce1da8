/* Inputs on which BOA crashes, reads past a buffer or returns garbage:
 * seqshim must refuse them cleanly. Built with ASan/UBSan; one line per
 * check. usage: bad_input MATRIX */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "align_score.h"
#include "lpo.h"
#include "seqshim.h"

int main(int argc, char **argv) {
    if (argc != 2) return 2;
    static ResidueScoreMatrix_T matrix;
    if (read_score_matrix(argv[1], &matrix) <= 0) return 2;

    /* A 128-byte name with no NUL: read up to 128 bytes, stored truncated. */
    char *name = malloc(128);
    memset(name, 'A', 128);
    Sequence_T *seq = NULL;
    char residues[] = "ACGTACGTACGTACGTACGT";
    int ok = create_seq(0, &seq, name, NULL, residues, 0);
    printf("unterminated name: %d, stored length %zu\n", ok, strlen(seq[0].name));
    free(name);

    /* The same sequence twice in buildup is refused. */
    initialize_seqs_as_lpo(1, seq, &matrix);
    LPOSequence_T *twice[2] = {&seq[0], &seq[0]};
    LPOSequence_T *g = buildup_progressive_lpo(2, twice, &matrix, 0, 0, NULL, matrix_scoring_function, 1, 0);
    printf("duplicate sequence pointers: %s, letters kept: %s\n", g ? "built" : "refused",
           seq[0].letter ? "yes" : "no");
    free_lpo_sequence(&seq[0], 0);
    free(seq);

    /* A huge window-count hint does not allocate it. */
    struct seqshim_poa_params_t p;
    seqshim_poa_params_default(&p);
    struct seqshim_poa_batch_t *b = NULL;
    int created = seqshim_poa_batch_create(&p, SIZE_MAX, &b);
    printf("create with SIZE_MAX hint: %s\n", created == SEQSHIM_OK && b ? "ok" : "null");
    seqshim_poa_batch_destroy(b);

    /* consensus_many defines every output even when a window is refused. */
    const char *reads0[] = {"ACGTACGT", "ACGTTCGT"};
    uint32_t nseq[2] = {2, 2};
    const char *const *seqs[2] = {reads0, NULL};
    char *cons[2] = {(char *)0x1, (char *)0x1};
    seqshim_status status[2] = {(seqshim_status)99, (seqshim_status)99};
    int rc = seqshim_poa_consensus_many(&p, 2, nseq, seqs, NULL, cons, NULL, status);
    printf("consensus_many with a bad window: rc=%d cons=%s,%s\n", rc, cons[0] ? "set" : "null",
           cons[1] ? "set" : "null");
    free(cons[0]);
    free(cons[1]);

    free(matrix.gap_penalty_x);
    free(matrix.gap_penalty_y);
    return 0;
}
