// A byte-budgeted LRU cache of immutable shared objects (docs/architecture.md,
// "Derived structures and caches"): keys name immutable objects (a version id, an object key), so
// entries never need invalidation; each entry is charged an estimate of its memory, and the least
// recently used entries are dropped while the total exceeds the budget. An entry larger than the
// whole budget is not kept. Thread-safe (one mutex; values are built by callers outside it).
#pragma once

#include <cstdint>
#include <list>
#include <memory>
#include <mutex>
#include <string>
#include <unordered_map>

#include "common/mutex.h"

namespace omnigraph {

class ByteLruCache {
 public:
  explicit ByteLruCache(uint64_t budget_bytes) : budget_(budget_bytes) {}
  ByteLruCache(const ByteLruCache&) = delete;
  ByteLruCache& operator=(const ByteLruCache&) = delete;

  // The value under `key` (made most recent), or nullptr. The caller knows the stored type.
  template <class T>
  std::shared_ptr<const T> Get(const std::string& key) {
    return std::static_pointer_cast<const T>(GetErased(key));
  }
  // Keeps `value` under `key` charged `charge` bytes (a present key keeps its first value), then
  // evicts least recently used entries while over budget.
  template <class T>
  void Put(const std::string& key, std::shared_ptr<const T> value, uint64_t charge) {
    PutErased(key, std::static_pointer_cast<const void>(std::move(value)), charge);
  }

  struct Stats {
    uint64_t budget = 0, used = 0, entries = 0, hits = 0, misses = 0, evictions = 0;
  };
  Stats stats() const;
  void Clear();

 private:
  struct Entry {
    std::shared_ptr<const void> value;
    uint64_t charge;
    std::list<std::string>::iterator lru;
  };
  std::shared_ptr<const void> GetErased(const std::string& key);
  void PutErased(const std::string& key, std::shared_ptr<const void> value, uint64_t charge);

  const uint64_t budget_;
  mutable Mutex mu_;
  std::list<std::string> lru_ OG_GUARDED_BY(mu_);  // front = most recent
  std::unordered_map<std::string, Entry> map_ OG_GUARDED_BY(mu_);
  uint64_t used_ OG_GUARDED_BY(mu_) = 0;
  uint64_t hits_ OG_GUARDED_BY(mu_) = 0;
  uint64_t misses_ OG_GUARDED_BY(mu_) = 0;
  uint64_t evictions_ OG_GUARDED_BY(mu_) = 0;
};

}  // namespace omnigraph
