/* A GACT client as Darwin classic is written: T threads, each calling
 * seqshim_gact_extend (Darwin's GACT) or seqshim_gact_align_tile (its
 * AlignWithBT) one call after another. Run it with SEQSHIM_BACKEND=cpu and
 * as shipped (GPU present: each tile goes to the GPU only when the routing
 * expects it back sooner) and compare the checksums and the rates.
 *
 * usage: gact_threads THREADS CALLS extend|tile
 *   extend: reads of 5-10 kbp drawn from a random 2 Mbp genome with about
 *           15 % errors (1.5 % substitutions, 9 % insertions, 4.5 %
 *           deletions, as PBSIM's CLR model at 85 % accuracy), each
 *           extended from a seed near its middle with Darwin's defaults
 *           (+1/-1, gaps -1/-1, T = 320, O = 120);
 *   tile:   320 x 320 tiles at the same divergence, as GACT issues them:
 *           traceback from the corner with early_terminate 200, half of
 *           them reversed, one in eight from the maximum cell.
 * Prints one line: failed calls, seconds, calls per second and a checksum
 * over every status and result (gapped strings and states included) in
 * call order. With SEQSHIM_LOG=info seqshim says, once a second, where the
 * tiles ran once the GPU is up. */
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include <seqshim/gact.h>

enum { GENOME = 2000000, T = 320, O = 120, MAX_READ = 12000 };

