// An S3 test server running inside the calling process, for tests and benchmarks of the S3
// backend: listens on 127.0.0.1 (an ephemeral port), keeps its objects in a fresh temp folder
// (removed when the environment goes), has one bucket, and hands out S3 configurations and
// stores that point at it. Each store gets its own prefix, so one server serves many tests.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "io/s3/s3_config.h"
#include "io/s3/s3_store.h"
#include "omnigraph/result.h"
#include "s3_server/s3_server.h"

namespace omnigraph::s3server {

class TestS3 {
 public:
  static constexpr const char* kAccessKeyId = "OMNIGRAPHTESTKEY";
  static constexpr const char* kSecretAccessKey = "omnigraph-test-secret";
  static constexpr const char* kBucket = "omnigraph-test";

  // Starts the server with `faults` (s3_server_faults.h syntax) and creates kBucket.
  static Result<std::unique_ptr<TestS3>> Start(const std::vector<std::string>& faults = {});
  ~TestS3();
  TestS3(const TestS3&) = delete;
  TestS3& operator=(const TestS3&) = delete;

  int port() const { return port_; }
  std::string endpoint() const { return "http://127.0.0.1:" + std::to_string(port_); }
  S3Server& server() { return *server_; }

  // A client configuration for this server; retries wait at most a few milliseconds.
  io::s3::S3Config Config() const;
  // The AWS_* variables a process (the CLI) needs to reach this server.
  std::map<std::string, std::string> Env() const;
  // A fresh prefix ("t-<ulid>") and the s3:// URI of it.
  static std::string NewPrefix();
  std::string Uri(const std::string& prefix) const { return std::string("s3://") + kBucket + "/" + prefix; }
  // Opens a store on `prefix` (a new one when empty).
  Result<std::unique_ptr<io::s3::S3Store>> Open(std::string prefix = "", io::s3::S3StoreOptions options = {}) const;

 private:
  TestS3() = default;
  std::string root_;
  int port_ = 0;
  std::unique_ptr<S3Server> server_;
};

}  // namespace omnigraph::s3server
