/* Contract checks of the BOA ABI beyond the alignment itself: in-place
 * mutations, the allocation contract, return codes of bad inputs, and the
 * cases where upstream would crash or abort. Prints one line per check;
 * exits non-zero on the first failure. usage: boa_api MATRIX BAD_MATRIX */
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "align_score.h"
#include "layout.h"
#include "lpo.h"

static int failures;
#define CHECK(what, cond)                              \
    do {                                               \
        if (cond) {                                    \
            printf("ok %s\n", what);                   \
        } else {                                       \
            printf("FAILED %s (line %d)\n", what, __LINE__); \
            failures++;                                \
        }                                              \
    } while (0)

static ResidueScoreMatrix_T m;

static LPOScore_T other_scoring(int i, int j, LPOLetter_T x[], LPOLetter_T y[], ResidueScoreMatrix_T *mm) {
    return mm->score[(int)x[i].letter][(int)y[j].letter] + 1;
}

int main(int argc, char **argv) {
    if (argc < 3)
        return 2;
    char missing[] = "/nonexistent/seqshim-matrix.mat";
    CHECK("missing matrix file returns -2", read_score_matrix(missing, &m) == -2);
    CHECK("gap defaults written even on failure",
          m.gap_penalty_set[0][0] == 12 && m.trunc_gap_length == TRUNCATE_GAP_LENGTH);
    CHECK("malformed matrix returns -1", read_score_matrix(argv[2], &m) == -1);
    int n = read_score_matrix(argv[1], &m);
    CHECK("matrix symbols", n == 31 && m.nsymbol == 31 && m.symbol[31] == '\0' && m.symbol[0] == 'A');
    CHECK("matrix scores", m.score[0][0] == 5 && m.score[0][4] == -10 && m.score[16][16] == 5);
    CHECK("matrix gap arrays", m.max_gap_length == 16 && m.gap_penalty_x[0] == 5 &&
                                   m.gap_penalty_x[16] == 5 && m.gap_penalty_x[17] == 0);

    /* create_seq: array growth in chunks of 8, whitespace removed in place. */
    Sequence_T *seq = NULL;
    char buf[64];
    for (int i = 0; i < 10; i++) {
        snprintf(buf, sizeof buf, " AC G\tT%c\n", "ACGT"[i % 4]);
        char name[16];
        snprintf(name, sizeof name, "r%d", i);
        CHECK(i == 0 ? "create_seq returns 1" : "create_seq again", create_seq(i, &seq, name, NULL, buf, dont_switch_case) == 1);
        if (i == 0)
            CHECK("create_seq strips whitespace in place", strcmp(buf, "ACGTA") == 0);
    }
    CHECK("create_seq fields", seq[9].length == 5 && !strcmp(seq[9].sequence, "ACGTC") &&
                                   !strcmp(seq[9].name, "r9") && !strcmp(seq[9].title, "untitled"));
    CHECK("create_seq zeroes new entries", seq[10].sequence == NULL && seq[15].length == 0);
    char lower[] = "acgn";
    create_seq(10, &seq, "", "t", lower, switch_case_to_upper);
    CHECK("create_seq switch case", !strcmp(seq[10].sequence, "ACGN") && !strcmp(seq[10].title, "t"));
    CHECK("create_seq NULL string fails", create_seq(11, &seq, "", "", NULL, 0) == 0);

    /* initialize_seqs_as_lpo rewrites residues into symbol indices. */
    initialize_seqs_as_lpo(11, seq, &m);
    CHECK("sequence rewritten to indices", seq[0].sequence[0] == 0 && seq[0].sequence[1] == 4 &&
                                               seq[0].sequence[2] == 7 && seq[0].sequence[3] == 16);
    CHECK("linear letters", seq[0].length == 5 && seq[0].letter[0].left.ipos == -1 &&
                                seq[0].letter[4].right.ipos == -1 && seq[0].letter[2].source.ipos == 2 &&
                                seq[0].letter[3].ring_id == 3);
    CHECK("one source", seq[0].nsource_seq == 1 && seq[0].source_seq[0].weight == 1 &&
                            seq[0].source_seq[0].bundle_id == NO_BUNDLE && !strcmp(seq[0].source_seq[0].name, "r0"));

    LPOSequence_T *input[11];
    for (int i = 0; i < 11; i++)
        input[i] = &seq[i];
    CHECK("unsupported aggressive fusion returns NULL",
          buildup_progressive_lpo(3, input, &m, 1, 0, NULL, matrix_scoring_function, 1, 0) == NULL);
    CHECK("foreign scoring function returns NULL",
          buildup_progressive_lpo(3, input, &m, 0, 0, NULL, other_scoring, 1, 0) == NULL);
    CHECK("nseq 0 returns NULL", buildup_progressive_lpo(0, input, &m, 0, 0, NULL, matrix_scoring_function, 1, 0) == NULL);
    CHECK("nseq 1 returns seqs[0]", buildup_progressive_lpo(1, input, &m, 0, 0, NULL, matrix_scoring_function, 1, 0) == input[0]);
    CHECK("nseq 1 ignores the scoring function", buildup_progressive_lpo(1, input, &m, 0, 0, NULL, other_scoring, 1, 0) == input[0]);
    LPOSequence_T *lpo = buildup_progressive_lpo(11, input, &m, 0, 0, NULL, matrix_scoring_function, 1, 0);
    CHECK("fusion returns seqs[0]", lpo == input[0] && lpo->nsource_seq == 11);
    CHECK("fused inputs lose their letters", seq[1].letter == NULL && seq[10].letter == NULL && seq[1].title != NULL);
    CHECK("source names carried", !strcmp(lpo->source_seq[7].name, "r7"));

    char **rows = NULL, *block = NULL, *include = (char *)&m;
    int ncol = xlate_lpo_to_al(lpo, m.nsymbol, m.symbol, 0, '-', &rows, &block, &include);
    CHECK("xlate leaves p_include alone", include == (char *)&m);
    CHECK("xlate rows point into one block", ncol >= 5 && rows[0] == block && rows[1] == block + ncol);
    int letters = 0;
    for (int c = 0; c < ncol; c++)
        letters += rows[9][c] != '-';
    CHECK("xlate row has the read's letters", letters == 5);
    free(rows);
    free(block);

    generate_lpo_bundles(lpo, 0.9f);
    CHECK("no bundle for a path under 10 nodes", lpo->nsource_seq == 11);
    int best_len = -1;
    LPOLetterRef_T *path = heaviest_bundle(lpo->length, lpo->letter, lpo->nsource_seq, lpo->source_seq, &best_len);
    CHECK("heaviest_bundle path", path != NULL && best_len >= 5 && best_len <= lpo->length);
    free(path);

    CHECK("matrix_scoring_function", matrix_scoring_function(0, 1, lpo->letter, lpo->letter, &m) == -10 &&
                                         matrix_scoring_function(0, 0, lpo->letter, lpo->letter, &m) == 5);
    for (int i = 0; i < 11; i++)
        free_lpo_sequence(input[i], 0);
    free(seq);
    free_lpo_sequence(NULL, 1);

    stringptr s = STRINGPTR_EMPTY_INIT;
    s.p = malloc(10);
    s.last_alloc = 10;
    CHECK("stringptr_free", stringptr_free(&s) == 0 && s.p == NULL && s.last_alloc == 0);
    CHECK("stringptr_free NULL", stringptr_free(NULL) == 0);

    snprintf(ERRTXT, 1024, "test message %d", 42);
    CHECK("black_flag CRASH returns instead of aborting", black_flag(CRASH_black_flag_type, "boa_api.c", 1, "r") == 1);
    CHECK("black_flag clears ERRTXT", ERRTXT[0] == '\0');
    ERRTXT[1023] = 'x'; /* the whole 1024 bytes are ours to write */
    ERRTXT[1023] = '\0';

    free(m.gap_penalty_x);
    free(m.gap_penalty_y);
    printf("%s\n", failures ? "FAILED" : "all ok");
    return failures != 0;
}
