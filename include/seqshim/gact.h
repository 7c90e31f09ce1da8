/* seqshim: Darwin's GACT (the classic API of yatisht/darwin@16bdb81).
 *
 * Plain C99, also usable from C++. Two kinds of entry point:
 *   - seqshim_gact_align_tile: one tile, with the inputs of Darwin's
 *     AlignWithBT; the traceback states go to a caller buffer.
 *   - seqshim_gact_extend: one seed extension, with the inputs of Darwin's
 *     GACT; the gapped strings go to caller buffers.
 * and a batch variant of each, which runs many requests at once on the
 * GPUs seqshim uses and its thread pool (a large extension batch advances
 * one tile of every seed per round, the tiles on the GPUs) and gives each
 * request exactly the result of the single call. integrations/darwin/ has header-only C++ glue that gives
 * these functions Darwin's own C++ names and types.
 *
 * The single calls are synchronous: with a GPU in use, a tile (each tile
 * of an extension) runs there only when seqshim expects its result back
 * sooner than the calling thread would compute it, so that many threads
 * calling at once share GPU launches and a lone caller is never slowed
 * down (README, "Getting the most from the GPU").
 *
 * Results are bit-identical to Darwin's: tile scores, maximum cells and
 * state sequences; extension start coordinates, lengths, gapped strings and
 * rescored scores.
 *
 * Every function returns 0 on success or a negative seqshim_status code
 * (declared in seqshim.h; seqshim_strerror() describes it):
 *   SEQSHIM_E_NULL     a required pointer was null
 *   SEQSHIM_E_ARG      a bad parameter: negative length, positive gap score,
 *                      a score beyond +-2^19, tile_size < 1, an anchor or
 *                      traceback start outside its sequence or tile
 *   SEQSHIM_E_OPTION   first_tile_score_threshold > 0 (not supported)
 *   SEQSHIM_E_LIMIT    a tile side or tile_size beyond 511
 *   SEQSHIM_E_BUFFER   an output buffer too small for the result
 *   SEQSHIM_E_REFUSED  an extension whose first tile emits no state and so
 *                      never advances (Darwin loops forever there)
 *   SEQSHIM_E_PANIC, SEQSHIM_E_INTERNAL   contained internal errors
 *                      (SEQSHIM_E_INTERNAL also: a GPU failed with
 *                      SEQSHIM_STRICT=1, where no CPU rerun is allowed)
 * The return type is int32_t, as in the interface Darwin's glue expects.
 *
 * Scoring: sub_mat points to 25 int32_t; a query base q against a
 * reference base r scores sub_mat[5 * code(q) + code(r)], with codes A/a 0,
 * C/c 1, G/g 2, T/t 3 and 4 for every other byte. gap_open (<= 0) scores
 * the first base of a gap and gap_extend (<= 0) each further base.
 */
#ifndef SEQSHIM_GACT_H
#define SEQSHIM_GACT_H

#include <stdbool.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Traceback states, Darwin's numbering. */
#define SEQSHIM_GACT_OP_D 1 /* a query base against a gap (consumes query) */
#define SEQSHIM_GACT_OP_I 2 /* a reference base against a gap (consumes reference) */
#define SEQSHIM_GACT_OP_M 3 /* a reference base against a query base */

/* Longest tile side accepted (Darwin asserts len < 512). */
#define SEQSHIM_GACT_MAX_TILE_LEN 511

/* One tile's result: AlignWithBT's queue without the states. 24 bytes. */
typedef struct {
    int32_t score;       /* the maximum H if first, else H at (ref_pos, query_pos) */
    int32_t max_i;       /* 1-based maximum cell: reference ... */
    int32_t max_j;       /* ... and query; only meaningful if first */
    int32_t ref_steps;   /* reference bases the traceback consumed (M and I) */
    int32_t query_steps; /* query bases the traceback consumed (M and D) */
    uint32_t n_ops;      /* states written to ops */
} seqshim_gact_tile_result_t;

/* One extension's result: the fields of Darwin's Alignment that depend on
 * the inputs. 24 bytes. */
typedef struct {
    uint32_t ref_start;         /* 0-based start of the aligned part */
    uint32_t query_start;
    uint32_t aligned_ref_len;   /* bases covered */
    uint32_t aligned_query_len;
    int32_t score;              /* the gapped strings rescored */
    uint32_t n_cols;            /* bytes written to each gapped string (no NUL) */
} seqshim_gact_aln_t;

/* Darwin's AlignWithBT(ref_seq, ref_len, query_seq, query_len, sub_mat,
 * gap_open, gap_extend, query_pos, ref_pos, reverse, first,
 * early_terminate).
 *
 * Aligns one tile (each side at most 511 bytes; reverse reads both sides
 * backwards) and traces back from the maximum cell when first, otherwise
 * from the 1-based cell (ref_pos, query_pos) -- note that query_pos comes
 * first, as in Darwin. The traceback stops on a zero cell or, before
 * emitting a state, once early_terminate bases of either side were used.
 * The states (SEQSHIM_GACT_OP_*) go to ops in traceback order, from the
 * start cell toward the tile origin; a tile emits at most
 * ref_len + query_len of them. On an error *out is zeroed.
 *
 * Darwin's result queue is [score, max_i, max_j, ops...] when first and
 * [score, ops...] otherwise. */
