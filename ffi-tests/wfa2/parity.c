/*
 * A WFA2-lib 2.3.3 client, built against the distribution's headers and
 * linked to its libwfa2.so.0. The test runs it as is, with seqshim standing
 * in as libwfa2.so.0, and with seqshim preloaded; the three outputs must be
 * byte-identical.
 *
 *   parity random PAIRS SEED   random pairs over every configuration
 *   parity edge                edge-case sequences over every configuration
 *   parity misc                data objects, printing, CIGAR helpers, resume
 *   parity threads THREADS PAIRS SEED   one aligner per thread
 *   parity matchfn PAIRS SEED  a custom match function (N matches anything)
 *   parity memory SEED         max_memory_abort: always and never exceeded
 *   parity limits SEED         max_alignment_score, BiWFA included
 *
 * Lines start with the configuration name so mismatches can be counted per
 * configuration. Full alignments carry the CIGAR and our own verdict on it
 * (valid, and rescoring to the reported score).
 */
#include "utils/commons.h"
#include "wavefront/wfa.h"
#include "utils/sequence_buffer.h"
#include "utils/dna_text.h"
#include "alignment/score_matrix.h"

#include <dlfcn.h>
#include <pthread.h>

/* ------------------------------------------------------------ random data */

static uint64_t splitmix(uint64_t* s) {
  uint64_t z = (*s += 0x9E3779B97F4A7C15ull);
  z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ull;
  z = (z ^ (z >> 27)) * 0x94D049BB133111EBull;
  return z ^ (z >> 31);
}

static double unit(uint64_t* s) { return (double)(splitmix(s) >> 11) / 9007199254740992.0; }

typedef struct {
  char* pattern;
  int plen;
  char* text;
  int tlen;
} pair_t;

static const char BASES[] = "ACGT";

static void random_pair(uint64_t* s, pair_t* p) {
  const double r = unit(s);
  int len;
  if (r < 0.70) len = (int)(unit(s) * 300);
  else if (r < 0.95) len = 300 + (int)(unit(s) * 2700);
  else len = 3000 + (int)(unit(s) * 17000);
  /* Divergence 0-30 %, capped for long pairs so exact high-memory runs stay
   * small: roughly at most 600 edits. */
  double cap = 0.30;
  if (len > 0 && 600.0 / len < cap) cap = 600.0 / len;
  const double err = unit(s) * cap;
  p->pattern = malloc((size_t)len + 1);
  p->text = malloc((size_t)len * 2 + 2);
  for (int i = 0; i < len; ++i) p->pattern[i] = BASES[splitmix(s) & 3];
  p->pattern[len] = 0;
  int t = 0;
  for (int i = 0; i < len; ++i) {
    if (unit(s) < err) {
      switch (splitmix(s) % 3) {
        case 0: p->text[t++] = BASES[splitmix(s) & 3]; break;          /* substitution */
        case 1: p->text[t++] = BASES[splitmix(s) & 3];                 /* insertion */
                p->text[t++] = p->pattern[i]; break;
        default: break;                                                 /* deletion */
      }
    } else {
      p->text[t++] = p->pattern[i];
    }
  }
  p->text[t] = 0;
  p->plen = len;
  p->tlen = t;
}

static void fixed_pair(pair_t* p, const char* pattern, const char* text) {
  p->plen = (int)strlen(pattern);
  p->tlen = (int)strlen(text);
  p->pattern = strdup(pattern);
  p->text = strdup(text);
}

static char* repeat(const char* unit_, int times) {
  const size_t n = strlen(unit_);
  char* out = malloc(n * (size_t)times + 1);
  for (int i = 0; i < times; ++i) memcpy(out + n * (size_t)i, unit_, n);
  out[n * (size_t)times] = 0;
  return out;
}

static int edge_pairs(pair_t** out) {
  static const char* const fixed[][2] = {
    {"", ""}, {"", "ACGT"}, {"ACGT", ""}, {"A", "A"}, {"A", "C"}, {"A", ""}, {"", "G"},
    {"ACGTNNNNACGT", "ACGTNNNNACGT"}, {"ACGTNNNNACGT", "ACGTAAAAACGT"},
    {"acgtacgtac", "ACGTACGTAC"}, {"acgtACGTac", "acgtACTTac"},
    {"TCTTTACTCGCGCGTTGGAGAAATACAATAGT", "TCTATACTGCGCGTTTGGAGAAATAAAATAGT"},
    {"ACGTACGTTT", "GGGGGACGTACGTTTCCCCC"}, {"GATTACA", "GATTACAGATTACAGATTACA"},
    {"AAAAAAAAAAAAAAAAAAAAAAAAAAAAAA", "A"}, {"ACGT", "TGCA"},
  };
  const int nfixed = (int)(sizeof(fixed) / sizeof(fixed[0]));
  pair_t* pairs = calloc((size_t)nfixed + 2, sizeof(pair_t));
  for (int i = 0; i < nfixed; ++i) fixed_pair(&pairs[i], fixed[i][0], fixed[i][1]);
  /* Pattern much longer than text, and the reverse. */
  char* longp = repeat("ACGGTCATTG", 100);
  fixed_pair(&pairs[nfixed], longp, "ACGGTCATTG");
  fixed_pair(&pairs[nfixed + 1], "CATTGACGG", longp);
  free(longp);
  *out = pairs;
  return nfixed + 2;
}

