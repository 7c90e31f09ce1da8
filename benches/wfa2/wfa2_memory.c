/* Memory of one WFA2-lib 2.3.3 alignment in each memory mode. Linked against
 * libwfa2.so.0; run it once as linked and once with seqshim standing in as
 * libwfa2.so.0 (LD_LIBRARY_PATH to a directory whose libwfa2.so.0 links to
 * libseqshim.so), each under `/usr/bin/time -v` for the peak resident size.
 *
 * usage: wfa2_memory LENGTH ERROR MODE [HEURISTIC]
 *   MODE high|med|low|ultralow; HEURISTIC none (default) or adaptive
 *   (the default attributes' wfadaptive(10,50,1)).
 * One pair: random DNA, text = pattern with each position edited with
 * probability ERROR (substitution, one-base insertion or deletion, as
 * wfa2_bench.c makes them), gap-affine
 * (0,4,6,2). Prints status, score, CIGAR length, the process CPU time of the
 * alignment and the resident memory the aligner still holds after it (RSS
 * after the alignment, freed heap trimmed, minus RSS before the aligner). */
#define _GNU_SOURCE
#include <malloc.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

#include "utils/commons.h"
#include "wavefront/wfa.h"

#include "bench_pairs.h"

/* Resident memory in bytes, from /proc/self/statm. */
static long resident(void) {
    long pages = 0, rss = 0;
    FILE *f = fopen("/proc/self/statm", "r");
    if (f) {
        if (fscanf(f, "%ld %ld", &pages, &rss) != 2) rss = 0;
        fclose(f);
    }
    return rss * sysconf(_SC_PAGESIZE);
}

static double cpu_seconds(void) {
    struct timespec ts;
    clock_gettime(CLOCK_PROCESS_CPUTIME_ID, &ts);
    return ts.tv_sec + ts.tv_nsec * 1e-9;
}

int main(int argc, char **argv) {
    rng_state = 42;
    if (argc < 4) {
        fprintf(stderr, "usage: %s LENGTH ERROR high|med|low|ultralow [none|adaptive]\n", argv[0]);
        return 2;
    }
    int len = atoi(argv[1]);
    double err = atof(argv[2]);
    const char *mode = argv[3];
    int adaptive = argc > 4 && strcmp(argv[4], "adaptive") == 0;
    char *pattern = malloc(len + 1), *text = malloc(2 * len + 1);
    int text_len = 0;
    make_pair(len, err, pattern, text, &text_len);

    wavefront_aligner_attr_t attr = wavefront_aligner_attr_default;
    attr.distance_metric = gap_affine;
    attr.affine_penalties.match = 0;
    attr.affine_penalties.mismatch = 4;
    attr.affine_penalties.gap_opening = 6;
    attr.affine_penalties.gap_extension = 2;
    if (!adaptive) attr.heuristic.strategy = wf_heuristic_none;
    attr.memory_mode = strcmp(mode, "med") == 0        ? wavefront_memory_med
                       : strcmp(mode, "low") == 0      ? wavefront_memory_low
                       : strcmp(mode, "ultralow") == 0 ? wavefront_memory_ultralow
                                                       : wavefront_memory_high;
    malloc_trim(0);
    long before = resident();
    wavefront_aligner_t *aligner = wavefront_aligner_new(&attr);
    double t0 = cpu_seconds();
    int status = wavefront_align(aligner, pattern, len, text, text_len);
    double cpu = cpu_seconds() - t0;
    malloc_trim(0);
    long kept = resident() - before;
    cigar_t *cigar = aligner->cigar;
    printf("len=%d text_len=%d mode=%s heuristic=%s status=%d score=%d cigar_ops=%d cpu_s=%.3f kept_mb=%.1f\n",
           len, text_len, mode, adaptive ? "adaptive" : "none", status, cigar->score,
           cigar->end_offset - cigar->begin_offset, cpu, kept / 1e6);
    wavefront_aligner_delete(aligner);
    free(pattern);
    free(text);
    return 0;
}
