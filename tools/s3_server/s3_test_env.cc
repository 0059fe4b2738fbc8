#include "s3_server/s3_test_env.h"

#include <filesystem>
#include <system_error>
#include <utility>

#include "common/ulid.h"

namespace omnigraph::s3server {

Result<std::unique_ptr<TestS3>> TestS3::Start(const std::vector<std::string>& faults) {
  std::unique_ptr<TestS3> env(new TestS3());
  env->root_ = (std::filesystem::temp_directory_path() / ("og-s3-" + NewUlidString())).string();
  S3ServerOptions options;
  options.root = env->root_;
  options.access_key_id = kAccessKeyId;
  options.secret_access_key = kSecretAccessKey;
  options.faults = faults;
  OG_ASSIGN_OR_RETURN(env->server_, S3Server::Create(std::move(options)));
  OG_ASSIGN_OR_RETURN(env->port_, env->server_->Start("127.0.0.1", 0));
  OG_RETURN_IF_ERROR(env->server_->CreateBucket(kBucket));
  return env;
}

TestS3::~TestS3() {
  if (server_ != nullptr) server_->Stop();
  server_.reset();
  std::error_code ec;
  if (!root_.empty()) std::filesystem::remove_all(root_, ec);
}

io::s3::S3Config TestS3::Config() const {
  io::s3::S3Config c;
  c.region = "us-east-1";
  c.credentials.access_key_id = kAccessKeyId;
  c.credentials.secret_access_key = kSecretAccessKey;
  c.endpoint = endpoint();
  c.allow_http = true;
  c.retry.base_backoff_ms = 1;
  c.retry.max_backoff_ms = 20;
  return c;
}

std::map<std::string, std::string> TestS3::Env() const {
  return {{"AWS_ACCESS_KEY_ID", kAccessKeyId},
          {"AWS_SECRET_ACCESS_KEY", kSecretAccessKey},
          {"AWS_REGION", "us-east-1"},
          {"AWS_ENDPOINT_URL", endpoint()},
          {"AWS_ALLOW_HTTP", "true"}};
}

std::string TestS3::NewPrefix() { return "t-" + NewUlidString(); }

Result<std::unique_ptr<io::s3::S3Store>> TestS3::Open(std::string prefix, io::s3::S3StoreOptions options) const {
  if (prefix.empty()) prefix = NewPrefix();
  return io::s3::S3Store::Open(Config(), kBucket, std::move(prefix), options);
}

}  // namespace omnigraph::s3server