/* ------------------------------------------------------------ configurations */

enum { H_NONE, H_WFADAPTIVE, H_WFMASH, H_XDROP, H_ZDROP, H_BANDED_STATIC, H_BANDED_ADAPTIVE,
       H_COUNT };
static const char* const HNAMES[] = {"none", "wfadaptive", "wfmash", "xdrop", "zdrop",
                                     "bandstatic", "bandadaptive"};
static const char* const MNAMES[] = {"indel", "edit", "linear", "affine", "affine2p"};
static const char* const MEMNAMES[] = {"high", "med", "low", "ultralow"};

typedef struct {
  int metric, endsfree, memory, heuristic;
  int match; /* 0 or negative */
} config_t;

/* Set while running the edge cases. */
static bool g_edge = false;

static bool config_valid(const config_t* c) {
  /* 2.3.3 exits on these. */
  if (c->memory == wavefront_memory_ultralow && c->endsfree) return false;
  if ((c->heuristic == H_XDROP || c->heuristic == H_ZDROP) && c->metric <= edit) return false;
  /* 2.3.3's BiWFA crashes with wfmash, drops and bands on pairs of very different
   * lengths (the edge cases); the random pairs have similar lengths. */
  if (c->memory == wavefront_memory_ultralow && c->heuristic >= H_WFMASH && g_edge) return false;
  /* 2.3.3's adaptive band corrupts its heap on random pairs. */
  if (c->heuristic == H_BANDED_ADAPTIVE) return false;
  /* 2.3.3 reads out of bounds in ends-free mode with a negative match score. */
  if (c->match && c->endsfree) return false;
  return true;
}

static void config_name(const config_t* c, int scope, char* buf, size_t n) {
  snprintf(buf, n, "%s%s/%s/%s/%s/%s", MNAMES[c->metric], c->match ? "-m" : "",
           c->endsfree ? "endsfree" : "end2end", MEMNAMES[c->memory], HNAMES[c->heuristic],
           scope == compute_score ? "score" : "alg");
}

static wavefront_aligner_t* make_aligner(const config_t* c, int scope) {
  wavefront_aligner_attr_t attr = wavefront_aligner_attr_default;
  attr.distance_metric = (distance_metric_t)c->metric;
  attr.alignment_scope = (alignment_scope_t)scope;
  attr.memory_mode = (wavefront_memory_t)c->memory;
  attr.linear_penalties.match = c->match;
  attr.linear_penalties.mismatch = 4;
  attr.linear_penalties.indel = 2;
  attr.affine_penalties.match = c->match;
  attr.affine_penalties.mismatch = 4;
  attr.affine_penalties.gap_opening = 6;
  attr.affine_penalties.gap_extension = 2;
  attr.affine2p_penalties.match = c->match;
  attr.affine2p_penalties.mismatch = 4;
  attr.affine2p_penalties.gap_opening1 = 6;
  attr.affine2p_penalties.gap_extension1 = 2;
  attr.affine2p_penalties.gap_opening2 = 24;
  attr.affine2p_penalties.gap_extension2 = 1;
  attr.heuristic.strategy = wf_heuristic_none;
  wavefront_aligner_t* wf = wavefront_aligner_new(&attr);
  switch (c->heuristic) {
    case H_WFADAPTIVE: wavefront_aligner_set_heuristic_wfadaptive(wf, 10, 50, 1); break;
    case H_WFMASH: wavefront_aligner_set_heuristic_wfmash(wf, 10, 50, 1); break;
    case H_XDROP: wavefront_aligner_set_heuristic_xdrop(wf, 100, 1); break;
    case H_ZDROP: wavefront_aligner_set_heuristic_zdrop(wf, 100, 1); break;
    case H_BANDED_STATIC: wavefront_aligner_set_heuristic_banded_static(wf, -60, 60); break;
    case H_BANDED_ADAPTIVE: wavefront_aligner_set_heuristic_banded_adaptive(wf, -40, 40, 1); break;
    default: break;
  }
  return wf;
}

/* ------------------------------------------------------------ verdicts */

/* Our own rescoring, in the library's sign convention. */
static long rescore(const config_t* c, const char* ops, int n) {
  long score = 0;
  int i = 0;
  while (i < n) {
    int j = i;
    while (j < n && ops[j] == ops[i]) ++j;
    const long run = j - i;
    const char op = ops[i];
    switch (c->metric) {
      case indel: if (op == 'X') return LONG_MIN; if (op != 'M') score += run; break;
      case edit: if (op != 'M') score += run; break;
      case gap_linear:
        score -= op == 'M' ? c->match * run : op == 'X' ? 4 * run : 2 * run; break;
      case gap_affine:
        score -= op == 'M' ? c->match * run : op == 'X' ? 4 * run : 6 + 2 * run; break;
      default: {
        long gap = 6 + 2 * run;
        if (24 + run < gap) gap = 24 + run;
        score -= op == 'M' ? c->match * run : op == 'X' ? 4 * run : gap;
      }
    }
    i = j;
  }
  return score;
}

