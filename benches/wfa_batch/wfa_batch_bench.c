/* Throughput of seqshim's WFA batch API (GPU + CPU pool, and CPU pool only)
 * against the distribution's libwfa2.so.0 driven by N threads with one
 * aligner each, in one process on the same pairs. Both libraries are opened
 * with dlopen(RTLD_LOCAL), so each call goes to the library it was looked
 * up in. Exact gap-affine (0,4,6,2), end to end, full CIGAR and score only,
 * on 150 bp, 1 kbp and 10 kbp pairs at 2/5/10 % divergence.
 *
 * usage: wfa_batch_bench UPSTREAM_LIB SEQSHIM_LIB
 * env:   WFA_BENCH_SCALE  fraction of 1 M / 100 k / 10 k pairs (default 0.01)
 *        WFA_BENCH_THREADS upstream threads (default 16)
 *        WFA_BENCH_LENGTHS comma list of lengths to run (default 150,1000,10000)
 * Prints one row per cell: alignments per second of each way (seqshim's
 * until its run has returned; upstream's with each CIGAR hashed as it is
 * made), the ratios GPU/upstream and GPU/own-CPU, the milliseconds one
 * thread then takes to read every GPU result (score, CIGAR letters, hash),
 * and whether scores and CIGARs agree (they must; the program exits 1
 * otherwise). */
#define _GNU_SOURCE
#include <dlfcn.h>
#include <pthread.h>
#include <stdatomic.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "seqshim.h"
#include "wavefront/wfa.h"

typedef wavefront_aligner_t *(*new_fn)(wavefront_aligner_attr_t *);
typedef void (*delete_fn)(wavefront_aligner_t *);
typedef int (*align_fn)(wavefront_aligner_t *, const char *, int, const char *, int);

static struct {
    new_fn aligner_new;
    delete_fn aligner_delete;
    align_fn align;
    wavefront_aligner_attr_t *attr_default;
} up;

static struct {
    int (*options_default)(seqshim_wfa_options_t *);
    int (*create)(const seqshim_wfa_options_t *, size_t, seqshim_wfa_batch_t **);
    int (*add_borrowed)(seqshim_wfa_batch_t *, const char *, int32_t, const char *, int32_t, size_t *);
    int (*run)(seqshim_wfa_batch_t *);
    int (*result)(const seqshim_wfa_batch_t *, size_t, int32_t *, int32_t *);
    int (*cigar)(const seqshim_wfa_batch_t *, size_t, const char **, size_t *);
    int (*routing)(const seqshim_wfa_batch_t *, size_t *, size_t *);
    void (*destroy)(seqshim_wfa_batch_t *);
    int (*backend_info)(char *, size_t);
} ss;

static void *sym(void *h, const char *name) {
    void *p = dlsym(h, name);
    if (!p) {
        fprintf(stderr, "missing symbol %s\n", name);
        exit(2);
    }
    return p;
}

static void open_libs(const char *upstream, const char *seqshim) {
    void *u = dlopen(upstream, RTLD_NOW | RTLD_LOCAL);
    if (!u) {
        fprintf(stderr, "dlopen %s: %s\n", upstream, dlerror());
        exit(2);
    }
    void *s = dlopen(seqshim, RTLD_NOW | RTLD_LOCAL);
    if (!s) {
        fprintf(stderr, "dlopen %s: %s\n", seqshim, dlerror());
        exit(2);
    }
    *(void **)&up.aligner_new = sym(u, "wavefront_aligner_new");
    *(void **)&up.aligner_delete = sym(u, "wavefront_aligner_delete");
    *(void **)&up.align = sym(u, "wavefront_align");
    up.attr_default = sym(u, "wavefront_aligner_attr_default");
    *(void **)&ss.options_default = sym(s, "seqshim_wfa_options_default");
    *(void **)&ss.create = sym(s, "seqshim_wfa_batch_create");
    *(void **)&ss.add_borrowed = sym(s, "seqshim_wfa_batch_add_borrowed");
    *(void **)&ss.run = sym(s, "seqshim_wfa_batch_run");
    *(void **)&ss.result = sym(s, "seqshim_wfa_batch_result");
    *(void **)&ss.cigar = sym(s, "seqshim_wfa_batch_cigar");
    *(void **)&ss.routing = sym(s, "seqshim_wfa_batch_routing");
    *(void **)&ss.destroy = sym(s, "seqshim_wfa_batch_destroy");
    *(void **)&ss.backend_info = sym(s, "seqshim_backend_info");
}

