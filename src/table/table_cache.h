// Caches of decoded immutable objects (docs/architecture.md, "Derived structures and caches"),
// keyed by their table-relative object key (ULID-named, so one cache may serve many tables).
// Objects never change, so entries never need invalidation; each cache is bounded by the estimated
// bytes of its entries (least recently used dropped first, common/lru_cache.h). TableCache holds
// store-independent data (deletion vectors, id segments) and may be shared across stores;
// ReaderCache holds open fragment readers (their footers), which are bound to one store.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>
#include <string>
#include <string_view>
#include <vector>

#include "common/lru_cache.h"
#include "format/deletion_vector.h"
#include "format/fragment_reader.h"

namespace omnigraph::table {

class IdSegment;

// Thread-safe. May be shared by handles of any store.
class TableCache {
 public:
  static constexpr uint64_t kDefaultBudgetBytes = uint64_t{512} << 20;
  // Sorted runs (sorted_index.h) have a budget of their own, so that a large run never evicts the
  // deletion vectors and id segments every write and key lookup reads.
  static constexpr uint64_t kDefaultSortedBudgetBytes = uint64_t{512} << 20;
  explicit TableCache(uint64_t budget_bytes = kDefaultBudgetBytes,
                      uint64_t sorted_budget_bytes = kDefaultSortedBudgetBytes)
      : cache_(budget_bytes), sorted_(sorted_budget_bytes) {}

  std::shared_ptr<const format::DeletionVector> GetDeletion(const std::string& key);
  void PutDeletion(const std::string& key, std::shared_ptr<const format::DeletionVector> dv);
  std::shared_ptr<const IdSegment> GetIdSegment(const std::string& key);
  void PutIdSegment(const std::string& key, std::shared_ptr<const IdSegment> segment);
  // What one value matched in a stored index segment probed by ranged reads (index_probe.cc): the
  // addresses, empty when none. A segment never changes, so the answer never does; a write probes
  // the same ids several times (its match, its checks, the upsert), and a read after it again.
  struct ProbeAnswer {
    std::vector<uint64_t> addresses;
  };
  std::shared_ptr<const ProbeAnswer> GetProbe(const std::string& segment_key, std::string_view value);
  void PutProbe(const std::string& segment_key, std::string_view value, std::vector<uint64_t> addresses);

  // The cache of sorted runs and their scan credits (sorted_index.cc).
  ByteLruCache& sorted() { return sorted_; }

  size_t size() const { return cache_.stats().entries; }
  ByteLruCache::Stats stats() const { return cache_.stats(); }

 private:
  ByteLruCache cache_;
  ByteLruCache sorted_;
};

// Open fragment readers, each bound to the store it was opened through, so a ReaderCache belongs
// to TableVersion handles of one store. Thread-safe.
class ReaderCache {
 public:
  static constexpr uint64_t kDefaultBudgetBytes = uint64_t{64} << 20;
  explicit ReaderCache(uint64_t budget_bytes = kDefaultBudgetBytes) : cache_(budget_bytes) {}
  std::shared_ptr<const format::FragmentReader> Get(const std::string& key);
  void Put(const std::string& key, std::shared_ptr<const format::FragmentReader> reader);

 private:
  ByteLruCache cache_;
};

}  // namespace omnigraph::table
