/* seqshim: WFA2-lib 2.3.3 compatible declarations. DP score matrices. */
#ifndef SEQSHIM_WFA2_SCORE_MATRIX_H
#define SEQSHIM_WFA2_SCORE_MATRIX_H

#include "system/mm_allocator.h"
#include "alignment/cigar.h"

#define SCORE_MAX (10000000)

typedef struct {
  int** columns;   /* columns[h][v] */
  int num_rows;
  int num_columns;
  mm_allocator_t* mm_allocator;
} score_matrix_t;

#ifdef __cplusplus
extern "C" {
#endif
void score_matrix_allocate(score_matrix_t* const score_matrix, const int num_rows,
                           const int num_columns, mm_allocator_t* const mm_allocator);
void score_matrix_free(score_matrix_t* const score_matrix);
#ifdef __cplusplus
}
#endif

#endif
