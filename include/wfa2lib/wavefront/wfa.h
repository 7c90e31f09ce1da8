/* seqshim: WFA2-lib 2.3.3 compatible declarations. The wavefront aligner. */
#ifndef SEQSHIM_WFA2_WFA_H
#define SEQSHIM_WFA2_WFA_H

#include "utils/commons.h"
#include "system/mm_allocator.h"
#include "alignment/cigar.h"
#include "wavefront/wavefront_attributes.h"
#include "wavefront/wavefront_penalties.h"
#include "wavefront/wavefront_heuristic.h"
#include "wavefront/wavefront_plot.h"

#define WF_STATUS_SUCCESSFUL         0
#define WF_STATUS_UNFEASIBLE        -1
#define WF_STATUS_MAX_SCORE_REACHED -2
#define WF_STATUS_OOM               -3
#define WF_STATUS_END_REACHED        1

#define WAVEFRONT_OFFSET_NULL (INT32_MIN/2)
#define WAVEFRONT_V(k,offset) ((offset)-(k))
#define WAVEFRONT_H(k,offset) (offset)
#define DPMATRIX_DIAGONAL(h,v) ((h)-(v))

typedef int32_t wf_offset_t;

typedef enum {
  wf_align_regular = 0,
  wf_align_biwfa = 1,
  wf_align_biwfa_breakpoint_forward = 2,
  wf_align_biwfa_breakpoint_reverse = 3,
  wf_align_biwfa_subsidiary = 4
} wavefront_align_mode_t;

typedef enum {
  affine2p_matrix_M = 0,
  affine2p_matrix_I1 = 1,
  affine2p_matrix_I2 = 2,
  affine2p_matrix_D1 = 3,
  affine2p_matrix_D2 = 4,
  affine2p_matrix_undefined = 5
} affine2p_matrix_type;

typedef struct {
  int score;
  int k;
  wf_offset_t offset;
} wavefront_pos_t;

typedef struct {
  int status;            /* WF_STATUS_* of the last alignment */
  int score;             /* internal wavefront score (not the alignment score) */
  int num_null_steps;
  uint64_t memory_used;
  void (*wf_align_compute)(wavefront_aligner_t* const,const int);
  int (*wf_align_extend)(wavefront_aligner_t* const,const int);
} wavefront_align_status_t;

/* Library-private pieces of the aligner. */
typedef struct _strings_padded_t strings_padded_t;
typedef struct _wavefront_t wavefront_t;
typedef struct _wf_backtrace_buffer_t wf_backtrace_buffer_t;
typedef struct _wavefront_bialigner_t wavefront_bialigner_t;
typedef struct _wavefront_slab_t wavefront_slab_t;

typedef struct {
  bool memory_modular;
  bool bt_piggyback;
  int num_wavefronts;
  int max_score_scope;
  int historic_max_hi;
  int historic_min_lo;
  wavefront_t** mwavefronts;
  wavefront_t** i1wavefronts;
  wavefront_t** i2wavefronts;
  wavefront_t** d1wavefronts;
  wavefront_t** d2wavefronts;
  wavefront_t* wavefront_null;
  wavefront_t* wavefront_victim;
  wf_backtrace_buffer_t* bt_buffer;
  mm_allocator_t* mm_allocator;
} wavefront_components_t;

typedef struct _wavefront_aligner_t {
  wavefront_align_mode_t align_mode;
  char* align_mode_tag;
  wavefront_align_status_t align_status;
  strings_padded_t* sequences;
  char* pattern;
  int pattern_length;
  char* text;
  int text_length;
  alignment_match_funct_t match_funct;
  void* match_funct_arguments;
  alignment_scope_t alignment_scope;
  alignment_form_t alignment_form;
  wavefront_penalties_t penalties;
  wavefront_heuristic_t heuristic;
  wavefront_memory_t memory_mode;
  wavefront_components_t wf_components;
  affine2p_matrix_type component_begin;
  affine2p_matrix_type component_end;
  wavefront_pos_t alignment_end_pos;
  wavefront_bialigner_t* bialigner;   /* non-NULL for ultralow (BiWFA) */
  cigar_t* cigar;                     /* result of the last alignment */
  bool mm_allocator_own;
  mm_allocator_t* mm_allocator;
  wavefront_slab_t* wavefront_slab;
  wavefront_plot_t* plot;
  alignment_system_t system;
} wavefront_aligner_t;

