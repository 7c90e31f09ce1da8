/* WFA inputs that used to panic, hang, or take seconds and gigabytes:
 *
 * - a static band that misses diagonal 0 (-55..-36): every metric, scope
 *   and memory mode ends unfeasible (-1, score INT_MIN), through
 *   wavefront_align and through the WFA batch (2.3.3 gives -1 for
 *   gap-linear and gap-affine and crashes on edit and indel);
 * - negative pattern_end_free and text_end_free together: no alignment
 *   can end, so -1 with strerror's "unfeasible" text, with a zero or a
 *   negative match score (2.3.3 computes forever with a negative one);
 *   with a finite max_alignment_score, -2 and that score, as 2.3.3 gives;
 *   one negative end alone aligns as 2.3.3 does;
 * - ends-free with a negative match score and a drop heuristic that cuts
 *   every cell: -1 at once (it computed on, past 12 GB);
 * - free-end lengths near 2^28, then end-to-end: the stale lengths do not
 *   count (a 0 x 159 alignment took 36 s and 4.8 GB);
 * - penalties: 4,096 in magnitude is the largest accepted, a 20-base
 *   pair at that size finishes at once; 65,537 is refused by
 *   wavefront_aligner_new (NULL) and by the batch (SEQSHIM_E_OPTION).
 *
 * Each check runs in a child process under a watchdog, so that a hang or
 * a crash names its check. Prints "wfa limits: all ok". */
#define _POSIX_C_SOURCE 200809L
#include <limits.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/wait.h>
#include <unistd.h>

#include "seqshim.h"
#include "wavefront/wavefront_align.h"

static int failures;

/* Runs `body` in a child with a watchdog; the child exits 1 on a failed
 * check. */
static void check(const char* what, void (*body)(void)) {
    fflush(stdout);
    pid_t pid = fork();
    if (pid == 0) {
        alarm(60);
        body();
        fflush(stdout);
        _exit(0);
    }
    int st = 0;
    waitpid(pid, &st, 0);
    if (!WIFEXITED(st) || WEXITSTATUS(st) != 0) {
        printf("%s: %s %d\n", what, WIFSIGNALED(st) ? "killed by signal" : "exit",
               WIFSIGNALED(st) ? WTERMSIG(st) : WEXITSTATUS(st));
        failures++;
    }
}

#define EXPECT(cond, ...)                                                                \
    do {                                                                                 \
        if (!(cond)) {                                                                   \
            printf(__VA_ARGS__);                                                         \
            printf("\n");                                                                \
            fflush(stdout);                                                              \
            _exit(1);                                                                    \
        }                                                                                \
    } while (0)

static const char* P = "GTAACCCCATACATCGCTCACGCCGCGAAAGGACACCGCGATAACACAGCGCTCCCGGTCGGTAGG";
static const char* T = "ATACGACATACATCGCCTCCGCCGCGCAAGGACGTTGCGATGAACAGCCCTCCAGGTCGGTTCACG";

static void band_misses_diagonal_zero(void) {
    const distance_metric_t metrics[4] = {indel, edit, gap_linear, gap_affine};
    for (int m = 0; m < 4; ++m)
        for (int scope = 0; scope < 2; ++scope)
            for (int mem = 0; mem < 3; ++mem) {
                wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
                a.distance_metric = metrics[m];
                a.alignment_scope = scope ? compute_alignment : compute_score;
                a.memory_mode = (wavefront_memory_t)mem;
                a.heuristic.strategy = wf_heuristic_banded_static;
                a.heuristic.min_k = -55;
                a.heuristic.max_k = -36;
                wavefront_aligner_t* w = wavefront_aligner_new(&a);
                int rc = wavefront_align(w, P, (int)strlen(P), T, (int)strlen(T));
                EXPECT(rc == -1 && w->cigar->score == INT32_MIN,
                       "band -55..-36, metric %d scope %d memory %d: rc %d score %d", m, scope, mem, rc,
                       w->cigar->score);
                /* The aligner stays usable. */
                wavefront_aligner_set_heuristic_none(w);
                rc = wavefront_align(w, P, (int)strlen(P), T, (int)strlen(T));
                EXPECT(rc == 0, "metric %d: rc %d after the band was removed", m, rc);
                wavefront_aligner_delete(w);
            }
    /* The batch of the original report: indel, med, score only. */
    seqshim_wfa_options_t o;
    seqshim_wfa_options_default(&o);
    o.metric = SEQSHIM_WFA_METRIC_INDEL;
    o.scope = SEQSHIM_WFA_SCOPE_SCORE;
    o.memory_mode = SEQSHIM_WFA_MEMORY_MED;
    o.heuristic = SEQSHIM_WFA_HEURISTIC_BANDED_STATIC;
    o.band_min_k = -55;
    o.band_max_k = -36;
    o.device = SEQSHIM_WFA_DEVICE_CPU;
    seqshim_wfa_batch_t* b = NULL;
    int s = seqshim_wfa_batch_create(&o, 2, &b);
    EXPECT(s == SEQSHIM_OK, "batch create: %d", s);
    size_t idx;
    seqshim_wfa_batch_add(b, P, (int32_t)strlen(P), T, (int32_t)strlen(T), &idx);
    seqshim_wfa_batch_add(b, T, (int32_t)strlen(T), P, (int32_t)strlen(P), &idx);
    s = seqshim_wfa_batch_run(b);
    EXPECT(s == SEQSHIM_OK, "batch run: %d (%s)", s, seqshim_strerror(s));
    for (size_t i = 0; i < 2; ++i) {
        int32_t st = 0, score = 0;
        s = seqshim_wfa_batch_result(b, i, &st, &score);
        EXPECT(st == -1 && score == INT32_MIN, "batch pair %zu: result %d, status %d, score %d", i, s, st,
               score);
    }
    seqshim_wfa_batch_destroy(b);
}

