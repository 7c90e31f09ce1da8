/*
 * CONSENT-GPU's GPU executor on seqshim's POA batch API.
 *
 * CONSENT-GPU's driver (`runCorrection_gpu`) and BMAN-GPU's `bmean.cpp`
 * sort the sub-windows BMEAN cuts into twelve size classes (up to 32 reads
 * of up to 255 bases) and put them on per-class queues; everything else
 * they keep for BOA on the CPU. A single executor thread,
 * `poa_gpu_utils::execute_poa`, empties the queues: when a queue passes its
 * threshold (normal mode) and when the driver flushes. For every queued
 * window it leaves the MSA rows of the window's reads in
 * `result[task_id]`; the driver's dequeue threads then take the column
 * majority of those rows (`get_easy_consensus`).
 *
 * This file is that executor, with seqshim's batch in place of the CUDA
 * objects: the windows of a wake go into one `seqshim_poa_batch_t`, which
 * runs them on the GPUs seqshim uses and on its CPU pool, and the rows come
 * back from `seqshim_poa_batch_get_msa`. Those rows are BOA's (POA v2's
 * `xlate_lpo_to_al` rows for the reads in order, empty reads skipped), so
 * each window's consensus is the one BMEAN's CPU route (`easy_consensus`
 * on BOA) gives for it. The scores are CONSENT's, those of BOA's DNA
 * matrix (`seqshim_poa_params_default`: +5 / -10 / -5 per gap position),
 * which is also what CONSENT-GPU's kernels hard-code (+1 / -2 / -1).
 *
 * Differences from CONSENT-GPU's executor, none visible in the reads:
 * - Normal mode runs the full queue at once, then keeps the rows until the
 *   flush and stores them in `result` there. The driver's enqueuing threads
 *   grow `result` while normal mode runs; storing only at the flush, after
 *   they have been joined, keeps the executor from writing into a vector
 *   that another thread may be reallocating.
 * - No device is reset and nothing is dropped: there is no "recovery
 *   mode". A window whose graph grows large simply runs (seqshim sends what
 *   its kernel cannot hold to the CPU).
 * - The flush clears `is_notified` under `out_rdy_mutex` before waking the
 *   flushing thread, so that thread does not sleep out its 2 s timeout.
 *
 * A window the batch cannot give rows for stops the program with a message
 * rather than leaving its consensus empty. With CONSENT-GPU's classes (at
 * most 32 reads of at most 255 bases) none is refused: seqshim takes up to
 * SEQSHIM_POA_MAX_READS reads of SEQSHIM_POA_MAX_READ_LEN bases, and the
 * graphs stay far below POA v2's memory bound. The one status left is
 * SEQSHIM_E_DEVICE, which only SEQSHIM_STRICT=1 (no CPU fallback after a
 * device failure) produces.
 *
 * SEQSHIM_CONSENT_GPU_VERBOSE=1 prints one line per wake on stderr: mode,
 * windows, and where seqshim ran them.
 */
#include "workers.h"

#include <seqshim.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>

namespace poa_gpu_utils {

namespace {

using Window = Task<std::vector<std::string>>;

bool verbose() {
  const char *v = std::getenv("SEQSHIM_CONSENT_GPU_VERBOSE");
  return v != nullptr && v[0] != '\0' && std::strcmp(v, "0") != 0;
}

[[noreturn]] void fail(const char *what, int status) {
  std::fprintf(stderr, "seqshim CONSENT-GPU executor: %s: %s (status %d)\n",
               what, seqshim_strerror(status),
               status);
  std::exit(1);
}

/* One batch per executor thread, reused for every wake. */
class Runner {
public:
  Runner() {
    seqshim_poa_params_t params;
    int st = seqshim_poa_params_default(&params);
    if (st != SEQSHIM_OK) fail("seqshim_poa_params_default", st);
    params.want_msa = 1;
    st = seqshim_poa_batch_create(&params, 0, &batch_);
    if (st != SEQSHIM_OK) fail("seqshim_poa_batch_create", st);
  }
  ~Runner() { seqshim_poa_batch_destroy(batch_); }
  Runner(const Runner &) = delete;
  Runner &operator=(const Runner &) = delete;

