/* seqshim: WFA2-lib 2.3.3 compatible declarations. Buffer of sequence pairs. */
#ifndef SEQSHIM_WFA2_SEQUENCE_BUFFER_H
#define SEQSHIM_WFA2_SEQUENCE_BUFFER_H

#include "system/mm_allocator.h"

typedef struct {
  uint64_t pattern_offset;
  uint64_t pattern_length;
  uint64_t text_offset;
  uint64_t text_length;
} sequence_offset_t;

typedef struct {
  uint64_t sequence_id;
  sequence_offset_t* offsets;
  uint64_t offsets_used;
  uint64_t offsets_allocated;
  char* buffer;
  uint64_t buffer_used;
  uint64_t buffer_allocated;
  int max_pattern_length;
  int max_text_length;
} sequence_buffer_t;

#ifdef __cplusplus
extern "C" {
#endif
sequence_buffer_t* sequence_buffer_new(const uint64_t num_sequences_hint,
                                       const uint64_t sequence_length_hint);
void sequence_buffer_clear(sequence_buffer_t* const sequence_buffer);
void sequence_buffer_delete(sequence_buffer_t* const sequence_buffer);
void sequence_buffer_add_pair(sequence_buffer_t* const sequence_buffer,
                              char* const pattern, const uint64_t pattern_length,
                              char* const text, const uint64_t text_length);
#ifdef __cplusplus
}
#endif

#endif
