/* Documented contracts that once broke the host:
 *
 * - every exported cigar_* function given NULL (the CIGAR, its penalties,
 *   the output buffer, the sequences) does nothing and counts 0, on an
 *   empty and on a non-empty CIGAR (2.3.3 crashes on several);
 * - BOA's read_score_matrix on /dev/zero stops at the first bad row with
 *   -1, as BOA does (it used to read the whole "file" before parsing it,
 *   growing memory until allocation failed, and then reported -2, "can't
 *   open"): run under a 512 MiB address-space limit and a watchdog.
 *
 * - a WFA alignment whose wavefronts outgrow a 1 GiB address-space limit
 *   returns -3 (out of memory) and leaves the library usable, where the
 *   allocator used to abort the process (not under ASan, which needs the
 *   address space for itself);
 * - a negative begin-free length frees nothing: the pair is aligned as
 *   with 0 (2.3.3 aligns it too, but see the README), not refused.
 *
 * Each call runs in a child process, so that a crash names its call.
 * Prints "contracts: all ok". */
#define _POSIX_C_SOURCE 200809L
#include <signal.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/resource.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include "alignment/cigar.h"
#include "wavefront/wavefront_align.h"
#include "seq_util.h"
#include "system/mm_allocator.h"

static int failures;

#define CALL(what, stmt)                                                                 \
    do {                                                                                 \
        fflush(stdout);                                                                  \
        pid_t pid = fork();                                                              \
        if (pid == 0) {                                                                  \
            alarm(20);                                                                   \
            stmt;                                                                        \
            fflush(stdout);                                                              \
            _exit(0);                                                                    \
        }                                                                                \
        int st = 0;                                                                      \
        waitpid(pid, &st, 0);                                                            \
        if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {                                    \
            printf("%s: %s %d\n", what, WIFSIGNALED(st) ? "killed by signal" : "exit",   \
                   WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));                    \
            failures++;                                                                  \
        }                                                                                \
    } while (0)

