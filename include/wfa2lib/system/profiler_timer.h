/* seqshim: WFA2-lib 2.3.3 compatible declarations. Wall-clock timers. */
#ifndef SEQSHIM_WFA2_PROFILER_TIMER_H
#define SEQSHIM_WFA2_PROFILER_TIMER_H

#include "utils/commons.h"
#include "system/profiler_counter.h"

typedef struct {
  struct timespec begin_timer;
  profiler_counter_t time_ns;
  uint64_t accumulated;
} profiler_timer_t;

#define TIMER_CONVERT_NS_TO_US(ns) ((double)(ns)/1E3)
#define TIMER_CONVERT_NS_TO_MS(ns) ((double)(ns)/1E6)
#define TIMER_CONVERT_NS_TO_S(ns)  ((double)(ns)/1E9)

#ifdef __cplusplus
extern "C" {
#endif
void timer_start(profiler_timer_t* const timer);
void timer_stop(profiler_timer_t* const timer);
void timer_reset(profiler_timer_t* const timer);
uint64_t timer_get_current_total_ns(profiler_timer_t* const timer);
void timer_print(FILE* const stream, const profiler_timer_t* const timer,
                 const profiler_timer_t* const ref_timer);
#ifdef __cplusplus
}
#endif

#endif
