/* Drives integrations/consent-gpu's executor (poa_gpu_utils::execute_poa
 * on seqshim's POA batch) the way CONSENT-GPU's driver does, with the
 * test's own queue declarations (consent_gpu/tasks_manager.h): an executor
 * thread, two threads queueing windows of all twelve size classes with a
 * small threshold (so the executor also runs in normal mode), then the
 * flush and the end. Every window's rows must equal those of BMEAN's CPU
 * route, the BOA call sequence (create_seq, initialize_seqs_as_lpo,
 * buildup_progressive_lpo, xlate_lpo_to_al) through seqshim's BOA exports.
 *
 * usage: consent_gpu_glue MATRIX (BOA's DNA matrix file)
 * Prints one summary line. */
#include "workers.h"

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>
#include <thread>
#include <vector>

#include "align_score.h"
#include "default.h"
#include "lpo.h"
#include "seq_util.h"

using poa_gpu_utils::Task;
using poa_gpu_utils::TaskType;
using Reads = std::vector<std::string>;

static ResidueScoreMatrix_T matrix;

/* BMEAN's consensus_POA up to the rows: empty reads skipped, each read
   through create_seq from a malloc'ed copy, one LPO per read, fused in
   order, rows translated with '-'. No read at all gives {""}. */
static Reads boa_rows(const Reads &reads) {
  Sequence_T *seq = nullptr;
  int nseq = 0;
  for (const std::string &r : reads) {
    if (r.empty()) continue;
    char *copy = static_cast<char *>(std::malloc(r.size() + 1));
    std::memcpy(copy, r.c_str(), r.size() + 1);
    char name[] = "", title[] = "";
    if (create_seq(nseq, &seq, name, title, copy, dont_switch_case)) ++nseq;
    std::free(copy);
  }
  if (nseq == 0) return Reads(1);
  std::vector<LPOSequence_T *> in(static_cast<std::size_t>(nseq));
  for (int i = 0; i < nseq; ++i) {
    in[static_cast<std::size_t>(i)] = &seq[i];
    initialize_seqs_as_lpo(1, &seq[i], &matrix);
  }
  LPOSequence_T *lpo = buildup_progressive_lpo(nseq, in.data(), &matrix, 0, 0, nullptr,
                                               matrix_scoring_function, 1, 0);
  char **pos = nullptr, *block = nullptr, *include = nullptr;
  int ncol = xlate_lpo_to_al(lpo, matrix.nsymbol, matrix.symbol, 0, '-', &pos, &block, &include);
  Reads rows;
  for (int i = 0; i < lpo->nsource_seq; ++i) rows.emplace_back(pos[i], static_cast<std::size_t>(ncol));
  std::free(block);
  std::free(include);
  std::free(pos);
  for (int i = 0; i < nseq; ++i) free_lpo_sequence(&seq[i], 0);
  std::free(seq);
  return rows;
}

/* xorshift64*: the same windows on every run. */
struct Rng {
  unsigned long long s;
  unsigned long long next() {
    s ^= s >> 12;
    s ^= s << 25;
    s ^= s >> 27;
    return s * 2685821657736338717ULL;
  }
  int below(int n) { return static_cast<int>(next() % static_cast<unsigned long long>(n)); }
};

/* Reads of a window: a random template, each read a copy with about 15 %
   substitutions, insertions and deletions; now and then an empty read. */
static Reads make_window(Rng &rng, int nreads, int maxlen) {
  static const char acgt[] = "ACGT";
  int tlen = 1 + rng.below(maxlen);
  std::string tpl;
  for (int i = 0; i < tlen; ++i) tpl += acgt[rng.below(4)];
  Reads reads;
  for (int r = 0; r < nreads; ++r) {
    std::string s;
    for (char c : tpl) {
      int e = rng.below(100);
      if (e < 5) s += acgt[rng.below(4)];
      else if (e < 10) { s += c; s += acgt[rng.below(4)]; }
      else if (e < 15) continue;
      else s += c;
    }
    if (static_cast<int>(s.size()) > maxlen) s.resize(static_cast<std::size_t>(maxlen));
    if (rng.below(20) == 0) s.clear();
    reads.push_back(s);
  }
  return reads;
}