int32_t seqshim_gact_align_tile(const char* ref_seq, int64_t ref_len,
                                const char* query_seq, int64_t query_len,
                                const int32_t* sub_mat, int32_t gap_open, int32_t gap_extend,
                                int32_t query_pos, int32_t ref_pos,
                                bool reverse, bool first, int32_t early_terminate,
                                uint8_t* ops, uint32_t ops_cap,
                                seqshim_gact_tile_result_t* out);

/* Darwin's classic GACT(ref_str, query_str, names, sub_mat, gap_open,
 * gap_extend, tile_size, tile_overlap, ref_pos, query_pos, ref_length,
 * query_length, strand, first_tile_score_threshold).
 *
 * Extends the seed at the 0-based (ref_pos, query_pos) tile by tile, first
 * toward the sequence starts and then toward their ends; each tile after
 * the first advances at most tile_size - tile_overlap bases. The gapped
 * strings ('-' for a gap, bases as given) go to aligned_ref and
 * aligned_query, out->n_cols bytes each, never more than
 * max(ref_length, ref_pos) + max(query_length, query_pos); cap is the size
 * of each buffer.
 *
 * As in Darwin, a seed may lie past a sequence's length (read_overlaps
 * seeds into its padded reference buffer): the extension toward the starts
 * then reads the bytes up to the seed, and the one toward the ends stops at
 * the length. ref_str must therefore be readable for
 * max(ref_length, ref_pos) bytes, query_str for max(query_length,
 * query_pos).
 *
 * first_tile_score_threshold: pass 0. Classic Darwin ignores it; any
 * value <= 0 disables the test here too. A positive value asks for
 * darwin-gpu's first-tile test, which is not supported: SEQSHIM_E_OPTION.
 * On an error *out is zeroed. */
int32_t seqshim_gact_extend(const char* ref_str, const char* query_str, const int32_t* sub_mat,
                            int32_t gap_open, int32_t gap_extend,
                            int32_t tile_size, int32_t tile_overlap,
                            int32_t ref_pos, int32_t query_pos,
                            uint32_t ref_length, uint32_t query_length,
                            int32_t first_tile_score_threshold,
                            char* aligned_ref, char* aligned_query, uint32_t cap,
                            seqshim_gact_aln_t* out);

/* One tile of seqshim_gact_align_tile_batch. 48 bytes. */
typedef struct {
    const char* ref_seq;     /* the tile's first byte */
    const char* query_seq;
    int64_t ref_len;         /* -1: an idle slot, skipped, its result zeroed */
    int64_t query_len;
    int32_t query_pos;       /* traceback start if !first */
    int32_t ref_pos;
    bool reverse;
    bool first;
    int32_t early_terminate;
} seqshim_gact_tile_req_t;

/* seqshim_gact_align_tile on n tiles sharing one scoring. Request k writes
 * its states to ops_arena + k * ops_stride (at most ops_stride of them) and
 * its result to results[k].
 *
 * Returns 0 when every request succeeded. Otherwise it returns the status
 * of the first request that failed, whose result is zeroed; the results of
 * the others are written all the same. Call-level errors: SEQSHIM_E_NULL
 * for a null sub_mat, or a null reqs, results or ops_arena when there is
 * something to write. */
int32_t seqshim_gact_align_tile_batch(const seqshim_gact_tile_req_t* reqs, uint32_t n,
                                      const int32_t* sub_mat, int32_t gap_open, int32_t gap_extend,
                                      uint8_t* ops_arena, uint32_t ops_stride,
                                      seqshim_gact_tile_result_t* results);

/* Where the tiles of seqshim_gact_align_tile_batch ran so far in this
 * process: *on_gpu on a GPU, *on_cpu on the CPU (either pointer may be
 * NULL). Returns the number of GPUs running GACT tiles: 0 when no GPU is in
 * use (seqshim_backend_info says why) or the GACT kernel is unavailable. */
int32_t seqshim_gact_tile_routing(uint64_t* on_gpu, uint64_t* on_cpu);

/* One seed of seqshim_gact_extend_batch. 56 bytes. */
typedef struct {
    const char* ref_str;
    const char* query_str;
    uint32_t ref_length;
    uint32_t query_length;
    int32_t ref_pos;         /* the seed, 0-based */
    int32_t query_pos;
    char* aligned_ref;       /* cap bytes each */
    char* aligned_query;
    uint32_t cap;
} seqshim_gact_extend_req_t;

/* seqshim_gact_extend on n seeds sharing one scoring and tiling. Request k
 * writes its gapped strings to its own buffers, its result to out[k] and its
 * status (0 or what seqshim_gact_extend would return) to status[k]; out[k]
 * is zeroed when status[k] is not 0. Requests that share a sequence pointer
 * and length share one copy of it.
 *
 * Returns 0 when every request succeeded, otherwise the first failing
 * request's status. Call-level errors, with nothing written:
 * SEQSHIM_E_NULL (a null sub_mat, or a null reqs, out or status when n > 0)
 * and SEQSHIM_E_OPTION (first_tile_score_threshold > 0). */
int32_t seqshim_gact_extend_batch(const seqshim_gact_extend_req_t* reqs, uint32_t n,
                                  const int32_t* sub_mat, int32_t gap_open, int32_t gap_extend,
                                  int32_t tile_size, int32_t tile_overlap,
                                  int32_t first_tile_score_threshold,
                                  seqshim_gact_aln_t* out, int32_t* status);

#ifdef __cplusplus
}
#endif

#endif /* SEQSHIM_GACT_H */
