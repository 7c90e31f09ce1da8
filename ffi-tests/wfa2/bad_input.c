/* Inputs on which WFA2-lib 2.3.3 crashes or corrupts memory: seqshim must
 * refuse them, leave no stale result behind, and keep the process alive.
 * Built with ASan/UBSan; prints one line per check. */
#include <stdio.h>
#include <string.h>

#include "wavefront/wfa.h"

int main(void) {
    char pattern[201], text[201];
    memset(pattern, 'A', 200);
    memset(text, 'C', 200);
    pattern[200] = text[200] = '\0';

    printf("align(NULL aligner): %d\n", wavefront_align(NULL, "ACGT", 4, "ACGT", 4));
    printf("resume(NULL aligner): %d\n", wavefront_align_resume(NULL));
    wavefront_aligner_set_heuristic_none(NULL);
    wavefront_aligner_set_max_alignment_score(NULL, 10);
    wavefront_aligner_reap(NULL);
    wavefront_aligner_print_type(stdout, NULL);
    wavefront_aligner_print_scope(stdout, NULL);
    wavefront_aligner_print_mode(stdout, NULL);
    wavefront_plot_print(stdout, NULL);
    printf("setters, reap, print on a NULL aligner: size %llu\n",
           (unsigned long long)wavefront_aligner_get_size(NULL));

    wavefront_aligner_t *wf = wavefront_aligner_new(NULL);
    int rc = wavefront_align(wf, "ACGTACGT", 8, "ACGAACGT", 8);
    printf("good pair: rc=%d status=%d score=%d\n", rc, wf->align_status.status, wf->cigar->score);
    rc = wavefront_align(wf, pattern, -5, text, 200);
    printf("negative length: rc=%d status=%d ops=%d\n", rc, wf->align_status.status,
           wf->cigar->end_offset - wf->cigar->begin_offset);
    rc = wavefront_align(wf, pattern, 1 << 30, text, 1 << 30);
    printf("lengths past the CIGAR capacity: rc=%d status=%d ops=%d\n", rc, wf->align_status.status,
           wf->cigar->end_offset - wf->cigar->begin_offset);
    wavefront_aligner_delete(wf);

    mm_allocator_t *mm = mm_allocator_new(1 << 20);
    cigar_t *small = cigar_new(4, mm);
    cigar_add_mismatches(pattern, 200, text, 200, small);
    printf("add_mismatches into a 4-op CIGAR: %d..%d\n", small->begin_offset, small->end_offset);
    cigar_append_deletion(small, 100);
    cigar_append_insertion(small, 100);
    printf("appends past the buffer: %d..%d\n", small->begin_offset, small->end_offset);
    cigar_t *big = cigar_new(1000, mm);
    cigar_add_mismatches(pattern, 200, text, 200, big);
    cigar_append(small, big);
    printf("append of 200 ops into 4: %d..%d\n", small->begin_offset, small->end_offset);
    printf("room enough: %d..%d edit=%d\n", big->begin_offset, big->end_offset, cigar_score_edit(big));
    cigar_t *wide = cigar_new(1000, mm);
    cigar_append_deletion(wide, 5);
    cigar_t *narrow = cigar_new(20, mm);
    cigar_copy(narrow, wide);
    cigar_append_deletion(narrow, 500);
    printf("append past a copied capacity: %d..%d max=%d\n", narrow->begin_offset, narrow->end_offset,
           narrow->max_operations);
    cigar_t *padded = cigar_new(20, mm);
    cigar_add_mismatches(pattern, -1000, text, 500, padded);
    printf("add_mismatches, a negative length beside a long one: %d..%d max=%d\n",
           padded->begin_offset, padded->end_offset, padded->max_operations);
    cigar_free(padded);
    cigar_free(wide);
    cigar_free(narrow);
    cigar_clear(NULL);
    printf("NULL cigar: matches=%d edit=%d\n", cigar_get_matches(NULL), cigar_score_edit(NULL));
    cigar_free(small);
    cigar_free(big);
    mm_allocator_delete(mm);
    return 0;
}
