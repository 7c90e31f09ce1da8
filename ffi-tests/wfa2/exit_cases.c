/*
 * Every place where WFA2-lib 2.3.3 calls exit(1): seqshim prints 2.3.3's
 * message and returns a failure value instead, and the process carries on.
 *
 *   exit_cases        all cases in one process (stderr merged into stdout)
 *   exit_cases N      case N alone: 2.3.3 exits 1 after its message,
 *                     seqshim prints the same message and returns
 */
#include "utils/commons.h"
#include "wavefront/wfa.h"

#include <unistd.h>

static void try_penalties(wavefront_aligner_attr_t attr) {
  wavefront_aligner_t* wf = wavefront_aligner_new(&attr);
  printf("-> %s\n", wf == NULL ? "NULL" : "aligner");
  if (wf != NULL) wavefront_aligner_delete(wf);
}

static void case_affine_match(void) {
  wavefront_aligner_attr_t attr = wavefront_aligner_attr_default;
  attr.affine_penalties.match = 1;
  try_penalties(attr);
}

static void case_affine_mismatch(void) {
  wavefront_aligner_attr_t attr = wavefront_aligner_attr_default;
  attr.affine_penalties.mismatch = 0;
  try_penalties(attr);
}

static void case_affine_opening(void) {
  wavefront_aligner_attr_t attr = wavefront_aligner_attr_default;
  attr.affine_penalties.gap_opening = -1;
  try_penalties(attr);
}

static void case_linear_indel(void) {
  wavefront_aligner_attr_t attr = wavefront_aligner_attr_default;
  attr.distance_metric = gap_linear;
  attr.linear_penalties.indel = 0;
  try_penalties(attr);
}

static void case_affine2p_extension(void) {
  wavefront_aligner_attr_t attr = wavefront_aligner_attr_default;
  attr.distance_metric = gap_affine_2p;
  attr.affine2p_penalties.gap_extension2 = 0;
  try_penalties(attr);
}

static wavefront_aligner_t* biwfa(void) {
  wavefront_aligner_attr_t attr = wavefront_aligner_attr_default;
  attr.memory_mode = wavefront_memory_ultralow;
  return wavefront_aligner_new(&attr);
}

/* Ends-free values count for BiWFA whatever the span says. */
static void case_biwfa_endsfree(void) {
  wavefront_aligner_t* wf = biwfa();
  wavefront_aligner_set_alignment_free_ends(wf, 0, 1, 0, 0);
  wavefront_aligner_set_alignment_end_to_end(wf);
  const int status = wavefront_align(wf, "ACGT", 4, "ACGT", 4);
  printf("-> %d score=%d\n", status, wf->cigar->score);
  wavefront_aligner_set_alignment_free_ends(wf, 0, 0, 0, 0);
  wavefront_aligner_set_alignment_end_to_end(wf);
  const int again = wavefront_align(wf, "ACGT", 4, "ACCT", 4);
  printf("afterwards -> %d score=%d\n", again, wf->cigar->score);
  wavefront_aligner_delete(wf);
}

static void case_biwfa_resume(void) {
  wavefront_aligner_t* wf = biwfa();
  wavefront_aligner_set_heuristic_none(wf);
  wavefront_aligner_set_max_alignment_score(wf, 2);
  const int status = wavefront_align(wf, "ACGTACGT", 8, "AGGTACCT", 8);
  printf("paused -> %d\n", status);
  printf("resume -> %d\n", wavefront_align_resume(wf));
  wavefront_aligner_delete(wf);
}

static void case_drop_with_edit(void) {
  wavefront_aligner_attr_t attr = wavefront_aligner_attr_default;
  attr.distance_metric = edit;
  wavefront_aligner_t* wf = wavefront_aligner_new(&attr);
  wavefront_aligner_set_heuristic_xdrop(wf, 10, 1);
  printf("-> %d\n", wavefront_align(wf, "ACGT", 4, "ACGT", 4));
  wavefront_aligner_delete(wf);
}

