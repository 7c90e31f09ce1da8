/* seqshim: BOA partial-order alignment entry points (libseqshim ABI). */
#ifndef LPO_HEADER_INCLUDED
#define LPO_HEADER_INCLUDED

#include "default.h"
#include "poa.h"
#include "seq_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Rewrites each sequence into symbol indices (in place) and builds its
 * linear graph. Required before alignment. */
void initialize_seqs_as_lpo(int nseq, Sequence_T seq[], ResidueScoreMatrix_T *m);

/* Fuses seqs[1..nseq-1] into seqs[0] in input order and returns seqs[0].
 * seqshim implements use_aggressive_fusion = 0, do_progressive = 0,
 * score_file = NULL with matrix_scoring_function (CONSENT's call). */
LPOSequence_T *buildup_progressive_lpo(int nseq, LPOSequence_T **seqs,
                                       ResidueScoreMatrix_T *score_matrix,
                                       int use_aggressive_fusion, int do_progressive,
                                       char score_file[],
                                       LPOScore_T (*scoring_function)(int, int, LPOLetter_T[],
                                                                      LPOLetter_T[],
                                                                      ResidueScoreMatrix_T *),
                                       int use_global_alignment, int preserve_sequence_order);

/* MSA rows: returns the column count; *p_seq_pos (row pointers) and *p_p
 * (the rows, not NUL-terminated) are malloc'ed for the caller to free;
 * *p_include is not written. */
int xlate_lpo_to_al(LPOSequence_T *seq, int nsymbol, char symbol[], int ibundle,
                    char gap_character, char ***p_seq_pos, char **p_p, char **p_include);

/* Frees everything seq owns, and seq itself if please_free_holder. */
void free_lpo_sequence(LPOSequence_T *seq, int please_free_holder);

/* Adds heaviest-bundle consensus sources CONSENS0, CONSENS1, ... */
void generate_lpo_bundles(LPOSequence_T *seq, float minimum_fraction);

/* Heaviest path (calloc'ed, len entries, *p_best_len used; caller frees). */
LPOLetterRef_T *heaviest_bundle(int len, LPOLetter_T seq[], int nsource_seq,
                                LPOSourceInfo_T source_seq[], int *p_best_len);

#ifdef __cplusplus
}
#endif

#endif /* LPO_HEADER_INCLUDED */
