/* A window whose alignment needs more memory than the process may have.
 * Upstream's size guard (POA_MAX_ALLOC) keeps its product in an int, which
 * wraps for long reads: two reads of 65,472 bases pass it, and the
 * traceback matrix (65,472 x 65,472 cells, 2 bytes each, 8 GiB) cannot be
 * allocated under a 2 GiB address-space limit. The batch must report that
 * window with SEQSHIM_E_LIMIT, keep the process, and go on to correct the
 * next window, where the allocator used to abort the process. Not under
 * ASan, which needs the address space for itself. Prints "memory limit: ok". */
#define _POSIX_C_SOURCE 200809L
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <unistd.h>

#include "seqshim.h"

enum { LEN = 65472 };

static void random_read(char *out, uint64_t seed) {
    for (int i = 0; i < LEN; i++) {
        seed = seed * 6364136223846793005ull + 1442695040888963407ull;
        out[i] = "ACGT"[seed >> 62];
    }
}

int main(void) {
#ifndef __SANITIZE_ADDRESS__
    struct rlimit limit = {2ul << 30, 2ul << 30};
    if (setrlimit(RLIMIT_AS, &limit) != 0) {
        printf("setrlimit failed\n");
        return 1;
    }
    alarm(60);
    static char a[LEN], b[LEN];
    random_read(a, 1);
    random_read(b, 2);
    seqshim_poa_params_t p;
    seqshim_poa_batch_t *batch = NULL;
    if (seqshim_poa_params_default(&p) != SEQSHIM_OK || seqshim_poa_batch_create(&p, 2, &batch) != SEQSHIM_OK) {
        printf("batch create failed\n");
        return 1;
    }
    const char *big[2] = {a, b};
    const uint32_t big_lens[2] = {LEN, LEN};
    const char *small[3] = {"ACGTTGCAACGTAGGC", "ACGTTGCAACGAAGGC", "ACGTTGCAACGTAGGC"};
    uint64_t id_big = 0, id_small = 0;
    int rc = seqshim_poa_batch_add_window(batch, 2, big, big_lens, &id_big);
    rc |= seqshim_poa_batch_add_window(batch, 3, small, NULL, &id_small);
    rc |= seqshim_poa_batch_run(batch);
    if (rc != SEQSHIM_OK) {
        printf("add/run: %s\n", seqshim_strerror(rc));
        return 1;
    }
    int st_big = seqshim_poa_batch_window_status(batch, id_big);
    int st_small = seqshim_poa_batch_window_status(batch, id_small);
    const char *cons = NULL;
    uint32_t len = 0;
    int got = seqshim_poa_batch_get_consensus(batch, id_small, &cons, &len);
    if (st_big != SEQSHIM_E_LIMIT || st_small != SEQSHIM_OK || got != SEQSHIM_OK || len != 16 ||
        memcmp(cons, "ACGTTGCAACGTAGGC", 16) != 0) {
        printf("big window %d (want %d), small window %d, consensus %d %.*s\n", st_big, SEQSHIM_E_LIMIT,
               st_small, got, (int)len, cons ? cons : "");
        return 1;
    }
    seqshim_poa_batch_destroy(batch);
#endif
    printf("memory limit: ok\n");
    return 0;
}
