/* CUDA-EC exports from C, as a C or C++ client sees them through
 * include/seqshim_cudaec.h and include/seqshim.h: layout asserts, runTest
 * on the stored L36_edge record array, Bloom table and Param (compared with
 * records_out), the native seqshim_ec_* API on the same set (spectrum,
 * export_v1, batch, file driver, compared with the fixture files), and bad
 * input (null pointers, wrong size, k out of range, a read too long, state
 * errors, a missing and a malformed file).
 *
 * Usage: cudaec_client [DIR]   DIR holds the decompressed L36_edge files
 * (written by tests/ffi_cudaec.rs) and is used for scratch files; without
 * DIR only the layout and bad-input checks run.
 */
#define _POSIX_C_SOURCE 200809L
#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#include <seqshim.h>
#include <seqshim_cudaec.h>

_Static_assert(sizeof(Param) == 28, "Param size");
_Static_assert(_Alignof(Param) == 4, "Param align");
_Static_assert(offsetof(Param, doTrim) == 0, "doTrim");
_Static_assert(offsetof(Param, doDeletion) == 2, "doDeletion");
_Static_assert(offsetof(Param, doInsertion) == 4, "doInsertion");
_Static_assert(offsetof(Param, maxMods) == 6, "maxMods");
_Static_assert(offsetof(Param, minVotes) == 8, "minVotes");
_Static_assert(offsetof(Param, maxTrim) == 10, "maxTrim");
_Static_assert(offsetof(Param, numTuples) == 12, "numTuples");
_Static_assert(offsetof(Param, numSearch) == 16, "numSearch");
_Static_assert(offsetof(Param, tupleSize) == 18, "tupleSize");
_Static_assert(offsetof(Param, NUM_OF_READS) == 20, "NUM_OF_READS");
_Static_assert(offsetof(Param, readLen) == 24, "readLen");

_Static_assert(sizeof(seqshim_ec_params) == 32, "params size");
_Static_assert(_Alignof(seqshim_ec_params) == 4, "params align");
_Static_assert(offsetof(seqshim_ec_params, size) == 0, "size");
_Static_assert(offsetof(seqshim_ec_params, flags) == 4, "flags");
_Static_assert(offsetof(seqshim_ec_params, k) == 8, "k");
_Static_assert(offsetof(seqshim_ec_params, min_mult) == 10, "min_mult");
_Static_assert(offsetof(seqshim_ec_params, min_votes) == 12, "min_votes");
_Static_assert(offsetof(seqshim_ec_params, max_trim) == 14, "max_trim");
_Static_assert(offsetof(seqshim_ec_params, num_search) == 16, "num_search");
_Static_assert(offsetof(seqshim_ec_params, do_trim) == 18, "do_trim");
_Static_assert(offsetof(seqshim_ec_params, max_mods) == 20, "max_mods");
_Static_assert(offsetof(seqshim_ec_params, read_len) == 22, "read_len");
_Static_assert(offsetof(seqshim_ec_params, max_rounds) == 24, "max_rounds");
_Static_assert(offsetof(seqshim_ec_params, reserved) == 28, "reserved");
_Static_assert(sizeof(seqshim_ec_stats) == 56, "stats size");
_Static_assert(offsetof(seqshim_ec_stats, solid_kmers) == 40, "solid_kmers");
_Static_assert(offsetof(seqshim_ec_stats, watchdog_hits) == 48, "watchdog_hits");

static int failures = 0;

#define CHECK(cond, ...)                                                                           \
    do {                                                                                           \
        if (!(cond)) {                                                                             \
            fprintf(stderr, "FAIL %s:%d: ", __FILE__, __LINE__);                                   \
            fprintf(stderr, __VA_ARGS__);                                                          \
            fprintf(stderr, "\n");                                                                 \
            failures++;                                                                            \
        }                                                                                          \
    } while (0)

#define L 36
#define STRIDE (L + 2)

static char dir[4096];

static const char *at(const char *name) {
    static char buf[4][4200];
    static int slot = 0;
    slot = (slot + 1) % 4;
    snprintf(buf[slot], sizeof buf[slot], "%s/%s", dir, name);
    return buf[slot];
}

/* Whole file into malloc'ed memory; NULL if it cannot be read. */
static unsigned char *slurp(const char *path, size_t *len) {
    FILE *f = fopen(path, "rb");
    if (!f) return NULL;
    fseek(f, 0, SEEK_END);
    long n = ftell(f);
    fseek(f, 0, SEEK_SET);
    unsigned char *buf = malloc((size_t)n + 1);
    if (buf && fread(buf, 1, (size_t)n, f) != (size_t)n) {
        free(buf);
        buf = NULL;
    }
    fclose(f);
    *len = (size_t)n;
    return buf;
}

