/* `poa -read_fasta FASTA -pir OUT [-do_global] [-hb] [-tolower] MATRIX`
 * rebuilt on the BOA ABI of libseqshim: the same calls the poa program
 * makes, printing one "name<TAB>row" line per PIR record ('.' gaps).
 *
 * usage: poa_msa [-do_global] [-hb] [-tolower] [-keep-empty] MATRIX FASTA
 * -keep-empty passes blank records to the library too (poa drops them). */
#define _POSIX_C_SOURCE 200809L
#include <ctype.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "align_score.h"
#include "layout.h"
#include "lpo.h"

static ResidueScoreMatrix_T matrix;

/* Whether a record's residue lines hold nothing but line breaks. */
static int blank(const char *s) {
    for (; *s; s++)
        if (!isspace((unsigned char)*s)) return 0;
    return 1;
}

/* Appends one FASTA record (name, residues) to the sequence array. */
static int keep_empty = 0;

static void add_record(Sequence_T **seq, int *nseq, char *name, char *residues, int case_switch) {
    if (blank(residues) && !keep_empty) /* poa keeps no empty records */
        return;
    if (create_seq(*nseq, seq, name, NULL, residues, case_switch) != 1) {
        fprintf(stderr, "create_seq failed\n");
        exit(2);
    }
    (*nseq)++;
}

int main(int argc, char **argv) {
    int global = 0, hb = 0, case_switch = dont_switch_case;
    const char *matrix_path = NULL, *fasta_path = NULL;
    for (int i = 1; i < argc; i++) {
        if (!strcmp(argv[i], "-keep-empty"))
            keep_empty = 1;
        else if (!strcmp(argv[i], "-do_global"))
            global = 1;
        else if (!strcmp(argv[i], "-hb"))
            hb = 1;
        else if (!strcmp(argv[i], "-tolower"))
            case_switch = switch_case_to_lower;
        else if (!matrix_path)
            matrix_path = argv[i];
        else
            fasta_path = argv[i];
    }
    if (!matrix_path || !fasta_path) {
        fprintf(stderr, "usage: poa_msa [-do_global] [-hb] [-tolower] MATRIX FASTA\n");
        return 2;
    }
    char path[4096];
    snprintf(path, sizeof path, "%s", matrix_path);
    if (read_score_matrix(path, &matrix) <= 0) {
        fprintf(stderr, "cannot read %s\n", matrix_path);
        return 2;
    }

    FILE *f = fopen(fasta_path, "r");
    if (!f) {
        perror(fasta_path);
        return 2;
    }
    Sequence_T *seq = NULL;
    int nseq = 0;
    char *line = NULL, name[SEQUENCE_NAME_MAX] = "";
    size_t cap = 0, used = 0, room = 1024;
    char *residues = malloc(room);
    residues[0] = '\0';
    int have_record = 0;
    while (getline(&line, &cap, f) >= 0) {
        if (line[0] == '>') {
            if (have_record)
                add_record(&seq, &nseq, name, residues, case_switch);
            sscanf(line + 1, "%127s", name);
            used = 0;
            residues[0] = '\0';
            have_record = 1;
            continue;
        }
        size_t n = strlen(line);
        if (used + n + 1 > room) {
            room = 2 * (used + n + 1);
            residues = realloc(residues, room);
        }
        memcpy(residues + used, line, n + 1);
        used += n;
    }
    if (have_record)
        add_record(&seq, &nseq, name, residues, case_switch);
    fclose(f);
    free(line);
    free(residues);
    if (nseq == 0) {
        free(matrix.gap_penalty_x);
        free(matrix.gap_penalty_y);
        return 0;
    }

    initialize_seqs_as_lpo(nseq, seq, &matrix);
    LPOSequence_T **input = calloc((size_t)nseq, sizeof *input);
    for (int i = 0; i < nseq; i++)
        input[i] = &seq[i];
    LPOSequence_T *lpo = buildup_progressive_lpo(nseq, input, &matrix, 0, 0, NULL,
                                                 matrix_scoring_function, global, 0);
    if (!lpo) {
        fprintf(stderr, "buildup_progressive_lpo failed\n");
        return 1;
    }
    if (hb)
        generate_lpo_bundles(lpo, 0.9f);
    char **rows = NULL, *block = NULL;
    int ncol = xlate_lpo_to_al(lpo, matrix.nsymbol, matrix.symbol, -1, '.', &rows, &block, NULL);
    for (int i = 0; i < lpo->nsource_seq; i++)
        printf("%s\t%.*s\n", lpo->source_seq[i].name, ncol, rows[i]);
    free(rows);
    free(block);
    for (int i = 0; i < nseq; i++)
        free_lpo_sequence(input[i], 0);
    free(input);
    free(seq);
    free(matrix.gap_penalty_x);
    free(matrix.gap_penalty_y);
    return 0;
}