#ifdef __cplusplus
extern "C" {
#endif
/* Setup */
wavefront_aligner_t* wavefront_aligner_new(wavefront_aligner_attr_t* attributes);
void wavefront_aligner_reap(wavefront_aligner_t* const wf_aligner);
void wavefront_aligner_delete(wavefront_aligner_t* const wf_aligner);

/* Span */
void wavefront_aligner_set_alignment_end_to_end(wavefront_aligner_t* const wf_aligner);
void wavefront_aligner_set_alignment_free_ends(wavefront_aligner_t* const wf_aligner,
    const int pattern_begin_free, const int pattern_end_free,
    const int text_begin_free, const int text_end_free);

/* Heuristics */
void wavefront_aligner_set_heuristic_none(wavefront_aligner_t* const wf_aligner);
void wavefront_aligner_set_heuristic_wfadaptive(wavefront_aligner_t* const wf_aligner,
    const int min_wavefront_length, const int max_distance_threshold, const int score_steps);
void wavefront_aligner_set_heuristic_wfmash(wavefront_aligner_t* const wf_aligner,
    const int min_wavefront_length, const int max_distance_threshold, const int score_steps);
void wavefront_aligner_set_heuristic_xdrop(wavefront_aligner_t* const wf_aligner,
    const int xdrop, const int score_steps);
void wavefront_aligner_set_heuristic_zdrop(wavefront_aligner_t* const wf_aligner,
    const int ydrop, const int score_steps);
void wavefront_aligner_set_heuristic_banded_static(wavefront_aligner_t* const wf_aligner,
    const int band_min_k, const int band_max_k);
void wavefront_aligner_set_heuristic_banded_adaptive(wavefront_aligner_t* const wf_aligner,
    const int band_min_k, const int band_max_k, const int score_steps);

/* Match function and limits */
void wavefront_aligner_set_match_funct(wavefront_aligner_t* const wf_aligner,
    int (*match_funct)(int,int,void*), void* const match_funct_arguments);
void wavefront_aligner_set_max_alignment_score(wavefront_aligner_t* const wf_aligner,
    const int max_alignment_score);
void wavefront_aligner_set_max_memory(wavefront_aligner_t* const wf_aligner,
    const uint64_t max_memory_resident, const uint64_t max_memory_abort);
void wavefront_aligner_set_max_num_threads(wavefront_aligner_t* const wf_aligner,
    const int max_num_threads);
void wavefront_aligner_set_min_offsets_per_thread(wavefront_aligner_t* const wf_aligner,
    const int min_offsets_per_thread);

/* Utilities and display */
uint64_t wavefront_aligner_get_size(wavefront_aligner_t* const wf_aligner);
void wavefront_aligner_print_type(FILE* const stream, wavefront_aligner_t* const wf_aligner);
void wavefront_aligner_print_scope(FILE* const stream, wavefront_aligner_t* const wf_aligner);
void wavefront_aligner_print_mode(FILE* const stream, wavefront_aligner_t* const wf_aligner);

/* Alignment */
int wavefront_align(wavefront_aligner_t* const wf_aligner,
    const char* const pattern, const int pattern_length,
    const char* const text, const int text_length);
int wavefront_align_resume(wavefront_aligner_t* const wf_aligner);
char* wavefront_align_strerror(const int error_code);
extern char* wf_error_msg[5];
#ifdef __cplusplus
}
#endif

#endif