static bool same_file(const char *a, const char *b) {
    size_t la = 0, lb = 0;
    unsigned char *x = slurp(a, &la), *y = slurp(b, &lb);
    bool same = x && y && la == lb && memcmp(x, y, la) == 0;
    free(x);
    free(y);
    return same;
}

static bool exists(const char *path) { return access(path, F_OK) == 0; }

static void exact_params(seqshim_ec_params *p, uint16_t search) {
    CHECK(seqshim_ec_params_default(p, SEQSHIM_EC_EXACT_V1) == SEQSHIM_OK, "params_default");
    p->read_len = L;
    p->num_search = search;
}

/* runTest on the stored records, Bloom table and Param of one config. */
static void run_test_config(const char *config) {
    char name[64];
    size_t n_in = 0, n_out = 0, n_bloom = 0, n_param = 0;
    unsigned char *records = slurp(at("records_in.bin"), &n_in);
    snprintf(name, sizeof name, "%s.records_out.bin", config);
    unsigned char *expected = slurp(at(name), &n_out);
    unsigned char *bloom = slurp(at("bloom.bin"), &n_bloom);
    snprintf(name, sizeof name, "%s.param.bin", config);
    unsigned char *param_bytes = slurp(at(name), &n_param);
    CHECK(records && expected && bloom && param_bytes && n_param == sizeof(Param) && n_in == n_out,
          "%s: fixture files", config);
    if (!(records && expected && bloom && param_bytes && n_param == sizeof(Param))) goto done;
    Param param;
    memcpy(&param, param_bytes, sizeof param);
    CHECK(param.readLen == L && param.tupleSize == 20 && (size_t)param.NUM_OF_READS * STRIDE == n_in,
          "%s: Param fields", config);
    unsigned char *bloom_copy = malloc(n_bloom);
    memcpy(bloom_copy, bloom, n_bloom);
    Param param_copy = param;
    char *argv[] = {"cudaec_client", NULL};
    seqshim_cudaec_run_test(bloom, &param, (char *)records, (unsigned int)n_bloom, stdout, stderr, 1,
                            argv);
    CHECK(memcmp(records, expected, n_in) == 0, "%s: runTest records differ from records_out", config);
    CHECK(memcmp(bloom, bloom_copy, n_bloom) == 0, "%s: hash_table modified", config);
    CHECK(memcmp(&param, &param_copy, sizeof param) == 0, "%s: Param modified", config);
    printf("runTest %s: %d records of %d bytes identical to records_out\n", config, param.NUM_OF_READS,
           STRIDE);
    free(bloom_copy);
done:
    free(records);
    free(expected);
    free(bloom);
    free(param_bytes);
}

