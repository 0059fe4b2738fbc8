#include "common/thread_pool.h"

#include <atomic>

namespace omnigraph {

ThreadPool::ThreadPool(size_t threads) : max_threads_(threads == 0 ? 1 : threads) {}

ThreadPool::~ThreadPool() {
  std::vector<std::thread> workers;
  {
    MutexLock lock(&mu_);
    stopping_ = true;  // Enqueue refuses from here on, so no thread starts after this
    workers.swap(workers_);
  }
  cv_.notify_all();
  for (auto& t : workers) t.join();
}

void ThreadPool::Enqueue(std::function<void()> fn) {
  {
    MutexLock lock(&mu_);
    OG_CHECK(!stopping_);
    queue_.push_back(std::move(fn));
    // More queued tasks than idle threads to take them: start one more, up to the maximum.
    if (queue_.size() > idle_ && workers_.size() < max_threads_) workers_.emplace_back([this] { WorkerLoop(); });
  }
  cv_.notify_one();
}

void ThreadPool::WorkerLoop() {
  for (;;) {
    std::function<void()> fn;
    {
      MutexLock lock(&mu_);
      ++idle_;
      while (!stopping_ && queue_.empty()) cv_.wait(mu_);
      --idle_;
      if (queue_.empty()) return;  // stopping and drained
      fn = std::move(queue_.front());
      queue_.pop_front();
    }
    fn();
  }
}

Status ThreadPool::ParallelFor(size_t n, const std::function<Status(size_t)>& body) {
  if (n == 0) return Status::Ok();
  // Helpers that start after every index is claimed return at once, and the caller waits only for
  // bodies that are running, never for queued helpers: nested ParallelFor calls from pool threads
  // cannot deadlock.
  struct State {
    std::mutex mu;
    std::condition_variable cv;
    size_t next = 0;
    size_t running = 0;
    const std::function<Status(size_t)>* body;
    std::vector<Status> results;
  };
  auto state = std::make_shared<State>();
  state->body = &body;
  state->results.resize(n);
  auto drain = [state, n] {
    for (;;) {
      size_t i;
      {
        std::lock_guard<std::mutex> lock(state->mu);
        if (state->next >= n) return;
        i = state->next++;
        ++state->running;
      }
      Status s = (*state->body)(i);
      {
        std::lock_guard<std::mutex> lock(state->mu);
        state->results[i] = std::move(s);
        --state->running;
      }
      state->cv.notify_all();
    }
  };
  size_t helpers = std::min(n - 1, max_threads_);
  for (size_t i = 0; i < helpers; ++i) Enqueue(drain);
  drain();
  {
    std::unique_lock<std::mutex> lock(state->mu);
    state->cv.wait(lock, [&] { return state->running == 0; });
  }
  for (auto& s : state->results) {
    if (!s.ok()) return s;
  }
  return Status::Ok();
}

ThreadPool& ThreadPool::Default() {
  static ThreadPool pool(std::max<size_t>(2, std::thread::hardware_concurrency()));
  return pool;
}

ThreadPool& ThreadPool::Io() {
  static ThreadPool pool(16);
  return pool;
}

}  // namespace omnigraph
