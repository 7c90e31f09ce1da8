/* CUDA-EC section of `make demo`: simulates 36-bp reads with 1 % substitutions
 * from a random genome, corrects them through the native C API in exact-v1
 * and default mode, and scores each run against the truth it made
 * (TP: error set to the truth; FP: correct base changed; gain = (TP - FP) /
 * errors, counting errors in trimmed-away bases and discarded reads as not
 * corrected, as spec section 7). */
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seqshim.h"

#define GENOME 20000
#define L 36
#define N 22222 /* 40x */

static uint64_t rng = 0x9e3779b97f4a7c15ull;
static uint32_t next(uint32_t n) {
    rng ^= rng << 13;
    rng ^= rng >> 7;
    rng ^= rng << 17;
    return (uint32_t)(rng % n);
}

static char comp(char b) {
    switch (b) {
    case 'A': return 'T';
    case 'C': return 'G';
    case 'G': return 'C';
    default: return 'A';
    }
}

static double now_ms(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return t.tv_sec * 1e3 + t.tv_nsec / 1e6;
}

static int run(const char *label, uint32_t flags, const char *reads, const char *truth) {
    seqshim_ec_params p;
    if (seqshim_ec_params_default(&p, flags) != SEQSHIM_OK) return 1;
    if (flags & SEQSHIM_EC_EXACT_V1) p.read_len = L;
    char *seqs = malloc((size_t)N * L);
    uint32_t *lens = malloc(N * sizeof *lens), *trim = malloc(N * sizeof *trim);
    uint8_t *status = malloc(N);
    if (!seqs || !lens || !trim || !status) return 1;
    memcpy(seqs, reads, (size_t)N * L);
    for (size_t i = 0; i < N; ++i) lens[i] = L;
    double start = now_ms();
    seqshim_ec_spectrum *s = NULL;
    if (seqshim_ec_spectrum_new(&p, N, &s) != SEQSHIM_OK ||
        seqshim_ec_spectrum_add(s, seqs, L, lens, N) != SEQSHIM_OK ||
        seqshim_ec_spectrum_finalize(s) != SEQSHIM_OK ||
        seqshim_ec_correct_batch(s, &p, seqs, L, lens, N, status, trim) != SEQSHIM_OK) {
        fprintf(stderr, "%s: %s\n", label, seqshim_ec_last_error());
        return 1;
    }
    double ms = now_ms() - start;
    seqshim_ec_spectrum_free(s);
    long errors = 0, tp = 0, fp = 0, n_status[4] = {0, 0, 0, 0};
    for (size_t i = 0; i < N; ++i) {
        const char *r = reads + i * L, *t = truth + i * L, *o = seqs + i * L;
        n_status[status[i] & 3]++;
        for (size_t j = 0; j < L; ++j) errors += r[j] != t[j];
        if (status[i] == SEQSHIM_EC_DISCARDED) continue;
        for (size_t j = 0; j < lens[i]; ++j) {
            size_t at = j + trim[i];
            if (r[at] != t[at] && o[j] == t[at]) tp++;
            if (r[at] == t[at] && o[j] != t[at]) fp++;
        }
    }
    printf("%-9s %ld errors: TP %ld, FP %ld, gain %.4f; %ld unchanged, %ld fixed, %ld trimmed, "
           "%ld discarded (%.0f ms)\n",
           label, errors, tp, fp, (double)(tp - fp) / (double)errors, n_status[0], n_status[1],
           n_status[2], n_status[3], ms);
    free(seqs);
    free(lens);
    free(trim);
    free(status);
    return 0;
}

int main(void) {
    printf("-- CUDA-EC (%d simulated %d-bp reads, 40x, 1 %% substitutions) --\n", N, L);
    char *genome = malloc(GENOME), *reads = malloc((size_t)N * L), *truth = malloc((size_t)N * L);
    if (!genome || !reads || !truth) return 1;
    for (size_t i = 0; i < GENOME; ++i) genome[i] = "ACGT"[next(4)];
    for (size_t i = 0; i < N; ++i) {
        uint32_t pos = next(GENOME - L), rev = next(2);
        char *t = truth + i * L, *r = reads + i * L;
        for (size_t j = 0; j < L; ++j) t[j] = rev ? comp(genome[pos + L - 1 - j]) : genome[pos + j];
        for (size_t j = 0; j < L; ++j) {
            r[j] = t[j];
            if (next(100) == 0) r[j] = "ACGT"[(strchr("ACGT", t[j]) - "ACGT" + 1 + next(3)) % 4];
        }
    }
    int rc = run("exact-v1", SEQSHIM_EC_EXACT_V1, reads, truth) || run("default", 0, reads, truth);
    /* Where the reads were corrected: a call starts the GPUs in the
     * background and works on the CPU pool until they are up. */
    uint64_t on_gpu = 0, on_cpu = 0;
    int gpus = seqshim_ec_routing(&on_gpu, &on_cpu);
    char info[2048];
    seqshim_backend_info(info, sizeof info);
    const char *reason = strstr(info, "reason: ");
    if (on_gpu > 0) {
        printf("EC: %llu reads corrected on %d GPU%s, %llu on the CPU pool\n",
               (unsigned long long)on_gpu, gpus, gpus == 1 ? "" : "s", (unsigned long long)on_cpu);
    } else if (reason) {
        printf("EC: all reads on the CPU pool: no GPU in use (%.*s)\n",
               (int)strcspn(reason + 8, "\n"), reason + 8);
    } else {
        printf("EC: all reads on the CPU pool: these calls ended before the GPU was up "
               "(it takes the chunks of larger calls; SEQSHIM_LOG=info shows it start)\n");
    }
    free(genome);
    free(reads);
    free(truth);
    return rc;
}
