// StagingStore: buffers the writes made during a write's prepare step so that its effects can be
// written in parallel, in one round trip, right before the publish (docs/architecture.md,
// "Commits, ref logs and the write protocol"). Reads see buffered objects first, then the base
// store. Buffered writes are flushed early once they exceed a byte threshold (bounded memory for
// bulk loads); flushed or not, nothing is visible to readers of the graph until the ref is
// published. Thread-safe.
#pragma once

#include <map>
#include <memory>
#include <string>

#include "common/check.h"
#include "common/mutex.h"
#include "common/thread_pool.h"
#include "io/object_store.h"

namespace omnigraph::io {

class StagingStore : public ObjectStore {
 public:
  explicit StagingStore(ObjectStore& base, uint64_t flush_threshold_bytes = uint64_t{64} << 20)
      : base_(&base), threshold_(flush_threshold_bytes) {}

  Result<std::string> Get(std::string_view key) override;
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override;
  Result<ObjectMeta> Head(std::string_view key) override;
  Result<std::vector<ObjectMeta>> List(std::string_view prefix, std::string_view start_after = "") override;
  Result<std::vector<ObjectMeta>> ListPage(std::string_view prefix, std::string_view start_after,
                                           size_t max_keys) override;
  // Buffered. PutIfAbsent is AlreadyExists only against buffered keys; the base is checked at
  // flush (an existing identical object is accepted: content-addressed objects).
  Status Put(std::string_view key, std::string_view data) override;
  Status PutIfAbsent(std::string_view key, std::string_view data) override;
  Status PutIfAbsentMoved(std::string_view key, std::string data) override;
  // Unsupported: the write path never deletes while preparing.
  Status Delete(std::string_view key) override;
  std::string Describe() const override { return base_->Describe(); }
  bool cheap_ranged_reads() const override { return base_->cheap_ranged_reads(); }
  bool prefers_fewer_objects() const override { return base_->prefers_fewer_objects(); }

  // Writes every buffered object to the base store in parallel; the buffer empties. The first
  // error is returned (objects already written stay: they are unreferenced garbage).
  Status Flush();
  size_t buffered_objects() const;

 private:
  struct Pending {
    std::shared_ptr<const std::string> data;
    bool if_absent = true;
  };
  // Writes the pending objects to the base; releases mu_ while it does.
  Status FlushLocked() OG_REQUIRES(mu_);
  std::shared_ptr<const std::string> Find(std::string_view key) const;

  ObjectStore* base_;
  uint64_t threshold_;
  mutable Mutex mu_;
  std::map<std::string, Pending, std::less<>> pending_ OG_GUARDED_BY(mu_);
  std::map<std::string, uint64_t, std::less<>> flushed_sizes_ OG_GUARDED_BY(mu_);
  uint64_t pending_bytes_ OG_GUARDED_BY(mu_) = 0;
};

}  // namespace omnigraph::io
