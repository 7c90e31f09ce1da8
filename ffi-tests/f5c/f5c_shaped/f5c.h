/* A stand-in for f5c's src/f5c.h, written for seqshim's tests: only the
 * types, members and constants that integrations/f5c/seqshim_f5c_batch_glue.c
 * uses, under f5c's names, so the glue can be compiled and driven without an
 * f5c source tree. The ABEA structs have f5c's layout (the glue checks it
 * against seqshim/f5c.h); core_t, db_t and opt_t hold just the members the
 * glue reads or writes, so their layout is not f5c's. */
#ifndef SEQSHIM_TEST_F5C_SHAPED_H
#define SEQSHIM_TEST_F5C_SHAPED_H

#include <stddef.h>
#include <stdint.h>

#define ALN_BANDWIDTH 100
#define MAX_KMER_SIZE 9
#define MAX_NUM_KMER 262144

typedef struct {
    uint64_t start;
    float length;
    float mean;
    float stdv;
} event_t;

typedef struct {
    size_t n;
    size_t start;
    size_t end;
    event_t* event;
} event_table;

typedef struct {
    float level_mean;
    float level_stdv;
    float level_log_stdv;
} model_t;

typedef struct {
    float scale;
    float shift;
    float var;
    float log_var;
} scalings_t;

typedef struct {
    int ref_pos;
    int read_pos;
} AlignedPair;

/* The raw signal of a read; the glue looks at the sample count only. */
typedef struct {
    float* rawptr;
    uint64_t nsample;
    float sample_rate;
} signal_t;

typedef struct {
    int32_t num_thread;
    int8_t verbosity;
    float cuda_mem_frac;
    float cuda_max_readlen;
    float cuda_avg_events_per_kmer;
    float cuda_max_avg_events_per_kmer;
} opt_t;

typedef struct cuda_data_t cuda_data_t;

typedef struct {
    model_t* model;
    uint32_t kmer_size;
    opt_t opt;
    cuda_data_t* cuda;
    double align_kernel_time;
    double align_pre_kernel_time;
    double align_core_kernel_time;
    double align_post_kernel_time;
    double extra_load_cpu;
    double align_cuda_malloc;
    double align_cuda_memcpy;
    double align_cuda_postprocess;
    double align_cuda_preprocess;
    double align_cuda_total_kernel;
    int32_t previous_mem;
    int32_t previous_count_mem;
    int32_t previous_load;
    int32_t previous_count_load;
} core_t;

typedef struct {
    int32_t n_bam_rec;
    char** read;
    int32_t* read_len;
    signal_t** sig;
    event_table* et;
    scalings_t* scalings;
    AlignedPair** event_align_pairs;
    int32_t* n_event_align_pairs;
} db_t;

void init_cuda(core_t* core);
void free_cuda(core_t* core);

#endif
