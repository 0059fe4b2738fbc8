// LatencyStore: adds a fixed delay to every request and caps how many run at once, so that wall
// time exposes the number of sequential round trips (docs/architecture.md, "The object store").
// Thread-safe.
#pragma once

#include <condition_variable>
#include <memory>
#include <mutex>

#include "common/check.h"
#include "common/mutex.h"
#include "io/object_store.h"

namespace omnigraph::io {

class LatencyStore : public ObjectStore {
 public:
  // `delay_micros` per request; at most `max_concurrency` requests in flight (0 = unlimited).
  LatencyStore(std::shared_ptr<ObjectStore> base, int64_t delay_micros, size_t max_concurrency = 0)
      : base_(std::move(base)), delay_micros_(delay_micros), max_concurrency_(max_concurrency) {}

  Result<std::string> Get(std::string_view key) override;
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override;
  Result<ObjectMeta> Head(std::string_view key) override;
  Result<std::vector<ObjectMeta>> ListPage(std::string_view prefix, std::string_view start_after,
                                           size_t max_keys) override;
  Status Put(std::string_view key, std::string_view data) override;
  Status PutIfAbsent(std::string_view key, std::string_view data) override;
  Status Delete(std::string_view key) override;
  std::string Describe() const override { return base_->Describe(); }

  // Requests that started while no other request was in flight: with a delay longer than the
  // time it takes to start a batch of parallel requests, this is the number of sequential round
  // trips (docs/architecture.md, "Commits, ref logs and the write protocol").
  uint64_t sequential_rounds() const;
  void ResetRounds();

 private:
  class Slot;
  void Acquire();
  void Release();

  std::shared_ptr<ObjectStore> base_;
  int64_t delay_micros_;
  size_t max_concurrency_;
  mutable Mutex mu_;
  std::condition_variable_any cv_;
  size_t in_flight_ OG_GUARDED_BY(mu_) = 0;
  uint64_t rounds_ OG_GUARDED_BY(mu_) = 0;
};

}  // namespace omnigraph::io
