/* seqshim: WFA2-lib 2.3.3 compatible declarations. */
#ifndef SEQSHIM_WFA2_AFFINE2P_PENALTIES_H
#define SEQSHIM_WFA2_AFFINE2P_PENALTIES_H

typedef struct {
  int match;           /* M <= 0 */
  int mismatch;        /* X > 0 */
  int gap_opening1;    /* O1 >= 0 */
  int gap_extension1;  /* E1 > 0 */
  int gap_opening2;    /* O2 >= 0 */
  int gap_extension2;  /* E2 > 0 */
} affine2p_penalties_t;

#endif
