// CountingStore: forwards to a base store and counts requests and bytes per operation class — the
// instrument for the storage-request budgets (docs/architecture.md,
// "Commits, ref logs and the write protocol"). Thread-safe (atomic counters).
#pragma once

#include <atomic>
#include <memory>
#include <string>
#include <vector>

#include "common/mutex.h"
#include "io/object_store.h"

namespace omnigraph::io {

enum class StoreOp : uint8_t { kGet = 0, kGetRange, kHead, kList, kPut, kPutIfAbsent, kDelete };
constexpr size_t kStoreOpCount = 7;
std::string_view StoreOpName(StoreOp op);

struct StoreCounts {
  uint64_t requests[kStoreOpCount] = {};
  uint64_t bytes_read = 0;
  uint64_t bytes_written = 0;

  uint64_t of(StoreOp op) const { return requests[static_cast<size_t>(op)]; }
  uint64_t total() const;
  uint64_t reads() const;   // get + get_range + head + list
  uint64_t writes() const;  // put + put_if_absent + delete
  // "get=3 get_range=1 ... (bytes read 10, written 20)".
  std::string ToString() const;
  StoreCounts operator-(const StoreCounts& earlier) const;
};

class CountingStore : public ObjectStore {
 public:
  explicit CountingStore(std::shared_ptr<ObjectStore> base) : base_(std::move(base)) {}

  StoreCounts counts() const;
  // Resets the counters and the trace.
  void Reset();
  // With tracing on, every request is also recorded as one line, "get_range <key> @<offset>+<length>"
  // (in the order they were issued), to explain a budget.
  void set_trace(bool on);
  std::vector<std::string> trace() const;

  Result<std::string> Get(std::string_view key) override;
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override;
  Result<ObjectMeta> Head(std::string_view key) override;
  // Each List counts as one request per page the base store would return.
  Result<std::vector<ObjectMeta>> List(std::string_view prefix, std::string_view start_after = "") override;
  Result<std::vector<ObjectMeta>> ListPage(std::string_view prefix, std::string_view start_after,
                                           size_t max_keys) override;
  Status Put(std::string_view key, std::string_view data) override;
  Status PutVolatile(std::string_view key, std::string_view data) override;
  Status PutIfAbsent(std::string_view key, std::string_view data) override;
  Status PutIfAbsentUnsynced(std::string_view key, std::string_view data) override;  // counted as kPutIfAbsent
  Status SyncObjects(const std::vector<std::string>& keys) override { return base_->SyncObjects(keys); }
  // Forwards to the base store's writer; counts one put_if_absent (and its bytes) at Commit.
  Result<std::unique_ptr<ObjectWriter>> NewWriter(std::string_view key) override;
  Status Delete(std::string_view key) override;
  std::string Describe() const override { return base_->Describe(); }
  bool cheap_ranged_reads() const override { return base_->cheap_ranged_reads(); }
  bool prefers_fewer_objects() const override { return base_->prefers_fewer_objects(); }

 private:
  friend class CountingWriter;
  void Count(StoreOp op, std::string_view key, std::string_view detail = {});

  std::shared_ptr<ObjectStore> base_;
  std::atomic<uint64_t> requests_[kStoreOpCount] = {};
  std::atomic<uint64_t> bytes_read_{0};
  std::atomic<uint64_t> bytes_written_{0};
  std::atomic<bool> tracing_{false};
  mutable Mutex trace_mu_;
  std::vector<std::string> trace_ OG_GUARDED_BY(trace_mu_);
};

}  // namespace omnigraph::io
