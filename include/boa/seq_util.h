/* seqshim: BOA sequence utilities and score matrices (libseqshim ABI). */
#ifndef SEQ_UTIL_HEADER_INCLUDED
#define SEQ_UTIL_HEADER_INCLUDED

#include "poa.h"

#ifdef __cplusplus
extern "C" {
#endif

/* create_seq's do_switch_case values. */
enum { dont_switch_case, switch_case_to_lower, switch_case_to_upper };

#define FASTA_NAME_MAX 4096  /* longest FASTA header BOA-era readers keep */
#define SEQ_LENGTH_MAX 32768 /* line buffer size of BOA-era readers */
#define MATRIX_SYMBOL_MAX 128

/* A score matrix as read_score_matrix fills it (caller-allocated, 131,904 bytes). */
typedef struct {
    int nsymbol;                     /* symbols in use */
    char symbol[MATRIX_SYMBOL_MAX];  /* NUL-terminated after the last symbol */
    ResidueScore_T score[MATRIX_SYMBOL_MAX][MATRIX_SYMBOL_MAX];
    int best_match[MATRIX_SYMBOL_MAX][MATRIX_SYMBOL_MAX];
    ResidueScore_T gap_penalty_set[2][3]; /* open, extension, long extension */
    int trunc_gap_length;
    int decay_gap_length;
    ResidueScore_T *gap_penalty_x, *gap_penalty_y; /* max_gap_length + 2 entries, calloc'ed */
    int max_gap_length;
    int nfreq;
    char freq_symbol[MATRIX_SYMBOL_MAX];
    float freq[MATRIX_SYMBOL_MAX];
} ResidueScoreMatrix_T;

/* Returns the number of symbols; -2 if the file cannot be opened, -1 if it
 * is malformed. */
int read_score_matrix(char filename[], ResidueScoreMatrix_T *m);

/* Appends (*seq)[nseq]; removes whitespace from tmp_seq in place. Returns 1. */
int create_seq(int nseq, Sequence_T **seq, char seq_name[], char seq_title[], char tmp_seq[],
               int do_switch_case);

#ifdef __cplusplus
}
#endif

#endif /* SEQ_UTIL_HEADER_INCLUDED */
