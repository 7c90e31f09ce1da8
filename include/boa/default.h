/* seqshim: BOA general definitions (libseqshim ABI). */
#ifndef DEFAULT_HEADER_INCLUDED
#define DEFAULT_HEADER_INCLUDED 1

#include <stdio.h>
#include <stdlib.h>
#include <stddef.h>
#include <string.h>
#include <ctype.h>
#include "black_flag.h"

#ifdef __cplusplus
extern "C" {
#endif

#ifndef TRUE
#define TRUE 1
#endif
#ifndef FALSE
#define FALSE 0
#endif

typedef void *voidptr;

/* Loops: LOOP/LOOPB count down from size-1 to 0, LOOPF counts up. */
#define LOOP(i, size) for ((i) = (size); (i)-- > 0;)
#define LOOPB(i, size) for ((i) = (size); (i)-- > 0;)
#define LOOPF(i, size) for ((i) = 0; (i) < (size); (i)++)

/* strncpy that always leaves a NUL in the last byte of the LEN-byte buffer. */
#define STRNCPY(S1, S2, LEN) (strncpy((S1), (S2), (LEN)), ((char *)(S1))[(LEN)-1] = '\0')

/* Frees a non-null pointer and nulls it. */
#define FREE(P) \
    if (P) {    \
        free(P);  \
        (P) = NULL; \
    }

/* Zeroed array of N elements of ATYPE (nothing for N <= 0); exits the
 * program when memory is exhausted, as BOA-era callers expect. */
#define CALLOC(memptr, N, ATYPE)                                                   \
    if ((N) > 0 && NULL == ((memptr) = (ATYPE *)calloc((size_t)(N), sizeof(ATYPE)))) { \
        fprintf(stderr, "%s, line %d: out of memory\n", __FILE__, __LINE__);       \
        abort();                                                                   \
    }

/* Resizes memptr to NUM elements of ATYPE (nothing for NUM <= 0); aborts
 * when memory is exhausted. */
#define REALLOC(memptr, NUM, ATYPE)                                                     \
    if ((NUM) > 0) {                                                                    \
        voidptr realloc_tmp_ = realloc((void *)(memptr), sizeof(ATYPE) * (size_t)(NUM)); \
        if (!realloc_tmp_) {                                                            \
            fprintf(stderr, "%s, line %d: out of memory\n", __FILE__, __LINE__);        \
            abort();                                                                    \
        }                                                                               \
        (memptr) = (ATYPE *)realloc_tmp_;                                               \
    }

/* A growable string: the buffer and its allocated size. */
typedef struct {
    char *p;
    int last_alloc;
} stringptr;

#define STRINGPTR_EMPTY_INIT {NULL, 0}

/* Frees s->p (libc free), nulls it and zeroes last_alloc; returns 0. */
int stringptr_free(stringptr *s);

#ifdef __cplusplus
}
#endif

#endif /* DEFAULT_HEADER_INCLUDED */
