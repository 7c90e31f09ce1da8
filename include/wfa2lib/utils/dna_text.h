/* seqshim: WFA2-lib 2.3.3 compatible declarations. DNA 2-bit encoding. */
#ifndef SEQSHIM_WFA2_DNA_TEXT_H
#define SEQSHIM_WFA2_DNA_TEXT_H

#include "utils/commons.h"

#define DNA_RANGE          4
#define DNA_EXTENDED_RANGE 5

#define ENC_DNA_CHAR_A 0
#define ENC_DNA_CHAR_C 1
#define ENC_DNA_CHAR_G 2
#define ENC_DNA_CHAR_T 3
#define ENC_DNA_CHAR_N 4

#ifdef __cplusplus
extern "C" {
#endif
/* A/a->0 C/c->1 G/g->2 T/t->3, anything else 4. */
extern const uint8_t dna_encode_table[256];
/* 0..4 -> "ACGTN". */
extern const char dna_decode_table[DNA_EXTENDED_RANGE];
#ifdef __cplusplus
}
#endif

#define dna_encode(character) (dna_encode_table[(int)(character)])
#define dna_decode(enc_char)  (dna_decode_table[(int)(enc_char)])

#endif
