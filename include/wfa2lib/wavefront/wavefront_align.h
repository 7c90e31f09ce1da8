/* seqshim: WFA2-lib 2.3.3 compatible declarations. */
#ifndef SEQSHIM_WFA2_WAVEFRONT_ALIGN_H
#define SEQSHIM_WFA2_WAVEFRONT_ALIGN_H
#include "wavefront/wavefront_aligner.h"
#endif