int main(int argc, char **argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MATRIX\n", argv[0]);
    return 2;
  }
  if (read_score_matrix(argv[1], &matrix) <= 0) {
    std::fprintf(stderr, "cannot read %s\n", argv[1]);
    return 2;
  }

  /* Windows: every class, plus one with no non-empty read. */
  const int sizes[3] = {8, 16, 32}, lens[4] = {31, 63, 127, 255};
  Rng rng{0x9e3779b97f4a7c15ULL};
  std::vector<Reads> windows;
  for (int rep = 0; rep < 12; ++rep)
    for (int w = 0; w < 3; ++w)
      for (int l = 0; l < 4; ++l)
        windows.push_back(make_window(rng, 2 + rng.below(sizes[w] - 1), lens[l]));
  windows.push_back(Reads(3));

  /* CONSENT-GPU's manager state, as the executor receives it. */
  std::mutex q_full_mutex, out_rdy_mutex;
  std::condition_variable q_full_var, out_rdy_var;
  bool is_notified = false, flush_mode = false, processing_required = true;
  TaskType current = poa_gpu_utils::UNDEF, previous = poa_gpu_utils::UNDEF;
  std::vector<poa_gpu_utils::TaskRefs> refs(poa_gpu_utils::kTaskTypes);
  std::vector<Task<Reads>> results;
  std::size_t res_index = 0;
  poa_gpu_utils::SyncMultitaskQueues<Reads> queues(q_full_var, current, is_notified,
                                                   flush_mode, 4);

  std::thread executor([&] {
    poa_gpu_utils::execute_poa(queues, refs, q_full_mutex, out_rdy_mutex, q_full_var,
                               out_rdy_var, is_notified, flush_mode, processing_required,
                               current, previous, results, poa_gpu_utils::kTaskTypes,
                               res_index);
  });

  /* Two enqueuing threads, three windows a call; ids[w] is window w's id. */
  std::vector<long long> ids(windows.size(), -1);
  auto enqueue = [&](std::size_t first) {
    for (std::size_t w = first; w < windows.size(); w += 6) {
      std::vector<Task<Reads>> tasks;
      for (std::size_t k = w; k < w + 3 && k < windows.size(); ++k)
        tasks.emplace_back(0, k, windows[k]);
      long long id = queues.enqueue(tasks, results);
      for (std::size_t k = w; k < w + 3 && k < windows.size(); ++k) ids[k] = id++;
    }
  };
  std::thread a(enqueue, 0), b(enqueue, 3);
  a.join();
  b.join();

  queues.flush();
  {
    std::unique_lock<std::mutex> g(out_rdy_mutex);
    out_rdy_var.wait(g, [&] { return !is_notified; });
  }

  std::size_t differ = 0;
  for (std::size_t w = 0; w < windows.size(); ++w) {
    const Task<Reads> &got = results[static_cast<std::size_t>(ids[w])];
    if (got.task_id != ids[w] || got.task_index != w || got.task_data != boa_rows(windows[w])) {
      if (differ < 5) std::fprintf(stderr, "window %zu differs\n", w);
      ++differ;
    }
  }

  /* MSABMAAC_gpu_done: the executor returns on its next wake. */
  {
    std::lock_guard<std::mutex> g(q_full_mutex);
    processing_required = false;
  }
  q_full_var.notify_all();
  executor.join();

  std::printf("consent-gpu glue: %zu windows, %zu differ; normal-mode wakes: %s\n",
              windows.size(), differ, queues.normal_wakes() > 0 ? "yes" : "no");
  return differ == 0 ? 0 : 1;
}
