// MemoryStore: the full ObjectStore contract in process memory (docs/architecture.md,
// "The object store"). Used by most tests and by `memory://name` URIs. Thread-safe (a shared mutex;
// objects are immutable shared buffers, so readers never see a partial object).
#pragma once

#include <map>
#include <memory>
#include <string>

#include "common/check.h"
#include "common/mutex.h"
#include "io/object_store.h"

namespace omnigraph::io {

class MemoryStore : public ObjectStore {
 public:
  explicit MemoryStore(std::string name = "anonymous") : name_(std::move(name)) {}

  Result<std::string> Get(std::string_view key) override;
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override;
  Result<ObjectMeta> Head(std::string_view key) override;
  Result<std::vector<ObjectMeta>> ListPage(std::string_view prefix, std::string_view start_after,
                                           size_t max_keys) override;
  Status Put(std::string_view key, std::string_view data) override;
  Status PutIfAbsent(std::string_view key, std::string_view data) override;
  Status Delete(std::string_view key) override;
  std::string Describe() const override { return "memory://" + name_; }
  bool cheap_ranged_reads() const override { return true; }

  size_t object_count() const;
  uint64_t total_bytes() const;

 private:
  Result<std::shared_ptr<const std::string>> Find(std::string_view key) const;

  std::string name_;
  mutable SharedMutex mu_;
  std::map<std::string, std::shared_ptr<const std::string>, std::less<>> objects_ OG_GUARDED_BY(mu_);
};

}  // namespace omnigraph::io
