/*
 * The test's own stand-in for BMAN-GPU's host-side task queue header, with
 * just what integrations/consent-gpu/seqshim_consent_gpu.cpp uses: the
 * twelve size classes plus the CPU class, a window task, the (unused)
 * per-class device buffers, and per-class queues that wake the executor
 * the way CONSENT-GPU's do (a queue past its threshold: normal mode; the
 * driver's flush: flush mode).
 */
#ifndef CONSENT_GPU_TEST_TASKS_MANAGER_H
#define CONSENT_GPU_TEST_TASKS_MANAGER_H

#include <condition_variable>
#include <cstddef>
#include <mutex>
#include <string>
#include <thread>
#include <utility>
#include <vector>

namespace poa_gpu_utils {

enum TaskType {
  UNDEF = -1,
  POA_8_32 = 0, POA_8_64, POA_8_128, POA_8_255,
  POA_16_32, POA_16_64, POA_16_128, POA_16_255,
  POA_32_32, POA_32_64, POA_32_128, POA_32_255,
  POA_CPU = 12
};
const int kTaskTypes = 13;

template <typename T> struct Task {
  long long task_id;
  unsigned long task_index;
  T task_data;
  Task(long long id, unsigned long index, T data)
      : task_id(id), task_index(index), task_data(std::move(data)) {}
};

struct TaskRefs {};

/* The class of a window: reads (8 / 16 / 32) by longest read (31 / 63 /
   127 / 255); anything larger is for the CPU. */
inline TaskType class_of(const std::vector<std::string> &reads) {
  std::size_t longest = 0;
  for (const std::string &r : reads) longest = r.size() > longest ? r.size() : longest;
  int row = reads.size() <= 8 ? 0 : reads.size() <= 16 ? 1 : reads.size() <= 32 ? 2 : -1;
  int col = longest <= 31 ? 0 : longest <= 63 ? 1 : longest <= 127 ? 2 : longest <= 255 ? 3 : -1;
  if (row < 0 || col < 0) return POA_CPU;
  return static_cast<TaskType>(row * 4 + col);
}

template <typename T> class SyncMultitaskQueues {
public:
  SyncMultitaskQueues(std::condition_variable &wake, TaskType &current, bool &notified,
                      bool &flush, std::size_t threshold)
      : queues_(kTaskTypes), wake_(wake), current_(current), notified_(notified),
        flush_(flush), threshold_(threshold) {}

  /* Numbers the windows, queues them by class, grows `results` to hold
     them, and wakes the executor in normal mode when a queue has passed
     the threshold and the executor is idle. Returns the first id. */
  long long enqueue(std::vector<Task<T>> &tasks, std::vector<Task<T>> &results) {
    std::lock_guard<std::mutex> g(mutex_);
    long long first = static_cast<long long>(combined_);
    results.resize(combined_ + tasks.size(), Task<T>(0, 0, T()));
    for (Task<T> &t : tasks) {
      t.task_id = static_cast<long long>(combined_++);
      queues_[class_of(t.task_data)].push_back(t);
    }
    if (!notified_) {
      for (int c = 0; c < kTaskTypes; ++c) {
        if (queues_[c].size() > threshold_) {
          flush_ = false;
          current_ = static_cast<TaskType>(c);
          while (!notified_) wake_.notify_one();
          ++normal_wakes_;
          break;
        }
      }
    }
    return first;
  }

  /* The driver's flush: waits for a running wake to end, then wakes the
     executor in flush mode. */
  void flush() {
    while (notified_) std::this_thread::yield();
    {
      std::lock_guard<std::mutex> g(mutex_);
      flush_ = true;
    }
    while (!notified_) wake_.notify_one();
  }

  void retrieve_data_batch(std::vector<Task<T>> &out, TaskType &type) {
    std::lock_guard<std::mutex> g(mutex_);
    out.swap(queues_[type]);
    queues_[type].clear();
  }
  int get_queue_size(TaskType &type) {
    std::lock_guard<std::mutex> g(mutex_);
    return static_cast<int>(queues_[type].size());
  }
  void reset_combined_size() {
    std::lock_guard<std::mutex> g(mutex_);
    combined_ = 0;
  }
  std::size_t normal_wakes() const { return normal_wakes_; }

private:
  std::vector<std::vector<Task<T>>> queues_;
  std::mutex mutex_;
  std::condition_variable &wake_;
  TaskType &current_;
  bool &notified_;
  bool &flush_;
  std::size_t threshold_;
  std::size_t combined_ = 0;
  std::size_t normal_wakes_ = 0;
};

} // namespace poa_gpu_utils

#endif
