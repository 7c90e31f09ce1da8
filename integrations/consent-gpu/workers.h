/*
 * seqshim's stand-in for the header of CONSENT-GPU's GPU executor.
 *
 * CONSENT-GPU's `bmean.h` includes "workers.h", which in its own tree pulls
 * in the CUDA runtime, thrust and the kernels. With this folder ahead of
 * BMAN-GPU/BOA_GPU on the include path, `bmean.cpp` and `src/CONSENT.cpp`
 * compile with a plain C++ compiler instead: this header brings the
 * standard headers those files relied on, BMAN-GPU's own host-only task
 * queue header (`tasks_manager.h`, found through -I BMAN-GPU/BOA_GPU), and
 * the one executor entry point the driver calls. seqshim_consent_gpu.cpp
 * defines it on seqshim's POA batch API.
 */
#ifndef SEQSHIM_CONSENT_GPU_WORKERS_H
#define SEQSHIM_CONSENT_GPU_WORKERS_H

#include <chrono>
#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <numeric>
#include <stdexcept>
#include <string>
#include <thread>
#include <unistd.h>
#include <vector>

#include "tasks_manager.h"

#ifndef NOW
#define NOW std::chrono::high_resolution_clock::now()
#endif

namespace poa_gpu_utils {

/*
 The executor thread's body (BMAN-GPU's `bmean.cpp` starts it from
 `MSABMAAC_gpu_init_batch`). It sleeps on `q_full_var`; on each wake it
 sets `is_notified`, then either runs the queue of `current_task`
 (normal mode, a queue over its threshold) or, in flush mode, every
 non-empty queue, stores each window's MSA rows in `result[task_id]`,
 resets the queues' combined size and `res_write_idx`, clears
 `is_notified` and wakes `out_rdy_var`. It returns once
 `processing_required` is false.
 */
void execute_poa(SyncMultitaskQueues<std::vector<std::string>> &t_queues,
                 std::vector<TaskRefs> &task_refs, std::mutex &q_full_mutex,
                 std::mutex &out_rdy_mutex, std::condition_variable &q_full_var,
                 std::condition_variable &out_rdy_var, bool &is_notified,
                 bool &flush_mode, bool &processing_required,
                 TaskType &current_task, TaskType &prev_task,
                 std::vector<Task<std::vector<std::string>>> &result,
                 int num_task_types, std::size_t &res_write_idx);

} // namespace poa_gpu_utils

#endif
