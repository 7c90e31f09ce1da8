/* The `make demo` program: shows which backend seqshim picked on this
 * machine and why, then runs the selftest through the scheduler (on the GPU
 * when one is usable) and times it. Each kernel family adds its section. */
#include <stdio.h>
#include <stdlib.h>
#include <time.h>

#include "seqshim.h"

static double now_ms(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return ts.tv_sec * 1e3 + ts.tv_nsec / 1e6;
}

int main(void) {
    printf("== seqshim %s ==\n\n", seqshim_version());

    int needed = seqshim_backend_info(NULL, 0);
    if (needed < 0) {
        fprintf(stderr, "backend_info failed: %s\n", seqshim_strerror(needed));
        return 1;
    }
    char *info = malloc((size_t)needed + 1);
    if (!info) return 1;
    seqshim_backend_info(info, (size_t)needed + 1);
    printf("-- backend --\n%s\n", info);
    free(info);

    printf("-- selftest (262,144 values through the scheduler) --\n");
    for (int run = 1; run <= 2; ++run) {
        double start = now_ms();
        int status = seqshim_selftest();
        printf("run %d: %s (%.1f ms)%s\n", run, seqshim_strerror(status), now_ms() - start,
               run == 1 ? " [includes kernel compile or cache load on a GPU]" : "");
        if (status != SEQSHIM_OK) return 1;
    }

    needed = seqshim_backend_info(NULL, 0);
    info = malloc((size_t)needed + 1);
    if (!info) return 1;
    seqshim_backend_info(info, (size_t)needed + 1);
    printf("\n-- after the selftest --\n%s", info);
    free(info);
    printf("\nSet SEQSHIM_LOG=info to see each decision, SEQSHIM_BACKEND=cpu to force the CPU.\n");
    return 0;
}