static bool valid(const pair_t* p, const char* ops, int n) {
  int v = 0, h = 0;
  for (int i = 0; i < n; ++i) {
    switch (ops[i]) {
      case 'M': if (v >= p->plen || h >= p->tlen || p->pattern[v] != p->text[h]) return false;
                ++v; ++h; break;
      case 'X': if (v >= p->plen || h >= p->tlen || p->pattern[v] == p->text[h]) return false;
                ++v; ++h; break;
      case 'I': ++h; break;
      case 'D': ++v; break;
      default: return false;
    }
  }
  return v == p->plen && h == p->tlen;
}

/* Appends one result line to `out`. */
static void report(char** out, size_t* len, size_t* cap, const char* name, int idx,
                   const config_t* c, int scope, const pair_t* p, wavefront_aligner_t* wf,
                   int status) {
  cigar_t* const cg = wf->cigar;
  const int n = cg->end_offset - cg->begin_offset;
  const char* ops = cg->operations + cg->begin_offset;
  size_t need = (size_t)(n > 0 ? n : 0) * 8 + 256 + strlen(name);
  if (*len + need > *cap) {
    *cap = (*len + need) * 2;
    *out = realloc(*out, *cap);
  }
  char* w = *out + *len;
  w += sprintf(w, "%s #%d status=%d score=%d", name, idx, status, cg->score);
  if (status == WF_STATUS_SUCCESSFUL && scope == compute_alignment) {
    w += sprintf(w, " [%d,%d) ", cg->begin_offset, cg->end_offset);
    w += cigar_sprint(w, cg, true);
    /* Our own verdict too, so that a wrong CIGAR shows even where the
     * library under test is the reference. */
    w += sprintf(w, " valid=%d rescored=%s", valid(p, ops, n),
                 rescore(c, ops, n) == cg->score ? "same" : "different");
  }
  *w++ = '\n';
  *len = (size_t)(w - *out);
}

/* ------------------------------------------------------------ runs */

typedef struct {
  char* out;
  size_t len, cap;
} buffer_t;

static void set_span(wavefront_aligner_t* wf, const config_t* c, const pair_t* p) {
  /* Bands keep the final diagonal inside: with it outside, 2.3.3 runs on
   * to the maximum score and beyond its wavefront table. */
  const int k_end = p->tlen - p->plen;
  if (c->heuristic == H_BANDED_STATIC) {
    wavefront_aligner_set_heuristic_banded_static(wf, MIN(-60, k_end - 60), MAX(60, k_end + 60));
  } else if (c->heuristic == H_BANDED_ADAPTIVE) {
    wavefront_aligner_set_heuristic_banded_adaptive(wf, MIN(-40, k_end - 40), MAX(40, k_end + 40), 1);
  }
  if (c->endsfree) {
    wavefront_aligner_set_alignment_free_ends(wf, p->plen / 10, p->plen / 8, p->tlen / 10,
                                              p->tlen / 8);
  } else {
    wavefront_aligner_set_alignment_end_to_end(wf);
  }
}

static void flush(buffer_t* b) {
  fwrite(b->out, 1, b->len, stdout);
  fflush(stdout);
  b->len = 0;
}

/* Aligns every pair under every valid configuration, one aligner per
 * configuration and scope, reused across pairs as real clients do. */
static void run_all(pair_t* pairs, int npairs, buffer_t* b) {
  char name[128];
  for (int metric = 0; metric <= gap_affine_2p; ++metric)
  for (int match = 0; match >= (metric >= gap_linear ? -1 : 0); --match)
  for (int endsfree = 0; endsfree <= 1; ++endsfree)
  for (int memory = 0; memory <= wavefront_memory_ultralow; ++memory)
  for (int heuristic = 0; heuristic < H_COUNT; ++heuristic)
  for (int scope = compute_score; scope <= compute_alignment; ++scope) {
    const config_t c = {metric, endsfree, memory, heuristic, match};
    if (!config_valid(&c)) continue;
    config_name(&c, scope, name, sizeof(name));
    wavefront_aligner_t* wf = make_aligner(&c, scope);
    for (int i = 0; i < npairs; ++i) {
      /* Negative match scores only on a third of the pairs, to bound time. */
      if (match && i % 3) continue;
      set_span(wf, &c, &pairs[i]);
      const int status = wavefront_align(wf, pairs[i].pattern, pairs[i].plen, pairs[i].text,
                                         pairs[i].tlen);
      report(&b->out, &b->len, &b->cap, name, i, &c, scope, &pairs[i], wf, status);
    }
    wavefront_aligner_delete(wf);
    flush(b);
  }
}


static int random_pairs(int n, uint64_t seed, pair_t** out) {
  pair_t* pairs = calloc((size_t)n, sizeof(pair_t));
  for (int i = 0; i < n; ++i) random_pair(&seed, &pairs[i]);
  *out = pairs;
  return n;
}

static void free_pairs(pair_t* pairs, int n) {
  for (int i = 0; i < n; ++i) {
    free(pairs[i].pattern);
    free(pairs[i].text);
  }
  free(pairs);
}

/* ------------------------------------------------------------ match function */

/* The client's own comparison: N matches anything. It must stop at the ends
 * itself, as the library then never looks at the sequences. */
static int match_n(int v, int h, void* args) {
  const pair_t* const p = args;
  if (v >= p->plen || h >= p->tlen) return 0;
  const char a = p->pattern[v], b = p->text[h];
  return a == b || a == 'N' || b == 'N';
}

