// Test stand-in for darwin-gpu's gact.h: the types and batch entry points
// the glue needs, with darwin-gpu's layout (GACT spec, section 3).
#ifndef DGPU_TEST_GACT_H
#define DGPU_TEST_GACT_H
#include <cstdint>
#include <string>
#include <vector>

struct CUDA_Stream_Holder;

typedef struct {
    uint32_t *packed_ref_seqs_d, *packed_query_seqs_d;
    int32_t *ref_offsets_d, *query_offsets_d;
    const char *ref_seqs_d, *query_seqs_d;
    const int *ref_lens_d, *query_lens_d, *ref_poss_d, *query_poss_d;
    const char *reverses_d, *firsts_d;
    int* outs_d;
    int* matrices_d;
    CUDA_Stream_Holder* stream;
} GPU_storage;

void GPU_init(int tile_size, int tile_overlap, int gap_open, int gap_extend, int match,
              int mismatch, int early_terminate, std::vector<GPU_storage>* s, int num_threads);
void GPU_close(std::vector<GPU_storage>* s, int num_threads);
int* Align_Batch_GPU(std::vector<std::string> ref_seqs, std::vector<std::string> query_seqs,
                     std::vector<int> ref_lens, std::vector<int> query_lens, int* sub_mat,
                     int gap_open, int gap_extend, std::vector<int> ref_poss,
                     std::vector<int> query_poss, std::vector<char> reverses,
                     std::vector<char> firsts, int early_terminate, int tile_size,
                     GPU_storage* s, int num_blocks, int threads_per_block);
#endif
