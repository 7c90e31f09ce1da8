/* Host tables of CUDA-EC v1.0.x, written from the seqshim specification
 * (specs/cudaec.md section 3) for rebuilding v1's host program: utils.cpp
 * includes "common.h", which the v1 release does not ship.
 *
 * - comp_ascii: MakeRC's complement: A<->T, C<->G, a<->t, c<->g; 0 for every
 *   other byte (MakeRC then keeps the byte as it is).
 * - unmasked_nuc: the reader map of dnas_RemoveRepeats: A C G T N H K M R S
 *   W X Y map to themselves, a c g t h k m n r s x to upper case, bytes 0-3
 *   to themselves, 4-15 to N R Y W S M K H B V D X, every other byte < 0x80
 *   to NUL.
 * - nuc_char: base of each index (G=0, A=1, C=2, T=3).
 *
 * v1 indexes both tables with a plain (signed) char. Here each table has
 * 128 zero bytes in front, so a byte >= 0x80 reads 0 instead of memory
 * before the table (undefined in v1; such bytes never occur in the
 * fixtures). */
#ifndef SEQSHIM_CUDAEC_COMMON_H
#define SEQSHIM_CUDAEC_COMMON_H

static const char seqshim_comp_ascii_storage[256] = {
    /* 0x80-0xff, reached through negative char values */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0x00-0x7f */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 'T', 0, 'G', 0, 0, 0, 'C', 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 'A', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 't', 0, 'g', 0, 0, 0, 'c', 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 'a', 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
};
static const char seqshim_unmasked_nuc_storage[256] = {
    /* 0x80-0xff, reached through negative char values */
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    /* 0x00-0x7f */
    0, 1, 2, 3, 'N', 'R', 'Y', 'W', 'S', 'M', 'K', 'H', 'B', 'V', 'D', 'X',
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0, 0,
    0, 'A', 0, 'C', 0, 0, 0, 'G', 'H', 0, 0, 'K', 0, 'M', 'N', 0,
    0, 0, 'R', 'S', 'T', 0, 0, 'W', 'X', 'Y', 0, 0, 0, 0, 0, 0,
    0, 'A', 0, 'C', 0, 0, 0, 'G', 'H', 0, 0, 'K', 0, 'M', 'N', 0,
    0, 0, 'R', 'S', 'T', 0, 0, 0, 'X', 0, 0, 0, 0, 0, 0, 0,
};

static const char *const comp_ascii = seqshim_comp_ascii_storage + 128;
static const char *const unmasked_nuc = seqshim_unmasked_nuc_storage + 128;
static const char nuc_char[] = "GACT";

#endif /* SEQSHIM_CUDAEC_COMMON_H */
