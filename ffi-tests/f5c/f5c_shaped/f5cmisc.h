/* A stand-in for f5c's src/f5cmisc.h (see f5c.h here): the wall clock and
 * the over-segmentation limit the glue uses. */
#ifndef SEQSHIM_TEST_F5C_SHAPED_MISC_H
#define SEQSHIM_TEST_F5C_SHAPED_MISC_H

#include <sys/time.h>

#include "f5c.h"

/* Reads with this many events per base or more are not aligned. */
#define AVG_EVENTS_PER_KMER_MAX 15.0f

static inline double realtime(void) {
    struct timeval tv;
    gettimeofday(&tv, NULL);
    return tv.tv_sec + tv.tv_usec * 1e-6;
}

void align_cuda(core_t* core, db_t* db);

#endif
