// A thread pool of at most N threads. Submit() returns a future; ParallelFor() runs a body over
// [0, n) and returns the first error. Threads start on demand (a task queued while no thread is
// idle starts one, up to N) and then stay: a short-lived process that runs one point query starts
// the few it uses, not all N. Thread-safe; the destructor drains queued work and joins.
#pragma once

#include <condition_variable>
#include <cstddef>
#include <deque>
#include <functional>
#include <future>
#include <mutex>
#include <thread>
#include <vector>

#include "common/check.h"
#include "common/mutex.h"
#include "omnigraph/status.h"

namespace omnigraph {

class ThreadPool {
 public:
  explicit ThreadPool(size_t threads);  // the most threads it will start
  ~ThreadPool();
  ThreadPool(const ThreadPool&) = delete;
  ThreadPool& operator=(const ThreadPool&) = delete;

  size_t size() const { return max_threads_; }
  // Threads started so far (at most size()).
  size_t started() const {
    MutexLock lock(&mu_);
    return workers_.size();
  }
  // Threads waiting for work.
  size_t idle() const {
    MutexLock lock(&mu_);
    return idle_;
  }

  template <class F>
  auto Submit(F&& f) -> std::future<decltype(f())> {
    using R = decltype(f());
    auto task = std::make_shared<std::packaged_task<R()>>(std::forward<F>(f));
    std::future<R> fut = task->get_future();
    Enqueue([task] { (*task)(); });
    return fut;
  }

  // Runs body(i) for i in [0, n) on the pool (the caller's thread helps); returns the first
  // non-ok status in index order. All bodies run even when one fails.
  Status ParallelFor(size_t n, const std::function<Status(size_t)>& body);

  // A process-wide pool sized to the hardware concurrency (at least 2).
  static ThreadPool& Default();
  // A process-wide pool for blocking storage requests (16 threads): parallel writes of one
  // commit's objects should not be limited by the number of cores.
  static ThreadPool& Io();

 private:
  void Enqueue(std::function<void()> fn);
  void WorkerLoop();

  const size_t max_threads_;
  mutable Mutex mu_;
  std::condition_variable_any cv_;
  std::deque<std::function<void()>> queue_ OG_GUARDED_BY(mu_);
  bool stopping_ OG_GUARDED_BY(mu_) = false;
  size_t idle_ OG_GUARDED_BY(mu_) = 0;  // threads waiting for work
  std::vector<std::thread> workers_ OG_GUARDED_BY(mu_);
};

}  // namespace omnigraph
