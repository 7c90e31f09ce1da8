/* Known open issue (fuzz/README.md): free-end lengths of about 2^28, then
 * end-to-end, on an edit/score-only aligner whose heuristic field holds raw
 * bits (452) with wf-mash on top: a 0 x 159 alignment takes 36 s and 4.8 GB
 * in seqshim; 2.3.3 crashes. Arguments select the steps:
 *   cc -Iinclude/wfa2lib free_ends_then_end_to_end.c -lseqshim
 *   ./a.out 452 m f e
 */
#include "utils/commons.h"
#include "wavefront/wfa.h"
#include <stdio.h>
#include <stdlib.h>
int main(int argc, char** argv) {
  wavefront_aligner_attr_t attr = wavefront_aligner_attr_default;
  attr.distance_metric = edit;
  attr.alignment_scope = compute_score;
  attr.heuristic.strategy = atoi(argv[1]);
  attr.heuristic.steps_between_cutoffs = -33;
  attr.heuristic.min_k = 2; attr.heuristic.max_k = 45;
  attr.heuristic.min_wavefront_length = 15; attr.heuristic.max_distance_threshold = 48;
  attr.heuristic.xdrop = 1444986442; attr.heuristic.zdrop = -4;
  wavefront_aligner_t* wf = wavefront_aligner_new(&attr);
  if (!wf) { printf("refused\n"); return 0; }
  if (argc > 2) wavefront_aligner_set_heuristic_wfmash(wf, 2147483647, 0, 27);
  if (argc > 3) wavefront_aligner_set_alignment_free_ends(wf, 231052047, 48, 386904047, 16);
  if (argc > 4) wavefront_aligner_set_alignment_end_to_end(wf);
  int n = 159;
  char* t = malloc(n + 1);
  for (int i = 0; i < n; ++i) t[i] = "ACGT"[i * 7 % 4];
  int st = wavefront_align(wf, "", 0, t, n);
  printf("status %d score %d\n", st, wf->cigar->score);
  return 0;
}
