/* seqshim: BOA / POA v2 data structures (x86-64 layout, libseqshim ABI).
 * Layout-identical to the structures BOA-era CONSENT and BMEAN were built
 * against; sizes are checked in ffi-tests/poa/layout.c. */
#ifndef POA_HEADER_INCLUDED
#define POA_HEADER_INCLUDED

#ifndef TRUNCATE_GAP_LENGTH
#define TRUNCATE_GAP_LENGTH 16 /* gap-length states tracked by the aligner */
#endif
#ifndef DECAY_GAP_LENGTH
#define DECAY_GAP_LENGTH 0
#endif

#define INVALID_LETTER_POSITION (-1) /* "no letter" in links and sources */
#define NO_BUNDLE (-1)
#define ALL_BUNDLES (-1)
#define SEQUENCE_NAME_MAX 128   /* name buffers, NUL included */
#define SEQUENCE_BUFFER_CHUNK 8 /* create_seq grows arrays by this many */
#define SOURCE_SEQ_BUFFER_CHUNK 16
#define LPO_LETTER_BUFFER_CHUNK 64
#define POA_MAX_ALLOC 300000000 /* fusion stops past this DP size */

typedef int LPOLetterRef_T;
typedef int LPOScore_T;
typedef LPOScore_T ResidueScore_T;
#define RESIDUE_SCORE_DEFINED

/* One sequence position carried by a letter; the first entry is stored in
 * the letter, further ones are heap nodes chained through `more`. */
typedef struct LPOLetterSource_S {
    int iseq;
    LPOLetterRef_T ipos;
    struct LPOLetterSource_S *more;
} LPOLetterSource_T;

/* One edge. `score` exists in the weighted-links build; in the other build
 * the same 4 bytes are padding, so the layout is the same either way. */
typedef struct LPOLetterLink_S {
    LPOLetterRef_T ipos;
#ifdef USE_WEIGHTED_LINKS
    LPOScore_T score;
#endif
    struct LPOLetterLink_S *more;
} LPOLetterLink_T;

typedef struct LPOLetter_S {
    LPOLetterLink_T left;      /* predecessors */
    LPOLetterLink_T right;     /* successors */
    LPOLetterSource_T source;  /* sequences passing through */
    LPOLetterRef_T align_ring; /* next letter aligned with this one */
    LPOLetterRef_T ring_id;    /* smallest index on the ring = MSA column */
    float score;
    char letter;               /* symbol index into the score matrix */
} LPOLetter_T;

typedef struct LPONumericData_S {
    char name[SEQUENCE_NAME_MAX];
    char *title;
    double *data;
} LPONumericData_T;

typedef struct LPOSourceInfo_S {
    char name[SEQUENCE_NAME_MAX];
    char *title;
    char *sequence;
    int *seq_to_po;
    int *po_to_seq;
    LPONumericData_T *data;
    int ndata;
    int length;
    int istart;
    int weight;    /* heaviest-bundle weight */
    int bundle_id; /* NO_BUNDLE or the bundle it belongs to */
} LPOSourceInfo_T;

typedef struct LPOSequence_S {
    int length;          /* number of letters */
    LPOLetter_T *letter;
    char *title;
    char *sequence;
    char name[SEQUENCE_NAME_MAX];
    int nsource_seq;
    LPOSourceInfo_T *source_seq;
} LPOSequence_T;

typedef LPOSequence_T Sequence_T;

#endif /* POA_HEADER_INCLUDED */
