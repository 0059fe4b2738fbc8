// omnigraph-s3-server: an S3-protocol test server that stores objects as files. It is the
// reference server the S3 object-store backend is tested against, because no installable S3
// server honours conditional writes (If-None-Match: *, If-Match). A strict subset of S3: SigV4
// header auth on every request (io/s3/sigv4.h), path-style and virtual-host addressing, buckets,
// objects with ranges and conditional writes, ListObjectsV2, DeleteObjects, multipart uploads,
// and injected faults (latency, 503 SlowDown, 500, connection resets, 409 conflicts). See
// README.md in this folder. Knows nothing about graphs or tables.
//
// Thread-safe: Start/Stop from one thread; SetFaults and requests() from any.
#pragma once

#include <atomic>
#include <cstdint>
#include <memory>
#include <string>
#include <thread>
#include <vector>

#include "common/mutex.h"
#include "omnigraph/result.h"

namespace httplib {
class ContentReader;
struct Request;
struct Response;
}  // namespace httplib

namespace omnigraph::s3server {

class FaultInjector;
class HttpServer;
class Operations;
class Store;
struct S3Request;

struct S3ServerOptions {
  std::string root;  // folder of the buckets; created if missing
  std::string access_key_id, secret_access_key;
  std::vector<std::string> faults;  // fault specs (s3_server_faults.h), as --fault
  bool fsync = false;               // fsync object files and folders (durability across crashes)
};

class S3Server {
 public:
  // Opens the root (creating it if missing) and loads its buckets, objects and multipart uploads.
  // InvalidArgument for empty credentials or a malformed fault spec.
  static Result<std::unique_ptr<S3Server>> Create(S3ServerOptions options);
  ~S3Server();  // Stop()s
  S3Server(const S3Server&) = delete;
  S3Server& operator=(const S3Server&) = delete;

  // Binds host:port (port 0: an ephemeral port) and serves on background threads; returns the
  // bound port. Once per server. Io error when the address cannot be bound.
  Result<int> Start(const std::string& host, int port);
  // Stops listening, closes every connection and waits for the serving threads. Idempotent.
  void Stop();

  // Replaces the injected faults (same syntax as --fault) and restarts their counting.
  // InvalidArgument (and no change) for a malformed spec.
  Status SetFaults(const std::vector<std::string>& specs);
  // Requests that passed authentication so far (what the fault schedule counts).
  uint64_t requests() const;
  // Creates a bucket directly (tests; clients send CreateBucket). 409 BucketAlreadyOwnedByYou when
  // it exists.
  Status CreateBucket(const std::string& name);

 private:
  S3Server(S3ServerOptions options, std::unique_ptr<Store> store);

  void ConfigureHttp();
  // Serves one request; `reader` reads the body (null for GET, HEAD and OPTIONS).
  void Handle(const httplib::Request& http, httplib::Response* response, const httplib::ContentReader* reader);
  // Handle without the error response: reads, addresses, authenticates, injects faults, runs.
  Status Serve(const httplib::Request& http, httplib::Response* response, const httplib::ContentReader* reader,
               const std::string& request_id);
  // Checks the request's SigV4 signature and payload hash.
  Status Authenticate(const S3Request& request) const;
  // The `reset` fault: closes the connection without a response.
  void ResetConnection(httplib::Response* response);
  void SleepUnlessStopping(int64_t ms) const;

  const S3ServerOptions options_;
  std::unique_ptr<Store> store_;
  std::unique_ptr<Operations> operations_;
  std::unique_ptr<FaultInjector> faults_;
  std::unique_ptr<HttpServer> http_;
  std::atomic<uint64_t> next_request_id_{0};
  std::atomic<bool> stopping_{false};
  std::atomic<bool> listen_done_{false};
  Mutex lifecycle_mu_;
  bool started_ OG_GUARDED_BY(lifecycle_mu_) = false;
  std::thread listen_thread_ OG_GUARDED_BY(lifecycle_mu_);
};

}  // namespace omnigraph::s3server
