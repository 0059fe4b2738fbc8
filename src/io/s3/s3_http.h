// HTTP for the S3 backend on libcurl (loaded on first use, io/http/curl_lib.h): a pool of keep-alive easy handles
// (connection reuse), one signed request at a time per handle, retries with full-jitter exponential backoff on
// connection failures, 5xx, 429 / 503 SlowDown and 409 ConditionalRequestConflict. Knows SigV4 and HTTP, not what the
// requests mean (s3_store.cc). Thread-safe.
#pragma once

#include <atomic>
#include <cstdint>
#include <map>
#include <memory>
#include <mutex>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "io/http/curl_lib.h"
#include "io/s3/s3_config.h"
#include "omnigraph/result.h"

namespace omnigraph::io::s3 {

struct HttpRequest {
  std::string method;  // GET, HEAD, PUT, POST, DELETE
  std::string bucket;  // empty: a service-level request (ListBuckets)
  std::string key;     // the full object key (decoded); empty for bucket-level requests
  std::vector<std::pair<std::string, std::string>> query;    // decoded
  std::vector<std::pair<std::string, std::string>> headers;  // extra headers, signed too
  std::string_view body;
};

struct HttpResponse {
  long status = 0;
  std::map<std::string, std::string> headers;  // lower-case names
  std::string body;
  int attempts = 0;
  // A retried attempt may have reached the server before it failed: its effect is unknown.
  bool ambiguous = false;
  // libcurl may have sent this request twice (a write that reconnected; s3_http.cc).
  bool resent = false;
};

// Counts of what went over the wire (tests and benchmarks).
struct HttpStats {
  std::atomic<uint64_t> requests{0};  // attempts, retries included
  std::atomic<uint64_t> retries{0};
};

class HttpClient {
 public:
  explicit HttpClient(S3Config config);
  ~HttpClient();
  HttpClient(const HttpClient&) = delete;
  HttpClient& operator=(const HttpClient&) = delete;

  // Sends `request`, retrying as the policy says. A response of any status is ok (the caller
  // maps statuses); an error is a transport failure that outlived the retries (`transient`) or a
  // local one. Statuses retried: 500, 502, 503, 504, 429, and 409 whose error code is
  // ConditionalRequestConflict; the last such response is returned when the retries run out.
  Result<HttpResponse> Send(const HttpRequest& request);

  const S3Config& config() const { return config_; }
  const HttpStats& stats() const { return stats_; }

  // The URL and Host of a request (exposed for tests).
  std::string UrlFor(const HttpRequest& request, std::string* host, std::string* encoded_path) const;

 private:
  Result<HttpResponse> SendOnce(const CurlLib& lib, CURL* curl, bool reused, const HttpRequest& request,
                                bool* transport_error);
  // A pooled handle (`*reused`: it may hold a connection) or a new one.
  CURL* Acquire(const CurlLib& lib, bool* reused);
  void Release(CURL* curl);

  S3Config config_;
  std::string scheme_, host_;  // of the endpoint
  std::mutex mu_;
  std::vector<CURL*> idle_;
  HttpStats stats_;
};

// The S3 error code of an XML error body ("" when there is none).
std::string ErrorCodeOf(const HttpResponse& response);

}  // namespace omnigraph::io::s3
