/* seqshim: BOA MSA file formats. seqshim does not export the MSA file
 * readers; this header exists so that sources including it (BMEAN does)
 * build unchanged. */
#ifndef MSA_FORMAT_HEADER_INCLUDED
#define MSA_FORMAT_HEADER_INCLUDED

#include "default.h"
#include "seq_util.h"
#include "lpo.h"

#endif /* MSA_FORMAT_HEADER_INCLUDED */
