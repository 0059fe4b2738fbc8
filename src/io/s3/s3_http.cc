#include "io/s3/s3_http.h"

#include <chrono>
#include <cstring>
#include <random>
#include <thread>

#include "common/error_codes.h"
#include "io/s3/s3_xml.h"

namespace omnigraph::io::s3 {
namespace {

size_t WriteBody(char* data, size_t size, size_t n, void* user) {
  static_cast<std::string*>(user)->append(data, size * n);
  return size * n;
}

size_t WriteHeader(char* data, size_t size, size_t n, void* user) {
  std::string_view line(data, size * n);
  auto* headers = static_cast<std::map<std::string, std::string>*>(user);
  if (line.substr(0, 5) == "HTTP/") {
    headers->clear();  // a new response (after a 100 Continue, or a redirect)
    return size * n;
  }
  const size_t colon = line.find(':');
  if (colon == std::string_view::npos) return size * n;
  std::string name(line.substr(0, colon));
  for (char& c : name) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
  std::string_view value = line.substr(colon + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == '\r' || value.back() == '\n' || value.back() == ' '))
    value.remove_suffix(1);
  (*headers)[name] = std::string(value);
  return size * n;
}

struct Upload {
  std::string_view data;
  size_t pos = 0;
};

size_t ReadBody(char* buffer, size_t size, size_t n, void* user) {
  auto* u = static_cast<Upload*>(user);
  const size_t take = std::min(size * n, u->data.size() - u->pos);
  std::memcpy(buffer, u->data.data() + u->pos, take);
  u->pos += take;
  return take;
}

bool RetryableStatus(const HttpResponse& r) {
  if (r.status == 500 || r.status == 502 || r.status == 503 || r.status == 504 || r.status == 429) return true;
  return r.status == 409 && ErrorCodeOf(r) == "ConditionalRequestConflict";
}

}  // namespace

std::string ErrorCodeOf(const HttpResponse& response) { return ParseErrorCode(response.body); }

HttpClient::HttpClient(S3Config config) : config_(std::move(config)) {
  const std::string endpoint = config_.EffectiveEndpoint();
  const size_t sep = endpoint.find("://");
  scheme_ = endpoint.substr(0, sep);
  host_ = endpoint.substr(sep + 3);
}

HttpClient::~HttpClient() {
  if (idle_.empty()) return;
  auto lib = Curl();  // loaded: the handles came from it
  if (lib.ok()) {
    for (CURL* c : idle_) (*lib)->easy_cleanup(c);
  }
}

CURL* HttpClient::Acquire(const CurlLib& lib, bool* reused) {
  {
    std::lock_guard lock(mu_);
    if (!idle_.empty()) {
      CURL* c = idle_.back();
      idle_.pop_back();
      *reused = true;
      return c;
    }
  }
  *reused = false;
  return lib.easy_init();
}

void HttpClient::Release(CURL* curl) {
  std::lock_guard lock(mu_);
  idle_.push_back(curl);
}

std::string HttpClient::UrlFor(const HttpRequest& r, std::string* host, std::string* encoded_path) const {
  std::string path;
  if (r.bucket.empty()) {
    *host = host_;
    path = "/";
  } else if (config_.virtual_hosted) {
    *host = r.bucket + "." + host_;
    path = "/" + UriEncode(r.key, false);
  } else {
    *host = host_;
    path = "/" + UriEncode(r.bucket, true) + (r.key.empty() ? "" : "/" + UriEncode(r.key, false));
  }
  *encoded_path = path;
  std::string url = scheme_ + "://" + *host + path;
  for (size_t i = 0; i < r.query.size(); ++i) {
    url += (i ? "&" : "?") + UriEncode(r.query[i].first, true);
    if (!r.query[i].second.empty()) url += "=" + UriEncode(r.query[i].second, true);
  }
  return url;
}

