// FaultStore: forwards to a base store and injects failures — the instrument for crash-consistency
// tests (docs/architecture.md, "The object store"). A rule fires at the Nth request matching an
// operation mask and a key substring. kFail returns an error (the request does not happen);
// kCrashBefore / kCrashAfter simulate a process crash before / after the request reaches the base
// store, and from then on every request fails, so a test "reopens" by using the base store
// directly. Thread-safe.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "common/check.h"
#include "common/mutex.h"
#include "io/counting_store.h"
#include "io/object_store.h"

namespace omnigraph::io {

enum class FaultAction { kFail, kCrashBefore, kCrashAfter };

constexpr uint32_t OpBit(StoreOp op) { return 1u << static_cast<uint32_t>(op); }
constexpr uint32_t kAllOps = (1u << kStoreOpCount) - 1;
constexpr uint32_t kWriteOps = OpBit(StoreOp::kPut) | OpBit(StoreOp::kPutIfAbsent) | OpBit(StoreOp::kDelete);

struct FaultRule {
  uint32_t ops = kAllOps;
  std::string key_contains;  // empty matches every key
  uint64_t nth = 1;          // fires on the nth matching request (1-based), once
  FaultAction action = FaultAction::kFail;
  // kFail only: when not ok, the error returned instead of injected_fault (e.g.
  // ErrnoError("write ...", ENOSPC) for a full disk).
  Status error;
};

class FaultStore : public ObjectStore {
 public:
  explicit FaultStore(std::shared_ptr<ObjectStore> base) : base_(std::move(base)) {}

  void AddRule(FaultRule rule);
  // Shorthand: one rule firing at the kth request of any kind.
  void FailAt(uint64_t k, FaultAction action = FaultAction::kFail);
  void Reset();  // clears rules, the crashed state and counters

  bool crashed() const;
  bool fired() const;         // has any rule fired
  uint64_t requests() const;  // requests seen so far (including failed ones)

  Result<std::string> Get(std::string_view key) override;
  Result<std::string> GetRange(std::string_view key, uint64_t offset, uint64_t length) override;
  Result<ObjectMeta> Head(std::string_view key) override;
  Result<std::vector<ObjectMeta>> List(std::string_view prefix, std::string_view start_after = "") override;
  Result<std::vector<ObjectMeta>> ListPage(std::string_view prefix, std::string_view start_after,
                                           size_t max_keys) override;
  Status Put(std::string_view key, std::string_view data) override;
  Status PutIfAbsent(std::string_view key, std::string_view data) override;
  Status Delete(std::string_view key) override;
  std::string Describe() const override { return base_->Describe(); }
  bool cheap_ranged_reads() const override { return base_->cheap_ranged_reads(); }
  bool prefers_fewer_objects() const override { return base_->prefers_fewer_objects(); }

 private:
  struct ActiveRule {
    FaultRule rule;
    uint64_t matches = 0;
    bool done = false;
  };
  enum class Decision { kProceed, kFail, kCrashBefore, kCrashAfter, kDead };
  // `*error`: the firing rule's own error, if it has one.
  Decision Decide(StoreOp op, std::string_view key, Status* error);
  void MarkCrashed();
  Status FaultError(StoreOp op, std::string_view key, Decision d, const Status& error) const;

  template <class R, class F>
  R Run(StoreOp op, std::string_view key, F&& f);

  std::shared_ptr<ObjectStore> base_;
  mutable Mutex mu_;
  std::vector<ActiveRule> rules_ OG_GUARDED_BY(mu_);
  bool crashed_ OG_GUARDED_BY(mu_) = false;
  bool fired_ OG_GUARDED_BY(mu_) = false;
  uint64_t requests_ OG_GUARDED_BY(mu_) = 0;
};

}  // namespace omnigraph::io
