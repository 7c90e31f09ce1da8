/* seqshim: CUDA-EC v1.0.x's runTest (FixErrorsVoting.cu) as a plain C export.
 *
 * Written by hand (cbindgen leaves these names out of seqshim.h). Param is
 * layout-identical to CUDA-EC v1's Param: 28 bytes, align 4. The glue in
 * integrations/cudaec/ defines v1's runTest on top of this declaration.
 * The native API (seqshim_ec_*) is in seqshim.h. */
#ifndef SEQSHIM_CUDAEC_H
#define SEQSHIM_CUDAEC_H

#include <stdio.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct seqshim_cudaec_Param { /* layout-identical to v1 Param, 28 B */
    short doTrim, doDeletion, doInsertion, maxMods, minVotes, maxTrim;
    int numTuples;
    short numSearch, tupleSize;
    int NUM_OF_READS;
    short readLen;
} seqshim_cudaec_Param;

/* FIXERRORSVOTING_H_ is v1's header guard: with v1's header included, its
 * own Param (same layout) is used instead. */
#ifndef FIXERRORSVOTING_H_
typedef seqshim_cudaec_Param Param;
#endif

/* Exact-v1 kernels (fix_errors1, and fix_errors2 when numSearch == 2) on
 * h_param->NUM_OF_READS records of readLen + 2 bytes at reads_arr, in
 * place. The Bloom modulus comes from numTuples; table_size only bounds the
 * bytes read from hash_table (bytes past it read as 0; a table_size of 0 is
 * an all-zero table, even with a NULL hash_table). seqOut, discardOut, argc
 * and argv are ignored; hash_table and *h_param are not modified. Input
 * outside the exact-v1 domain, a NULL h_param, or a NULL hash_table or
 * reads_arr with bytes to read: one log line (SEQSHIM_LOG), reads_arr
 * unchanged, no exit. */
void seqshim_cudaec_run_test(unsigned char *hash_table, seqshim_cudaec_Param *h_param, char *reads_arr,
                             unsigned int table_size, FILE *seqOut, FILE *discardOut,
                             int argc, char **argv);

#ifdef __cplusplus
}
#endif

#endif /* SEQSHIM_CUDAEC_H */
