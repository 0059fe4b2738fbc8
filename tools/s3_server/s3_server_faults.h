// Fault injection for the S3 test server: the `--fault SPEC` flag and S3Server::SetFaults.
// A spec is NAME=VALUE (several may be joined with ','):
//   latency=MS     sleep MS milliseconds before handling every request
//   slowdown=N     every Nth authenticated request answers 503 SlowDown without doing anything
//   error500=N     every Nth authenticated request answers 500 InternalError without doing anything
//   reset=N        every Nth authenticated request: the connection is closed without a response
//   conflict=N     every Nth authenticated PUT or POST answers 409 ConditionalRequestConflict
//   lost=N         every Nth authenticated PUT, POST or DELETE is carried out, then the connection is
//                  closed without the response (the client cannot know whether it happened)
//   truncate=N     every Nth authenticated GET of an object sends its headers and half its body,
//                  then closes the connection
// Counting starts over whenever the faults are set. Thread-safe.
#pragma once

#include <cstdint>
#include <string>
#include <string_view>
#include <vector>

#include "common/mutex.h"
#include "omnigraph/result.h"

namespace omnigraph::s3server {

struct FaultConfig {
  int64_t latency_ms = 0;
  uint64_t slowdown_every = 0;  // 0: off
  uint64_t error500_every = 0;
  uint64_t reset_every = 0;
  uint64_t conflict_every = 0;
  uint64_t lost_every = 0;
  uint64_t truncate_every = 0;
};

// Parses the specs (syntax above); InvalidArgument naming the bad spec.
Result<FaultConfig> ParseFaultSpecs(const std::vector<std::string>& specs);

// kLostReply and kTruncate act after the request ran; the others instead of running it.
enum class FaultAction { kNone, kReset, kInternalError, kSlowDown, kConflict, kLostReply, kTruncate };

class FaultInjector {
 public:
  // Replaces the faults and restarts their counting.
  void Set(const FaultConfig& config);
  int64_t latency_ms() const;

  // Counts one authenticated request (by its HTTP method) and says which fault it gets. When
  // several are due, the first of reset, error500, slowdown, conflict, lost, truncate wins.
  FaultAction Next(std::string_view method);

  // Authenticated requests since the server started (not reset by Set).
  uint64_t requests() const;

 private:
  mutable Mutex mu_;
  FaultConfig config_ OG_GUARDED_BY(mu_);
  uint64_t counted_ OG_GUARDED_BY(mu_) = 0;          // requests since Set
  uint64_t counted_writes_ OG_GUARDED_BY(mu_) = 0;   // PUT/POST requests since Set
  uint64_t counted_changes_ OG_GUARDED_BY(mu_) = 0;  // PUT/POST/DELETE requests since Set
  uint64_t counted_gets_ OG_GUARDED_BY(mu_) = 0;     // GET requests since Set
  uint64_t total_ OG_GUARDED_BY(mu_) = 0;
};

}  // namespace omnigraph::s3server
