// CUDA-EC v1.0.x's runTest on seqshim: compile this file instead of
// FixErrorsVoting.cu and link with -lseqshim (no nvcc, no CUDA). v1's own
// FixErrorsVoting.h (its header guard FIXERRORSVOTING_H_) provides Param;
// seqshim_cudaec.h then declares seqshim_cudaec_Param with the same
// 28-byte layout, checked below.
#include <cstddef>
#include <cstdio>

#include "FixErrorsVoting.h"
#include <seqshim_cudaec.h>

static_assert(sizeof(Param) == sizeof(seqshim_cudaec_Param), "Param size");
static_assert(offsetof(Param, numTuples) == offsetof(seqshim_cudaec_Param, numTuples), "numTuples");
static_assert(offsetof(Param, numSearch) == offsetof(seqshim_cudaec_Param, numSearch), "numSearch");
static_assert(offsetof(Param, NUM_OF_READS) == offsetof(seqshim_cudaec_Param, NUM_OF_READS),
              "NUM_OF_READS");
static_assert(offsetof(Param, readLen) == offsetof(seqshim_cudaec_Param, readLen), "readLen");

extern "C" void runTest(unsigned char *hash_table, Param *h_param, char *reads_arr,
                        unsigned int table_size, FILE *seqOut, FILE *discardOut, int argc,
                        char **argv) {
    seqshim_cudaec_run_test(hash_table, reinterpret_cast<seqshim_cudaec_Param *>(h_param),
                            reads_arr, table_size, seqOut, discardOut, argc, argv);
}
