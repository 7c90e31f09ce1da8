// Test stand-in for darwin-gpu's align.h: only the declaration of its CPU
// tile aligner, which the glue defines (signature from the darwin-gpu API
// described in the GACT spec, section 3).
#ifndef DGPU_TEST_ALIGN_H
#define DGPU_TEST_ALIGN_H
#include <queue>
std::queue<int> AlignWithBT(char* ref_seq, long long int ref_len, char* query_seq,
                            long long int query_len, int match_score, int mismatch_score,
                            int gap_open, int gap_extend, int query_pos, int ref_pos,
                            bool reverse, bool first, int early_terminate);
#endif
