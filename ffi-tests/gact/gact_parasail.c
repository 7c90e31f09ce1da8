/* GACT tile scores against parasail (spec section 8): the score of a tile
 * aligned with first = true is the maximum cell of the local DP, which is
 * parasail's Smith-Waterman score with (open, extend) = (-gap_open,
 * -gap_extend) and the same match/mismatch matrix.
 *
 * Random tiles: sides 1..511, divergence 0-30 % (substitutions, insertions
 * and deletions), forward and reverse, under four scorings. Each tile is
 * compared with parasail_sw_scan_16 and with the scalar parasail_sw.
 * (Not the striped kernels: with open == extend, Debian's parasail 2.6
 * sw_striped_16/_32 return a lower score than sw and sw_scan on about 0.3 %
 * of such tiles.)
 *
 * Usage: gact_parasail [TILES_PER_SCORING]
 */
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include <parasail.h>
#include <seqshim.h>
#include <seqshim/gact.h>

typedef struct {
    const char* name;
    int match, mismatch, gap_open, gap_extend;
} scoring;

/* Darwin's default, then the paper's Table 1 schemes (spec section 9.1). */
static const scoring SCORINGS[] = {
    {"darwin (1,-1,-1,-1)", 1, -1, -1, -1},
    {"(2,-1,-2,-2)", 2, -1, -2, -2},
    {"(5,-4,-10,-1)", 5, -4, -10, -1},
    {"(2,-3,-5,-2)", 2, -3, -5, -2},
};

static uint64_t rng_state = 0x2545F4914F6CDD1Dull;
static uint32_t rnd(uint32_t n) {
    rng_state ^= rng_state << 13;
    rng_state ^= rng_state >> 7;
    rng_state ^= rng_state << 17;
    return (uint32_t)(rng_state % n);
}

/* A reference of rl random bases and a query of at most ql bases copied
 * from it with div_pct % edits, split evenly among the three kinds. */
static int make_pair(char* r, int rl, char* q, int ql, int div_pct) {
    for (int i = 0; i < rl; i++) r[i] = "ACGT"[rnd(4)];
    int n = 0, i = 0;
    while (n < ql) {
        char base = i < rl ? r[i] : "ACGT"[rnd(4)];
        uint32_t roll = rnd(300);
        if (roll < (uint32_t)div_pct) { /* substitution */
            q[n++] = "ACGT"[(strchr("ACGT", base) - "ACGT" + 1 + (int)rnd(3)) % 4];
            i++;
        } else if (roll < 2u * (uint32_t)div_pct) { /* insertion in the query */
            q[n++] = "ACGT"[rnd(4)];
        } else if (roll < 3u * (uint32_t)div_pct) { /* deletion from the query */
            i++;
        } else {
            q[n++] = base;
            i++;
        }
    }
    return n;
}

int main(int argc, char** argv) {
    int per_scoring = argc > 1 ? atoi(argv[1]) : 100;
    int compared = 0, equal_scan = 0, equal_scalar = 0, failures = 0;
    char r[512], q[512];
    uint8_t ops[1024];
    for (size_t s = 0; s < sizeof SCORINGS / sizeof SCORINGS[0]; s++) {
        const scoring* sc = &SCORINGS[s];
        int32_t sub[25];
        for (int a = 0; a < 5; a++)
            for (int b = 0; b < 5; b++)
                sub[5 * a + b] = (a == 4 || b == 4) ? 0 : (a == b ? sc->match : sc->mismatch);
        parasail_matrix_t* matrix = parasail_matrix_create("ACGT", sc->match, sc->mismatch);
        for (int k = 0; k < per_scoring; k++) {
            /* mostly long tiles, some short ones */
            int rl = k % 5 == 0 ? 1 + (int)rnd(64) : 1 + (int)rnd(511);
            int ql = k % 7 == 0 ? 1 + (int)rnd(64) : 1 + (int)rnd(511);
            int div = (int)rnd(31);
            ql = make_pair(r, rl, q, ql, div);
            bool reverse = k % 2;
            seqshim_gact_tile_result_t got;
            int32_t st = seqshim_gact_align_tile(r, rl, q, ql, sub, sc->gap_open, sc->gap_extend,
                                                 ql, rl, reverse, true, 1024, ops, sizeof ops,
                                                 &got);
            /* Reading both sides backwards leaves a local score unchanged. */
            parasail_result_t* scan = parasail_sw_scan_16(
                q, ql, r, rl, -sc->gap_open, -sc->gap_extend, matrix);
            parasail_result_t* scalar =
                parasail_sw(q, ql, r, rl, -sc->gap_open, -sc->gap_extend, matrix);
            int want_scan = parasail_result_get_score(scan);
            int want_scalar = parasail_result_get_score(scalar);
            bool saturated = parasail_result_is_saturated(scan);
            compared++;
            equal_scan += st == 0 && !saturated && got.score == want_scan;
            equal_scalar += st == 0 && got.score == want_scalar;
            if ((st != 0 || got.score != want_scan || got.score != want_scalar || saturated) &&
                failures++ < 10)
                fprintf(stderr,
                        "%s tile %d (%dx%d, %d%%, reverse %d): status %d, seqshim %d, "
                        "parasail scan %d%s, scalar %d\n",
                        sc->name, k, rl, ql, div, (int)reverse, (int)st, (int)got.score,
                        want_scan, saturated ? " (saturated)" : "", want_scalar);
            parasail_result_free(scan);
            parasail_result_free(scalar);
        }
        parasail_matrix_free(matrix);
    }
    printf("parasail: %d tiles compared, %d equal to sw_scan_16, %d equal to sw\n", compared,
           equal_scan, equal_scalar);
    if (failures) {
        fprintf(stderr, "%d tiles differ\n", failures);
        return 1;
    }
    return 0;
}
