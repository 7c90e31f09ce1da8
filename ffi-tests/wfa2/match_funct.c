/* Custom match functions are not supported: alignments with one return -1
 * (with one warning per process) and the aligner stays usable. */
#include "utils/commons.h"
#include "wavefront/wfa.h"

static int same(int v, int h, void* args) {
  const char* const* seqs = args;
  return seqs[0][v] == seqs[1][h];
}

int main(void) {
  const char* seqs[2] = {"ACGT", "ACCT"};
  wavefront_aligner_t* wf = wavefront_aligner_new(NULL);
  wavefront_aligner_set_match_funct(wf, same, (void*)seqs);
  for (int i = 0; i < 3; ++i) {
    const int status = wavefront_align(wf, NULL, 4, NULL, 4);
    printf("with match function: %d score=%d\n", status, wf->cigar->score);
  }
  wavefront_aligner_set_match_funct(wf, NULL, NULL);
  const int status = wavefront_align(wf, seqs[0], 4, seqs[1], 4);
  printf("without: %d score=%d\n", status, wf->cigar->score);
  wavefront_aligner_delete(wf);
  return 0;
}
