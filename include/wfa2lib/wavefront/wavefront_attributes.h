/* seqshim: WFA2-lib 2.3.3 compatible declarations. Aligner attributes. */
#ifndef SEQSHIM_WFA2_WAVEFRONT_ATTRIBUTES_H
#define SEQSHIM_WFA2_WAVEFRONT_ATTRIBUTES_H

#include "utils/commons.h"
#include "alignment/cigar.h"
#include "alignment/linear_penalties.h"
#include "alignment/affine_penalties.h"
#include "alignment/affine2p_penalties.h"
#include "system/mm_allocator.h"
#include "system/profiler_timer.h"
#include "wavefront/wavefront_penalties.h"
#include "wavefront/wavefront_plot.h"
#include "wavefront/wavefront_heuristic.h"

typedef enum {
  compute_score,       /* score only */
  compute_alignment    /* score and CIGAR */
} alignment_scope_t;

typedef enum {
  alignment_end2end,   /* global */
  alignment_endsfree   /* free leading/trailing gaps, bounded per end */
} alignment_span_t;

typedef struct {
  alignment_span_t span;
  int pattern_begin_free;
  int pattern_end_free;
  int text_begin_free;
  int text_end_free;
} alignment_form_t;

typedef int (*alignment_match_funct_t)(int,int,void*);

typedef struct {
  int max_alignment_score;
  int probe_interval_global;
  int probe_interval_compact;
  uint64_t max_partial_compacts;
  uint64_t max_memory_compact;
  uint64_t max_memory_resident;
  uint64_t max_memory_abort;
  int verbose;
  bool check_alignment_correct;
  profiler_timer_t timer;
  int max_num_threads;
  int min_offsets_per_thread;
} alignment_system_t;

typedef enum {
  wavefront_memory_high     = 0,
  wavefront_memory_med      = 1,
  wavefront_memory_low      = 2,
  wavefront_memory_ultralow = 3   /* bidirectional (BiWFA) */
} wavefront_memory_t;

typedef struct {
  distance_metric_t distance_metric;
  alignment_scope_t alignment_scope;
  alignment_form_t alignment_form;
  linear_penalties_t linear_penalties;
  affine_penalties_t affine_penalties;
  affine2p_penalties_t affine2p_penalties;
  wavefront_heuristic_t heuristic;
  wavefront_memory_t memory_mode;
  alignment_match_funct_t match_funct;
  void* match_funct_arguments;
  mm_allocator_t* mm_allocator;    /* NULL: the aligner makes its own */
  wavefront_plot_attr_t plot;
  alignment_system_t system;
} wavefront_aligner_attr_t;

#ifdef __cplusplus
extern "C" {
#endif
/* Defaults (gap-affine 0,4,6,2; full alignment; end-to-end; high memory;
 * wf-adaptive 10,50,1). Copy it and edit the copy. */
extern wavefront_aligner_attr_t wavefront_aligner_attr_default;
#ifdef __cplusplus
}
#endif

#endif