/* Spectrum, export_v1, contains and correct_batch on the stored records. */
static void native_api(void) {
    size_t n_in = 0, n_bloom = 0, n_out = 0;
    unsigned char *records = slurp(at("records_in.bin"), &n_in);
    unsigned char *bloom = slurp(at("bloom.bin"), &n_bloom);
    unsigned char *expected = slurp(at("s1.records_out.bin"), &n_out);
    if (!records || !bloom || !expected) {
        CHECK(false, "native: fixture files");
        goto done;
    }
    size_t n = n_in / STRIDE;
    uint32_t *lens = calloc(n, sizeof *lens);
    for (size_t i = 0; i < n; i++) lens[i] = (uint32_t)(signed char)records[i * STRIDE + L + 1];

    seqshim_ec_params p;
    exact_params(&p, 1);
    seqshim_ec_spectrum *s = NULL;
    CHECK(seqshim_ec_spectrum_new(&p, n, &s) == SEQSHIM_OK && s, "spectrum_new");
    /* Two calls: counting continues across add calls, in order. */
    size_t half = n / 2;
    CHECK(seqshim_ec_spectrum_add(s, (const char *)records, STRIDE, lens, half) == SEQSHIM_OK, "add 1");
    CHECK(seqshim_ec_spectrum_contains(s, (const char *)records + STRIDE) == SEQSHIM_E_STATE,
          "contains before finalize");
    CHECK(seqshim_ec_spectrum_add(s, (const char *)records + half * STRIDE, STRIDE, lens + half,
                                  n - half) == SEQSHIM_OK,
          "add 2");
    CHECK(seqshim_ec_spectrum_finalize(s) == SEQSHIM_OK, "finalize");
    CHECK(seqshim_ec_spectrum_finalize(s) == SEQSHIM_E_STATE, "finalize twice");
    CHECK(seqshim_ec_spectrum_add(s, (const char *)records, STRIDE, lens, 1) == SEQSHIM_E_STATE,
          "add after finalize");
    int64_t solid = seqshim_ec_spectrum_num_solid(s);
    CHECK(solid == 9974, "num_solid = %lld", (long long)solid);
    const unsigned char *table = NULL;
    unsigned int table_size = 0;
    int num_tuples = 0;
    CHECK(seqshim_ec_spectrum_export_v1(s, &table, &table_size, &num_tuples) == SEQSHIM_OK, "export");
    CHECK(table_size == n_bloom && num_tuples == 9974 && memcmp(table, bloom, n_bloom) == 0,
          "export_v1 differs from bloom.bin");
    printf("spectrum: %lld solid strings, export_v1 = bloom.bin (%u bytes)\n", (long long)solid,
           table_size);
    /* A read kept unchanged at full length by runTest: every tuple is solid. */
    size_t whole = 1;
    while (whole < n && !(expected[whole * STRIDE + L] == 'F' && expected[whole * STRIDE + L + 1] == L &&
                          memcmp(expected + whole * STRIDE, records + whole * STRIDE, L) == 0))
        whole++;
    CHECK(whole < n, "no unchanged read");
    CHECK(seqshim_ec_spectrum_contains(s, (const char *)records + whole * STRIDE) == 1 &&
              seqshim_ec_spectrum_contains(s, (const char *)records + whole * STRIDE + L - 20) == 1,
          "contains solid");
    CHECK(seqshim_ec_spectrum_contains(s, "ACGTTGCAACGTTGCAACGT") == 0, "contains absent");
    CHECK(seqshim_ec_spectrum_contains(s, NULL) == SEQSHIM_E_NULL, "contains NULL");

    /* The whole file as one batch = runTest on the stored records. */
    char *seqs = malloc(n_in);
    memcpy(seqs, records, n_in);
    uint8_t *status = calloc(n, 1);
    uint32_t *trim = calloc(n, sizeof *trim);
    CHECK(seqshim_ec_correct_batch(s, &p, seqs, STRIDE, lens, n, status, trim) == SEQSHIM_OK,
          "correct_batch: %s", seqshim_ec_last_error());
    size_t counts[4] = {0, 0, 0, 0};
    size_t bad = 0;
    for (size_t i = 0; i < n; i++) {
        const unsigned char *rec = expected + i * STRIDE;
        int len = (signed char)rec[L + 1];
        if (len < 0) len = 0;
        bool discarded = rec[L] == 'D';
        if (lens[i] != (uint32_t)len || memcmp(seqs + i * STRIDE, rec, (size_t)len) != 0 ||
            (status[i] == SEQSHIM_EC_DISCARDED) != discarded)
            bad++;
        if (status[i] < 4) counts[status[i]]++;
    }
    CHECK(bad == 0, "correct_batch: %zu reads differ from records_out", bad);
    CHECK(counts[0] == 5611 && counts[1] == 86 && counts[2] == 81 && counts[3] == 40,
          "batch counts %zu/%zu/%zu/%zu", counts[0], counts[1], counts[2], counts[3]);
    printf("correct_batch: %zu reads as records_out; unchanged %zu, fixed %zu, trimmed %zu, "
           "discarded %zu\n",
           n, counts[0], counts[1], counts[2], counts[3]);

    /* A read longer than read_len in a batch: SEQSHIM_E_LIMIT, nothing changed. */
    char longer[2 * 40];
    memset(longer, 'A', sizeof longer);
    uint32_t long_lens[2] = {36, 37};
    uint8_t st2[2] = {9, 9};
    CHECK(seqshim_ec_correct_batch(s, &p, longer, 40, long_lens, 2, st2, NULL) == SEQSHIM_E_LIMIT,
          "batch read too long");
    CHECK(st2[0] == 9 && long_lens[1] == 37, "batch changed on error");
    CHECK(seqshim_ec_correct_batch(s, NULL, longer, 40, long_lens, 2, st2, NULL) == SEQSHIM_E_NULL,
          "batch NULL params");

    seqshim_ec_spectrum_free(s);
    seqshim_ec_spectrum_free(s); /* a second free is ignored */
    seqshim_ec_spectrum_free(NULL);
    free(seqs);
    free(status);
    free(trim);
    free(lens);
done:
    free(records);
    free(bloom);
    free(expected);
}

