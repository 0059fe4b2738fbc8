// Fault specs and the per-request fault schedule of the S3 test server (s3_server_faults.h).
#include "s3_server/s3_server_faults.h"

#include <charconv>
#include <string_view>

#include "common/error_codes.h"

namespace omnigraph::s3server {
namespace {

constexpr int64_t kMaxLatencyMs = 600'000;

Status BadSpec(std::string_view spec, std::string_view why) {
  return InvalidArgumentError(
      "bad fault spec '" + std::string(spec) + "': " + std::string(why) +
      " (expected latency=MS, slowdown=N, error500=N, reset=N, conflict=N, lost=N or truncate=N)");
}

// A whole-string decimal number.
bool ParseNumber(std::string_view text, uint64_t* out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

// Applies one NAME=VALUE item to `config`.
Status ApplyItem(std::string_view spec, std::string_view item, FaultConfig* config) {
  const size_t eq = item.find('=');
  if (eq == std::string_view::npos) return BadSpec(spec, "no '='");
  const std::string_view name = item.substr(0, eq);
  uint64_t value = 0;
  if (!ParseNumber(item.substr(eq + 1), &value)) return BadSpec(spec, "the value is not a whole number");
  if (name == "latency") {
    if (value > static_cast<uint64_t>(kMaxLatencyMs)) return BadSpec(spec, "latency above 600000 ms");
    config->latency_ms = static_cast<int64_t>(value);
    return Status::Ok();
  }
  if (value == 0) return BadSpec(spec, "N must be at least 1");
  if (name == "slowdown") {
    config->slowdown_every = value;
  } else if (name == "error500") {
    config->error500_every = value;
  } else if (name == "reset") {
    config->reset_every = value;
  } else if (name == "conflict") {
    config->conflict_every = value;
  } else if (name == "lost") {
    config->lost_every = value;
  } else if (name == "truncate") {
    config->truncate_every = value;
  } else {
    return BadSpec(spec, "unknown fault '" + std::string(name) + "'");
  }
  return Status::Ok();
}

bool Due(uint64_t every, uint64_t count) { return every != 0 && count % every == 0; }

}  // namespace

Result<FaultConfig> ParseFaultSpecs(const std::vector<std::string>& specs) {
  FaultConfig config;
  for (const std::string& spec : specs) {
    if (spec.empty()) return BadSpec(spec, "empty");
    std::string_view rest = spec;
    while (true) {
      const size_t comma = rest.find(',');
      OG_RETURN_IF_ERROR(ApplyItem(spec, rest.substr(0, comma), &config));
      if (comma == std::string_view::npos) break;
      rest.remove_prefix(comma + 1);
    }
  }
  return config;
}

void FaultInjector::Set(const FaultConfig& config) {
  MutexLock lock(&mu_);
  config_ = config;
  counted_ = 0;
  counted_writes_ = 0;
  counted_changes_ = 0;
  counted_gets_ = 0;
}

int64_t FaultInjector::latency_ms() const {
  MutexLock lock(&mu_);
  return config_.latency_ms;
}

FaultAction FaultInjector::Next(std::string_view method) {
  MutexLock lock(&mu_);
  ++total_;
  const bool is_write = method == "PUT" || method == "POST";
  const bool is_change = is_write || method == "DELETE";
  const bool is_get = method == "GET";
  const uint64_t n = ++counted_;
  const uint64_t writes = is_write ? ++counted_writes_ : 0;
  const uint64_t changes = is_change ? ++counted_changes_ : 0;
  const uint64_t gets = is_get ? ++counted_gets_ : 0;
  if (Due(config_.reset_every, n)) return FaultAction::kReset;
  if (Due(config_.error500_every, n)) return FaultAction::kInternalError;
  if (Due(config_.slowdown_every, n)) return FaultAction::kSlowDown;
  if (is_write && Due(config_.conflict_every, writes)) return FaultAction::kConflict;
  if (is_change && Due(config_.lost_every, changes)) return FaultAction::kLostReply;
  if (is_get && Due(config_.truncate_every, gets)) return FaultAction::kTruncate;
  return FaultAction::kNone;
}

uint64_t FaultInjector::requests() const {
  MutexLock lock(&mu_);
  return total_;
}

}  // namespace omnigraph::s3server
