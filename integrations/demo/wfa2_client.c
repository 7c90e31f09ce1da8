/* The `make demo` WFA2 section: an ordinary WFA2-lib 2.3.3 client, built
 * against the distribution's headers and linked to its libwfa2.so.0. The
 * demo runs it twice, the second time with seqshim as libwfa2.so.0, and
 * diffs the outputs. */
#include "utils/commons.h"
#include "wavefront/wfa.h"
#include <dlfcn.h>

static void align(wavefront_aligner_t* wf, const char* what, const char* p, const char* t) {
  const int status = wavefront_align(wf, p, (int)strlen(p), t, (int)strlen(t));
  printf("%-28s status=%d score=%-5d ", what, status, wf->cigar->score);
  cigar_print(stdout, wf->cigar, true);
  printf("\n");
}

int main(void) {
  fprintf(stderr, "  (served by %s)\n",
          dlsym(RTLD_DEFAULT, "seqshim_version") ? "seqshim" : "the distribution's libwfa2");
  const char* p = "TCTTTACTCGCGCGTTGGAGAAATACAATAGT";
  const char* t = "TCTATACTGCGCGTTTGGAGAAATAAAATAGT";
  static const char* const metrics[] = {"indel", "edit", "gap-linear", "gap-affine", "gap-affine-2p"};
  for (int m = indel; m <= gap_affine_2p; ++m) {
    wavefront_aligner_attr_t attr = wavefront_aligner_attr_default;
    attr.distance_metric = (distance_metric_t)m;
    wavefront_aligner_t* wf = wavefront_aligner_new(&attr);
    align(wf, metrics[m], p, t);
    wavefront_aligner_delete(wf);
  }
  wavefront_aligner_t* wf = wavefront_aligner_new(NULL);
  wavefront_aligner_set_alignment_free_ends(wf, 0, 0, 10, 10);
  align(wf, "ends-free (text 10,10)", "ACGTACGTTT", "GGGGGACGTACGTTTCCCCC");
  wavefront_aligner_set_alignment_end_to_end(wf);
  wavefront_aligner_set_max_alignment_score(wf, 5);
  align(wf, "max score 5", p, t);
  printf("%-28s %s\n", "", wavefront_align_strerror(wf->align_status.status));
  wavefront_aligner_delete(wf);
  return 0;
}
