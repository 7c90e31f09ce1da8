// seqshim glue for darwin-gpu (Tongdongq/darwin-gpu@dcf08f8): defines the
// entry points darwin-gpu's host code calls and its CUDA files define,
//
//   void GPU_init(int tile_size, int tile_overlap, int gap_open,
//                 int gap_extend, int match, int mismatch,
//                 int early_terminate, std::vector<GPU_storage>* s,
//                 int num_threads);
//   int* Align_Batch_GPU(std::vector<std::string> ref_seqs,
//                        std::vector<std::string> query_seqs,
//                        std::vector<int> ref_lens, std::vector<int> query_lens,
//                        int* sub_mat, int gap_open, int gap_extend,
//                        std::vector<int> ref_poss, std::vector<int> query_poss,
//                        std::vector<char> reverses, std::vector<char> firsts,
//                        int early_terminate, int tile_size, GPU_storage* s,
//                        int num_blocks, int threads_per_block);
//   void GPU_close(std::vector<GPU_storage>* s, int num_threads);
//
// plus its CPU tile aligner
//
//   std::queue<int> AlignWithBT(char*, long long, char*, long long,
//                               int match, int mismatch, int gap_open,
//                               int gap_extend, int query_pos, int ref_pos,
//                               bool reverse, bool first, int early_terminate);
//
// on top of seqshim's C exports (include/seqshim/gact.h), so that darwin-gpu
// is built with a plain C++ compiler, without its .cu files and without
// align.cpp, and its batches of tiles run on seqshim (on the GPU when one is
// usable, on the CPU otherwise).
//
// Header-only, but the functions are ordinary (non-inline) definitions with
// darwin-gpu's symbol names: include this file in exactly one translation
// unit of the program (seqshim_darwin_gpu.cpp next to it is that unit).
// darwin-gpu's own "align.h" and "gact.h" (GACT_call, GPU_storage and the
// declarations) must be on the include path, as must seqshim's headers.
//
// What Align_Batch_GPU returns: for slot t of the batch (t below
// num_blocks * threads_per_block), the ints at out + 2 * tile_size * t are
//   [0] score: the tile's maximum if firsts[t], else H at the traceback start
//   [1] reference bases the traceback consumed, [2] query bases consumed
//   [3], [4] the maximum cell, 1-based (reference, query), if firsts[t]
//   [5 ...] the states, 3 (M), 2 (I: reference base against a gap) and
//           1 (D: query base against a gap), in traceback order, then -1.
// Slots with ref_lens[t] == -1 are idle and left untouched. With NOSCORE
// defined (darwin-gpu's z_compile.sh option of that name) a slot is the 5
// ints [0]..[4] only. The buffer belongs to the storage: it stays valid
// until the next Align_Batch_GPU on the same storage or GPU_close, and the
// caller must not free it (darwin-gpu never does).
#ifndef SEQSHIM_DARWIN_GPU_HPP
#define SEQSHIM_DARWIN_GPU_HPP

#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <queue>
#include <string>
#include <vector>

#include <seqshim.h>       // seqshim_strerror, seqshim_backend_info
#include <seqshim/gact.h>  // the C exports

#include "align.h"  // darwin-gpu's: the AlignWithBT declaration
#include "gact.h"   // darwin-gpu's: GACT_call, GPU_storage, the batch declarations

static_assert(sizeof(int) == sizeof(int32_t), "darwin-gpu's ints are passed as int32_t");

// darwin-gpu declares this struct (its CUDA stream holder) but only its .cu
// code looks inside. Here it holds one storage's reusable host buffers.
struct CUDA_Stream_Holder {
    std::vector<seqshim_gact_tile_req_t> reqs;
    std::vector<seqshim_gact_tile_result_t> results;
    std::vector<uint8_t> ops;
    std::vector<char> bases;  // the tiles, translated for seqshim
    std::vector<int> out;     // what Align_Batch_GPU returns
};

namespace seqshim_darwin_gpu {

// The scoring GPU_init received: darwin-gpu's kernel reads it from constant
// memory and ignores the scoring arguments of Align_Batch_GPU; so does this.
struct Params {
    bool set = false;
    int tile_size = 0, tile_overlap = 0;
    int gap_open = 0, gap_extend = 0;
    int match = 0, mismatch = 0;
    int early_terminate = 0;
};

inline Params& params() {
    static Params p;
    return p;
}

[[noreturn]] inline void die(const char* what, int32_t status) {
    std::fprintf(stderr, "seqshim: %s failed: %s (%d)\n", what, seqshim_strerror(status),
                 (int)status);
    std::abort();
}

[[noreturn]] inline void die_msg(const char* what, const char* msg) {
    std::fprintf(stderr, "seqshim: %s: %s\n", what, msg);
    std::abort();
}

// darwin-gpu compares bases as 4-bit values (the low nibble of each byte;
// its host code turns A, C, T, G into 0, 1, 2, 3 first). Nibbles 0-3 become
// four distinct letters; every other byte becomes N, which matches N.
inline char translate(char b) {
    static const char letters[4] = {'A', 'C', 'G', 'T'};
    unsigned n = (unsigned char)b & 15u;
    return n < 4 ? letters[n] : 'N';
}

// match on the diagonal (A, C, G, T and N against itself), mismatch
// elsewhere, in seqshim's sub_mat[5 * query + ref] order.
inline void fill_sub_mat(int32_t* sub, int match, int mismatch) {
    for (int q = 0; q < 5; q++)
        for (int r = 0; r < 5; r++) sub[5 * q + r] = (q == r) ? match : mismatch;
}

}  // namespace seqshim_darwin_gpu

