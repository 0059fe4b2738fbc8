#include "io/s3/s3_config.h"

#include <algorithm>
#include <cctype>
#include <cstdlib>

#include "common/error_codes.h"

namespace omnigraph::io::s3 {
namespace {

std::string Get(const std::map<std::string, std::string>* env, const char* name) {
  if (env != nullptr) {
    auto it = env->find(name);
    return it == env->end() ? "" : it->second;
  }
  const char* v = std::getenv(name);
  return v == nullptr ? "" : v;
}

Status ConfigError(std::string message) { return Status(ErrorCode::kStoreConfig, std::move(message)); }

}  // namespace

bool EnvTruthy(const std::string& value) {
  std::string v = value;
  for (char& c : v) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  return v == "1" || v == "true" || v == "yes" || v == "on";
}

Result<S3Config> S3Config::FromEnvironment(const std::map<std::string, std::string>* env) {
  S3Config c;
  std::string region = Get(env, "AWS_REGION");
  if (region.empty()) region = Get(env, "AWS_DEFAULT_REGION");
  if (!region.empty()) c.region = region;
  c.credentials.access_key_id = Get(env, "AWS_ACCESS_KEY_ID");
  c.credentials.secret_access_key = Get(env, "AWS_SECRET_ACCESS_KEY");
  c.credentials.session_token = Get(env, "AWS_SESSION_TOKEN");
  if (c.credentials.access_key_id.empty() || c.credentials.secret_access_key.empty()) {
    return ConfigError(
        "S3 credentials are missing: set AWS_ACCESS_KEY_ID and AWS_SECRET_ACCESS_KEY (and AWS_SESSION_TOKEN for "
        "temporary credentials)");
  }
  std::string endpoint = Get(env, "AWS_ENDPOINT_URL_S3");
  if (endpoint.empty()) endpoint = Get(env, "AWS_ENDPOINT_URL");
  c.allow_http = EnvTruthy(Get(env, "AWS_ALLOW_HTTP"));
  if (!endpoint.empty()) {
    while (!endpoint.empty() && endpoint.back() == '/') endpoint.pop_back();
    const size_t sep = endpoint.find("://");
    const std::string scheme = sep == std::string::npos ? "" : endpoint.substr(0, sep);
    if ((scheme != "http" && scheme != "https") || sep + 3 >= endpoint.size() ||
        endpoint.find('/', sep + 3) != std::string::npos) {
      return ConfigError("S3 endpoint '" + endpoint +
                         "' is not of the form http(s)://host[:port] (AWS_ENDPOINT_URL_S3 / AWS_ENDPOINT_URL)");
    }
    // As the Rust implementation: an endpoint spelled http:// is itself the consent to plain http.
    if (scheme == "http") c.allow_http = true;
    c.endpoint = endpoint;
  }
  c.virtual_hosted = EnvTruthy(Get(env, "AWS_VIRTUAL_HOSTED_STYLE_REQUEST"));
  if (EnvTruthy(Get(env, "AWS_S3_FORCE_PATH_STYLE"))) c.virtual_hosted = false;
  return c;
}

std::string S3Config::EffectiveEndpoint() const {
  return endpoint.empty() ? "https://s3." + region + ".amazonaws.com" : endpoint;
}

}  // namespace omnigraph::io::s3