static uint64_t rng_state;
static uint64_t next_u64(void) {
    uint64_t z = (rng_state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
}
static double unit(void) { return (double)(next_u64() >> 11) * (1.0 / 9007199254740992.0); }
static char base(void) { return "ACGT"[next_u64() & 3]; }

struct pairs {
    int n;
    char **p, **t;
    int *plen, *tlen;
};

/* text = pattern with each position edited with probability `err`
 * (substitution, one-base insertion or deletion, equally likely). */
static struct pairs make_pairs(int n, int len, double err) {
    struct pairs v = {n, malloc(sizeof(char *) * (size_t)n), malloc(sizeof(char *) * (size_t)n),
                      malloc(sizeof(int) * (size_t)n), malloc(sizeof(int) * (size_t)n)};
    for (int i = 0; i < n; i++) {
        char *p = malloc((size_t)len), *t = malloc((size_t)len * 2 + 1);
        for (int j = 0; j < len; j++) p[j] = base();
        int k = 0;
        for (int j = 0; j < len; j++) {
            double u = unit();
            if (u < err / 3) {
                t[k++] = base();
            } else if (u < 2 * err / 3) {
            } else if (u < err) {
                t[k++] = p[j];
                t[k++] = base();
            } else {
                t[k++] = p[j];
            }
        }
        v.p[i] = p;
        v.t[i] = t;
        v.plen[i] = len;
        v.tlen[i] = k;
    }
    return v;
}

static void free_pairs(struct pairs *v) {
    for (int i = 0; i < v->n; i++) {
        free(v->p[i]);
        free(v->t[i]);
    }
    free(v->p);
    free(v->t);
    free(v->plen);
    free(v->tlen);
}

static uint64_t fnv(const char *s, size_t n, uint64_t h) {
    for (size_t i = 0; i < n; i++) h = (h ^ (uint8_t)s[i]) * 0x100000001b3ULL;
    return h;
}

static double now(void) {
    struct timespec ts;
    clock_gettime(CLOCK_MONOTONIC, &ts);
    return (double)ts.tv_sec + (double)ts.tv_nsec * 1e-9;
}

/* Per-pair score and CIGAR hash, combined in pair order afterwards. */
struct sums {
    int64_t *score;
    uint64_t *hash;
};

static uint64_t combine(const struct sums *s, int n) {
    uint64_t h = 1469598103934665603ULL;
    for (int i = 0; i < n; i++) {
        h = (h ^ (uint64_t)s->score[i]) * 0x100000001b3ULL;
        h = (h ^ s->hash[i]) * 0x100000001b3ULL;
    }
    return h;
}

/* Each way gets an untimed warm-up on the first pairs (aligners built,
 * buffers grown), as a long-running tool would have. */
#define WARMUP 256

struct upstream_job {
    const struct pairs *v;
    struct sums *out;
    int score_only;
    atomic_int next;
    pthread_barrier_t ready;
};

static void *upstream_worker(void *arg) {
    struct upstream_job *job = arg;
    wavefront_aligner_attr_t a = *up.attr_default;
    a.distance_metric = gap_affine;
    a.affine_penalties.match = 0;
    a.affine_penalties.mismatch = 4;
    a.affine_penalties.gap_opening = 6;
    a.affine_penalties.gap_extension = 2;
    a.alignment_scope = job->score_only ? compute_score : compute_alignment;
    a.heuristic.strategy = wf_heuristic_none;
    wavefront_aligner_t *wf = up.aligner_new(&a);
    for (int i = 0; i < WARMUP && i < job->v->n; i++)
        up.align(wf, job->v->p[i], job->v->plen[i], job->v->t[i], job->v->tlen[i]);
    pthread_barrier_wait(&job->ready);
    for (;;) {
        int start = atomic_fetch_add(&job->next, 16);
        if (start >= job->v->n) break;
        int end = start + 16 < job->v->n ? start + 16 : job->v->n;
        for (int i = start; i < end; i++) {
            up.align(wf, job->v->p[i], job->v->plen[i], job->v->t[i], job->v->tlen[i]);
            job->out->score[i] = wf->cigar->score;
            job->out->hash[i] = job->score_only
                                    ? 0
                                    : fnv(wf->cigar->operations + wf->cigar->begin_offset,
                                          (size_t)(wf->cigar->end_offset - wf->cigar->begin_offset), 0);
        }
    }
    up.aligner_delete(wf);
    return NULL;
}

static double run_upstream(const struct pairs *v, int score_only, int threads, struct sums *out) {
    struct upstream_job job = {.v = v, .out = out, .score_only = score_only};
    pthread_barrier_init(&job.ready, NULL, (unsigned)threads + 1);
    pthread_t *tid = malloc(sizeof(pthread_t) * (size_t)threads);
    for (int i = 0; i < threads; i++) pthread_create(&tid[i], NULL, upstream_worker, &job);
    pthread_barrier_wait(&job.ready);
    double t0 = now();
    for (int i = 0; i < threads; i++) pthread_join(tid[i], NULL);
    double dt = now() - t0;
    pthread_barrier_destroy(&job.ready);
    free(tid);
    return dt;
}

static double run_batch(const struct pairs *v, int score_only, int device, struct sums *out, size_t *to_gpu,
                        double *read_s) {
    seqshim_wfa_options_t o;
    ss.options_default(&o);
    o.heuristic = SEQSHIM_WFA_HEURISTIC_NONE;
    o.scope = score_only ? SEQSHIM_WFA_SCOPE_SCORE : SEQSHIM_WFA_SCOPE_ALIGNMENT;
    o.device = device;
    seqshim_wfa_batch_t *b = NULL;
    if (ss.create(&o, (size_t)v->n, &b) != SEQSHIM_OK) {
        fprintf(stderr, "seqshim_wfa_batch_create failed\n");
        exit(2);
    }
    for (int i = 0; i < WARMUP && i < v->n; i++)
        ss.add_borrowed(b, v->p[i], v->plen[i], v->t[i], v->tlen[i], NULL);
    ss.run(b);
    ss.destroy(b);
    b = NULL;
    ss.create(&o, (size_t)v->n, &b);
    double t0 = now();
    for (int i = 0; i < v->n; i++) ss.add_borrowed(b, v->p[i], v->plen[i], v->t[i], v->tlen[i], NULL);
    ss.run(b);
    double dt = now() - t0;
    size_t cpu = 0;
    ss.routing(b, to_gpu, &cpu);
    /* Reading every result (the CIGAR letters are made on first request)
     * is timed apart: the rate above is until run() has returned. */
    double r0 = now();
    for (int i = 0; i < v->n; i++) {
        int32_t status = 0, score = 0;
        ss.result(b, (size_t)i, &status, &score);
        out->score[i] = score;
        out->hash[i] = 0;
        if (!score_only) {
            const char *ops = NULL;
            size_t len = 0;
            ss.cigar(b, (size_t)i, &ops, &len);
            out->hash[i] = fnv(ops, len, 0);
        }
    }
    *read_s = now() - r0;
    ss.destroy(b);
    return dt;
}

int main(int argc, char **argv) {
    if (argc < 3) {
        fprintf(stderr, "usage: %s UPSTREAM_LIB SEQSHIM_LIB\n", argv[0]);
        return 2;
    }
    open_libs(argv[1], argv[2]);
    const char *s = getenv("WFA_BENCH_SCALE");
    double scale = s ? atof(s) : 0.01;
    s = getenv("WFA_BENCH_THREADS");
    int threads = s ? atoi(s) : 16;
    const char *lengths = getenv("WFA_BENCH_LENGTHS");
    if (!lengths) lengths = "150,1000,10000";
    char info[1024];
    ss.backend_info(info, sizeof info);
    printf("seqshim backend:\n%s\n", info);
    printf("wfa batch benchmark: gap-affine (0,4,6,2) exact, end to end; upstream %d threads, "
           "one aligner each; seqshim batch API (GPU+CPU, then CPU pool only); scale %.3g\n",
           threads, scale);
    printf("%-6s %-4s %-6s %8s %12s %12s %12s %9s %9s %9s %9s  %s\n", "len", "div", "scope", "pairs",
           "upstream/s", "gpu+cpu/s", "cpu-only/s", "to-gpu", "gpu/up", "gpu/cpu", "read-ms", "results");
    static const int lens[] = {150, 1000, 10000};
    static const int counts[] = {1000000, 100000, 10000};
    static const double errs[] = {0.02, 0.05, 0.10};
    int bad = 0;
    for (int l = 0; l < 3; l++) {
        char want[16];
        snprintf(want, sizeof want, "%d", lens[l]);
        int listed = 0;
        for (const char *c = lengths; *c;) {
            size_t n = strcspn(c, ",");
            if (n == strlen(want) && strncmp(c, want, n) == 0) listed = 1;
            c += n + (c[n] == ',');
        }
        if (!listed) continue;
        for (int e = 0; e < 3; e++) {
            int n = (int)(counts[l] * scale);
            if (n < 1) n = 1;
            rng_state = 1000 * (uint64_t)lens[l] + (uint64_t)e;
            struct pairs v = make_pairs(n, lens[l], errs[e]);
            for (int score_only = 0; score_only < 2; score_only++) {
                struct sums a = {malloc(8 * (size_t)n), malloc(8 * (size_t)n)};
                struct sums g = {malloc(8 * (size_t)n), malloc(8 * (size_t)n)};
                struct sums c = {malloc(8 * (size_t)n), malloc(8 * (size_t)n)};
                double tu = run_upstream(&v, score_only, threads, &a);
                size_t to_gpu = 0, dummy = 0;
                double read_g = 0, read_c = 0;
                double tg = run_batch(&v, score_only, SEQSHIM_WFA_DEVICE_ANY, &g, &to_gpu, &read_g);
                double tc = run_batch(&v, score_only, SEQSHIM_WFA_DEVICE_CPU, &c, &dummy, &read_c);
                uint64_t ha = combine(&a, n), hg = combine(&g, n), hc = combine(&c, n);
                int same = ha == hg && hg == hc;
                bad += !same;
                printf("%-6d %-4.0f %-6s %8d %12.0f %12.0f %12.0f %9zu %8.2fx %8.2fx %9.1f  %s\n", lens[l],
                       errs[e] * 100, score_only ? "score" : "cigar", n, n / tu, n / tg, n / tc, to_gpu,
                       tu / tg, tc / tg, read_g * 1e3, same ? "identical" : "DIFFER");
                fflush(stdout);
                free(a.score), free(a.hash), free(g.score), free(g.hash), free(c.score), free(c.hash);
            }
            free_pairs(&v);
        }
    }
    printf("wfa batch benchmark: %s\n", bad ? "RESULTS DIFFER" : "all results identical");
    return bad ? 1 : 0;
}
