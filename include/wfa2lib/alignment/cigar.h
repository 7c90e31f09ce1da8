/* seqshim: WFA2-lib 2.3.3 compatible declarations. Alignment CIGARs. */
#ifndef SEQSHIM_WFA2_CIGAR_H
#define SEQSHIM_WFA2_CIGAR_H

#include "utils/commons.h"
#include "system/mm_allocator.h"
#include "alignment/linear_penalties.h"
#include "alignment/affine_penalties.h"
#include "alignment/affine2p_penalties.h"

/* One byte per column ('M','X','I','D'); valid range [begin_offset,end_offset). */
typedef struct {
  char* operations;
  int max_operations;
  int begin_offset;
  int end_offset;
  int score;
  mm_allocator_t* mm_allocator;
} cigar_t;

#ifdef __cplusplus
extern "C" {
#endif
cigar_t* cigar_new(const int max_operations, mm_allocator_t* const mm_allocator);
void cigar_clear(cigar_t* const cigar);
void cigar_resize(cigar_t* const cigar, const int max_operations);
void cigar_free(cigar_t* const cigar);

int cigar_get_matches(cigar_t* const cigar);
void cigar_add_mismatches(char* const pattern, const int pattern_length,
                          char* const text, const int text_length, cigar_t* const cigar);

int cigar_score_edit(cigar_t* const cigar);
int cigar_score_gap_linear(cigar_t* const cigar, linear_penalties_t* const penalties);
int cigar_score_gap_affine(cigar_t* const cigar, affine_penalties_t* const penalties);
int cigar_score_gap_affine2p(cigar_t* const cigar, affine2p_penalties_t* const penalties);

int cigar_cmp(cigar_t* const cigar_a, cigar_t* const cigar_b);
void cigar_copy(cigar_t* const cigar_dst, cigar_t* const cigar_src);
void cigar_append(cigar_t* const cigar_dst, cigar_t* const cigar_src);
void cigar_append_deletion(cigar_t* const cigar, const int length);
void cigar_append_insertion(cigar_t* const cigar, const int length);

bool cigar_check_alignment(FILE* const stream, const char* const pattern, const int pattern_length,
                           const char* const text, const int text_length,
                           cigar_t* const cigar, const bool verbose);

void cigar_print(FILE* const stream, cigar_t* const cigar, const bool print_matches);
int cigar_sprint(char* buffer, cigar_t* const cigar, const bool print_matches);
void cigar_print_pretty(FILE* const stream, const char* const pattern, const int pattern_length,
                        const char* const text, const int text_length,
                        cigar_t* const cigar, mm_allocator_t* const mm_allocator);
#ifdef __cplusplus
}
#endif

#endif
