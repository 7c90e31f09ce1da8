/* Known open issue (fuzz/README.md): negative pattern_end_free and
 * text_end_free together; wavefront_align never returns, in seqshim as in
 * 2.3.3. ./a.out -6 -38 hangs, ./a.out 0 0 aligns.
 *   cc -Iinclude/wfa2lib negative_end_free.c -lseqshim
 */
#include "utils/commons.h"
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "wavefront/wfa.h"
int main(int argc, char** argv) {
  int pe = atoi(argv[1]), te = atoi(argv[2]);
  wavefront_aligner_attr_t attr = wavefront_aligner_attr_default;
  attr.distance_metric = gap_linear;
  attr.linear_penalties.match = -1; attr.linear_penalties.mismatch = 4; attr.linear_penalties.indel = 2;
  attr.memory_mode = wavefront_memory_low;
  attr.heuristic.strategy = wf_heuristic_none;
  wavefront_aligner_t* wf = wavefront_aligner_new(&attr);
  wavefront_aligner_set_alignment_free_ends(wf, 0, pe, 6, te);
  const char* p = "ACGTACGTTAGCATGCATCGATCGATCGGGATCAGCTAGCTAGCATCGACTAGCTAGCATCGA";
  const char* t = "ACGTACGTAGCATGCATCGTTCGATCGGATCAGCTAGCTACATCGACTAGCTGCATCGATT";
  int st = wavefront_align(wf, p, strlen(p), t, strlen(t));
  printf("status %d score %d\n", st, wf->cigar->score);
  wavefront_aligner_delete(wf);
  return 0;
}