/* Exits the child with 1 when a count is not 0. */
#define ZERO(expr)                                                                       \
    do {                                                                                 \
        long v_ = (long)(expr);                                                          \
        if (v_ != 0) {                                                                   \
            printf("%s = %ld, not 0\n", #expr, v_);                                      \
            fflush(stdout);                                                              \
            _exit(1);                                                                    \
        }                                                                                \
    } while (0)

static void cigar_nulls(cigar_t* c, mm_allocator_t* mm, const char* label) {
    char what[160];
    char buf[64];
    linear_penalties_t lp = {0, 4, 2};
    affine_penalties_t ap = {0, 4, 6, 2};
    affine2p_penalties_t a2 = {0, 4, 6, 2, 24, 1};
#define ON(name) (snprintf(what, sizeof what, "%s: %s", label, name), what)
    CALL(ON("cigar_clear(NULL)"), cigar_clear(NULL));
    CALL(ON("cigar_resize(NULL)"), cigar_resize(NULL, 10));
    CALL(ON("cigar_free(NULL)"), cigar_free(NULL));
    CALL(ON("cigar_get_matches(NULL)"), ZERO(cigar_get_matches(NULL)));
    CALL(ON("cigar_add_mismatches(NULL, NULL, c)"), cigar_add_mismatches(NULL, 5, NULL, 5, c));
    CALL(ON("cigar_add_mismatches(p, t, NULL)"), cigar_add_mismatches("ACGTA", 5, "ACGTA", 5, NULL));
    CALL(ON("cigar_score_edit(NULL)"), ZERO(cigar_score_edit(NULL)));
    CALL(ON("cigar_score_gap_linear(NULL, p)"), ZERO(cigar_score_gap_linear(NULL, &lp)));
    CALL(ON("cigar_score_gap_linear(c, NULL)"), ZERO(cigar_score_gap_linear(c, NULL)));
    CALL(ON("cigar_score_gap_affine(NULL, p)"), ZERO(cigar_score_gap_affine(NULL, &ap)));
    CALL(ON("cigar_score_gap_affine(c, NULL)"), ZERO(cigar_score_gap_affine(c, NULL)));
    CALL(ON("cigar_score_gap_affine2p(NULL, p)"), ZERO(cigar_score_gap_affine2p(NULL, &a2)));
    CALL(ON("cigar_score_gap_affine2p(c, NULL)"), ZERO(cigar_score_gap_affine2p(c, NULL)));
    CALL(ON("cigar_cmp(NULL, NULL)"), ZERO(cigar_cmp(NULL, NULL)));
    CALL(ON("cigar_copy(NULL, c)"), cigar_copy(NULL, c));
    CALL(ON("cigar_copy(c, NULL)"), cigar_copy(c, NULL));
    CALL(ON("cigar_append(NULL, c)"), cigar_append(NULL, c));
    CALL(ON("cigar_append(c, NULL)"), cigar_append(c, NULL));
    CALL(ON("cigar_append_deletion(NULL)"), cigar_append_deletion(NULL, 3));
    CALL(ON("cigar_append_insertion(NULL)"), cigar_append_insertion(NULL, 3));
    CALL(ON("cigar_check_alignment(NULL sequences)"),
         cigar_check_alignment(stdout, NULL, 5, NULL, 5, c, true));
    CALL(ON("cigar_check_alignment(NULL stream)"),
         cigar_check_alignment(NULL, "ACGTA", 5, "ACGTA", 5, c, true));
    CALL(ON("cigar_print(NULL, c)"), cigar_print(NULL, c, true));
    CALL(ON("cigar_print(stdout, NULL)"), cigar_print(stdout, NULL, true));
    CALL(ON("cigar_sprint(NULL, c)"), ZERO(cigar_sprint(NULL, c, true)));
    CALL(ON("cigar_sprint(buf, NULL)"), ZERO(cigar_sprint(buf, NULL, true)));
    CALL(ON("cigar_print_pretty(NULL stream)"), cigar_print_pretty(NULL, "ACGTA", 5, "ACGTA", 5, c, mm));
    CALL(ON("cigar_print_pretty(NULL sequences)"), cigar_print_pretty(stdout, NULL, 5, NULL, 5, c, mm));
    CALL(ON("cigar_print_pretty(NULL cigar)"), cigar_print_pretty(stdout, "ACGTA", 5, "ACGTA", 5, NULL, mm));
#undef ON
}

static void matrix_from_dev_zero(void) {
#ifndef __SANITIZE_ADDRESS__ /* ASan's shadow memory needs the address space */
    struct rlimit limit = {512ul << 20, 512ul << 20};
    setrlimit(RLIMIT_AS, &limit);
#endif
    static ResidueScoreMatrix_T m;
    int rc = read_score_matrix("/dev/zero", &m);
    if (rc != -1) {
        printf("read_score_matrix(/dev/zero) = %d, not -1\n", rc);
        _exit(1);
    }
}

static void negative_begin_free(void) {
    const char* p = "ACGTTGCAACGTAGGCTAGCATCGATCGGATCCA";
    const char* t = "ACGTTGCAACGAAGGCTAGCATCGTCGGATCCAT";
    const distance_metric_t metrics[2] = {gap_linear, gap_affine};
    for (int m = 0; m < 2; ++m)
        for (int side = 0; side < 2; ++side) {
            int score[2] = {0, 0};
            for (int negative = 0; negative < 2; ++negative) {
                wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
                a.distance_metric = metrics[m];
                a.heuristic.strategy = wf_heuristic_none;
                a.alignment_form.span = alignment_endsfree;
                if (side)
                    a.alignment_form.pattern_begin_free = negative ? -3 : 0;
                else
                    a.alignment_form.text_begin_free = negative ? -3 : 0;
                wavefront_aligner_t* w = wavefront_aligner_new(&a);
                int rc = wavefront_align(w, p, (int)strlen(p), t, (int)strlen(t));
                score[negative] = w->cigar->score;
                if (rc != 0) {
                    printf("%s, %s_begin_free %d: wavefront_align returned %d\n",
                           m ? "gap-affine" : "gap-linear", side ? "pattern" : "text", negative ? -3 : 0, rc);
                    failures++;
                }
                wavefront_aligner_delete(w);
            }
            if (score[0] != score[1]) {
                printf("%s, %s_begin_free -3: score %d, with 0: %d\n", m ? "gap-affine" : "gap-linear",
                       side ? "pattern" : "text", score[1], score[0]);
                failures++;
            }
        }
}

static void wavefronts_out_of_memory(void) {
#ifndef __SANITIZE_ADDRESS__
    struct rlimit limit = {1ul << 30, 1ul << 30};
    setrlimit(RLIMIT_AS, &limit);
    enum { N = 20000 };
    static char p[N], t[N];
    uint64_t s = 12345;
    for (int i = 0; i < N; ++i) {
        s = s * 6364136223846793005ull + 1;
        p[i] = "ACGT"[s >> 62];
        s = s * 6364136223846793005ull + 1;
        t[i] = "ACGT"[s >> 62];
    }
    wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
    a.heuristic.strategy = wf_heuristic_none;
    wavefront_aligner_t* w = wavefront_aligner_new(&a);
    int rc = wavefront_align(w, p, N, t, N);
    if (rc != -3) {
        printf("unrelated %d bp pair under 1 GiB: wavefront_align returned %d, not -3\n", N, rc);
        _exit(1);
    }
    rc = wavefront_align(w, "ACGTACGT", 8, "ACGTTCGT", 8);
    if (rc != 0 || w->cigar->score != -4) {
        printf("the aligner after running out of memory: %d, score %d\n", rc, w->cigar->score);
        _exit(1);
    }
    wavefront_aligner_delete(w);
#endif
}

int main(void) {
    CALL("wavefront_align out of memory", wavefronts_out_of_memory());
    negative_begin_free();
    mm_allocator_t* mm = mm_allocator_new(4096);
    cigar_t* empty = cigar_new(100, mm);
    cigar_t* full = cigar_new(100, mm);
    memcpy(full->operations, "MMXID", 5);
    full->begin_offset = 0;
    full->end_offset = 5;
    cigar_nulls(empty, mm, "empty CIGAR");
    cigar_nulls(full, mm, "CIGAR MMXID");
    CALL("read_score_matrix(/dev/zero)", matrix_from_dev_zero());
    cigar_free(empty);
    cigar_free(full);
    mm_allocator_delete(mm);
    printf("%s\n", failures ? "contracts: FAILED" : "contracts: all ok");
    return failures ? 1 : 0;
}