static wavefront_aligner_t* linear_low(int match) {
    wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
    a.distance_metric = gap_linear;
    a.linear_penalties.match = match;
    a.linear_penalties.mismatch = 4;
    a.linear_penalties.indel = 2;
    a.memory_mode = wavefront_memory_low;
    a.heuristic.strategy = wf_heuristic_none;
    return wavefront_aligner_new(&a);
}

static void negative_end_free(void) {
    const char* p = "ACGTACGTTAGCATGCATCGATCGATCGGGATCAGCTAGCTAGCATCGACTAGCTAGCATCGA";
    const char* t = "ACGTACGTAGCATGCATCGTTCGATCGGATCAGCTAGCTACATCGACTAGCTGCATCGATT";
    const int ends[2][4] = {{0, -6, 6, -38}, {0, -1, 0, -1}};
    for (int match = -1; match <= 0; ++match)
        for (int e = 0; e < 2; ++e) {
            wavefront_aligner_t* w = linear_low(match);
            wavefront_aligner_set_alignment_free_ends(w, ends[e][0], ends[e][1], ends[e][2], ends[e][3]);
            int rc = wavefront_align(w, p, (int)strlen(p), t, (int)strlen(t));
            EXPECT(rc == WF_STATUS_UNFEASIBLE && w->align_status.status == WF_STATUS_UNFEASIBLE &&
                       w->cigar->score == INT32_MIN,
                   "match %d ends %d,%d: rc %d status %d score %d", match, ends[e][1], ends[e][3], rc,
                   w->align_status.status, w->cigar->score);
            const char* msg = wavefront_align_strerror(rc);
            EXPECT(msg && strstr(msg, "unfeasible"), "strerror(%d) = %s", rc, msg ? msg : "NULL");
            /* A finite maximum score: 2.3.3 computes up to it and stops. */
            wavefront_aligner_set_max_alignment_score(w, 500);
            rc = wavefront_align(w, p, (int)strlen(p), t, (int)strlen(t));
            if (match < 0)
                EXPECT(rc == WF_STATUS_MAX_SCORE_REACHED && w->cigar->score == 500,
                       "match %d ends %d,%d, max score 500: rc %d score %d", match, ends[e][1], ends[e][3],
                       rc, w->cigar->score);
            wavefront_aligner_delete(w);
        }
    /* One negative end alone: aligned, as 2.3.3 aligns it. */
    wavefront_aligner_t* w = linear_low(-1);
    wavefront_aligner_set_alignment_free_ends(w, 0, -6, 0, 0);
    int rc = wavefront_align(w, p, (int)strlen(p), t, (int)strlen(t));
    EXPECT(rc == 0 && w->cigar->score == 42, "ends 0,-6,0,0: rc %d score %d (2.3.3: 0, 42)", rc,
           w->cigar->score);
    wavefront_aligner_delete(w);
}

static int lens[2];
static int match_every_other(int v, int h, void* args) {
    const int* l = args;
    return v >= 0 && h >= 0 && v < l[0] && h < l[1] && ((v ^ h) & 1) == 0;
}