/* Random pairs of up to 2 kbp with 3 % Ns on either side, aligned with the
 * sequences passed as NULL (they are never read) under every configuration
 * 2.3.3 supports with a match function: its BiWFA only aligns pairs of at
 * most 100 bases with one (it crashes otherwise). */
static void match_funct_runs(int npairs, uint64_t seed, buffer_t* b) {
  pair_t* pairs = calloc((size_t)npairs, sizeof(pair_t));
  for (int i = 0; i < npairs;) {
    random_pair(&seed, &pairs[i]);
    if (pairs[i].plen > 2000) {
      free(pairs[i].pattern);
      free(pairs[i].text);
      continue;
    }
    for (int j = 0; j < pairs[i].plen; ++j) if (unit(&seed) < 0.03) pairs[i].pattern[j] = 'N';
    for (int j = 0; j < pairs[i].tlen; ++j) if (unit(&seed) < 0.03) pairs[i].text[j] = 'N';
    ++i;
  }
  char name[160];
  for (int metric = 0; metric <= gap_affine_2p; ++metric)
  for (int match = 0; match >= (metric >= gap_linear ? -1 : 0); --match)
  for (int endsfree = 0; endsfree <= 1; ++endsfree)
  for (int memory = 0; memory <= wavefront_memory_ultralow; ++memory)
  for (int heuristic = 0; heuristic <= H_WFADAPTIVE; ++heuristic)
  for (int scope = compute_score; scope <= compute_alignment; ++scope) {
    const config_t c = {metric, endsfree, memory, heuristic, match};
    if (!config_valid(&c)) continue;
    if (memory == wavefront_memory_ultralow && scope == compute_score) continue;
    config_name(&c, scope, name, sizeof(name));
    strcat(name, "/matchfn");
    wavefront_aligner_t* wf = make_aligner(&c, scope);
    for (int i = 0; i < npairs; ++i) {
      pair_t* const p = &pairs[i];
      if (memory == wavefront_memory_ultralow && MAX(p->plen, p->tlen) > 100) continue;
      set_span(wf, &c, p);
      wavefront_aligner_set_match_funct(wf, match_n, p);
      const int status = wavefront_align(wf, NULL, p->plen, NULL, p->tlen);
      cigar_t* const cg = wf->cigar;
      char* line = malloc((size_t)(cg->end_offset - cg->begin_offset) * 8 + 256);
      char* w = line + sprintf(line, "%s #%d status=%d score=%d", name, i, status, cg->score);
      if (status == WF_STATUS_SUCCESSFUL && scope == compute_alignment) {
        w += sprintf(w, " [%d,%d) ", cg->begin_offset, cg->end_offset);
        w += cigar_sprint(w, cg, true);
      }
      *w++ = '\n';
      *w = 0;
      const size_t n = (size_t)(w - line);
      if (b->len + n > b->cap) {
        b->cap = (b->len + n) * 2;
        b->out = realloc(b->out, b->cap);
      }
      memcpy(b->out + b->len, line, n);
      b->len += n;
      free(line);
    }
    wavefront_aligner_delete(wf);
    flush(b);
  }
  free_pairs(pairs, npairs);
}

/* ------------------------------------------------------------ memory limit */

/* A pair of `len` bases at divergence `err` (no cap: long noisy pairs reach
 * the scores at which 2.3.3 probes its memory, multiples of 3000). */
static void noisy_pair(uint64_t* s, pair_t* p, int len, double err) {
  p->pattern = malloc((size_t)len + 1);
  p->text = malloc((size_t)len * 2 + 2);
  for (int i = 0; i < len; ++i) p->pattern[i] = BASES[splitmix(s) & 3];
  int t = 0;
  for (int i = 0; i < len; ++i) {
    if (unit(s) < err) {
      switch (splitmix(s) % 3) {
        case 0: p->text[t++] = BASES[splitmix(s) & 3]; break;
        case 1: p->text[t++] = BASES[splitmix(s) & 3]; p->text[t++] = p->pattern[i]; break;
        default: break;
      }
    } else {
      p->text[t++] = p->pattern[i];
    }
  }
  p->pattern[len] = 0;
  p->text[t] = 0;
  p->plen = len;
  p->tlen = t;
}

/* The memory limit only decides anything where the library measures memory
 * in its own way, so the limits are 1 byte (exceeded at the first probe) and
 * 1 TiB (never). */
static void memory_runs(uint64_t seed, buffer_t* b) {
  enum { N = 5 };
  static const int lens[N] = {300, 2000, 6000, 9000, 9000};
  static const double errs[N] = {0.1, 0.1, 0.1, 0.05, 0.15};
  pair_t pairs[N];
  for (int i = 0; i < N; ++i) noisy_pair(&seed, &pairs[i], lens[i], errs[i]);
  static const uint64_t limits[2] = {1, (uint64_t)1 << 40};
  char name[160];
  for (int metric = edit; metric <= gap_affine_2p; ++metric)
  for (int memory = 0; memory <= wavefront_memory_ultralow; ++memory)
  for (int scope = compute_score; scope <= compute_alignment; ++scope)
  for (int l = 0; l < 2; ++l) {
    const config_t c = {metric, 0, memory, H_NONE, 0};
    config_name(&c, scope, name, sizeof(name));
    sprintf(name + strlen(name), "/abort=%llu", (unsigned long long)limits[l]);
    wavefront_aligner_t* wf = make_aligner(&c, scope);
    wavefront_aligner_set_max_memory(wf, (uint64_t)1 << 30, limits[l]);
    for (int i = 0; i < N; ++i) {
      const int status = wavefront_align(wf, pairs[i].pattern, pairs[i].plen, pairs[i].text,
                                         pairs[i].tlen);
      report(&b->out, &b->len, &b->cap, name, i, &c, scope, &pairs[i], wf, status);
    }
    wavefront_aligner_delete(wf);
    flush(b);
  }
  for (int i = 0; i < N; ++i) {
    free(pairs[i].pattern);
    free(pairs[i].text);
  }
}