void GPU_init(int tile_size, int tile_overlap, int gap_open, int gap_extend, int match,
              int mismatch, int early_terminate, std::vector<GPU_storage>* s, int num_threads) {
    seqshim_darwin_gpu::Params& p = seqshim_darwin_gpu::params();
    p.set = true;
    p.tile_size = tile_size;
    p.tile_overlap = tile_overlap;
    p.gap_open = gap_open;
    p.gap_extend = gap_extend;
    p.match = match;
    p.mismatch = mismatch;
    p.early_terminate = early_terminate;
    if (tile_size < 1 || tile_size > SEQSHIM_GACT_MAX_TILE_LEN)
        seqshim_darwin_gpu::die_msg("GPU_init", "tile_size must be 1 to 511");
    for (int i = 0; i < num_threads; ++i) {
        GPU_storage g = GPU_storage();  // every device pointer null
        g.stream = new CUDA_Stream_Holder();
        s->push_back(g);
    }
    // One line per process: seqshim's version and the first line of its
    // backend report ("backend: cuda" or "backend: cpu").
    static bool said = false;
    if (!said) {
        said = true;
        char info[256];
        if (seqshim_backend_info(info, sizeof info) < 0) info[0] = '\0';
        info[sizeof info - 1] = '\0';
        for (char* c = info; *c; ++c)
            if (*c == '\n') *c = '\0';
        std::fprintf(stderr, "seqshim %s: darwin-gpu batches, %s\n", seqshim_version(), info);
    }
}

void GPU_close(std::vector<GPU_storage>* s, int num_threads) {
    for (int i = 0; i < num_threads && (size_t)i < s->size(); ++i) {
        delete (*s)[i].stream;
        (*s)[i].stream = nullptr;
    }
}

