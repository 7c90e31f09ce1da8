/* seqshim: f5c's adaptive banded event alignment (ABEA) entry points.
 *
 * The types below have exactly the layout of f5c's own (`f5c.h` with
 * CACHED_LOG, the configuration every f5c release builds), so arrays built
 * by f5c can be passed as they are. f5c's header is C++-only; this one is
 * plain C99 and also compiles as C++.
 *
 * Two groups of functions:
 *   - seqshim_f5c_align / seqshim_f5c_estimate_scalings_using_mom: f5c's
 *     align() and estimate_scalings_using_mom() with identical signatures
 *     and results. integrations/f5c/ gives them f5c's own names.
 *   - seqshim_abea_align_batch: seqshim's batch entry, which splits a batch
 *     between the GPU and the CPU pool by f5c's routing rules. It lives here
 *     rather than in seqshim.h because its arguments are f5c's types.
 */
#ifndef SEQSHIM_F5C_H
#define SEQSHIM_F5C_H

#include <stddef.h>
#include <stdint.h>

#include "../seqshim.h" /* seqshim_status */

#ifdef __cplusplus
extern "C" {
#endif

/* Band width of the alignment (f5c's ALN_BANDWIDTH). */
#define SEQSHIM_F5C_ALN_BANDWIDTH 100
/* Largest k-mer size f5c supports (f5c's MAX_KMER_SIZE). */
#define SEQSHIM_F5C_MAX_KMER_SIZE 9
/* Entries of a 9-mer model, 4^9 (f5c's MAX_NUM_KMER). */
#define SEQSHIM_F5C_MAX_NUM_KMER 262144

/* f5c's names for the same constants, unless the including code has them. */
#ifndef ALN_BANDWIDTH
#define ALN_BANDWIDTH SEQSHIM_F5C_ALN_BANDWIDTH
#endif
#ifndef MAX_KMER_SIZE
#define MAX_KMER_SIZE SEQSHIM_F5C_MAX_KMER_SIZE
#endif
#ifndef MAX_NUM_KMER
#define MAX_NUM_KMER SEQSHIM_F5C_MAX_NUM_KMER
#endif

/* One event detected in the raw signal. 24 bytes; ABEA reads only `mean`. */
typedef struct {
    uint64_t start; /* first raw sample */
    float length;   /* samples */
    float mean;     /* pA */
    float stdv;
} event_t;

/* The events of one read; 32 bytes, passed by value. ABEA reads `n` and
 * `event` only. */
typedef struct {
    size_t n;
    size_t start;
    size_t end;
    event_t* event;
} event_table;

/* One pore-model state; 12 bytes. Arrays are indexed by k-mer rank
 * (A=0 C=1 G=2 T=3, first base most significant) and hold 4^k entries.
 * `level_log_stdv` must be log(level_stdv) as the caller computed it: it is
 * used as given. */
typedef struct {
    float level_mean;
    float level_stdv;
    float level_log_stdv;
} model_t;

/* Read scalings; 16 bytes, passed by value. ABEA uses `scale` and `shift`. */
typedef struct {
    float scale;
    float shift;
    float var;
    float log_var;
} scalings_t;

/* One aligned pair: k-mer index in the read, event index. 8 bytes. */
typedef struct {
    int ref_pos;
    int read_pos;
} AlignedPair;

/* f5c's align(): aligns `events` to the k-mers of the basecalled read
 * `sequence` (ACGT; other bytes rank as A) and writes the pairs to `out_2`,
 * ascending. Returns the number of pairs, 0 when the read fails f5c's QC.
 * `out_2` needs room for events.n + sequence_len pairs. `sample_rate`,
 * `scaling.var` and `scaling.log_var` are unused.
 *
 * Where f5c would crash, this returns 0 and writes nothing: null `out_2`,
 * `sequence` or `models`, negative `sequence_len`, null `events.event` with
 * `events.n > 0`, `kmer_size` outside 1..9, fewer bases than `kmer_size`,
 * no events. Also 0 when SEQSHIM_STRICT=1 forbids the CPU rerun of a read
 * the GPU could not align (a test setting; a [seqshim] line says so).
 *
 * Safe to call from many threads at once; with a GPU in use, concurrent
 * calls are aligned together in GPU batches. */
int32_t seqshim_f5c_align(AlignedPair* out_2, char* sequence, int32_t sequence_len,
                          event_table events, model_t* models, uint32_t kmer_size,
                          scalings_t scaling, float sample_rate);

/* f5c's estimate_scalings_using_mom(): method-of-moments `scale` and `shift`.
 * `var` is 1 and `log_var` 0 (f5c leaves them unset). On arguments f5c would
 * crash on, `scale` and `shift` are NaN. */
scalings_t seqshim_f5c_estimate_scalings_using_mom(char* sequence, int32_t sequence_len,
                                                   model_t* pore_model, uint32_t kmer_size,
                                                   event_table et);

/* seqshim_abea_batch_opt_t.flags: align every read on the CPU pool. */
#define SEQSHIM_ABEA_FORCE_CPU 1u

/* Options of seqshim_abea_align_batch; 40 bytes. Start from
 * seqshim_abea_batch_opt_init(), then set `models` and `kmer_size`. */
typedef struct {
    const model_t* models; /* 4^kmer_size entries */
    uint32_t kmer_size;    /* 1..9 */
    float max_lf;    /* 3.0: GPU only if read_len < max_lf * mean read length of the batch */
    float max_epk;   /* 5.0: GPU only if n_events / read_len < max_epk */
    float avg_epk;   /* 2.0: expected events per base; sizes the GPU lanes; (0, 1000] */
    float skip_epk;  /* 15.0: n_events / read_len >= skip_epk -> not aligned, 0 pairs */
    float mem_frac;  /* 0.9: share of free GPU memory to reserve, in (0, 1] */
    int32_t n_cpu_threads; /* accepted for f5c compatibility; the CPU pool size is SEQSHIM_THREADS */
    uint32_t flags;  /* SEQSHIM_ABEA_FORCE_CPU; other bits are refused */
} seqshim_abea_batch_opt_t;

/* Fills `opt` with the defaults above; `models` NULL, `kmer_size` 0. */
void seqshim_abea_batch_opt_init(seqshim_abea_batch_opt_t* opt);

/* Aligns `n_reads` reads. Read i is sequences[i] (sequence_lens[i] bases),
 * events[i] and scalings[i]; its pairs go to out_pairs[i] (room for
 * events[i].n + sequence_lens[i] pairs) and their count to out_n_pairs[i],
 * exactly what seqshim_f5c_align returns for the same read, whichever device
 * aligned it. Reads with no events or n_events / read_len >= skip_epk get 0
 * without being aligned (as in f5c). Reads go to the GPU by f5c's rules
 * (max_lf, max_epk, device memory) and to the CPU pool otherwise, both at
 * once.
 *
 * Device memory is reserved once per process, like f5c's one-time
 * allocation, when the GPU is first used: two lanes (copies and packing for
 * one overlap the kernels of the other), together at most mem_frac of the
 * free memory, each sized for about 8 M bases at avg_epk events per base.
 * The first batch's mem_frac and avg_epk are the ones used; the per-read
 * entry, if it comes first, uses the defaults.
 *
 * Returns SEQSHIM_OK (also for n_reads == 0, when no array is read), or,
 * with no output written: SEQSHIM_E_NULL for a null `opt`,
 * `opt->models`, array, sequence, out_pairs[i], or events[i].event with
 * events[i].n > 0; SEQSHIM_E_ARG for n_reads < 0, a negative
 * sequence length, kmer_size outside 1..9, a threshold that is not a
 * positive number, avg_epk outside (0, 1000], mem_frac outside (0, 1], an
 * unknown flag, or a misaligned out_pairs[i] or out_n_pairs; SEQSHIM_E_DEVICE when SEQSHIM_STRICT=1 and the GPU could
 * not align a read routed to it; SEQSHIM_E_PANIC for a bug caught at the
 * boundary. The codes are seqshim.h's seqshim_status. */
seqshim_status seqshim_abea_align_batch(const seqshim_abea_batch_opt_t* opt, int32_t n_reads,
                             char* const* sequences, const int32_t* sequence_lens,
                             const event_table* events, const scalings_t* scalings,
                             AlignedPair* const* out_pairs, int32_t* out_n_pairs);

/* The same alignment through seqshim's batch lifecycle (create -> add ->
 * run -> result -> size -> reset -> destroy), for callers that collect reads
 * one at a time. Every function returns a seqshim_status; a read's pairs
 * equal seqshim_f5c_align's for it.
 *
 * create: `opt` as for seqshim_abea_align_batch (the model table is copied);
 *   `expected_reads` reserves room (a hint). The batch goes to *out.
 * add: copies the bases and the events' means; *out_index (optional) gets
 *   the read's index.
 * run: aligns the reads added since the last run, GPU and CPU pool at once.
 * result: *pairs points into the batch (valid until reset or destroy),
 *   *n_pairs counts them (0 for a read f5c skips); SEQSHIM_E_STATE before
 *   run, SEQSHIM_E_INDEX past the end, SEQSHIM_E_DEVICE for a read the GPU
 *   failed under SEQSHIM_STRICT=1.
 * reset: forgets reads and results; destroy: frees (null and a second
 *   destroy are ignored). A batch is used by one thread at a time. */
typedef struct seqshim_abea_batch_t seqshim_abea_batch_t;
seqshim_status seqshim_abea_batch_create(const seqshim_abea_batch_opt_t* opt, size_t expected_reads,
                                         seqshim_abea_batch_t** out);
seqshim_status seqshim_abea_batch_add(seqshim_abea_batch_t* b, const char* sequence, int32_t sequence_len,
                                      const event_t* events, size_t n_events, scalings_t scaling,
                                      size_t* out_index);
seqshim_status seqshim_abea_batch_run(seqshim_abea_batch_t* b);
seqshim_status seqshim_abea_batch_result(const seqshim_abea_batch_t* b, size_t index,
                                         const AlignedPair** pairs, size_t* n_pairs);
size_t seqshim_abea_batch_size(const seqshim_abea_batch_t* b);
seqshim_status seqshim_abea_batch_reset(seqshim_abea_batch_t* b);
void seqshim_abea_batch_destroy(seqshim_abea_batch_t* b);

#ifdef __cplusplus
}
#endif

#endif /* SEQSHIM_F5C_H */
