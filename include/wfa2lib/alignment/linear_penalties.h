/* seqshim: WFA2-lib 2.3.3 compatible declarations. */
#ifndef SEQSHIM_WFA2_LINEAR_PENALTIES_H
#define SEQSHIM_WFA2_LINEAR_PENALTIES_H

typedef struct {
  int match;     /* M <= 0 */
  int mismatch;  /* X > 0 */
  int indel;     /* I > 0 */
} linear_penalties_t;

#endif
