/* seqshim: BOA scoring function (libseqshim ABI). */
#ifndef ALIGN_SCORE_HEADER_INCLUDED
#define ALIGN_SCORE_HEADER_INCLUDED

#include "default.h"
#include "poa.h"
#include "seq_util.h"

#ifdef __cplusplus
extern "C" {
#endif

/* m->score[seq_x[i].letter][seq_y[j].letter] */
LPOScore_T matrix_scoring_function(int i, int j, LPOLetter_T seq_x[], LPOLetter_T seq_y[],
                                   ResidueScoreMatrix_T *m);

#ifdef __cplusplus
}
#endif

#endif /* ALIGN_SCORE_HEADER_INCLUDED */
