#include "io/latency_store.h"

#include <chrono>
#include <thread>

namespace omnigraph::io {

// Holds one concurrency slot for the duration of a request, including the delay.
class LatencyStore::Slot {
 public:
  explicit Slot(LatencyStore* s) : s_(s) {
    s_->Acquire();
    if (s_->delay_micros_ > 0) {
      std::this_thread::sleep_for(std::chrono::microseconds(s_->delay_micros_));
    }
  }
  ~Slot() { s_->Release(); }
  Slot(const Slot&) = delete;
  Slot& operator=(const Slot&) = delete;

 private:
  LatencyStore* s_;
};

void LatencyStore::Acquire() {
  MutexLock lock(&mu_);
  while (max_concurrency_ > 0 && in_flight_ >= max_concurrency_) cv_.wait(mu_);
  if (in_flight_ == 0) ++rounds_;
  ++in_flight_;
}

void LatencyStore::Release() {
  {
    MutexLock lock(&mu_);
    --in_flight_;
  }
  cv_.notify_one();
}

uint64_t LatencyStore::sequential_rounds() const {
  MutexLock lock(&mu_);
  return rounds_;
}

void LatencyStore::ResetRounds() {
  MutexLock lock(&mu_);
  rounds_ = 0;
}

Result<std::string> LatencyStore::Get(std::string_view key) {
  Slot slot(this);
  return base_->Get(key);
}
Result<std::string> LatencyStore::GetRange(std::string_view key, uint64_t offset, uint64_t length) {
  Slot slot(this);
  return base_->GetRange(key, offset, length);
}
Result<ObjectMeta> LatencyStore::Head(std::string_view key) {
  Slot slot(this);
  return base_->Head(key);
}
Result<std::vector<ObjectMeta>> LatencyStore::ListPage(std::string_view prefix, std::string_view start_after,
                                                       size_t max_keys) {
  Slot slot(this);
  return base_->ListPage(prefix, start_after, max_keys);
}
Status LatencyStore::Put(std::string_view key, std::string_view data) {
  Slot slot(this);
  return base_->Put(key, data);
}
Status LatencyStore::PutIfAbsent(std::string_view key, std::string_view data) {
  Slot slot(this);
  return base_->PutIfAbsent(key, data);
}
Status LatencyStore::Delete(std::string_view key) {
  Slot slot(this);
  return base_->Delete(key);
}

}  // namespace omnigraph::io
