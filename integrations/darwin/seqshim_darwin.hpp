// seqshim glue for Darwin classic (yatisht/darwin@16bdb81): defines Darwin's
// own C++ entry points
//
//   std::queue<int> AlignWithBT(char*, long long, char*, long long, int*,
//                               int, int, int, int, bool, bool, int);
//   Alignment GACT(char*, char*, std::string, std::string, int*, int, int,
//                  int, int, int, int, uint32_t, uint32_t, char, int);
//
// on top of seqshim's C exports (include/seqshim/gact.h), so that Darwin
// links against libseqshim instead of its align.o and gact.o.
//
// Header-only, but the two functions are ordinary (non-inline) definitions
// with Darwin's symbol names: include this file in exactly one translation
// unit of the program (seqshim_darwin.cpp next to it is that unit).
// Darwin's own "gact.h" (which declares struct Alignment and includes
// "align.h") must be on the include path, as must seqshim's headers.
#ifndef SEQSHIM_DARWIN_HPP
#define SEQSHIM_DARWIN_HPP

#include <climits>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <queue>
#include <string>
#include <vector>

#include <seqshim.h>       // seqshim_strerror
#include <seqshim/gact.h>  // the C exports

#include "gact.h"  // Darwin's: struct Alignment, GACT and AlignWithBT declarations

static_assert(sizeof(int) == sizeof(int32_t), "Darwin's int* sub_mat is passed as int32_t*");

namespace seqshim_darwin {

// Upstream asserts (tile > 511) or has undefined behaviour on the inputs
// seqshim refuses; the glue stops the program with a message instead.
[[noreturn]] inline void die(const char* what, int32_t status) {
    std::fprintf(stderr, "seqshim: %s failed: %s (%d)\n", what, seqshim_strerror(status),
                 (int)status);
    std::abort();
}

inline uint32_t clamp_cap(unsigned long long n) {
    return n > UINT32_MAX ? UINT32_MAX : (uint32_t)n;
}

}  // namespace seqshim_darwin

std::queue<int> AlignWithBT(char* ref_seq, long long int ref_len, char* query_seq,
                            long long int query_len, int* sub_mat, int gap_open, int gap_extend,
                            int query_pos, int ref_pos, bool reverse, bool first,
                            int early_terminate) {
    // A tile emits at most ref_len + query_len states.
    thread_local std::vector<uint8_t> ops;
    long long need = (ref_len > 0 ? ref_len : 0) + (query_len > 0 ? query_len : 0);
    if (ops.size() < (size_t)need + 1) ops.resize((size_t)need + 1);
    seqshim_gact_tile_result_t r;
    int32_t status = seqshim_gact_align_tile(
        ref_seq, ref_len, query_seq, query_len, sub_mat, gap_open, gap_extend, query_pos, ref_pos,
        reverse, first, early_terminate, ops.data(), seqshim_darwin::clamp_cap(ops.size()), &r);
    if (status != 0) seqshim_darwin::die("AlignWithBT", status);
    std::queue<int> bt;
    bt.push(r.score);
    if (first) {
        bt.push(r.max_i);
        bt.push(r.max_j);
    }
    for (uint32_t k = 0; k < r.n_ops; k++) bt.push(ops[k]);
    return bt;
}

Alignment GACT(char* ref_str, char* query_str, std::string ref_name, std::string query_name,
               int* sub_mat, int gap_open, int gap_extend, int tile_size, int tile_overlap,
               int ref_pos, int query_pos, uint32_t ref_length, uint32_t query_length, char strand,
               int first_tile_score_threshold) {
    // Classic GACT reads first_tile_score_threshold but never uses it (its
    // test is commented out), so seqshim gets 0: no first-tile test.
    (void)first_tile_score_threshold;
    // A seed may lie past a sequence's end (read_overlaps seeds into its
    // padded reference buffer); the columns are bounded by the larger of
    // each length and its seed.
    unsigned long long ref_span = ref_pos > 0 && (uint32_t)ref_pos > ref_length ? (uint32_t)ref_pos : ref_length;
    unsigned long long query_span =
        query_pos > 0 && (uint32_t)query_pos > query_length ? (uint32_t)query_pos : query_length;
    uint32_t cap = seqshim_darwin::clamp_cap(ref_span + query_span);
    std::string aligned_ref(cap, '\0');
    std::string aligned_query(cap, '\0');
    seqshim_gact_aln_t out;
    int32_t status = seqshim_gact_extend(ref_str, query_str, sub_mat, gap_open, gap_extend,
                                         tile_size, tile_overlap, ref_pos, query_pos, ref_length,
                                         query_length, 0, &aligned_ref[0], &aligned_query[0], cap,
                                         &out);
    Alignment a;
    a.ref_name = ref_name;
    a.query_name = query_name;
    a.ref_len = ref_length;
    a.query_len = query_length;
    a.strand = strand;
    a.flag = 0;
    if (status == SEQSHIM_E_REFUSED) {
        // The first tile has no positive cell: upstream loops forever here.
        // Return an empty alignment at the anchor instead.
        std::fprintf(stderr, "seqshim: GACT: no alignment at the anchor (%d, %d) of %s / %s\n",
                     ref_pos, query_pos, ref_name.c_str(), query_name.c_str());
        a.ref_start = (uint32_t)ref_pos;
        a.query_start = (uint32_t)query_pos;
        a.aligned_ref_len = 0;
        a.aligned_query_len = 0;
        a.score = 0;
        return a;
    }
    if (status != 0) seqshim_darwin::die("GACT", status);
    aligned_ref.resize(out.n_cols);
    aligned_query.resize(out.n_cols);
    a.aligned_ref_str = aligned_ref;
    a.aligned_query_str = aligned_query;
    a.ref_start = out.ref_start;
    a.query_start = out.query_start;
    a.aligned_ref_len = out.aligned_ref_len;
    a.aligned_query_len = out.aligned_query_len;
    a.score = out.score;
    return a;
}

#endif  // SEQSHIM_DARWIN_HPP
