#include "common/thread_pool.h"

#include <atomic>

namespace omnigraph {

ThreadPool::ThreadPool(size_t threads) {
  if (threads == 0) threads = 1;
  workers_.reserve(threads);
  for (size_t i = 0; i < threads; ++i) workers_.emplace_back([this] { WorkerLoop(); });
}

ThreadPool::~ThreadPool() {
  {
    std::lock_guard<std::mutex> lock(mu_);
    stopping_ = true;
  }
  cv_.notify_all();
  for (auto& t : workers_) t.join();
}

void ThreadPool::Enqueue(std::function<void()> fn) {
  {
    std::lock_guard<std::mutex> lock(mu_);
    OG_CHECK(!stopping_);
    queue_.push_back(std::move(fn));
  }
  cv_.notify_one();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> fn;
    {
      std::unique_lock<std::mutex> lock(mu_);
      cv_.wait(lock, [this] { return stopping_ || !queue_.empty(); });
      if (queue_.empty()) return;  // stopping and drained
      fn = std::move(queue_.front());
      queue_.pop_front();
    }
    fn();
  }
}

Status ThreadPool::ParallelFor(size_t n, const std::function<Status(size_t)>& body) {
  if (n == 0) return Status::Ok();
  std::vector<Status> results(n);
  std::atomic<size_t> next{0};
  auto drain = [&] {
    for (size_t i = next.fetch_add(1); i < n; i = next.fetch_add(1)) results[i] = body(i);
  };
  size_t helpers = std::min(n - 1, workers_.size());
  std::vector<std::future<void>> futs;
  futs.reserve(helpers);
  for (size_t i = 0; i < helpers; ++i) futs.push_back(Submit(drain));
  drain();
  for (auto& f : futs) f.get();
  for (auto& s : results) {
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

ThreadPool& ThreadPool::Default() {
  static ThreadPool pool(std::max<size_t>(2, std::thread::hardware_concurrency()));
  return pool;
}

}  // namespace omnigraph
