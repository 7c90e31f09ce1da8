/* A WFA2-lib 2.3.3 client as its authors wrote it; built here against
 * seqshim's headers and library. */
#include "utils/commons.h"
#include "wavefront/wfa.h"

int main(void) {
    const char* pattern = "TCTTTACTCGCGCGTTGGAGAAATACAATAGT";
    const char* text = "TCTATACTGCGCGTTTGGAGAAATAAAATAGT";
    wavefront_aligner_attr_t attributes = wavefront_aligner_attr_default;
    attributes.distance_metric = gap_affine;
    attributes.affine_penalties.mismatch = 4;
    attributes.affine_penalties.gap_opening = 6;
    attributes.affine_penalties.gap_extension = 2;
    wavefront_aligner_t* const wf_aligner = wavefront_aligner_new(&attributes);
    const int status = wavefront_align(wf_aligner, pattern, (int)strlen(pattern), text, (int)strlen(text));
    printf("WFA2 status=%d score=%d cigar=", status, wf_aligner->cigar->score);
    cigar_print(stdout, wf_aligner->cigar, true);
    printf("\n");
    const int ok = status == 0 && wf_aligner->cigar->score == -24;
    wavefront_aligner_delete(wf_aligner);
    return ok ? 0 : 1;
}