int* Align_Batch_GPU(std::vector<std::string> ref_seqs, std::vector<std::string> query_seqs,
                     std::vector<int> ref_lens, std::vector<int> query_lens, int* sub_mat,
                     int gap_open, int gap_extend, std::vector<int> ref_poss,
                     std::vector<int> query_poss, std::vector<char> reverses,
                     std::vector<char> firsts, int early_terminate, int tile_size,
                     GPU_storage* s, int num_blocks, int threads_per_block) {
    (void)sub_mat;
    seqshim_darwin_gpu::Params p = seqshim_darwin_gpu::params();
    if (!p.set) {  // GPU_init not called: take the scoring of this call
        p.gap_open = gap_open;
        p.gap_extend = gap_extend;
        p.match = sub_mat ? sub_mat[0] : 1;
        p.mismatch = sub_mat ? sub_mat[1] : -1;
        p.early_terminate = early_terminate;
    }
    if (s == nullptr) seqshim_darwin_gpu::die_msg("Align_Batch_GPU", "null GPU_storage");
    if (s->stream == nullptr) s->stream = new CUDA_Stream_Holder();
    CUDA_Stream_Holder& h = *s->stream;

    long long batch = (long long)num_blocks * threads_per_block;
    if (batch < 0) batch = 0;
    size_t n = (size_t)batch;
    // Slots the vectors do not cover are idle.
    size_t have = ref_lens.size();
    const std::vector<int>* vecs[] = {&query_lens, &ref_poss, &query_poss};
    for (const std::vector<int>* v : vecs) have = v->size() < have ? v->size() : have;
    have = ref_seqs.size() < have ? ref_seqs.size() : have;
    have = query_seqs.size() < have ? query_seqs.size() : have;
    have = reverses.size() < have ? reverses.size() : have;
    have = firsts.size() < have ? firsts.size() : have;

#ifdef NOSCORE
    const size_t stride = 5;
#else
    if (tile_size < 3) seqshim_darwin_gpu::die_msg("Align_Batch_GPU", "tile_size below 3");
    const size_t stride = 2 * (size_t)tile_size;
#endif
    if (h.out.size() < n * stride) h.out.resize(n * stride, 0);

    // Longest tile side of this batch: sizes the sequence and state arenas.
    size_t side = 1;
    for (size_t t = 0; t < n && t < have; ++t) {
        if (ref_lens[t] == -1) continue;
        if (ref_lens[t] < 0 || query_lens[t] < 0)
            seqshim_darwin_gpu::die_msg("Align_Batch_GPU", "negative tile length");
        if ((size_t)ref_lens[t] > side) side = (size_t)ref_lens[t];
        if ((size_t)query_lens[t] > side) side = (size_t)query_lens[t];
    }
    const size_t ops_stride = 2 * side;
    if (ops_stride > UINT32_MAX) seqshim_darwin_gpu::die_msg("Align_Batch_GPU", "tile too long");
    h.reqs.resize(n);
    h.results.resize(n);
    if (h.ops.size() < n * ops_stride) h.ops.resize(n * ops_stride);
    if (h.bases.size() < n * 2 * side) h.bases.resize(n * 2 * side);

    for (size_t t = 0; t < n; ++t) {
        seqshim_gact_tile_req_t& r = h.reqs[t];
        r = seqshim_gact_tile_req_t();
        if (t >= have || ref_lens[t] == -1) {
            r.ref_len = -1;  // idle slot
            continue;
        }
        size_t rl = (size_t)ref_lens[t], ql = (size_t)query_lens[t];
        if (ref_seqs[t].size() < rl || query_seqs[t].size() < ql)
            seqshim_darwin_gpu::die_msg("Align_Batch_GPU", "a tile is longer than its sequence");
        char* rb = &h.bases[t * 2 * side];
        char* qb = rb + side;
        for (size_t k = 0; k < rl; ++k) rb[k] = seqshim_darwin_gpu::translate(ref_seqs[t][k]);
        for (size_t k = 0; k < ql; ++k) qb[k] = seqshim_darwin_gpu::translate(query_seqs[t][k]);
        r.ref_seq = rb;
        r.query_seq = qb;
        r.ref_len = (int64_t)rl;
        r.query_len = (int64_t)ql;
        r.query_pos = query_poss[t];
        r.ref_pos = ref_poss[t];
        // darwin-gpu's reverses[t] == 1 marks a tile of the extension toward
        // the sequence starts, which its kernel aligns as stored; the other
        // tiles it aligns read backwards, as Darwin's AlignWithBT(reverse).
        r.reverse = reverses[t] == 0;
        r.first = firsts[t] != 0;
        r.early_terminate = p.early_terminate;
    }

    int32_t sub[25];
    seqshim_darwin_gpu::fill_sub_mat(sub, p.match, p.mismatch);
    int32_t status = seqshim_gact_align_tile_batch(h.reqs.data(), (uint32_t)n, sub, p.gap_open,
                                                   p.gap_extend, h.ops.data(),
                                                   (uint32_t)ops_stride, h.results.data());
    if (status != 0) seqshim_darwin_gpu::die("Align_Batch_GPU", status);

    for (size_t t = 0; t < n; ++t) {
        if (h.reqs[t].ref_len == -1) continue;
        const seqshim_gact_tile_result_t& res = h.results[t];
        int* o = &h.out[t * stride];
        o[0] = res.score;
        o[1] = res.ref_steps;
        o[2] = res.query_steps;
        o[3] = h.reqs[t].first ? res.max_i : 0;
        o[4] = h.reqs[t].first ? res.max_j : 0;
#ifndef NOSCORE
        if (5 + (size_t)res.n_ops + 1 > stride)
            seqshim_darwin_gpu::die_msg("Align_Batch_GPU",
                                        "2 * tile_size ints cannot hold a tile's states "
                                        "(tile_overlap below 3?)");
        const uint8_t* ops = &h.ops[t * ops_stride];
        for (uint32_t k = 0; k < res.n_ops; ++k) o[5 + k] = ops[k];
        o[5 + res.n_ops] = -1;
#endif
    }
    return h.out.data();
}

std::queue<int> AlignWithBT(char* ref_seq, long long int ref_len, char* query_seq,
                            long long int query_len, int match_score, int mismatch_score,
                            int gap_open, int gap_extend, int query_pos, int ref_pos,
                            bool reverse, bool first, int early_terminate) {
    // darwin-gpu's CPU aligner compares the bytes as they are; seqshim's
    // codes make A/a, C/c, G/g, T/t and "any other byte" the classes.
    int32_t sub[25];
    seqshim_darwin_gpu::fill_sub_mat(sub, match_score, mismatch_score);
    thread_local std::vector<uint8_t> ops;
    long long need = (ref_len > 0 ? ref_len : 0) + (query_len > 0 ? query_len : 0);
    if (ops.size() < (size_t)need + 1) ops.resize((size_t)need + 1);
    seqshim_gact_tile_result_t r;
    int32_t status = seqshim_gact_align_tile(ref_seq, ref_len, query_seq, query_len, sub, gap_open,
                                             gap_extend, query_pos, ref_pos, reverse, first,
                                             early_terminate, ops.data(),
                                             ops.size() > UINT32_MAX ? UINT32_MAX
                                                                     : (uint32_t)ops.size(),
                                             &r);
    if (status != 0) seqshim_darwin_gpu::die("AlignWithBT", status);
    std::queue<int> bt;
    bt.push(r.score);
    if (first) {
        bt.push(r.max_i);
        bt.push(r.max_j);
    }
    for (uint32_t k = 0; k < r.n_ops; k++) bt.push(ops[k]);
    return bt;
}

#endif  // SEQSHIM_DARWIN_GPU_HPP
