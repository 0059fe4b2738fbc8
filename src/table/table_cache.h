// Caches of decoded immutable objects (ARCHITECTURE.md §4 "Reads and caches"), keyed by their
// table-relative object key (ULID-named, so one cache may serve many tables). Objects never change,
// so entries never need invalidation; caches are bounded by entry count and cleared wholesale when
// full. TableCache holds store-independent data (deletion vectors, id segments) and may be shared
// across stores; ReaderCache holds open fragment readers, which are bound to one store.
#pragma once

#include <cstddef>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/check.h"
#include "format/deletion_vector.h"
#include "format/fragment_reader.h"

namespace omnigraph::table {

class IdSegment;

// Thread-safe (one mutex). May be shared by handles of any store.
class TableCache {
 public:
  explicit TableCache(size_t max_entries = 4096) : max_entries_(max_entries) {}

  std::shared_ptr<const format::DeletionVector> GetDeletion(const std::string& key) const;
  void PutDeletion(const std::string& key, std::shared_ptr<const format::DeletionVector> dv);
  std::shared_ptr<const IdSegment> GetIdSegment(const std::string& key) const;
  void PutIdSegment(const std::string& key, std::shared_ptr<const IdSegment> segment);

  size_t size() const;

 private:
  void MakeRoomLocked();
  const size_t max_entries_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const format::DeletionVector>> deletions_
      OG_GUARDED_BY(mu_);
  std::unordered_map<std::string, std::shared_ptr<const IdSegment>> id_segments_ OG_GUARDED_BY(mu_);
};

// Open fragment readers (their footers), each bound to the store it was opened through, so a
// ReaderCache belongs to TableVersion handles of one store. Thread-safe (one mutex).
class ReaderCache {
 public:
  explicit ReaderCache(size_t max_entries = 1024) : max_entries_(max_entries) {}
  std::shared_ptr<const format::FragmentReader> Get(const std::string& key) const;
  void Put(const std::string& key, std::shared_ptr<const format::FragmentReader> reader);

 private:
  const size_t max_entries_;
  mutable std::mutex mu_;
  std::unordered_map<std::string, std::shared_ptr<const format::FragmentReader>> readers_
      OG_GUARDED_BY(mu_);
};

}  // namespace omnigraph::table
