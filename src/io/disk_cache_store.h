// DiskCacheStore: a read-through cache on local disk in front of a remote store
// (docs/architecture.md, "The read path on object storage"). Get and GetRange of keys the caller
// marks cacheable are answered from files under a cache folder once fetched; everything else, and
// every write, goes to the base store.
//
// Only objects whose bytes never change once written may be marked cacheable, and only objects
// reached through an object that is NOT cached (the engine caches fragment files, index segments,
// deletion vectors, blobs and derived structures, never refs, commits' entry points or table
// manifests): so an entry is never stale, needs no invalidation, and a version that a cleanup
// reclaimed is still reported as reclaimed (its manifest is read from the store). Keys are never
// reused, so an entry left behind for a deleted object is never reached again; Delete through this
// store drops the key's entries at once.
//
// Entries: `<dir>/omnigraph-cache-v1/<aa>/<key hash>/<whole | offset-length>` (the cache touches
// nothing else in `dir`, which may be a shared folder such as ~/.cache), each a header (magic, the key, an
// xxhash64 of the bytes) followed by the bytes; a read checks the key and the hash and treats any
// mismatch as a miss (and deletes the entry). Entries are written to a temp file and renamed into
// place, so processes can share one folder. The folder is kept under `max_bytes`: past it, the
// least recently used entries (by modification time; a hit touches its entry) are deleted down to
// 80% of it. A cache that cannot be read or written only costs requests: its errors are counted in
// stats(), never returned. Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include "common/mutex.h"
#include "io/object_store.h"

namespace omnigraph::io {

struct DiskCacheOptions {
  std::string dir;  // created if missing
  uint64_t max_bytes = uint64_t{1} << 30;
  // Reads larger than this are passed through uncached (default: max_bytes / 8).
  uint64_t max_entry_bytes = 0;
  // Whether `key`'s bytes are immutable and reached only through an uncached object (see above).
  std::function<bool(std::string_view key)> cacheable;
};

struct DiskCacheStats {
  uint64_t hits = 0, misses = 0, bytes_served = 0, entries_written = 0, evicted = 0, bad_entries = 0, errors = 0;
};

class DiskCacheStore : public ObjectStore {
 public:
  // InvalidArgument for an empty dir or a missing `cacheable`; Io naming the folder when it cannot
  // be created.
  static Result<std::unique_ptr<DiskCacheStore>> Open(std::shared_ptr<ObjectStore> base, DiskCacheOptions options);

  DiskCacheStats stats() const;
  // Bytes of entries this process counts in the folder (the folder's total at Open plus what it
  // wrote, minus what it deleted).
  uint64_t used_bytes() const { return used_.load(); }

  Result<std::string> Get(std::string_view key) override;
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override;
  Result<ObjectMeta> Head(std::string_view key) override { return base_->Head(key); }
  Result<std::vector<ObjectMeta>> List(std::string_view prefix, std::string_view start_after = "") override {
    return base_->List(prefix, start_after);
  }
  Result<std::vector<ObjectMeta>> ListPage(std::string_view prefix, std::string_view start_after,
                                           size_t max_keys) override {
    return base_->ListPage(prefix, start_after, max_keys);
  }
  Status Put(std::string_view key, std::string_view data) override;
  Status PutIfAbsent(std::string_view key, std::string_view data) override { return base_->PutIfAbsent(key, data); }
  Status PutIfAbsentMoved(std::string_view key, std::string data) override {
    return base_->PutIfAbsentMoved(key, std::move(data));
  }
  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key) override { return base_->NewWriter(key); }
  Status Delete(std::string_view key) override;
  // Forwarded whole (S3 batches it); entries of the deleted keys are not dropped: their keys are
  // never reused, so they are never reached again, and they age out.
  Status DeletePrefix(std::string_view prefix) override { return base_->DeletePrefix(prefix); }
  std::string Describe() const override { return base_->Describe(); }

 private:
  DiskCacheStore(std::shared_ptr<ObjectStore> base, DiskCacheOptions options, std::string root, uint64_t used);
  // The folder of `key`'s entries.
  std::string KeyDir(std::string_view key) const;
  // The bytes of entry `name` of `key`, or nullopt (missing, unreadable or not matching).
  std::optional<std::string> ReadEntry(std::string_view key, const std::string& name);
  void WriteEntry(std::string_view key, const std::string& name, std::string_view bytes);
  void DropKey(std::string_view key);
  // Deletes least recently used entries until the folder is under 80% of max_bytes.
  void Evict();

  std::shared_ptr<ObjectStore> base_;
  const DiskCacheOptions options_;
  const std::string root_;  // <dir>/omnigraph-cache-v1: everything the cache owns
  std::atomic<uint64_t> used_{0};
  std::atomic<uint64_t> hits_{0}, misses_{0}, bytes_served_{0}, entries_written_{0}, evicted_{0}, bad_entries_{0},
      errors_{0};
  Mutex evict_mu_;                         // one eviction scan at a time
  std::atomic<uint64_t> rescan_above_{0};  // after a scan that could not reach its target
};

}  // namespace omnigraph::io