static void file_driver(const char *config, uint16_t search) {
    seqshim_ec_params p;
    exact_params(&p, search);
    char fixed[4200], discard[4200], want_fixed[64], want_discard[64];
    snprintf(fixed, sizeof fixed, "%s", at("out.fixed.fa"));
    snprintf(discard, sizeof discard, "%s", at("out.discard.fa"));
    snprintf(want_fixed, sizeof want_fixed, "%s.fixed.fa", config);
    snprintf(want_discard, sizeof want_discard, "%s.discard.fa", config);
    seqshim_ec_stats st;
    memset(&st, 0xff, sizeof st);
    seqshim_status rc = seqshim_ec_correct_file(at("reads.fa"), fixed, discard, &p, &st);
    CHECK(rc == SEQSHIM_OK, "correct_file %s: %d %s", config, rc, seqshim_ec_last_error());
    CHECK(same_file(fixed, at(want_fixed)), "%s fixed file differs", config);
    CHECK(same_file(discard, at(want_discard)), "%s discard file differs", config);
    CHECK(st.reads == 5818 && st.solid_kmers == 9974, "stats reads/solid");
    printf("correct_file %s: fixed and discard files identical; %llu reads, %llu discarded\n", config,
           (unsigned long long)st.reads, (unsigned long long)st.discarded);
    remove(fixed);
    remove(discard);
}

static void write_text(const char *path, const char *text) {
    FILE *f = fopen(path, "wb");
    if (f) {
        fputs(text, f);
        fclose(f);
    }
}

