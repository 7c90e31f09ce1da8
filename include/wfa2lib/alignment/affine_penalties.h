/* seqshim: WFA2-lib 2.3.3 compatible declarations. */
#ifndef SEQSHIM_WFA2_AFFINE_PENALTIES_H
#define SEQSHIM_WFA2_AFFINE_PENALTIES_H

typedef struct {
  int match;          /* M <= 0 */
  int mismatch;       /* X > 0 */
  int gap_opening;    /* O >= 0 */
  int gap_extension;  /* E > 0 */
} affine_penalties_t;

#endif
