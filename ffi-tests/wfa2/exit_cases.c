/*
 * Every place where WFA2-lib 2.3.3 calls exit(1): seqshim prints 2.3.3's
 * message and returns a failure value instead, and the process carries on.
 * stderr is merged into stdout (both unbuffered) so the expected file shows
 * each message next to the call that caused it.
 */
#include "utils/commons.h"
#include "wavefront/wfa.h"

#include <unistd.h>

static void try_penalties(const char* what, wavefront_aligner_attr_t attr) {
  printf("%s: ", what);
  wavefront_aligner_t* wf = wavefront_aligner_new(&attr);
  printf("-> %s\n", wf == NULL ? "NULL" : "aligner");
  if (wf != NULL) wavefront_aligner_delete(wf);
}

int main(void) {
  setvbuf(stdout, NULL, _IONBF, 0);
  dup2(1, 2);

  wavefront_aligner_attr_t attr = wavefront_aligner_attr_default;
  attr.affine_penalties.match = 1;
  try_penalties("affine match>0", attr);
  attr = wavefront_aligner_attr_default;
  attr.affine_penalties.mismatch = 0;
  try_penalties("affine X=0", attr);
  attr = wavefront_aligner_attr_default;
  attr.affine_penalties.gap_opening = -1;
  try_penalties("affine O<0", attr);
  attr = wavefront_aligner_attr_default;
  attr.distance_metric = gap_linear;
  attr.linear_penalties.indel = 0;
  try_penalties("linear I=0", attr);
  attr = wavefront_aligner_attr_default;
  attr.distance_metric = gap_affine_2p;
  attr.affine2p_penalties.gap_extension2 = 0;
  try_penalties("affine2p E2=0", attr);

  /* BiWFA with ends-free values, whatever the span. */
  attr = wavefront_aligner_attr_default;
  attr.memory_mode = wavefront_memory_ultralow;
  wavefront_aligner_t* wf = wavefront_aligner_new(&attr);
  wavefront_aligner_set_alignment_free_ends(wf, 0, 1, 0, 0);
  wavefront_aligner_set_alignment_end_to_end(wf);
  printf("biwfa ends-free: ");
  int status = wavefront_align(wf, "ACGT", 4, "ACGT", 4);
  printf("-> %d score=%d\n", status, wf->cigar->score);
  wavefront_aligner_set_alignment_free_ends(wf, 0, 0, 0, 0);
  wavefront_aligner_set_alignment_end_to_end(wf);
  status = wavefront_align(wf, "ACGT", 4, "ACCT", 4);
  printf("biwfa afterwards -> %d score=%d\n", status, wf->cigar->score);
  printf("resume biwfa: ");
  printf("-> %d\n", wavefront_align_resume(wf));
  wavefront_aligner_delete(wf);

  /* Drops with edit/indel. */
  attr = wavefront_aligner_attr_default;
  attr.distance_metric = edit;
  wf = wavefront_aligner_new(&attr);
  wavefront_aligner_set_heuristic_xdrop(wf, 10, 1);
  printf("xdrop+edit: ");
  printf("-> %d\n", wavefront_align(wf, "ACGT", 4, "ACGT", 4));
  wavefront_aligner_delete(wf);

  /* Ends-free values larger than the sequences. */
  wf = wavefront_aligner_new(NULL);
  wavefront_aligner_set_alignment_free_ends(wf, 5, 0, 0, 0);
  printf("ends-free too large: ");
  printf("-> %d\n", wavefront_align(wf, "ACGT", 4, "ACGT", 4));
  printf("resume finished: ");
  printf("-> %d\n", wavefront_align_resume(wf));
  wavefront_aligner_set_alignment_free_ends(wf, 0, 0, 0, 0);
  status = wavefront_align(wf, "ACGT", 4, "AGT", 3);
  printf("then valid -> %d score=%d\n", status, wf->cigar->score);

  /* strerror of internal codes. */
  printf("strerror(1): ");
  printf("-> %s\n", wavefront_align_strerror(1) == NULL ? "NULL" : "text");

  /* CIGAR helpers on unknown operations. */
  cigar_t* c = wf->cigar;
  cigar_clear(c);
  memcpy(c->operations, "MMQM", 4);
  c->end_offset = 4;
  affine_penalties_t ap = {0, 4, 6, 2};
  affine2p_penalties_t a2 = {0, 4, 6, 2, 24, 1};
  printf("score affine: ");
  printf("-> %d\n", cigar_score_gap_affine(c, &ap));
  printf("score affine2p: ");
  printf("-> %d\n", cigar_score_gap_affine2p(c, &a2));
  printf("check alignment: ");
  printf("-> %d\n", cigar_check_alignment(stdout, "ACGT", 4, "ACGT", 4, c, true));
  memcpy(c->operations, "MXMM", 4);
  printf("add mismatches: ");
  cigar_add_mismatches((char*)"ACGT", 4, (char*)"ACGT", 4, c);
  printf("-> end=%d\n", c->end_offset);
  cigar_clear(c);
  printf("score affine2p empty: ");
  printf("-> %d\n", cigar_score_gap_affine2p(c, &a2));
  wavefront_aligner_delete(wf);
  printf("still running\n");
  return 0;
}
