/* The BOA layouts libseqshim exports, checked at compile time in every
 * program that includes our headers (x86-64). */
#ifndef SEQSHIM_TEST_BOA_LAYOUT_H
#define SEQSHIM_TEST_BOA_LAYOUT_H
#include <stddef.h>
#include "lpo.h"

#define LAYOUT(type, field, off) _Static_assert(offsetof(type, field) == (off), #type "." #field)
_Static_assert(sizeof(LPOLetterLink_T) == 16, "LPOLetterLink_T");
_Static_assert(sizeof(LPOLetterSource_T) == 16, "LPOLetterSource_T");
_Static_assert(sizeof(LPOLetter_T) == 64, "LPOLetter_T");
_Static_assert(sizeof(LPOSourceInfo_T) == 192, "LPOSourceInfo_T");
_Static_assert(sizeof(LPOSequence_T) == 176, "LPOSequence_T");
_Static_assert(sizeof(ResidueScoreMatrix_T) == 131904, "ResidueScoreMatrix_T");
_Static_assert(sizeof(stringptr) == 16, "stringptr");
LAYOUT(LPOLetterLink_T, more, 8);
LAYOUT(LPOLetterSource_T, ipos, 4);
LAYOUT(LPOLetterSource_T, more, 8);
LAYOUT(LPOLetter_T, right, 16);
LAYOUT(LPOLetter_T, source, 32);
LAYOUT(LPOLetter_T, align_ring, 48);
LAYOUT(LPOLetter_T, ring_id, 52);
LAYOUT(LPOLetter_T, score, 56);
LAYOUT(LPOLetter_T, letter, 60);
LAYOUT(LPOSourceInfo_T, title, 128);
LAYOUT(LPOSourceInfo_T, sequence, 136);
LAYOUT(LPOSourceInfo_T, seq_to_po, 144);
LAYOUT(LPOSourceInfo_T, po_to_seq, 152);
LAYOUT(LPOSourceInfo_T, data, 160);
LAYOUT(LPOSourceInfo_T, ndata, 168);
LAYOUT(LPOSourceInfo_T, length, 172);
LAYOUT(LPOSourceInfo_T, istart, 176);
LAYOUT(LPOSourceInfo_T, weight, 180);
LAYOUT(LPOSourceInfo_T, bundle_id, 184);
LAYOUT(LPOSequence_T, letter, 8);
LAYOUT(LPOSequence_T, title, 16);
LAYOUT(LPOSequence_T, sequence, 24);
LAYOUT(LPOSequence_T, name, 32);
LAYOUT(LPOSequence_T, nsource_seq, 160);
LAYOUT(LPOSequence_T, source_seq, 168);
LAYOUT(ResidueScoreMatrix_T, symbol, 4);
LAYOUT(ResidueScoreMatrix_T, score, 132);
LAYOUT(ResidueScoreMatrix_T, best_match, 65668);
LAYOUT(ResidueScoreMatrix_T, gap_penalty_set, 131204);
LAYOUT(ResidueScoreMatrix_T, trunc_gap_length, 131228);
LAYOUT(ResidueScoreMatrix_T, decay_gap_length, 131232);
LAYOUT(ResidueScoreMatrix_T, gap_penalty_x, 131240);
LAYOUT(ResidueScoreMatrix_T, gap_penalty_y, 131248);
LAYOUT(ResidueScoreMatrix_T, max_gap_length, 131256);
LAYOUT(ResidueScoreMatrix_T, nfreq, 131260);
LAYOUT(ResidueScoreMatrix_T, freq_symbol, 131264);
LAYOUT(ResidueScoreMatrix_T, freq, 131392);
LAYOUT(stringptr, last_alloc, 8);
#endif