  /* Replaces each window's reads by its MSA rows. */
  void run(std::vector<Window> &windows, const char *mode) {
    if (windows.empty()) return;
    int st = seqshim_poa_batch_reset(batch_);
    if (st != SEQSHIM_OK) fail("seqshim_poa_batch_reset", st);
    std::vector<const char *> ptrs;
    std::vector<uint32_t> lens;
    for (const Window &w : windows) {
      const std::vector<std::string> &reads = w.task_data;
      ptrs.resize(reads.size());
      lens.resize(reads.size());
      for (std::size_t i = 0; i < reads.size(); ++i) {
        ptrs[i] = reads[i].data();
        lens[i] = static_cast<uint32_t>(reads[i].size());
      }
      st = seqshim_poa_batch_add_window(batch_, static_cast<uint32_t>(reads.size()),
                                        ptrs.data(), lens.data(), nullptr);
      if (st != SEQSHIM_OK) fail("seqshim_poa_batch_add_window", st);
    }
    uint64_t gpu0 = 0, cpu0 = 0;
    const bool say = verbose();
    if (say) seqshim_poa_routing(&gpu0, &cpu0);
    st = seqshim_poa_batch_run(batch_);
    if (st != SEQSHIM_OK) fail("seqshim_poa_batch_run", st);
    for (std::size_t id = 0; id < windows.size(); ++id) {
      uint32_t nrows = 0, ncols = 0;
      const char *rows = nullptr;
      st = seqshim_poa_batch_get_msa(batch_, id, &nrows, &ncols, &rows);
      std::vector<std::string> out;
      if (st == SEQSHIM_OK) {
        out.reserve(nrows);
        for (uint32_t r = 0; r < nrows; ++r)
          out.emplace_back(rows + static_cast<std::size_t>(r) * ncols, ncols);
      } else if (st == SEQSHIM_E_EMPTY) {
        /* No non-empty read: BMEAN's consensus_POA answers {""}. */
        out.emplace_back();
      } else {
        fail("a queued window has no MSA", st);
      }
      windows[id].task_data.swap(out);
    }
    if (say) {
      uint64_t gpu1 = 0, cpu1 = 0;
      seqshim_poa_routing(&gpu1, &cpu1);
      std::fprintf(stderr,
                   "seqshim CONSENT-GPU executor: %s: %zu windows, %llu on GPU, "
                   "%llu on CPU\n",
                   mode, windows.size(),
                   static_cast<unsigned long long>(gpu1 - gpu0),
                   static_cast<unsigned long long>(cpu1 - cpu0));
    }
  }

private:
  seqshim_poa_batch_t *batch_ = nullptr;
};

void store(std::vector<Window> &done, std::vector<Window> &result) {
  for (Window &w : done) {
    if (w.task_id < 0 || static_cast<std::size_t>(w.task_id) >= result.size())
      fail("a window's task id is outside the driver's result vector", SEQSHIM_E_INDEX);
    Window &slot = result[static_cast<std::size_t>(w.task_id)];
    slot.task_id = w.task_id;
    slot.task_index = w.task_index;
    slot.task_data.swap(w.task_data);
  }
  done.clear();
}

} // namespace

void execute_poa(SyncMultitaskQueues<std::vector<std::string>> &t_queues,
                 std::vector<TaskRefs> &task_refs, std::mutex &q_full_mutex,
                 std::mutex &out_rdy_mutex, std::condition_variable &q_full_var,
                 std::condition_variable &out_rdy_var, bool &is_notified,
                 bool &flush_mode, bool &processing_required,
                 TaskType &current_task, TaskType &prev_task,
                 std::vector<Task<std::vector<std::string>>> &result,
                 int num_task_types, std::size_t &res_write_idx) {
  (void)task_refs; /* device buffers: none here */
  Runner runner;
  std::vector<Window> held; /* normal-mode rows, stored at the flush */
  std::unique_lock<std::mutex> lock(q_full_mutex);

  while (processing_required) {
    q_full_var.wait(lock);
    is_notified = true;
    if (!processing_required) continue;

    if (!flush_mode) {
      TaskType type = current_task;
      if (static_cast<int>(type) < 0 || static_cast<int>(type) >= num_task_types) {
        is_notified = false;
        continue;
      }
      std::vector<Window> windows;
      t_queues.retrieve_data_batch(windows, type);
      runner.run(windows, "queue full");
      prev_task = type;
      res_write_idx += windows.size();
      for (Window &w : windows) held.push_back(std::move(w));
      is_notified = false;
    } else {
      std::vector<Window> windows;
      for (int t = 0; t < num_task_types; ++t) {
        TaskType type = static_cast<TaskType>(t);
        if (t_queues.get_queue_size(type) == 0) continue;
        std::vector<Window> part;
        t_queues.retrieve_data_batch(part, type);
        prev_task = type;
        for (Window &w : part) windows.push_back(std::move(w));
      }
      runner.run(windows, "flush");
      store(windows, result);
      store(held, result);
      t_queues.reset_combined_size();
      res_write_idx = 0;
      {
        std::lock_guard<std::mutex> g(out_rdy_mutex);
        is_notified = false;
      }
      out_rdy_var.notify_all();
    }
  }
}

} // namespace poa_gpu_utils
