/*
 * A WFA2-lib 2.3.3 client for inputs where seqshim once parted from the
 * distribution's library; built against the distribution's headers, run as
 * is and with seqshim standing in (the outputs must be identical):
 *
 * - a result that must not depend on the aligner's history: indel distance
 *   with the banded-adaptive (2,5,0) heuristic on 1,115 x 1,117 pairs,
 *   whose score runs past the wavefront table sized from their lengths
 *   (2.3.3 does not check that table for edit and indel; seqshim once
 *   refused them, or aligned them only after a longer pair had grown the
 *   table);
 * - a negative text_begin_free (2.3.3 aligns as with 0);
 * - an inverted static band with gap-linear and gap-affine (unfeasible).
 *
 *   robust provider | history | endsfree | band
 */
#include <dlfcn.h>
#include <stdbool.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "wavefront/wavefront_align.h"

static uint64_t state = 88172645463325252ull;
static uint32_t next(void) {
  state ^= state << 13;
  state ^= state >> 7;
  state ^= state << 17;
  return (uint32_t)(state >> 11);
}

/* plen random bases; the text copies them with `div` % replaced. */
static void make_pair(char* p, int plen, char* t, int tlen, int div) {
  for (int i = 0; i < plen; ++i) p[i] = "ACGT"[next() & 3];
  for (int i = 0; i < tlen; ++i) t[i] = (i < plen && (int)(next() % 100) >= div) ? p[i] : "ACGT"[next() & 3];
}

static void report(const char* config, wavefront_aligner_t* w, int rc) {
  static char cigar[1 << 16];
  cigar[0] = 0;
  if (rc == 0 && w->alignment_scope == compute_alignment) cigar_sprint(cigar, w->cigar, true);
  printf("%s rc=%d score=%d %s\n", config, rc, w->cigar->score, cigar);
}

static void history(void) {
  static char p[1200], t[1200];
  wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
  a.distance_metric = indel;
  a.heuristic.strategy = wf_heuristic_banded_adaptive;
  a.heuristic.min_k = 2;
  a.heuristic.max_k = 5;
  a.heuristic.steps_between_cutoffs = 0;
  for (int div = 10; div <= 50; div += 10) {
    char config[64];
    snprintf(config, sizeof config, "indel-band-2-5-0-div%d", div);
    state = 88172645463325252ull + 7919;
    make_pair(p, 1115, t, 1117, div);
    wavefront_aligner_t* w = wavefront_aligner_new(&a);
    report(config, w, wavefront_align(w, p, 1115, t, 1117));
    fflush(stdout);
    /* Not deleted: 2.3.3 wrote past its wavefront table, so its heap may
     * not survive a free. */
  }
}

static void negative_begin_free(void) {
  static char p[400], t[400];
  const distance_metric_t metrics[2] = {gap_linear, gap_affine};
  const int frees[3] = {-1, -2, -50};
  for (int m = 0; m < 2; ++m)
    for (int f = 0; f < 3; ++f)
      for (int pair = 0; pair < 4; ++pair) {
        int plen = 50 + (int)(next() % 300), tlen = plen - 5 + (int)(next() % 10);
        make_pair(p, plen, t, tlen, 10);
        wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
        a.distance_metric = metrics[m];
        a.heuristic.strategy = wf_heuristic_none;
        a.alignment_form.span = alignment_endsfree;
        a.alignment_form.text_begin_free = frees[f];
        a.alignment_form.pattern_end_free = pair & 1 ? 5 : 0;
        a.alignment_form.text_end_free = pair & 2 ? 5 : 0;
        char config[64];
        snprintf(config, sizeof config, "endsfree-%s-T0=%d", m ? "affine" : "linear", frees[f]);
        wavefront_aligner_t* w = wavefront_aligner_new(&a);
        report(config, w, wavefront_align(w, p, plen, t, tlen));
        wavefront_aligner_delete(w);
      }
}

static void inverted_static_band(void) {
  static char p[300], t[300];
  const distance_metric_t metrics[2] = {gap_linear, gap_affine};
  for (int m = 0; m < 2; ++m) {
    make_pair(p, 200, t, 203, 10);
    wavefront_aligner_attr_t a = wavefront_aligner_attr_default;
    a.distance_metric = metrics[m];
    a.heuristic.strategy = wf_heuristic_banded_static;
    a.heuristic.min_k = 5;
    a.heuristic.max_k = -5;
    wavefront_aligner_t* w = wavefront_aligner_new(&a);
    report(m ? "band-5--5-affine" : "band-5--5-linear", w, wavefront_align(w, p, 200, t, 203));
    wavefront_aligner_delete(w);
  }
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  if (!strcmp(argv[1], "provider")) {
    puts(dlsym(RTLD_DEFAULT, "seqshim_version") != NULL ? "seqshim" : "upstream");
  } else if (!strcmp(argv[1], "history")) {
    history();
  } else if (!strcmp(argv[1], "endsfree")) {
    negative_begin_free();
  } else if (!strcmp(argv[1], "band")) {
    inverted_static_band();
  } else {
    return 2;
  }
  return 0;
}
