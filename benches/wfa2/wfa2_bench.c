/* Single-thread CPU benchmark of the WFA2-lib 2.3.3 C API: seqshim against
 * the distribution's libwfa2.so.0, in the same process and on the same
 * pairs. Both libraries are opened with dlopen(RTLD_LOCAL), so each call
 * goes to the library it was looked up in.
 *
 * usage: wfa2_bench UPSTREAM_LIB SEQSHIM_LIB [quick]
 * Prints one row per configuration: CPU microseconds per alignment for each
 * library (best of 3 passes, the two libraries interleaved) and the ratio
 * upstream/seqshim (> 1 means seqshim is faster). Score sums must agree. */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wavefront/wfa.h"

typedef wavefront_aligner_t *(*new_fn)(wavefront_aligner_attr_t *);
typedef void (*delete_fn)(wavefront_aligner_t *);
typedef int (*align_fn)(wavefront_aligner_t *, const char *, int, const char *, int);

struct lib {
    const char *name;
    new_fn aligner_new;
    delete_fn aligner_delete;
    align_fn align;
    wavefront_aligner_attr_t *attr_default;
};

static int open_lib(struct lib *lib, const char *path, const char *name) {
    void *h = dlopen(path, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        fprintf(stderr, "dlopen %s: %s\n", path, dlerror());
        return 0;
    }
    lib->name = name;
    *(void **)&lib->aligner_new = dlsym(h, "wavefront_aligner_new");
    *(void **)&lib->aligner_delete = dlsym(h, "wavefront_aligner_delete");
    *(void **)&lib->align = dlsym(h, "wavefront_align");
    lib->attr_default = dlsym(h, "wavefront_aligner_attr_default");
    return lib->aligner_new && lib->aligner_delete && lib->align && lib->attr_default;
}

#include "bench_pairs.h"

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

/* One pass of all pairs through `lib`; returns CPU seconds, adds scores. */
static double pass(struct lib *lib, int scope, int n, int len, char **p, char **t, int *tl, long *score_sum) {
    wavefront_aligner_attr_t attr = *lib->attr_default;
    attr.distance_metric = gap_affine;
    attr.affine_penalties.match = 0;
    attr.affine_penalties.mismatch = 4;
    attr.affine_penalties.gap_opening = 6;
    attr.affine_penalties.gap_extension = 2;
    attr.alignment_scope = scope;
    attr.memory_mode = wavefront_memory_high;
    attr.heuristic.strategy = wf_heuristic_none;
    wavefront_aligner_t *wf = lib->aligner_new(&attr);
    double start = cpu_seconds();
    long sum = 0;
    for (int i = 0; i < n; i++) {
        lib->align(wf, p[i], len, t[i], tl[i]);
        sum += wf->cigar->score;
    }
    double elapsed = cpu_seconds() - start;
    lib->aligner_delete(wf);
    *score_sum = sum;
    return elapsed;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: wfa2_bench UPSTREAM_LIB SEQSHIM_LIB [quick]\n");
        return 2;
    }
    int quick = argc > 3 && !strcmp(argv[3], "quick");
    struct lib libs[2];
    if (!open_lib(&libs[0], argv[1], "libwfa2") || !open_lib(&libs[1], argv[2], "seqshim")) return 2;

    const int lens[] = {150, 1000, 10000};
    const double errs[] = {0.02, 0.05, 0.10};
    printf("%-6s %-4s %-6s %7s %14s %14s %8s\n", "len", "err", "scope", "pairs", "libwfa2 us", "seqshim us",
           "ratio");
    int mismatched = 0;
    for (int li = 0; li < 3; li++) {
        for (int ei = 0; ei < 3; ei++) {
            int len = lens[li];
            double err = errs[ei];
            int n = len == 150 ? 20000 : len == 1000 ? 1000 : (err > 0.05 ? 10 : 20);
            if (quick) n = n / 10 > 0 ? n / 10 : 1;
            rng_state = 12345 + 100 * li + ei;
            char **p = malloc(n * sizeof *p), **t = malloc(n * sizeof *t);
            int *tl = malloc(n * sizeof *tl);
            for (int i = 0; i < n; i++) {
                p[i] = malloc(len + 1);
                t[i] = malloc(2 * len + 1);
                make_pair(len, err, p[i], t[i], &tl[i]);
            }
            for (int scope = 1; scope >= 0; scope--) {
                double best[2] = {1e30, 1e30};
                long sums[2] = {0, 0};
                for (int rep = 0; rep < 3; rep++) {
                    for (int k = 0; k < 2; k++) {
                        int which = (rep & 1) ? 1 - k : k;
                        double s = pass(&libs[which], scope, n, len, p, t, tl, &sums[which]);
                        if (s < best[which]) best[which] = s;
                    }
                }
                if (sums[0] != sums[1]) mismatched++;
                printf("%-6d %-4.0f %-6s %7d %14.2f %14.2f %7.2fx%s\n", len, err * 100,
                       scope ? "cigar" : "score", n, best[0] / n * 1e6, best[1] / n * 1e6, best[0] / best[1],
                       sums[0] == sums[1] ? "" : "  SCORE SUMS DIFFER");
                fflush(stdout);
            }
            for (int i = 0; i < n; i++) { free(p[i]); free(t[i]); }
            free(p); free(t); free(tl);
        }
    }
    printf("configurations with differing score sums: %d\n", mismatched);
    return mismatched ? 1 : 0;
}
