/* Gives seqshim's ABEA entries f5c's own names, for building f5c against
 * libseqshim (see README.md here). Compiled the way f5c compiles its
 * sources (g++ -x c++), the two functions get exactly the mangled names of
 * f5c's align() and estimate_scalings_using_mom(); compiled as C they are
 * plain `align` and `estimate_scalings_using_mom`.
 *
 * seqshim/f5c.h declares f5c's structs with f5c's layout and names, so the
 * argument types, and with them the C++ symbol names, are f5c's. */
#include <stdint.h>

#include "seqshim/f5c.h"

int32_t align(AlignedPair* out_2, char* sequence, int32_t sequence_len, event_table events,
              model_t* models, uint32_t kmer_size, scalings_t scaling, float sample_rate);
scalings_t estimate_scalings_using_mom(char* sequence, int32_t sequence_len, model_t* pore_model,
                                       uint32_t kmer_size, event_table et);

int32_t align(AlignedPair* out_2, char* sequence, int32_t sequence_len, event_table events,
              model_t* models, uint32_t kmer_size, scalings_t scaling, float sample_rate) {
    return seqshim_f5c_align(out_2, sequence, sequence_len, events, models, kmer_size, scaling,
                             sample_rate);
}

scalings_t estimate_scalings_using_mom(char* sequence, int32_t sequence_len, model_t* pore_model,
                                       uint32_t kmer_size, event_table et) {
    return seqshim_f5c_estimate_scalings_using_mom(sequence, sequence_len, pore_model, kmer_size,
                                                   et);
}