static void case_endsfree_too_large(void) {
  wavefront_aligner_t* wf = wavefront_aligner_new(NULL);
  wavefront_aligner_set_alignment_free_ends(wf, 5, 0, 0, 0);
  printf("-> %d\n", wavefront_align(wf, "ACGT", 4, "ACGT", 4));
  wavefront_aligner_set_alignment_free_ends(wf, 0, 0, 0, 0);
  const int status = wavefront_align(wf, "ACGT", 4, "AGT", 3);
  printf("then valid -> %d score=%d\n", status, wf->cigar->score);
  wavefront_aligner_delete(wf);
}

static void case_resume_finished(void) {
  wavefront_aligner_t* wf = wavefront_aligner_new(NULL);
  printf("aligned -> %d\n", wavefront_align(wf, "ACGT", 4, "AGT", 3));
  printf("resume -> %d\n", wavefront_align_resume(wf));
  printf("score still %d\n", wf->cigar->score);
  wavefront_aligner_delete(wf);
}

static void case_strerror_internal(void) {
  const char* text = wavefront_align_strerror(1);
  printf("-> %s\n", text == NULL ? "NULL" : "text");
}

static cigar_t* bad_cigar(mm_allocator_t* mm, const char* ops) {
  cigar_t* c = cigar_new(16, mm);
  memcpy(c->operations, ops, strlen(ops));
  c->end_offset = (int)strlen(ops);
  return c;
}

static void case_cigar(int which) {
  mm_allocator_t* mm = mm_allocator_new(BUFFER_SIZE_4K);
  cigar_t* c = bad_cigar(mm, which == 4 ? "MXMM" : which == 5 ? "" : "MMQM");
  affine_penalties_t ap = {0, 4, 6, 2};
  affine2p_penalties_t a2 = {0, 4, 6, 2, 24, 1};
  switch (which) {
    case 0: printf("-> %d\n", cigar_score_gap_affine(c, &ap)); break;
    case 1: printf("-> %d\n", cigar_score_gap_affine2p(c, &a2)); break;
    case 2: printf("-> %d\n", cigar_check_alignment(stdout, "ACGT", 4, "ACGT", 4, c, true)); break;
    case 4:
      cigar_add_mismatches((char*)"ACGT", 4, (char*)"ACGT", 4, c);
      printf("-> end=%d\n", c->end_offset);
      break;
    default: printf("-> %d\n", cigar_score_gap_affine2p(c, &a2)); break;
  }
  cigar_free(c);
  mm_allocator_delete(mm);
}

static void case_cigar_affine(void) { case_cigar(0); }
static void case_cigar_affine2p(void) { case_cigar(1); }
static void case_cigar_check(void) { case_cigar(2); }
static void case_cigar_mismatches(void) { case_cigar(4); }
static void case_cigar_affine2p_empty(void) { case_cigar(5); }

static const struct {
  const char* name;
  void (*run)(void);
} CASES[] = {
  {"affine match>0", case_affine_match},
  {"affine X=0", case_affine_mismatch},
  {"affine O<0", case_affine_opening},
  {"linear I=0", case_linear_indel},
  {"affine2p E2=0", case_affine2p_extension},
  {"biwfa ends-free", case_biwfa_endsfree},
  {"biwfa resume", case_biwfa_resume},
  {"xdrop with edit", case_drop_with_edit},
  {"ends-free too large", case_endsfree_too_large},
  {"resume finished", case_resume_finished},
  {"strerror(1)", case_strerror_internal},
  {"cigar affine unknown op", case_cigar_affine},
  {"cigar affine2p unknown op", case_cigar_affine2p},
  {"cigar check unknown op", case_cigar_check},
  {"cigar add_mismatches X", case_cigar_mismatches},
  {"cigar affine2p empty", case_cigar_affine2p_empty},
};

int main(int argc, char** argv) {
  const int n = (int)(sizeof(CASES) / sizeof(CASES[0]));
  if (argc == 2) {
    const int i = atoi(argv[1]);
    if (i < 0 || i >= n) return 2;
    CASES[i].run();
    return 0;
  }
  setvbuf(stdout, NULL, _IONBF, 0);
  dup2(1, 2);
  for (int i = 0; i < n; ++i) {
    printf("%s: ", CASES[i].name);
    CASES[i].run();
  }
  printf("still running\n");
  return 0;
}