/* ------------------------------------------------------------ score limit */

/* Score limits below, around and above the pairs' scores, for every memory
 * mode: BiWFA stops on the sum of its two directions' scores, and its base
 * cases on their own. */
static void limit_runs(uint64_t seed, buffer_t* b) {
  enum { N = 6 };
  static const int lens[N] = {80, 150, 400, 1200, 3000, 3000};
  static const double errs[N] = {0.1, 0.2, 0.1, 0.05, 0.02, 0.1};
  pair_t pairs[N];
  for (int i = 0; i < N; ++i) noisy_pair(&seed, &pairs[i], lens[i], errs[i]);
  static const int limits[] = {10, 100, 400, 1500};
  char name[160];
  for (int metric = 0; metric <= gap_affine_2p; ++metric)
  for (int memory = 0; memory <= wavefront_memory_ultralow; ++memory)
  for (int heuristic = 0; heuristic <= H_WFADAPTIVE; ++heuristic)
  for (int scope = compute_score; scope <= compute_alignment; ++scope)
  for (int l = 0; l < (int)(sizeof(limits) / sizeof(limits[0])); ++l) {
    const config_t c = {metric, 0, memory, heuristic, 0};
    config_name(&c, scope, name, sizeof(name));
    sprintf(name + strlen(name), "/max=%d", limits[l]);
    wavefront_aligner_t* wf = make_aligner(&c, scope);
    wavefront_aligner_set_max_alignment_score(wf, limits[l]);
    for (int i = 0; i < N; ++i) {
      const int status = wavefront_align(wf, pairs[i].pattern, pairs[i].plen, pairs[i].text,
                                         pairs[i].tlen);
      report(&b->out, &b->len, &b->cap, name, i, &c, scope, &pairs[i], wf, status);
      /* What a failed BiWFA leaves in the CIGAR is part of the contract too. */
      if (status != WF_STATUS_SUCCESSFUL && scope == compute_alignment) {
        cigar_t* const cg = wf->cigar;
        char* line = malloc((size_t)(cg->end_offset > 0 ? cg->end_offset : 0) * 8 + 64);
        int n = sprintf(line, "  left [%d,%d) ", cg->begin_offset, cg->end_offset);
        n += cigar_sprint(line + n, cg, true);
        line[n++] = '\n';
        if (b->len + (size_t)n > b->cap) {
          b->cap = (b->len + (size_t)n) * 2;
          b->out = realloc(b->out, b->cap);
        }
        memcpy(b->out + b->len, line, (size_t)n);
        b->len += (size_t)n;
        free(line);
      }
    }
    wavefront_aligner_delete(wf);
    flush(b);
  }
  for (int i = 0; i < N; ++i) {
    free(pairs[i].pattern);
    free(pairs[i].text);
  }
}

/* ------------------------------------------------------------ misc */

static void print_cigar_state(const char* what, cigar_t* c) {
  printf("%s: [%d,%d) score=%d ", what, c->begin_offset, c->end_offset, c->score);
  cigar_print(stdout, c, true);
  printf(" | ");
  cigar_print(stdout, c, false);
  printf("\n");
}

