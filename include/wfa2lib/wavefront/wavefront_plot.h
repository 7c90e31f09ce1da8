/* seqshim: WFA2-lib 2.3.3 compatible declarations. Wavefront plots. */
#ifndef SEQSHIM_WFA2_WAVEFRONT_PLOT_H
#define SEQSHIM_WFA2_WAVEFRONT_PLOT_H

#include "utils/commons.h"
#include "alignment/score_matrix.h"
#include "wavefront/wavefront_penalties.h"

typedef struct _wavefront_aligner_t wavefront_aligner_t;

typedef struct {
  bool enabled;
  int resolution_points;
  int align_level;
} wavefront_plot_attr_t;

typedef struct _wavefront_plot_t wavefront_plot_t;

#ifdef __cplusplus
extern "C" {
#endif
void wavefront_plot_print(FILE* const stream, wavefront_aligner_t* const wf_aligner);
#ifdef __cplusplus
}
#endif

#endif
