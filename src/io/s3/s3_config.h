// Where and how the S3 backend talks (docs/architecture.md, "The object store"): the endpoint,
// addressing style, region and credentials, read from the same AWS_* environment variables the
// Rust implementation reads, plus the retry and timeout policy. A value type; no I/O.
#pragma once

#include <cstdint>
#include <map>
#include <string>

#include "io/s3/sigv4.h"
#include "omnigraph/result.h"

namespace omnigraph::io::s3 {

struct RetryPolicy {
  int max_attempts = 8;            // per request, the first included
  uint32_t base_backoff_ms = 50;   // doubled per attempt, full jitter
  uint32_t max_backoff_ms = 3000;  // cap of one wait
  uint32_t connect_timeout_ms = 10000;
  // A transfer slower than 1 byte/s for this long is abandoned (and retried).
  uint32_t stall_timeout_ms = 60000;
};

struct S3Config {
  std::string region = "us-east-1";
  Credentials credentials;
  // "scheme://host[:port]" without a path; empty = AWS (https://s3.<region>.amazonaws.com).
  std::string endpoint;
  // Path-style ("<endpoint>/<bucket>/<key>", the default, as the Rust implementation's object
  // store) or virtual-hosted ("<scheme>://<bucket>.<host>/<key>").
  bool virtual_hosted = false;
  bool allow_http = false;
  RetryPolicy retry;
  // Multipart uploads: objects written through a writer larger than this go in parts of this size
  // (S3's minimum part size is 5 MiB).
  uint64_t part_size = 8ull << 20;

  // Reads AWS_REGION (then AWS_DEFAULT_REGION), AWS_ACCESS_KEY_ID, AWS_SECRET_ACCESS_KEY,
  // AWS_SESSION_TOKEN, AWS_ENDPOINT_URL_S3 then AWS_ENDPOINT_URL, AWS_S3_FORCE_PATH_STYLE,
  // AWS_VIRTUAL_HOSTED_STYLE_REQUEST, AWS_ALLOW_HTTP from `env` (tests pass a map; the process
  // environment otherwise). `store_config` when the credentials are missing or the endpoint is
  // malformed or plain http that was not allowed.
  static Result<S3Config> FromEnvironment(const std::map<std::string, std::string>* env = nullptr);

  // The endpoint actually used ("https://s3.us-east-1.amazonaws.com" by default).
  std::string EffectiveEndpoint() const;
};

// True for "1", "true", "yes", "on" (any case).
bool EnvTruthy(const std::string& value);

}  // namespace omnigraph::io::s3