static void negative_match_drop_runaway(void) {
    enum { PL = 139, TL = 107 };
    char p[PL + 1], t[TL + 1];
    for (int i = 0; i < PL; ++i) p[i] = "ACGT"[(i * 7) % 4];
    for (int i = 0; i < TL; ++i) t[i] = "ACGT"[(i * 5 + 1) % 4];
    p[PL] = t[TL] = 0;
    lens[0] = PL;
    lens[1] = TL;
    for (int custom = 0; custom < 2; ++custom)
        for (int scope = 0; scope < 2; ++scope) {
            wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
            a.distance_metric = gap_linear;
            a.alignment_scope = scope ? compute_alignment : compute_score;
            a.memory_mode = wavefront_memory_low;
            a.alignment_form.span = alignment_endsfree;
            a.linear_penalties.match = -1;
            a.linear_penalties.mismatch = 4;
            a.linear_penalties.indel = 2;
            a.heuristic.strategy = wf_heuristic_zdrop;
            a.heuristic.steps_between_cutoffs = 1;
            wavefront_aligner_t* w = wavefront_aligner_new(&a);
            wavefront_aligner_set_heuristic_zdrop(w, -21, -6);
            if (custom) wavefront_aligner_set_match_funct(w, match_every_other, lens);
            int rc = wavefront_align(w, p, PL, t, TL);
            EXPECT(rc == WF_STATUS_UNFEASIBLE, "z-drop, match -1, custom %d scope %d: rc %d", custom, scope,
                   rc);
            wavefront_aligner_delete(w);
        }
}

static int edit_score_only(const char* t, bool stale) {
    wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
    a.distance_metric = edit;
    a.alignment_scope = compute_score;
    a.heuristic.strategy = 452; /* wf-adaptive among bits 2.3.3 ignores */
    a.heuristic.steps_between_cutoffs = -33;
    a.heuristic.min_k = 2;
    a.heuristic.max_k = 45;
    a.heuristic.min_wavefront_length = 15;
    a.heuristic.max_distance_threshold = 48;
    a.heuristic.xdrop = 1444986442;
    a.heuristic.zdrop = -4;
    wavefront_aligner_t* w = wavefront_aligner_new(&a);
    wavefront_aligner_set_heuristic_wfmash(w, 2147483647, 0, 27);
    if (stale) {
        wavefront_aligner_set_alignment_free_ends(w, 231052047, 48, 386904047, 16);
        wavefront_aligner_set_alignment_end_to_end(w);
    }
    int rc = wavefront_align(w, "", 0, t, (int)strlen(t));
    int score = w->cigar->score;
    wavefront_aligner_delete(w);
    return rc == 0 ? score : INT_MIN + rc;
}

static void stale_free_ends(void) {
    char t[160];
    for (int i = 0; i < 159; ++i) t[i] = "ACGT"[i * 7 % 4];
    t[159] = 0;
    int fresh = edit_score_only(t, false), stale = edit_score_only(t, true);
    EXPECT(fresh == 159 && stale == fresh, "0 x 159: fresh aligner %d, after stale free ends %d", fresh,
           stale);
}

static void large_penalties(void) {
    wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
    a.distance_metric = gap_affine;
    a.heuristic.strategy = wf_heuristic_none;
    a.affine_penalties.match = -4096;
    a.affine_penalties.mismatch = 4096;
    a.affine_penalties.gap_opening = 4096;
    a.affine_penalties.gap_extension = 4096;
    for (int scope = 0; scope < 2; ++scope) {
        a.alignment_scope = scope ? compute_alignment : compute_score;
        wavefront_aligner_t* w = wavefront_aligner_new(&a);
        EXPECT(w != NULL, "penalties of 4096 refused");
        int rc = wavefront_align(w, "ACGTACGTACGTAACGTTGA", 20, "TTTTTTTTTTTTTTTTTTTT", 20);
        EXPECT(rc == 0, "penalties of 4096, scope %d: rc %d", scope, rc);
        wavefront_aligner_delete(w);
    }
    a.affine_penalties.mismatch = 4097;
    EXPECT(wavefront_aligner_new(&a) == NULL, "a mismatch of 4097 accepted");
    seqshim_wfa_options_t o;
    seqshim_wfa_options_default(&o);
    o.mismatch = 4097;
    seqshim_wfa_batch_t* b = NULL;
    int s = seqshim_wfa_batch_create(&o, 0, &b);
    EXPECT(s == SEQSHIM_E_OPTION && b == NULL, "batch with a mismatch of 4097: %d", s);
}

int main(void) {
    check("static band -55..-36", band_misses_diagonal_zero);
    check("negative pattern and text end-free", negative_end_free);
    check("negative match, ends-free, drops cutting everything", negative_match_drop_runaway);
    check("free ends near 2^28, then end-to-end", stale_free_ends);
    check("penalties at and past 4096", large_penalties);
    printf("%s\n", failures ? "wfa limits: FAILED" : "wfa limits: all ok");
    return failures ? 1 : 0;
}