static void misc(void) {
  /* The defaults, byte for byte (a copy relocation brings them here). */
  const unsigned char* bytes = (const unsigned char*)&wavefront_aligner_attr_default;
  printf("attr_default:");
  for (size_t i = 0; i < sizeof(wavefront_aligner_attr_default); ++i) printf("%02x", bytes[i]);
  printf("\n");
  for (int code = -3; code <= 0; ++code) printf("strerror(%d)=%s\n", code, wavefront_align_strerror(code));
  printf("wf_error_msg[4]=%s\n", wf_error_msg[4] == NULL ? "NULL" : "set");

  /* Display helpers. */
  for (int memory = 0; memory <= 3; ++memory) {
    wavefront_aligner_attr_t attr = wavefront_aligner_attr_default;
    attr.memory_mode = (wavefront_memory_t)memory;
    attr.alignment_scope = memory == 2 ? compute_score : compute_alignment;
    wavefront_aligner_t* wf = wavefront_aligner_new(&attr);
    if (memory == 1) wavefront_aligner_set_alignment_free_ends(wf, 1, 2, 3, 4);
    wavefront_aligner_print_type(stdout, wf);
    printf(" ");
    wavefront_aligner_print_scope(stdout, wf);
    printf(" ");
    wavefront_aligner_print_mode(stdout, wf);
    printf(" align_mode=%d bialigner=%s cigar.max=%d penalties=%d,%d,%d,%d,%d,%d,%d\n",
           wf->align_mode, wf->bialigner ? "set" : "NULL", wf->cigar->max_operations,
           wf->penalties.distance_metric, wf->penalties.match, wf->penalties.mismatch,
           wf->penalties.gap_opening1, wf->penalties.gap_extension1,
           wf->penalties.gap_opening2, wf->penalties.gap_extension2);
    wavefront_aligner_delete(wf);
  }

  /* NULL attributes = the current default; its heuristic fields as set. */
  wavefront_aligner_t* wf = wavefront_aligner_new(NULL);
  printf("heuristic: %d %d %d %d %d %d\n", (int)wf->heuristic.strategy,
         wf->heuristic.steps_between_cutoffs, wf->heuristic.min_wavefront_length,
         wf->heuristic.max_distance_threshold, wf->system.max_alignment_score,
         wf->system.max_num_threads);
  wavefront_aligner_set_heuristic_wfadaptive(wf, 5, 20, 3);
  wavefront_aligner_set_heuristic_banded_static(wf, -7, 9);
  printf("heuristic after setters: %#x %d %d %d %d %d\n", (unsigned)wf->heuristic.strategy,
         wf->heuristic.steps_between_cutoffs, wf->heuristic.min_k, wf->heuristic.max_k,
         wf->heuristic.min_wavefront_length, wf->heuristic.max_distance_threshold);
  wavefront_aligner_set_heuristic_none(wf);
  const char* p = "TCTTTACTCGCGCGTTGGAGAAATACAATAGT";
  const char* t = "TCTATACTGCGCGTTTGGAGAAATAAAATAGT";
  int status = wavefront_align(wf, p, 32, t, 32);
  printf("status=%d ", status);
  print_cigar_state("aligned", wf->cigar);
  cigar_print_pretty(stdout, p, 32, t, 32, wf->cigar, wf->mm_allocator);
  fflush(stdout);

  /* Max score, then resume. */
  wavefront_aligner_set_max_alignment_score(wf, 5);
  status = wavefront_align(wf, p, 32, t, 32);
  printf("max-score status=%d (%s) ", status, wavefront_align_strerror(status));
  print_cigar_state("paused", wf->cigar);
  wavefront_aligner_set_max_alignment_score(wf, 12);
  status = wavefront_align_resume(wf);
  printf("resume(12) status=%d\n", status);
  wavefront_aligner_set_max_alignment_score(wf, 1000);
  status = wavefront_align_resume(wf);
  printf("resume(1000) status=%d ", status);
  print_cigar_state("resumed", wf->cigar);

  /* Unfeasible under a narrow band. */
  wavefront_aligner_set_heuristic_banded_static(wf, -1, 1);
  status = wavefront_align(wf, "ACGTACGTAC", 10, "ACGTACGTACGTACGTACGTACGTACGTAC", 30);
  printf("banded status=%d (%s) score=%d\n", status, wavefront_align_strerror(status), wf->cigar->score);
  wavefront_aligner_set_heuristic_none(wf);

  /* The stale begin-free quirk is left out: 2.3.3 reads cells it never
   * initialised there. Ends-free then end-to-end without stale values: */
  wavefront_aligner_set_alignment_free_ends(wf, 0, 0, 10, 10);
  status = wavefront_align(wf, "ACGTACGTTT", 10, "GGGGGACGTACGTTTCCCCC", 20);
  printf("endsfree status=%d ", status);
  print_cigar_state("endsfree", wf->cigar);
  /* add_mismatches on the aligner's own CIGAR (high memory: it ends at the
   * end of its buffer), X turned back into M first. */
  status = wavefront_align(wf, "ACGTACGTTTGCA", 13, "ACGAACGTTTGCA", 13);
  for (int i = wf->cigar->begin_offset; i < wf->cigar->end_offset; ++i)
    if (wf->cigar->operations[i] == 'X') wf->cigar->operations[i] = 'M';
  cigar_add_mismatches((char*)"ACGTACGTTTGCA", 13, (char*)"ACGAACGTTTGCA", 13, wf->cigar);
  printf("remarked status=%d ", status);
  print_cigar_state("remarked", wf->cigar);

  /* CIGAR helpers on our own CIGARs. */
  mm_allocator_t* mm = mm_allocator_new(BUFFER_SIZE_4K);
  cigar_t* a = cigar_new(64, mm);
  cigar_t* b = cigar_new(64, mm);
  print_cigar_state("new", a);
  cigar_append_deletion(a, 2);
  cigar_append_insertion(a, 3);
  memcpy(a->operations + a->end_offset, "MMXM", 4);
  a->end_offset += 4;
  cigar_copy(b, a);
  printf("cmp(copy)=%d\n", cigar_cmp(a, b));
  cigar_append(b, a);
  print_cigar_state("appended", b);
  printf("cmp=%d cmp'=%d matches=%d edit=%d\n", cigar_cmp(a, b), cigar_cmp(b, a),
         cigar_get_matches(b), cigar_score_edit(b));
  linear_penalties_t lp = {-1, 4, 2};
  affine_penalties_t ap = {-1, 4, 6, 2};
  affine2p_penalties_t a2 = {0, 4, 6, 2, 24, 1};
  printf("linear=%d affine=%d affine2p=%d\n", cigar_score_gap_linear(b, &lp),
         cigar_score_gap_affine(b, &ap), cigar_score_gap_affine2p(b, &a2));
  char buf[256];
  int n = cigar_sprint(buf, b, true);
  printf("sprint=%d '%s'", n, buf);
  n = cigar_sprint(buf, b, false);
  printf(" '%s' (%d)\n", buf, n);
  /* check_alignment: good, bad match, bad length. */
  cigar_clear(a);
  memcpy(a->operations, "MMMIMM", 6);
  a->end_offset = 6;
  printf("check=%d\n", cigar_check_alignment(stdout, "ACGTA", 5, "ACGGTA", 6, a, true));
  printf("check=%d\n", cigar_check_alignment(stdout, "ACTTA", 5, "ACGGTA", 6, a, true));
  printf("check=%d\n", cigar_check_alignment(stdout, "ACGT", 4, "ACGGTA", 6, a, true));
  memcpy(a->operations, "MMXIMM", 6);
  printf("check=%d\n", cigar_check_alignment(stdout, "ACGTA", 5, "ACGGTA", 6, a, true));
  /* add_mismatches on an M/I/D CIGAR. */
  memcpy(a->operations, "MMMMD", 5);
  a->end_offset = 5;
  cigar_add_mismatches((char*)"ACTTAG", 6, (char*)"ACGTTA", 6, a);
  print_cigar_state("mismatches", a);
  cigar_resize(a, 1000);
  printf("resized max=%d ", a->max_operations);
  print_cigar_state("resized", a);
  cigar_free(a);
  cigar_free(b);
  mm_allocator_delete(mm);
  wavefront_aligner_reap(wf);
  wavefront_aligner_delete(wf);

  /* The helpers upstream's benchmark harness links. */
  profiler_counter_t counter, reference;
  counter_reset(&counter);
  counter_reset(&reference);
  printf("counter empty: ");
  counter_print(stdout, &counter, &reference, "reads", true);
  const uint64_t samples[] = {3, 1500, 7, 2500000, 42, 9000000000ull};
  for (int i = 0; i < 6; ++i) {
    counter_add(&counter, samples[i]);
    counter_add(&reference, samples[i] * 3);
    printf("counter %d: ", i);
    counter_print(stdout, &counter, &reference, "bp", true);
    printf("counter %d brief: ", i);
    counter_print(stdout, &counter, NULL, "bp", false);
  }
  profiler_timer_t timer;
  memset(&timer, 0, sizeof(timer));
  timer_reset(&timer);
  printf("timer empty: ");
  timer_print(stdout, &timer, NULL);
  const uint64_t laps[] = {800, 45000, 3000000, 2000000000ull, 90000000000ull};
  profiler_timer_t ref_timer = timer;
  for (int i = 0; i < 5; ++i) {
    counter_add(&timer.time_ns, laps[i]);
    counter_add(&ref_timer.time_ns, laps[i] * 2);
    printf("timer %d: ", i);
    timer_print(stdout, &timer, &ref_timer);
  }
  timer_start(&timer);
  timer_stop(&timer);
  printf("timer samples after a lap: %" PRIu64 " running total > 0: %d\n", timer.time_ns.samples,
         timer_get_current_total_ns(&timer) > 0);
  for (int i = 0; i < 5; ++i) {
    const double factors[] = {0.0, 0.25, 1.0, 1.5, 300.7};
    printf("nominal_prop_u32(1000,%g)=%u\n", factors[i], nominal_prop_u32(1000, factors[i]));
  }
  printf("dna tables:");
  for (const char* b = "ACGTNacgtnX-"; *b; ++b) printf(" %c=%d", *b, dna_encode(*b));
  for (int i = 0; i < DNA_EXTENDED_RANGE; ++i) printf(" %d=%c", i, dna_decode(i));
  printf("\n");
  sequence_buffer_t* sb = sequence_buffer_new(2, 4);
  sequence_buffer_add_pair(sb, (char*)"ACGT", 4, (char*)"ACGGT", 5);
  sequence_buffer_add_pair(sb, (char*)"", 0, (char*)"TT", 2);
  sequence_buffer_add_pair(sb, (char*)"GATTACAGATTACA", 14, (char*)"GATTACA", 7);
  printf("sequence buffer: id=%" PRIu64 " used=%" PRIu64 "/%" PRIu64 " bytes=%" PRIu64 "/%" PRIu64
         " max=%d,%d\n", sb->sequence_id, sb->offsets_used, sb->offsets_allocated, sb->buffer_used,
         sb->buffer_allocated, sb->max_pattern_length, sb->max_text_length);
  for (uint64_t i = 0; i < sb->offsets_used; ++i) {
    const sequence_offset_t* o = &sb->offsets[i];
    printf("  pair %" PRIu64 ": %" PRIu64 "+%" PRIu64 " %" PRIu64 "+%" PRIu64 " '%s' '%s' sentinels %c %c\n",
           i, o->pattern_offset, o->pattern_length, o->text_offset, o->text_length,
           sb->buffer + o->pattern_offset, sb->buffer + o->text_offset,
           sb->buffer[o->pattern_offset + o->pattern_length + 1],
           sb->buffer[o->text_offset + o->text_length + 1]);
  }
  sequence_buffer_clear(sb);
  printf("cleared: used=%" PRIu64 " bytes=%" PRIu64 " max=%d\n", sb->offsets_used, sb->buffer_used,
         sb->max_pattern_length);
  sequence_buffer_delete(sb);
  mm_allocator_t* mm2 = mm_allocator_new(BUFFER_SIZE_4M);
  score_matrix_t matrix;
  score_matrix_allocate(&matrix, 5, 7, mm2);
  for (int h = 0; h < 7; ++h)
    for (int v = 0; v < 5; ++v) matrix.columns[h][v] = h * 10 + v;
  printf("score matrix %dx%d corner=%d\n", matrix.num_rows, matrix.num_columns, matrix.columns[6][4]);
  score_matrix_free(&matrix);
  unsigned char* block = mm_allocator_allocate(mm2, 100, true, 64);
  int zero = 1;
  for (int i = 0; i < 100; ++i) zero &= block[i] == 0;
  printf("allocate: zeroed=%d aligned64=%d\n", zero, (int)(((uintptr_t)block % 64) == 0));
  mm_allocator_free(mm2, block);
  mm_allocator_delete(mm2);

  /* Clients that edit the globals in place (as pywfa does): the library
   * must see the program's copy. Last, since it changes the defaults. */
  wavefront_aligner_attr_default.distance_metric = edit;
  wavefront_aligner_attr_default.heuristic.strategy = wf_heuristic_none;
  wf_error_msg[3] = (char*)"patched message";
  wf = wavefront_aligner_new(NULL);
  status = wavefront_align(wf, "ACGT", 4, "AGGT", 4);
  printf("patched globals: metric=%d strategy=%d score=%d strerror=%s\n",
         wf->penalties.distance_metric, (int)wf->heuristic.strategy, wf->cigar->score,
         wavefront_align_strerror(status));
  wavefront_aligner_delete(wf);
}

