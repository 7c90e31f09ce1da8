/* seqshim: WFA2-lib 2.3.3 compatible declarations. Sample counters. */
#ifndef SEQSHIM_WFA2_PROFILER_COUNTER_H
#define SEQSHIM_WFA2_PROFILER_COUNTER_H

#include "utils/commons.h"

typedef struct {
  uint64_t total;
  uint64_t samples;
  uint64_t min;
  uint64_t max;
  double m_oldM;   /* running mean/variance state */
  double m_newM;
  double m_oldS;
  double m_newS;
} profiler_counter_t;

#ifdef __cplusplus
extern "C" {
#endif
void counter_reset(profiler_counter_t* const counter);
void counter_add(profiler_counter_t* const counter, const uint64_t amount);
void counter_print(FILE* const stream, const profiler_counter_t* const counter,
                   const profiler_counter_t* const ref_counter, const char* const units,
                   const bool full_report);
#ifdef __cplusplus
}
#endif

#endif
