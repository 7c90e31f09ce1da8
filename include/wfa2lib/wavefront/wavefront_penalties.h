/* seqshim: WFA2-lib 2.3.3 compatible declarations. Distance metrics. */
#ifndef SEQSHIM_WFA2_WAVEFRONT_PENALTIES_H
#define SEQSHIM_WFA2_WAVEFRONT_PENALTIES_H

#include "alignment/linear_penalties.h"
#include "alignment/affine_penalties.h"
#include "alignment/affine2p_penalties.h"

typedef enum {
  indel         = 0,  /* longest common subsequence */
  edit          = 1,  /* Levenshtein */
  gap_linear    = 2,
  gap_affine    = 3,
  gap_affine_2p = 4
} distance_metric_t;

/* The aligner's internal penalties (rescaled when match < 0). */
typedef struct {
  distance_metric_t distance_metric;
  int match;
  int mismatch;
  int gap_opening1;
  int gap_extension1;
  int gap_opening2;
  int gap_extension2;
} wavefront_penalties_t;

#endif
