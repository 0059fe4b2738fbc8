#include "common/failpoint.h"

#include <thread>

#include "common/error_codes.h"

namespace omnigraph {
namespace {
constexpr std::string_view kNames[] = {
#define OG_FAILPOINT_NAME(name, meaning) name,
#include "common/failpoint_names.def"
#undef OG_FAILPOINT_NAME
};
}  // namespace

FailpointRegistry& FailpointRegistry::Global() {
  static FailpointRegistry r;
  return r;
}

bool FailpointRegistry::IsRegistered(std::string_view name) {
  for (auto n : kNames) {
    if (n == name) return true;
  }
  return false;
}

Status FailpointRegistry::Arm(std::string_view name, Action action) {
  if (!IsRegistered(name)) {
    return InvalidArgumentError("unknown failpoint '" + std::string(name) +
                                "' (register it in src/common/failpoint_names.def)");
  }
  MutexLock lock(&mu_);
  Point& p = points_[std::string(name)];
  p.action = std::move(action);
  p.armed = true;
  p.hits = 0;
  p.fires = 0;
  return Status::Ok();
}

Status FailpointRegistry::ArmError(std::string_view name, Status error, uint64_t on_hit) {
  Action a;
  a.fn = [error] { return error; };
  a.on_hit = on_hit;
  return Arm(name, std::move(a));
}

Status FailpointRegistry::ArmPause(std::string_view name, int64_t micros) {
  Action a;
  a.fn = [micros] {
    std::this_thread::sleep_for(std::chrono::microseconds(micros));
    return Status::Ok();
  };
  return Arm(name, std::move(a));
}

void FailpointRegistry::Disarm(std::string_view name) {
  MutexLock lock(&mu_);
  points_.erase(std::string(name));
}

void FailpointRegistry::DisarmAll() {
  MutexLock lock(&mu_);
  points_.clear();
}

uint64_t FailpointRegistry::HitCount(std::string_view name) const {
  MutexLock lock(&mu_);
  auto it = points_.find(std::string(name));
  return it == points_.end() ? 0 : it->second.hits;
}

Status FailpointRegistry::Hit(std::string_view name) {
  std::function<Status()> fn;
  {
    MutexLock lock(&mu_);
    if (points_.empty()) return Status::Ok();
    auto it = points_.find(std::string(name));
    if (it == points_.end() || !it->second.armed) return Status::Ok();
    Point& p = it->second;
    ++p.hits;
    if (p.action.on_hit != 0 && p.hits != p.action.on_hit) return Status::Ok();
    if (p.action.max_fires != 0 && p.fires >= p.action.max_fires) return Status::Ok();
    ++p.fires;
    fn = p.action.fn;
  }
  return fn ? fn() : Status::Ok();  // run outside the lock: a pause must not block other points
}

}  // namespace omnigraph