/* ------------------------------------------------------------ threads */

typedef struct {
  pair_t* pairs;
  int npairs;
  int heuristic;
  buffer_t out;
} job_t;

static void* thread_main(void* arg) {
  job_t* job = arg;
  char name[128];
  for (int memory = 0; memory <= 2; memory += 2) {
    const config_t c = {gap_affine, 0, memory, job->heuristic, 0};
    config_name(&c, compute_alignment, name, sizeof(name));
    wavefront_aligner_t* wf = make_aligner(&c, compute_alignment);
    for (int i = 0; i < job->npairs; ++i) {
      const pair_t* p = &job->pairs[i];
      const int status = wavefront_align(wf, p->pattern, p->plen, p->text, p->tlen);
      report(&job->out.out, &job->out.len, &job->out.cap, name, i, &c, compute_alignment,
             p, wf, status);
    }
    wavefront_aligner_delete(wf);
  }
  return NULL;
}

static int threads(int nthreads, int npairs, uint64_t seed) {
  pair_t* pairs;
  random_pairs(npairs, seed, &pairs);
  job_t* jobs = calloc((size_t)nthreads, sizeof(job_t));
  pthread_t* tids = calloc((size_t)nthreads, sizeof(pthread_t));
  for (int t = 0; t < nthreads; ++t) {
    jobs[t].pairs = pairs;
    jobs[t].npairs = npairs;
    jobs[t].heuristic = t % 2 ? H_WFADAPTIVE : H_NONE;
    if (pthread_create(&tids[t], NULL, thread_main, &jobs[t]) != 0) return 2;
  }
  for (int t = 0; t < nthreads; ++t) pthread_join(tids[t], NULL);
  for (int t = 0; t < nthreads; ++t) {
    printf("thread %d\n", t);
    flush(&jobs[t].out);
    free(jobs[t].out.out);
  }
  free(jobs);
  free(tids);
  free_pairs(pairs, npairs);
  return 0;
}

