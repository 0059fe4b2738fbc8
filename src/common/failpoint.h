// Failpoints: named places in the code where a test can inject an error, a pause or a callback.
// Names are registered in failpoint_names.def. In builds without OG_FAILPOINTS_ENABLED (release),
// OG_FAILPOINT(name) is a constant ok Status and costs nothing. Thread-safe.
//
//   OG_RETURN_IF_ERROR(OG_FAILPOINT("io.local.after_temp_write"));
#pragma once

#include <cstdint>
#include <functional>
#include <string>
#include <string_view>
#include <unordered_map>

#include "common/check.h"
#include "common/mutex.h"
#include "omnigraph/status.h"

namespace omnigraph {

class FailpointRegistry {
 public:
  struct Action {
    // Called when the point is hit; its status is returned from OG_FAILPOINT (ok to continue).
    std::function<Status()> fn;
    // Fire only on the Nth hit (1-based; 0 = every hit) ...
    uint64_t on_hit = 0;
    // ... and at most this many times (0 = unlimited).
    uint64_t max_fires = 0;
  };

  static FailpointRegistry& Global();

  // InvalidArgument for a name not in failpoint_names.def.
  Status Arm(std::string_view name, Action action);
  // Convenience: fail with `error` (every hit, or only the Nth).
  Status ArmError(std::string_view name, Status error, uint64_t on_hit = 0);
  // Convenience: sleep `micros` on every hit.
  Status ArmPause(std::string_view name, int64_t micros);
  void Disarm(std::string_view name);
  void DisarmAll();
  uint64_t HitCount(std::string_view name) const;

  Status Hit(std::string_view name);
  static bool IsRegistered(std::string_view name);

 private:
  struct Point {
    Action action;
    bool armed = false;
    uint64_t hits = 0;
    uint64_t fires = 0;
  };
  mutable Mutex mu_;
  std::unordered_map<std::string, Point> points_ OG_GUARDED_BY(mu_);
};

// Disarms everything on scope exit (use in tests).
class ScopedFailpoints {
 public:
  ScopedFailpoints() = default;
  ~ScopedFailpoints() { FailpointRegistry::Global().DisarmAll(); }
};

}  // namespace omnigraph

#if defined(OG_FAILPOINTS_ENABLED)
#define OG_FAILPOINT(name) (::omnigraph::FailpointRegistry::Global().Hit(name))
#else
#define OG_FAILPOINT(name) (::omnigraph::Status::Ok())
#endif