Result<HttpResponse> HttpClient::SendOnce(const CurlLib& lib, CURL* curl, bool reused, const HttpRequest& r,
                                          bool* transport_error) {
  *transport_error = false;
  std::string host, encoded_path;
  const std::string url = UrlFor(r, &host, &encoded_path);
  const std::string amz_date = AmzDate(std::time(nullptr));
  SignableRequest s;
  s.method = r.method;
  s.encoded_path = encoded_path;
  s.query = r.query;
  s.payload_hash = Sha256Hex(r.body);
  s.headers = r.headers;
  s.headers.emplace_back("host", host);
  s.headers.emplace_back("x-amz-date", amz_date);
  s.headers.emplace_back("x-amz-content-sha256", s.payload_hash);
  if (!config_.credentials.session_token.empty()) {
    s.headers.emplace_back("x-amz-security-token", config_.credentials.session_token);
  }
  const SigningScope scope{amz_date.substr(0, 8), config_.region, "s3"};
  const std::string auth = AuthorizationHeader(config_.credentials, scope, amz_date, s);

  lib.easy_reset(curl);
  curl_slist* list = nullptr;
  for (const auto& [k, v] : s.headers) {
    if (k == "host") continue;  // curl sends Host from the URL
    list = lib.slist_append(list, (k + ": " + v).c_str());
  }
  list = lib.slist_append(list, ("Authorization: " + auth).c_str());
  list = lib.slist_append(list, "Expect:");  // no 100-continue round trip
  list = lib.slist_append(list, "Content-Type:");
  HttpResponse out;
  Upload upload{r.body, 0};
  lib.easy_setopt(curl, CURLOPT_URL, url.c_str());
  lib.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  lib.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, static_cast<long>(config_.retry.connect_timeout_ms));
  lib.easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);
  lib.easy_setopt(curl, CURLOPT_LOW_SPEED_TIME,
                  static_cast<long>(std::max<uint32_t>(1, config_.retry.stall_timeout_ms / 1000)));
  lib.easy_setopt(curl, CURLOPT_WRITEFUNCTION, WriteBody);
  lib.easy_setopt(curl, CURLOPT_WRITEDATA, &out.body);
  lib.easy_setopt(curl, CURLOPT_HEADERFUNCTION, WriteHeader);
  lib.easy_setopt(curl, CURLOPT_HEADERDATA, &out.headers);
  lib.easy_setopt(curl, CURLOPT_TCP_KEEPALIVE, 1L);
  lib.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, config_.allow_http ? "http,https" : "https");
  if (r.method == "HEAD") {
    lib.easy_setopt(curl, CURLOPT_NOBODY, 1L);
  } else if (r.method == "PUT") {
    // An upload with a known size: curl sends Content-Length (never chunked, which S3 refuses).
    lib.easy_setopt(curl, CURLOPT_UPLOAD, 1L);
    lib.easy_setopt(curl, CURLOPT_READFUNCTION, ReadBody);
    lib.easy_setopt(curl, CURLOPT_READDATA, &upload);
    lib.easy_setopt(curl, CURLOPT_INFILESIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
  } else if (r.method == "POST") {
    // Read through the callback too (not CURLOPT_POSTFIELDS): with no seek function curl cannot
    // silently send the body again on a fresh connection (see `resent` below).
    lib.easy_setopt(curl, CURLOPT_POST, 1L);
    lib.easy_setopt(curl, CURLOPT_READFUNCTION, ReadBody);
    lib.easy_setopt(curl, CURLOPT_READDATA, &upload);
    lib.easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(r.body.size()));
  } else if (r.method != "GET") {
    lib.easy_setopt(curl, CURLOPT_CUSTOMREQUEST, r.method.c_str());
  }
  lib.easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  const CURLcode rc = lib.easy_perform(curl);
  lib.slist_free_all(list);
  stats_.requests.fetch_add(1, std::memory_order_relaxed);
  if (rc != CURLE_OK) {
    *transport_error = true;
    const bool local = rc == CURLE_UNSUPPORTED_PROTOCOL || rc == CURLE_URL_MALFORMAT || rc == CURLE_OUT_OF_MEMORY;
    if (local)
      return Status(ErrorCode::kStoreConfig, std::string("S3 request to ") + url + " failed: " + lib.easy_strerror(rc));
    return TransientError(std::string("S3 request ") + r.method + " " + url + " failed: " + lib.easy_strerror(rc));
  }
  lib.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out.status);
  // libcurl re-sends a request by itself when a kept-alive connection dies before any answer (it
  // cannot for a body it already read, lacking a seek function, and fails instead). Such a resend
  // may repeat a request the server carried out, so a write that opened a new connection on a
  // handle that had one counts as possibly repeated.
  long connects = 0;
  lib.easy_getinfo(curl, CURLINFO_NUM_CONNECTS, &connects);
  out.resent = reused && connects > 0 && r.method != "GET" && r.method != "HEAD";
  return out;
}

Result<HttpResponse> HttpClient::Send(const HttpRequest& request) {
  static thread_local std::mt19937_64 rng(std::random_device{}());
  OG_ASSIGN_OR_RETURN(const CurlLib* lib, Curl());
  bool reused = false;  // the handle may hold a kept-alive connection
  CURL* curl = Acquire(*lib, &reused);
  if (curl == nullptr) return InternalError("curl_easy_init failed");
  bool ambiguous = false;
  Result<HttpResponse> last = TransientError("no attempt made");
  for (int attempt = 1; attempt <= config_.retry.max_attempts; ++attempt) {
    if (attempt > 1) {
      stats_.retries.fetch_add(1, std::memory_order_relaxed);
      const uint64_t cap = std::min<uint64_t>(config_.retry.max_backoff_ms,
                                              uint64_t{config_.retry.base_backoff_ms} << std::min(attempt - 2, 20));
      std::this_thread::sleep_for(std::chrono::milliseconds(std::uniform_int_distribution<uint64_t>(0, cap)(rng)));
    }
    bool transport_error = false;
    last = SendOnce(*lib, curl, reused, request, &transport_error);
    if (!last.ok()) {
      if (last.status().category() != StatusCode::kTransient) break;  // a local error: retrying cannot help
      // The request may have been applied before the connection failed.
      ambiguous = true;
      lib->easy_cleanup(curl);  // never reuse a connection in an unknown state
      curl = lib->easy_init();
      reused = false;
      if (curl == nullptr) return InternalError("curl_easy_init failed");
      continue;
    }
    reused = true;
    if (last->resent) ambiguous = true;
    last->attempts = attempt;
    last->ambiguous = ambiguous;
    if (!RetryableStatus(*last)) break;
    // A 5xx after the request was sent may also have been applied.
    if (last->status >= 500) ambiguous = true;
  }
  Release(curl);
  return last;
}

}  // namespace omnigraph::io::s3
