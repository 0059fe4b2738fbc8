// Internal to src/server: the state every request reads (the registry, tokens, options) and the
// state requests share (admission counters, metrics). Built once by Server::Start.
#pragma once

#include <array>
#include <cstdint>
#include <map>
#include <string>
#include <utility>

#include "common/mutex.h"
#include "server/auth.h"
#include "server/registry.h"
#include "server/server.h"

namespace omnigraph::server {

// Prometheus text metrics (docs/server.md, "Metrics"): requests by operation and status, a latency
// histogram, commits, errors by code.
class Metrics {
 public:
  void Record(std::string_view operation, int status, std::string_view error_code, double seconds, bool committed);
  std::string Render() const;

 private:
  static constexpr std::array<double, 12> kBuckets = {0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025,
                                                      0.05,   0.1,   0.25,   0.5,   1,    5};
  mutable Mutex mu_;
  std::map<std::pair<std::string, int>, uint64_t> requests_ OG_GUARDED_BY(mu_);
  std::map<std::string, uint64_t> errors_ OG_GUARDED_BY(mu_);
  std::array<uint64_t, kBuckets.size()> bucket_counts_ OG_GUARDED_BY(mu_){};
  uint64_t count_ OG_GUARDED_BY(mu_) = 0;
  double sum_ OG_GUARDED_BY(mu_) = 0;
  uint64_t commits_ OG_GUARDED_BY(mu_) = 0;
};

struct ServerState {
  ServerOptions options;
  TokenTable tokens;
  Registry registry;
  bool auth_required = false;  // tokens configured (then every authenticated route needs one)
  Metrics metrics;

  Mutex admission_mu;
  struct Usage {
    size_t inflight = 0;
    uint64_t bytes = 0;
  };
  std::map<std::string, Usage> admission OG_GUARDED_BY(admission_mu);  // by actor
};

}  // namespace omnigraph::server
