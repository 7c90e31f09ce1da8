/* seqshim: WFA2-lib 2.3.3 compatible declarations. Heuristic settings. */
#ifndef SEQSHIM_WFA2_WAVEFRONT_HEURISTIC_H
#define SEQSHIM_WFA2_WAVEFRONT_HEURISTIC_H

typedef struct _wavefront_aligner_t wavefront_aligner_t;

/* Bit flags: setters add to the current strategy. */
typedef enum {
  wf_heuristic_none            = 0x0ul,
  wf_heuristic_banded_static   = 0x1ul,
  wf_heuristic_banded_adaptive = 0x2ul,
  wf_heuristic_wfadaptive      = 0x4ul,
  wf_heuristic_xdrop           = 0x10ul,
  wf_heuristic_zdrop           = 0x20ul,
  wf_heuristic_wfmash          = 0x40ul
} wf_heuristic_strategy;

typedef struct {
  wf_heuristic_strategy strategy;
  int steps_between_cutoffs;
  int min_k;                   /* banded */
  int max_k;
  int min_wavefront_length;    /* wf-adaptive / wfmash */
  int max_distance_threshold;
  int xdrop;
  int zdrop;
  int steps_wait;              /* internal state */
  int max_sw_score;
  int max_sw_score_offset;
  int max_sw_score_k;
} wavefront_heuristic_t;

#endif
