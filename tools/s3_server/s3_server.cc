// The S3 test server's front (s3_server.h): lifecycle, HTTP wiring, request addressing, SigV4
// authentication and fault injection. The operations themselves are in s3_server_ops.cc.
#include "s3_server/s3_server.h"

#include <httplib.h>

#include <algorithm>
#include <cctype>
#include <charconv>
#include <chrono>
#include <cstdio>
#include <ctime>
#include <string_view>
#include <utility>

#include "common/error_codes.h"
#include "io/s3/sigv4.h"
#include "s3_server/s3_server_errors.h"
#include "s3_server/s3_server_faults.h"
#include "s3_server/s3_server_http.h"
#include "s3_server/s3_server_ops.h"
#include "s3_server/s3_server_request.h"
#include "s3_server/s3_server_store.h"
#include "s3_server/s3_server_xml.h"

namespace omnigraph::s3server {
namespace {

constexpr size_t kThreads = 128;  // concurrent (keep-alive) connections; each holds a thread
constexpr size_t kKeepAliveMaxRequests = 100000;
constexpr time_t kKeepAliveSeconds = 5;
constexpr time_t kIoTimeoutSeconds = 60;
constexpr size_t kMaxPayload = size_t{6} << 30;  // 6 GiB
// httplib routes by a regex over the decoded path; [\s\S] also matches a decoded newline.
constexpr char kAnyPath[] = R"([\s\S]*)";
constexpr std::string_view kUnsignedPayload = "UNSIGNED-PAYLOAD";

using Query = std::vector<std::pair<std::string, std::string>>;

bool EqualsIgnoreCase(std::string_view a, std::string_view b) {
  return std::equal(a.begin(), a.end(), b.begin(), b.end(), [](char x, char y) {
    return std::tolower(static_cast<unsigned char>(x)) == std::tolower(static_cast<unsigned char>(y));
  });
}

bool ParseUint(std::string_view text, uint64_t* out) {
  if (text.empty()) return false;
  const auto [end, ec] = std::from_chars(text.data(), text.data() + text.size(), *out);
  return ec == std::errc() && end == text.data() + text.size();
}

bool IsIpv4(std::string_view host) {
  int parts = 0;
  while (true) {
    const size_t dot = host.find('.');
    const std::string_view part = host.substr(0, dot);
    uint64_t value = 0;
    if (part.size() > 3 || !ParseUint(part, &value) || value > 255) return false;
    ++parts;
    if (dot == std::string_view::npos) break;
    host.remove_prefix(dot + 1);
  }
  return parts == 4;
}

// The bucket of a virtual-host style request: Host "<bucket>.<anything>[:port]" where the host is
// not an IPv4 address, not "localhost" and not a bracketed IPv6 address. "" for path style.
std::string VirtualHostBucket(std::string_view host_header) {
  if (host_header.empty() || host_header.front() == '[') return std::string();
  std::string host(host_header.substr(0, host_header.find(':')));
  std::transform(host.begin(), host.end(), host.begin(),
                 [](char c) { return static_cast<char>(std::tolower(static_cast<unsigned char>(c))); });
  if (host == "localhost" || IsIpv4(host)) return std::string();
  const size_t dot = host.find('.');
  if (dot == std::string::npos || dot == 0) return std::string();
  return host.substr(0, dot);
}

Result<std::string> Decode(std::string_view text) {
  Result<std::string> decoded = io::s3::UriDecode(text);
  if (!decoded.ok()) return S3Failure("InvalidURI", "Couldn't parse the specified URI: " + std::string(text));
  return decoded;
}

// The raw query split on '&', names and values decoded; a parameter without '=' has no value.
Result<Query> ParseQuery(std::string_view raw) {
  Query query;
  while (!raw.empty()) {
    const size_t amp = raw.find('&');
    const std::string_view item = raw.substr(0, amp);
    raw = amp == std::string_view::npos ? std::string_view() : raw.substr(amp + 1);
    if (item.empty()) continue;
    const size_t eq = item.find('=');
    OG_ASSIGN_OR_RETURN(std::string name, Decode(item.substr(0, eq)));
    std::string value;
    if (eq != std::string_view::npos) {
      OG_ASSIGN_OR_RETURN(value, Decode(item.substr(eq + 1)));
    }
    query.emplace_back(std::move(name), std::move(value));
  }
  return query;
}

// The path of the request-target, as received.
std::string RawPath(const httplib::Request& http) { return http.target.substr(0, http.target.find('?')); }

// Addressing: bucket, key and query from the raw request-target (the key is decoded from it, not
// taken from httplib's decoded path) and the Host header.
Result<S3Request> ParseS3Request(const httplib::Request& http) {
  S3Request r;
  r.http = &http;
  r.method = http.method;
  r.raw_path = RawPath(http);
  if (r.raw_path.empty() || r.raw_path.front() != '/') {
    return S3Failure("InvalidURI", "Couldn't parse the specified URI: " + http.target);
  }
  const size_t question = http.target.find('?');
  if (question != std::string::npos) {
    OG_ASSIGN_OR_RETURN(r.query, ParseQuery(std::string_view(http.target).substr(question + 1)));
  }
  std::string_view path = std::string_view(r.raw_path).substr(1);
  r.bucket = VirtualHostBucket(http.get_header_value("Host"));
  if (r.bucket.empty()) {
    const size_t slash = path.find('/');
    OG_ASSIGN_OR_RETURN(r.bucket, Decode(path.substr(0, slash)));
    path = slash == std::string_view::npos ? std::string_view() : path.substr(slash + 1);
  }
  OG_ASSIGN_OR_RETURN(r.key, Decode(path));
  return r;
}

// Reads the body through httplib's content reader. A request with neither Content-Length nor
// chunked Transfer-Encoding has no body (RFC 9112 section 6.3); httplib 0.11.4 would read one
// until the connection closes, so it is not asked to.
Result<std::string> ReadBody(const httplib::Request& http, const httplib::Response& response,
                             const httplib::ContentReader* reader) {
  std::string body;
  if (reader == nullptr) return body;
  const bool chunked = EqualsIgnoreCase(http.get_header_value("Transfer-Encoding"), "chunked");
  if (!chunked && !http.has_header("Content-Length")) return body;
  uint64_t declared = 0;
  if (ParseUint(http.get_header_value("Content-Length"), &declared) && declared <= kMaxPayload) {
    body.reserve(static_cast<size_t>(declared));
  }
  const bool ok = (*reader)([&body](const char* data, size_t n) {
    body.append(data, n);
    return true;
  });
  if (ok) return body;
  if (response.status == 413) return S3Failure("EntityTooLarge", "Your proposed upload exceeds the maximum size");
  return S3Failure("IncompleteBody", "You did not provide the number of bytes specified by the Content-Length header");
}

bool ValidAmzDate(std::string_view date) {
  if (date.size() != 16 || date[8] != 'T' || date[15] != 'Z') return false;
  for (size_t i = 0; i < 15; ++i) {
    if (i != 8 && (date[i] < '0' || date[i] > '9')) return false;
  }
  return true;
}

bool ConstantTimeEquals(std::string_view a, std::string_view b) {
  if (a.size() != b.size()) return false;
  unsigned char diff = 0;
  for (size_t i = 0; i < a.size(); ++i) diff |= static_cast<unsigned char>(a[i] ^ b[i]);
  return diff == 0;
}

// The error an injected fault answers with (ok for none; kReset is handled by the caller).
Status FaultStatus(FaultAction action) {
  switch (action) {
    case FaultAction::kInternalError:
      return S3Failure("InternalError", "We encountered an internal error. Please try again. (injected)");
    case FaultAction::kSlowDown: return S3Failure("SlowDown", "Please reduce your request rate. (injected)");
    case FaultAction::kConflict:
      return S3Failure("ConditionalRequestConflict",
                       "A conflicting conditional operation is currently in progress against this resource. Please "
                       "try again. (injected)");
    case FaultAction::kNone:
    case FaultAction::kReset:
    case FaultAction::kLostReply:
    case FaultAction::kTruncate: break;
  }
  return Status::Ok();
}

void WriteError(const httplib::Request& http, const std::string& request_id, const Status& status,
                httplib::Response* response) {
  const S3Error error = ToS3Error(status);
  response->status = error.http_status;
  if (http.method != "HEAD") {  // a HEAD error has no body
    response->set_content(ErrorXml(error, RawPath(http), request_id), "application/xml");
  }
}

}  // namespace

// --- lifecycle ---

Result<std::unique_ptr<S3Server>> S3Server::Create(S3ServerOptions options) {
  if (options.access_key_id.empty() || options.secret_access_key.empty()) {
    return InvalidArgumentError("the S3 server needs an access key id and a secret access key");
  }
  OG_ASSIGN_OR_RETURN(const FaultConfig faults, ParseFaultSpecs(options.faults));
  OG_ASSIGN_OR_RETURN(std::unique_ptr<Store> store, Store::Open(options.root, options.fsync));
  std::unique_ptr<S3Server> server(new S3Server(std::move(options), std::move(store)));
  server->faults_->Set(faults);
  return server;
}

S3Server::S3Server(S3ServerOptions options, std::unique_ptr<Store> store)
    : options_(std::move(options)),
      store_(std::move(store)),
      operations_(std::make_unique<Operations>(store_.get())),
      faults_(std::make_unique<FaultInjector>()),
      http_(std::make_unique<HttpServer>()) {
  ConfigureHttp();
}

S3Server::~S3Server() { Stop(); }

void S3Server::ConfigureHttp() {
  http_->new_task_queue = [] { return new httplib::ThreadPool(kThreads); };
  http_->set_keep_alive_max_count(kKeepAliveMaxRequests);
  http_->set_keep_alive_timeout(kKeepAliveSeconds);
  http_->set_read_timeout(kIoTimeoutSeconds);
  http_->set_write_timeout(kIoTimeoutSeconds);
  http_->set_tcp_nodelay(true);  // headers and body are separate writes: no Nagle stalls
  http_->set_payload_max_length(kMaxPayload);
  const httplib::Server::Handler without_body = [this](const httplib::Request& req, httplib::Response& res) {
    Handle(req, &res, nullptr);
  };
  // Body-carrying methods get the content reader, so the body is read only when the request
  // declares one (see ReadBody).
  const httplib::Server::HandlerWithContentReader with_body =
      [this](const httplib::Request& req, httplib::Response& res, const httplib::ContentReader& reader) {
        Handle(req, &res, &reader);
      };
  http_->Get(kAnyPath, without_body);  // GET and HEAD
  http_->Options(kAnyPath, without_body);
  http_->Put(kAnyPath, with_body);
  http_->Post(kAnyPath, with_body);
  http_->Delete(kAnyPath, with_body);
  http_->Patch(kAnyPath, with_body);
}

Result<int> S3Server::Start(const std::string& host, int port) {
  MutexLock lock(&lifecycle_mu_);
  if (started_) return InvalidArgumentError("the S3 server was started already");
  if (port < 0 || port > 65535) return InvalidArgumentError("bad port " + std::to_string(port));
  const int bound = port == 0 ? http_->bind_to_any_port(host) : (http_->bind_to_port(host, port) ? port : -1);
  if (bound < 0) return IoError("the S3 server cannot listen on " + host + ":" + std::to_string(port));
  started_ = true;
  listen_thread_ = std::thread([this] {
    http_->listen_after_bind();
    listen_done_ = true;
  });
  // stop() only works once the listener runs, so Start returns after that.
  while (!http_->is_running() && !listen_done_) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  if (!http_->is_running()) return IoError("the S3 server stopped listening on " + host + " at once");
  return bound;
}

void S3Server::Stop() {
  MutexLock lock(&lifecycle_mu_);
  if (!listen_thread_.joinable()) return;
  stopping_ = true;
  http_->stop();                 // closes the listening socket; the accept loop ends
  http_->ShutdownConnections();  // wakes the workers waiting on idle keep-alive connections
  listen_thread_.join();         // the listener joins its worker threads before it returns
}

Status S3Server::SetFaults(const std::vector<std::string>& specs) {
  OG_ASSIGN_OR_RETURN(const FaultConfig faults, ParseFaultSpecs(specs));
  faults_->Set(faults);
  return Status::Ok();
}

uint64_t S3Server::requests() const { return faults_->requests(); }

Status S3Server::CreateBucket(const std::string& name) { return store_->CreateBucket(name); }

void S3Server::SleepUnlessStopping(int64_t ms) const {
  const auto end = std::chrono::steady_clock::now() + std::chrono::milliseconds(ms);
  while (!stopping_ && std::chrono::steady_clock::now() < end) {
    std::this_thread::sleep_for(std::min<std::chrono::steady_clock::duration>(end - std::chrono::steady_clock::now(),
                                                                              std::chrono::milliseconds(10)));
  }
}

// --- requests ---

void S3Server::Handle(const httplib::Request& http, httplib::Response* response, const httplib::ContentReader* reader) {
  // httplib 0.11.4 applies a Range header to whatever body the handler leaves (it would slice an
  // error body too, or a range we already cut); ranges are ours, so its parsed copy is dropped.
  // The Request is a non-const local of httplib's request loop, so writing through the cast is
  // well-defined.
  const_cast<httplib::Request&>(http).ranges.clear();
  char request_id[24];
  std::snprintf(request_id, sizeof(request_id), "%016llX", static_cast<unsigned long long>(++next_request_id_));
  response->set_header("x-amz-request-id", request_id);
  SleepUnlessStopping(faults_->latency_ms());
  const Status status = Serve(http, response, reader, request_id);
  if (!status.ok()) WriteError(http, request_id, status, response);
  // httplib would gzip or brotli an XML body for a client that accepts it; S3 never compresses.
  // Dropped only now: the header may be one the signature covers.
  const_cast<httplib::Request&>(http).headers.erase("Accept-Encoding");
}

Status S3Server::Serve(const httplib::Request& http, httplib::Response* response, const httplib::ContentReader* reader,
                       const std::string& request_id) {
  OG_ASSIGN_OR_RETURN(std::string body, ReadBody(http, *response, reader));
  OG_ASSIGN_OR_RETURN(S3Request request, ParseS3Request(http));
  request.body = std::move(body);
  request.request_id = request_id;
  OG_RETURN_IF_ERROR(Authenticate(request));
  const FaultAction fault = faults_->Next(request.method);
  if (fault == FaultAction::kReset) {
    ResetConnection(response);
    return Status::Ok();
  }
  OG_RETURN_IF_ERROR(FaultStatus(fault));
  const Status ran = operations_->Run(request, response);
  if (fault == FaultAction::kLostReply) {  // it happened (or failed); the client never hears which
    ResetConnection(response);
    return Status::Ok();
  }
  if (fault == FaultAction::kTruncate && ran.ok() && response->content_provider_ && response->content_length_ >= 2) {
    // Content-Length promises the whole body; half of it goes out, then the connection closes.
    const size_t cut = response->content_length_ / 2;
    response->content_provider_ = [inner = std::move(response->content_provider_), cut](size_t offset, size_t want,
                                                                                        httplib::DataSink& sink) {
      if (offset >= cut) return false;
      return inner(offset, std::min(want, cut - offset), sink);
    };
  }
  return ran;
}

Status S3Server::Authenticate(const S3Request& request) const {
  const httplib::Request& http = *request.http;
  if (!http.has_header("Authorization")) {
    return S3Failure("AccessDenied", "Access Denied (AWS4-HMAC-SHA256 header authentication is required)");
  }
  Result<io::s3::ParsedAuthorization> parsed = io::s3::ParseAuthorization(http.get_header_value("Authorization"));
  if (!parsed.ok()) return S3Failure("AuthorizationHeaderMalformed", parsed.status().message());
  if (parsed->access_key_id != options_.access_key_id) {
    return S3Failure("InvalidAccessKeyId", "The AWS Access Key Id you provided does not exist in our records.");
  }
  const std::vector<std::string>& names = parsed->signed_headers;
  if (std::find(names.begin(), names.end(), "host") == names.end() ||
      std::find(names.begin(), names.end(), "x-amz-date") == names.end()) {
    return S3Failure("AccessDenied", "The signed headers must include host and x-amz-date");
  }
  const std::string amz_date = http.get_header_value("x-amz-date");
  if (!ValidAmzDate(amz_date)) return S3Failure("AccessDenied", "AWS authentication requires a valid x-amz-date");
  if (parsed->scope.date != amz_date.substr(0, 8) || parsed->scope.service != "s3") {
    return S3Failure("AuthorizationHeaderMalformed",
                     "The credential scope must be <date of x-amz-date>/<region>/s3/aws4_request");
  }
  if (!http.has_header("x-amz-content-sha256")) {
    return S3Failure("InvalidRequest", "Missing required header for this request: x-amz-content-sha256");
  }
  io::s3::SignableRequest signable;
  signable.method = request.method;
  signable.encoded_path = request.raw_path;
  signable.query = request.query;
  signable.payload_hash = http.get_header_value("x-amz-content-sha256");
  // STREAMING-...: an aws-chunked body (the AWS SDKs send one for a stream with a checksum trailer);
  // its seed signature is checked below, then it is refused as not implemented (not a hash mismatch).
  const bool streaming = signable.payload_hash.starts_with("STREAMING-");
  if (!streaming && signable.payload_hash != kUnsignedPayload &&
      signable.payload_hash != io::s3::Sha256Hex(request.body)) {
    return S3Failure("XAmzContentSHA256Mismatch",
                     "The provided 'x-amz-content-sha256' header does not match what was computed.");
  }
  for (const std::string& name : names) {
    const size_t count = http.get_header_value_count(name);
    if (count == 0) signable.headers.emplace_back(name, "");  // signed but not sent: cannot match
    for (size_t i = 0; i < count; ++i) signable.headers.emplace_back(name, http.get_header_value(name, i));
  }
  const io::s3::Credentials credentials{options_.access_key_id, options_.secret_access_key, ""};
  if (!ConstantTimeEquals(io::s3::Sign(credentials, parsed->scope, amz_date, signable), parsed->signature)) {
    return S3Failure("SignatureDoesNotMatch",
                     "The request signature we calculated does not match the signature you provided. Check your key "
                     "and signing method.");
  }
  if (streaming) {
    return S3Failure("NotImplemented",
                     "A header you provided implies functionality that is not implemented: "
                     "x-amz-content-sha256: " +
                         signable.payload_hash + " (aws-chunked payloads; send the body whole)");
  }
  return Status::Ok();
}

void S3Server::ResetConnection(httplib::Response* response) {
  response->status = 200;
  if (http_->ResetCurrentConnection()) return;  // the response is discarded unsent
  // Fallback (not expected): the status line and headers go out, then the body never comes, so
  // the client at least sees a truncated response and the connection closed.
  response->set_content_provider(1, "application/octet-stream",
                                 [](size_t, size_t, httplib::DataSink&) { return false; });
}

}  // namespace omnigraph::s3server
