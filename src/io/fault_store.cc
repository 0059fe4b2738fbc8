#include "io/fault_store.h"

#include "common/error_codes.h"

namespace omnigraph::io {

void FaultStore::AddRule(FaultRule rule) {
  MutexLock lock(&mu_);
  rules_.push_back(ActiveRule{std::move(rule)});
}

void FaultStore::FailAt(uint64_t k, FaultAction action) {
  FaultRule r;
  r.nth = k;
  r.action = action;
  AddRule(std::move(r));
}

void FaultStore::Reset() {
  MutexLock lock(&mu_);
  rules_.clear();
  crashed_ = false;
  fired_ = false;
  requests_ = 0;
}

bool FaultStore::crashed() const {
  MutexLock lock(&mu_);
  return crashed_;
}
bool FaultStore::fired() const {
  MutexLock lock(&mu_);
  return fired_;
}
uint64_t FaultStore::requests() const {
  MutexLock lock(&mu_);
  return requests_;
}

FaultStore::Decision FaultStore::Decide(StoreOp op, std::string_view key, Status* error) {
  MutexLock lock(&mu_);
  ++requests_;
  if (crashed_) return Decision::kDead;
  Decision d = Decision::kProceed;
  for (ActiveRule& r : rules_) {
    if (r.done || (r.rule.ops & OpBit(op)) == 0) continue;
    if (!r.rule.key_contains.empty() && key.find(r.rule.key_contains) == std::string_view::npos) continue;
    if (++r.matches != r.rule.nth) continue;
    r.done = true;
    fired_ = true;
    if (d != Decision::kProceed) continue;  // first firing rule wins
    switch (r.rule.action) {
      case FaultAction::kFail:
        d = Decision::kFail;
        *error = r.rule.error;
        break;
      case FaultAction::kCrashBefore:
        d = Decision::kCrashBefore;
        crashed_ = true;
        break;
      case FaultAction::kCrashAfter: d = Decision::kCrashAfter; break;
    }
  }
  return d;
}

void FaultStore::MarkCrashed() {
  MutexLock lock(&mu_);
  crashed_ = true;
}

Status FaultStore::FaultError(StoreOp op, std::string_view key, Decision d, const Status& error) const {
  if (d == Decision::kFail && !error.ok()) return error;
  std::string what = std::string(StoreOpName(op)) + " '" + std::string(key) + "'";
  switch (d) {
    case Decision::kFail: return Status(ErrorCode::kInjectedFault, "injected failure of " + what);
    case Decision::kCrashBefore:
    case Decision::kCrashAfter: return Status(ErrorCode::kInjectedFault, "simulated crash at " + what);
    default: return Status(ErrorCode::kInjectedFault, "store is crashed (simulated); " + what + " refused");
  }
}

template <class R, class F>
R FaultStore::Run(StoreOp op, std::string_view key, F&& f) {
  Status error;
  Decision d = Decide(op, key, &error);
  if (d == Decision::kProceed) return f();
  if (d == Decision::kCrashAfter) {
    R r = f();  // the request lands; the caller never learns it did
    (void)r;
    MarkCrashed();
  }
  return FaultError(op, key, d, error);
}

Result<std::string> FaultStore::Get(std::string_view key) {
  return Run<Result<std::string>>(StoreOp::kGet, key, [&] { return base_->Get(key); });
}
Result<std::string> FaultStore::GetRange(std::string_view key, uint64_t offset, uint64_t length) {
  return Run<Result<std::string>>(StoreOp::kGetRange, key, [&] { return base_->GetRange(key, offset, length); });
}
Result<ObjectMeta> FaultStore::Head(std::string_view key) {
  return Run<Result<ObjectMeta>>(StoreOp::kHead, key, [&] { return base_->Head(key); });
}
Result<std::vector<ObjectMeta>> FaultStore::List(std::string_view prefix, std::string_view start_after) {
  return ObjectStore::List(prefix, start_after);  // every page is one request
}
Result<std::vector<ObjectMeta>> FaultStore::ListPage(std::string_view prefix, std::string_view start_after,
                                                     size_t max_keys) {
  return Run<Result<std::vector<ObjectMeta>>>(StoreOp::kList, prefix,
                                              [&] { return base_->ListPage(prefix, start_after, max_keys); });
}
Status FaultStore::Put(std::string_view key, std::string_view data) {
  return Run<Status>(StoreOp::kPut, key, [&] { return base_->Put(key, data); });
}
Status FaultStore::PutIfAbsent(std::string_view key, std::string_view data) {
  return Run<Status>(StoreOp::kPutIfAbsent, key, [&] { return base_->PutIfAbsent(key, data); });
}
Status FaultStore::Delete(std::string_view key) {
  return Run<Status>(StoreOp::kDelete, key, [&] { return base_->Delete(key); });
}

}  // namespace omnigraph::io