static void bad_input(const char *scratch) {
    seqshim_ec_params p;
    seqshim_ec_spectrum *s = NULL;
    CHECK(seqshim_ec_params_default(NULL, 0) == SEQSHIM_E_NULL, "default NULL");
    CHECK(seqshim_ec_params_default(&p, 0x80) == SEQSHIM_E_ARG, "default bad flags");
    CHECK(seqshim_ec_spectrum_new(NULL, 10, &s) == SEQSHIM_E_NULL, "new NULL params");
    exact_params(&p, 1);
    CHECK(seqshim_ec_spectrum_new(&p, 10, NULL) == SEQSHIM_E_NULL, "new NULL out");
    p.size = 16;
    CHECK(seqshim_ec_spectrum_new(&p, 10, &s) == SEQSHIM_E_ARG && s == NULL, "wrong size");
    CHECK(strstr(seqshim_ec_last_error(), "size") != NULL, "wrong size message: %s",
          seqshim_ec_last_error());
    exact_params(&p, 1);
    p.k = 0;
    CHECK(seqshim_ec_spectrum_new(&p, 10, &s) == SEQSHIM_E_ARG, "k = 0");
    p.k = L + 1;
    CHECK(seqshim_ec_spectrum_new(&p, 10, &s) == SEQSHIM_E_ARG, "k > read_len");
    CHECK(strstr(seqshim_ec_last_error(), "k = 37") != NULL, "k message: %s", seqshim_ec_last_error());
    CHECK(seqshim_ec_params_default(&p, 0) == SEQSHIM_OK, "default mode params");
    p.k = 33;
    CHECK(seqshim_ec_spectrum_new(&p, 0, &s) == SEQSHIM_E_ARG, "default k = 33");
    exact_params(&p, 3);
    CHECK(seqshim_ec_spectrum_new(&p, 10, &s) == SEQSHIM_E_ARG, "search 3");

    /* State: more reads than announced, read too long, contains early. */
    exact_params(&p, 1);
    CHECK(seqshim_ec_spectrum_new(&p, 1, &s) == SEQSHIM_OK, "new 1 read");
    char reads[2 * 40];
    memset(reads, 'C', sizeof reads);
    uint32_t lens[2] = {36, 37};
    CHECK(seqshim_ec_spectrum_add(s, reads, 40, lens + 1, 1) == SEQSHIM_E_LIMIT, "add too long");
    lens[1] = 36;
    CHECK(seqshim_ec_spectrum_add(s, reads, 40, lens, 2) == SEQSHIM_E_STATE, "more than announced");
    CHECK(strstr(seqshim_ec_last_error(), "announced") != NULL, "state message: %s",
          seqshim_ec_last_error());
    CHECK(seqshim_ec_spectrum_add(s, reads, 30, lens, 1) == SEQSHIM_E_ARG, "len > stride");
    CHECK(seqshim_ec_spectrum_add(s, NULL, 40, lens, 1) == SEQSHIM_E_NULL, "add NULL seqs");
    CHECK(seqshim_ec_spectrum_contains(s, reads) == SEQSHIM_E_STATE, "contains early");
    const unsigned char *table;
    unsigned int ts;
    int nt;
    CHECK(seqshim_ec_spectrum_export_v1(s, &table, &ts, &nt) == SEQSHIM_E_STATE, "export early");
    CHECK(seqshim_ec_spectrum_export_v1(s, NULL, &ts, &nt) == SEQSHIM_E_NULL, "export NULL");
    seqshim_ec_spectrum_free(s);
    CHECK(seqshim_ec_spectrum_num_solid(NULL) == SEQSHIM_E_NULL, "num_solid NULL");
    CHECK(seqshim_ec_spectrum_finalize(NULL) == SEQSHIM_E_NULL, "finalize NULL");

    /* Files: missing input, malformed input, read too long; no output left. */
    char in[4200], out[4200], disc[4200];
    snprintf(out, sizeof out, "%s/bad.out.fa", scratch);
    snprintf(disc, sizeof disc, "%s/bad.discard.fa", scratch);
    snprintf(in, sizeof in, "%s/no-such-input.fa", scratch);
    exact_params(&p, 1);
    CHECK(seqshim_ec_correct_file(in, out, disc, &p, NULL) == SEQSHIM_E_IO, "missing file");
    CHECK(strstr(seqshim_ec_last_error(), "no-such-input.fa") != NULL, "io message: %s",
          seqshim_ec_last_error());
    CHECK(!exists(out) && !exists(disc), "output after missing input");

    snprintf(in, sizeof in, "%s/bad.fq", scratch);
    write_text(in, "@r1\nACGT\n+\nIIII\n@r2\nACGT\n-\nIIII\n");
    CHECK(seqshim_ec_params_default(&p, 0) == SEQSHIM_OK, "default params");
    CHECK(seqshim_ec_correct_file(in, out, NULL, &p, NULL) == SEQSHIM_E_FORMAT, "malformed");
    CHECK(strstr(seqshim_ec_last_error(), "bad.fq:7:") != NULL, "format message: %s",
          seqshim_ec_last_error());
    CHECK(!exists(out), "output after malformed input");

    snprintf(in, sizeof in, "%s/long.fa", scratch);
    write_text(in, ">a\nACGTACGTACGTACGTACGTACGTACGTACGTACGT\n>b\nACGTACGTACGTACGTACGTACGTACGTACGTACGTA\n");
    exact_params(&p, 1);
    CHECK(seqshim_ec_correct_file(in, out, disc, &p, NULL) == SEQSHIM_E_LIMIT, "read too long");
    CHECK(strstr(seqshim_ec_last_error(), "long.fa:4:") != NULL, "limit message: %s",
          seqshim_ec_last_error());
    CHECK(!exists(out) && !exists(disc), "output after a read too long");
    CHECK(seqshim_ec_correct_file(in, out, NULL, &p, NULL) == SEQSHIM_E_ARG, "exact-v1 no discard");
    CHECK(seqshim_ec_correct_file(NULL, out, disc, &p, NULL) == SEQSHIM_E_NULL, "NULL in_path");
    remove(in);

    /* runTest with bad input: no crash, records unchanged. */
    char recs[STRIDE];
    memset(recs, 'A', sizeof recs);
    unsigned char table_bytes[8] = {0};
    Param bad = {1, 0, 0, 999, 2, 20, 0 /* numTuples 0 */, 1, 20, 1, L};
    seqshim_cudaec_run_test(table_bytes, &bad, recs, 8, NULL, NULL, 0, NULL);
    CHECK(recs[0] == 'A' && recs[L] == 'A', "runTest changed records on bad input");
    seqshim_cudaec_run_test(table_bytes, NULL, recs, 8, NULL, NULL, 0, NULL);
    bad.numTuples = 1;
    bad.tupleSize = L + 1;
    seqshim_cudaec_run_test(table_bytes, &bad, recs, 8, NULL, NULL, 0, NULL);
    CHECK(recs[0] == 'A' && recs[L] == 'A', "runTest changed records with k > readLen");
    printf("bad input: statuses and messages as documented, no output files left\n");
}

int main(int argc, char **argv) {
    const char *scratch = argc > 1 ? argv[1] : ".";
    if (argc > 1) {
        snprintf(dir, sizeof dir, "%s", argv[1]);
        run_test_config("s1");
        run_test_config("s2");
        native_api();
        file_driver("s1", 1);
        file_driver("s2", 2);
    } else {
        printf("no fixture folder: layout and bad-input checks only\n");
    }
    bad_input(scratch);
    if (failures) {
        fprintf(stderr, "%d checks failed\n", failures);
        return 1;
    }
    printf("all checks passed\n");
    return 0;
}
