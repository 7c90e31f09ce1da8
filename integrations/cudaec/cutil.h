/* Stand-in for the CUDA SDK's cutil.h, which CUDA-EC's main.cpp includes
 * but uses nothing of. The SDK header brought in <string.h>, on which
 * main.cpp relies (its own include of it is commented out). */
#ifndef SEQSHIM_CUDAEC_CUTIL_H
#define SEQSHIM_CUDAEC_CUTIL_H
#include <string.h>
#endif
