/* Head-of-line blocking: one thread runs a long POA batch that keeps every
 * pool thread busy for seconds; meanwhile another thread runs small
 * batches of every family (one WFA pair, one small POA window, one ABEA
 * read, a few GACT tiles), each of which must finish while the long batch
 * is still running: no caller waits behind another caller's work. Also
 * checks the small batches' results against the same calls made alone.
 * Prints "head-of-line: all ok". */
#define _POSIX_C_SOURCE 200809L
#include <pthread.h>
#include <stdatomic.h>
#include <time.h>
#include <unistd.h>

#include "families.h"

static atomic_int long_done;
static double long_seconds;

static double now_s(void) {
    struct timespec t;
    clock_gettime(CLOCK_MONOTONIC, &t);
    return (double)t.tv_sec + (double)t.tv_nsec / 1e9;
}

static void* long_batch(void* arg) {
    (void)arg;
    uint64_t h;
    double start = now_s();
    int windows = atoi(getenv("HOL_WINDOWS") ? getenv("HOL_WINDOWS") : "6");
    int failed = fam_poa(windows, 20, 600, &h);
    long_seconds = now_s() - start;
    atomic_store(&long_done, failed ? -1 : 1);
    return NULL;
}

int main(void) {
    uint64_t alone[4], busy[4];
    /* The small batches alone first (this also starts the pool). */
    if (fam_wfa(1, 150, &alone[0]) || fam_poa(1, 3, 100, &alone[1]) || fam_abea(1, &alone[2]) ||
        fam_gact(4, &alone[3])) {
        printf("small batches failed\n");
        return 1;
    }
    pthread_t t;
    if (pthread_create(&t, NULL, long_batch, NULL)) return 1;
    /* Let the long batch take every pool thread. */
    struct timespec pause = {0, 300 * 1000 * 1000};
    nanosleep(&pause, NULL);
    const char* names[4] = {"1-pair WFA batch", "1-window POA batch", "1-read ABEA batch", "4-tile GACT batch"};
    int ok = 1;
    for (int f = 0; f < 4; ++f) {
        double start = now_s();
        int failed = f == 0   ? fam_wfa(1, 150, &busy[0])
                     : f == 1 ? fam_poa(1, 3, 100, &busy[1])
                     : f == 2 ? fam_abea(1, &busy[2])
                              : fam_gact(4, &busy[3]);
        double took = now_s() - start;
        /* The long batch runs for seconds; a small batch that waited for
         * it took about as long. */
        int still_running = atomic_load(&long_done) == 0 && took < 1.0;
        printf("%s next to the long batch: %.3f s, %s\n", names[f], took,
               still_running ? "finished first" : "WAITED FOR THE LONG BATCH");
        if (failed || busy[f] != alone[f]) {
            printf("%s: %s\n", names[f], failed ? "failed" : "results differ");
            ok = 0;
        }
        ok &= still_running;
    }
    pthread_join(t, NULL);
    printf("long POA batch: %.3f s%s\n", long_seconds, long_done == 1 ? "" : " (FAILED)");
    ok &= long_done == 1;
    printf("%s\n", ok ? "head-of-line: all ok" : "head-of-line: FAILED");
    return ok ? 0 : 1;
}