int main(int argc, char** argv) {
  if (argc < 2) return 2;
  buffer_t b = {NULL, 0, 0};
  if (!strcmp(argv[1], "random") && argc == 4) {
    pair_t* pairs;
    const int n = random_pairs(atoi(argv[2]), strtoull(argv[3], NULL, 10), &pairs);
    run_all(pairs, n, &b);
    flush(&b);
    free_pairs(pairs, n);
  } else if (!strcmp(argv[1], "edge")) {
    g_edge = true;
    pair_t* pairs;
    const int n = edge_pairs(&pairs);
    run_all(pairs, n, &b);
    flush(&b);
    free_pairs(pairs, n);
  } else if (!strcmp(argv[1], "matchfn") && argc == 4) {
    match_funct_runs(atoi(argv[2]), strtoull(argv[3], NULL, 10), &b);
  } else if (!strcmp(argv[1], "limits") && argc == 3) {
    limit_runs(strtoull(argv[2], NULL, 10), &b);
  } else if (!strcmp(argv[1], "memory") && argc == 3) {
    memory_runs(strtoull(argv[2], NULL, 10), &b);
  } else if (!strcmp(argv[1], "provider")) {
    /* Which library is serving us: seqshim exports its own API too. */
    puts(dlsym(RTLD_DEFAULT, "seqshim_version") != NULL ? "seqshim" : "upstream");
  } else if (!strcmp(argv[1], "misc")) {
    misc();
  } else if (!strcmp(argv[1], "threads") && argc == 5) {
    return threads(atoi(argv[2]), atoi(argv[3]), strtoull(argv[4], NULL, 10));
  } else {
    return 2;
  }
  free(b.out);
  return 0;
}
