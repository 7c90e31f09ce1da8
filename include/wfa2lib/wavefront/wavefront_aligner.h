/* seqshim: WFA2-lib 2.3.3 compatible declarations. */
#ifndef SEQSHIM_WFA2_WAVEFRONT_ALIGNER_H
#define SEQSHIM_WFA2_WAVEFRONT_ALIGNER_H
#include "utils/commons.h"
#include "system/profiler_counter.h"
#include "system/profiler_timer.h"
#include "alignment/cigar.h"
#include "wavefront/wfa.h"
#endif