static uint64_t rng_state = 0x243f6a8885a308d3ULL;
static uint64_t next_u64(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static uint32_t below(uint32_t n) { return (uint32_t)(next_u64() % n); }
static char base(void) { return "ACGT"[next_u64() & 3]; }

static void* xmalloc(size_t n) {
    void* p = malloc(n ? n : 1);
    if (!p) {
        fprintf(stderr, "out of memory\n");
        exit(2);
    }
    return p;
}

/* Copies src[0..n) into dst with PBSIM-like errors; returns the length
 * written (at most 2n). */
static int mutate(char* dst, const char* src, int n) {
    int k = 0;
    for (int i = 0; i < n; i++) {
        uint32_t x = below(1000);
        if (x < 15) {
            char b;
            do b = base();
            while (b == src[i]);
            dst[k++] = b;
        } else if (x < 105) {
            dst[k++] = base();
            dst[k++] = src[i];
        } else if (x >= 150) {
            dst[k++] = src[i];
        }
    }
    return k;
}

static int32_t sub_mat[25];
static char* genome;
static int n_calls, extend_mode;
/* Extensions: read, its length and seed. Tiles: reference and query. */
static char** seq_a;
static char** seq_b;
static int *len_a, *len_b, *pos_a, *pos_b;
static uint64_t* sums;
static atomic_int next_call, failed;

static uint64_t mix(uint64_t h, uint64_t v) { return (h ^ v) * 0x100000001b3ULL; }

static void* worker(void* arg) {
    (void)arg;
    /* An extension covers at most its read and as much of the genome: a
     * column per base of either. */
    uint32_t cap = 4 * MAX_READ;
    char* ar = xmalloc(cap);
    char* aq = xmalloc(cap);
    uint8_t ops[2 * T];
    for (;;) {
        int i = atomic_fetch_add(&next_call, 1);
        if (i >= n_calls) break;
        uint64_t h = 1469598103934665603ULL;
        if (extend_mode) {
            seqshim_gact_aln_t out;
            int32_t st = seqshim_gact_extend(genome, seq_b[i], sub_mat, -1, -1, T, O, pos_a[i],
                                             pos_b[i], GENOME, (uint32_t)len_b[i], 0, ar, aq, cap,
                                             &out);
            if (st != 0) atomic_fetch_add(&failed, 1);
            h = mix(h, (uint64_t)(int64_t)st);
            h = mix(mix(h, out.ref_start), out.query_start);
            h = mix(mix(h, out.aligned_ref_len), out.aligned_query_len);
            h = mix(mix(h, (uint64_t)(int64_t)out.score), out.n_cols);
            for (uint32_t k = 0; k < out.n_cols; k++) h = mix(mix(h, (uint8_t)ar[k]), (uint8_t)aq[k]);
        } else {
            seqshim_gact_tile_result_t out;
            bool first = (i % 8) == 0, reverse = (i % 2) == 1;
            int32_t st = seqshim_gact_align_tile(seq_a[i], len_a[i], seq_b[i], len_b[i], sub_mat, -1,
                                                 -1, len_b[i], len_a[i], reverse, first, T - O, ops,
                                                 (uint32_t)sizeof ops, &out);
            if (st != 0) atomic_fetch_add(&failed, 1);
            h = mix(h, (uint64_t)(int64_t)st);
            h = mix(mix(h, (uint64_t)(int64_t)out.score), (uint64_t)(int64_t)out.max_i);
            h = mix(mix(h, (uint64_t)(int64_t)out.max_j), (uint64_t)(int64_t)out.ref_steps);
            h = mix(mix(h, (uint64_t)(int64_t)out.query_steps), out.n_ops);
            for (uint32_t k = 0; k < out.n_ops; k++) h = mix(h, ops[k]);
        }
        sums[i] = h;
    }
    free(ar);
    free(aq);
    return NULL;
}

int main(int argc, char** argv) {
    if (argc < 4) {
        fprintf(stderr, "usage: %s THREADS CALLS extend|tile\n", argv[0]);
        return 2;
    }
    int threads = atoi(argv[1]);
    n_calls = atoi(argv[2]);
    extend_mode = strcmp(argv[3], "extend") == 0;
    if (threads < 1 || n_calls < 1 || (!extend_mode && strcmp(argv[3], "tile") != 0)) return 2;

    for (int k = 0; k < 25; k++) sub_mat[k] = 0;
    for (int q = 0; q < 4; q++)
        for (int r = 0; r < 4; r++) sub_mat[5 * q + r] = q == r ? 1 : -1;

    genome = xmalloc(GENOME);
    for (int k = 0; k < GENOME; k++) genome[k] = base();
    seq_a = xmalloc(sizeof(char*) * (size_t)n_calls);
    seq_b = xmalloc(sizeof(char*) * (size_t)n_calls);
    len_a = xmalloc(sizeof(int) * (size_t)n_calls);
    len_b = xmalloc(sizeof(int) * (size_t)n_calls);
    pos_a = xmalloc(sizeof(int) * (size_t)n_calls);
    pos_b = xmalloc(sizeof(int) * (size_t)n_calls);
    sums = calloc((size_t)n_calls, sizeof *sums);
    for (int i = 0; i < n_calls; i++) {
        if (extend_mode) {
            int n = 5000 + (int)below(5001);
            int start = (int)below(GENOME - n);
            seq_a[i] = NULL;
            seq_b[i] = xmalloc((size_t)2 * n);
            len_b[i] = mutate(seq_b[i], genome + start, n);
            /* A seed near the read's middle, where D-SOFT would put one. */
            pos_b[i] = len_b[i] / 2;
            pos_a[i] = start + n / 2 + (int)below(41) - 20;
        } else {
            int start = (int)below(GENOME - 2 * T);
            char tmp[4 * T];
            seq_a[i] = genome + start;
            len_a[i] = T;
            int k = mutate(tmp, genome + start, T + T / 4);
            len_b[i] = k < T ? k : T;
            seq_b[i] = xmalloc((size_t)len_b[i]);
            memcpy(seq_b[i], tmp, (size_t)len_b[i]);
        }
    }

    struct timespec t0, t1;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    pthread_t* tid = xmalloc(sizeof(pthread_t) * (size_t)threads);
    for (int t = 0; t < threads; t++) pthread_create(&tid[t], NULL, worker, NULL);
    for (int t = 0; t < threads; t++) pthread_join(tid[t], NULL);
    clock_gettime(CLOCK_MONOTONIC, &t1);
    double s = (double)(t1.tv_sec - t0.tv_sec) + 1e-9 * (double)(t1.tv_nsec - t0.tv_nsec);

    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n_calls; i++) h = mix(h, sums[i]);
    printf("gact-threads: %s, %d threads, %d calls (%d failed): %.3f s, %.1f calls/s, checksum %016llx\n",
           argv[3], threads, n_calls, atomic_load(&failed), s, n_calls / s, (unsigned long long)h);
    return 0;
}
