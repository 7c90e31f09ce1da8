/* seqshim: WFA2-lib 2.3.3 compatible declarations. Memory allocator (treat as opaque). */
#ifndef SEQSHIM_WFA2_MM_ALLOCATOR_H
#define SEQSHIM_WFA2_MM_ALLOCATOR_H

#include "utils/commons.h"

#define MM_ALLOCATOR_ALIGNMENT 8

/* 56 bytes; the fields are private to the library. */
typedef struct {
  uint64_t request_ticker;
  uint64_t segment_size;
  void* segments;
  void* segments_free;
  uint64_t current_segment_idx;
  void* malloc_requests;
  uint64_t malloc_requests_freed;
} mm_allocator_t;

#ifdef __cplusplus
extern "C" {
#endif
mm_allocator_t* mm_allocator_new(const uint64_t segment_size);
void mm_allocator_delete(mm_allocator_t* const mm_allocator);
void* mm_allocator_allocate(mm_allocator_t* const mm_allocator, const uint64_t num_bytes,
                            const bool zero_mem, const uint64_t align_bytes);
void mm_allocator_free(mm_allocator_t* const mm_allocator, void* const memory);
#ifdef __cplusplus
}
#endif

#define mm_allocator_alloc(mm,type) \
  ((type*)mm_allocator_allocate((mm),sizeof(type),false,MM_ALLOCATOR_ALIGNMENT))
#define mm_allocator_malloc(mm,num_bytes) \
  (mm_allocator_allocate((mm),(num_bytes),false,MM_ALLOCATOR_ALIGNMENT))
#define mm_allocator_calloc(mm,num_elements,type,clear_mem) \
  ((type*)mm_allocator_allocate((mm),(num_elements)*sizeof(type),(clear_mem),MM_ALLOCATOR_ALIGNMENT))

#endif
