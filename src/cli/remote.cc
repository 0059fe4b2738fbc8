#include "cli/remote.h"

#include <fcntl.h>
#include <sys/stat.h>
#include <unistd.h>

#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <sstream>

#include "cli/cli_util.h"
#include "cli/operator_config.h"
#include "common/error_codes.h"
#include "io/http/curl_lib.h"
#include "io/s3/sigv4.h"

namespace omnigraph::cli {

namespace {

std::string Trim(std::string s) {
  while (!s.empty() && (s.back() == ' ' || s.back() == '\t' || s.back() == '\r' || s.back() == '\n')) s.pop_back();
  size_t i = s.find_first_not_of(" \t");
  return i == std::string::npos ? "" : s.substr(i);
}

std::optional<std::string> EnvValue(const std::string& name) {
  const char* v = std::getenv(name.c_str());
  if (v == nullptr) return std::nullopt;
  std::string t = Trim(v);
  return t.empty() ? std::nullopt : std::optional<std::string>(t);
}

std::string StripSlashes(std::string s) {
  while (!s.empty() && s.back() == '/') s.pop_back();
  return s;
}

// The `servers:` entry whose url is `url` or a prefix of it ending at '/'; the longest wins.
std::optional<std::string> ServerNameFor(const OperatorConfig& config, const std::string& url) {
  std::optional<std::string> best;
  size_t best_len = 0;
  const std::string u = StripSlashes(url);
  for (const auto& [name, server] : config.servers) {
    const std::string s = StripSlashes(server.url);
    if (s.empty()) continue;
    if ((u == s || (u.starts_with(s) && u[s.size()] == '/')) && s.size() > best_len) {
      best = name;
      best_len = s.size();
    }
  }
  return best;
}

std::string TokenEnvName(const std::string& server) {
  std::string out = "OMNIGRAPH_TOKEN_";
  for (char c : server) out.push_back(c == '-' ? '_' : static_cast<char>(std::toupper(static_cast<unsigned char>(c))));
  return out;
}

Result<std::optional<std::string>> TokenFor(const OperatorConfig& config, const std::string& url) {
  if (auto name = ServerNameFor(config, url)) {
    if (auto t = EnvValue(TokenEnvName(*name))) return std::optional<std::string>(*t);
    OG_ASSIGN_OR_RETURN(auto creds, ReadCredentials(CredentialsPath()));
    if (auto it = creds.find(*name); it != creds.end() && !it->second.empty()) {
      return std::optional<std::string>(it->second);
    }
  }
  return EnvValue("OMNIGRAPH_BEARER_TOKEN");
}

}  // namespace

std::string EscapeSegment(std::string_view s) { return omnigraph::io::s3::UriEncode(s, /*encode_slash=*/true); }

Status RemoteError(int http, std::string_view body) {
  OrderedJson j = OrderedJson::parse(body, nullptr, /*allow_exceptions=*/false);
  std::string message = "server returned " + std::to_string(http);
  std::optional<ErrorCode> code;
  OrderedJson details = OrderedJson::object();
  if (j.is_object() && j.contains("error") && j["error"].is_string()) {
    message = j["error"].get<std::string>();
    if (j.contains("error_code") && j["error_code"].is_string()) {
      const std::string name = j["error_code"].get<std::string>();
      for (const auto& info : AllErrorCodes()) {
        if (info.name == name) code = info.code;
      }
    }
    for (auto it = j.begin(); it != j.end(); ++it) {
      if (it.key() != "error" && it.key() != "code" && it.key() != "error_code") details[it.key()] = it.value();
    }
  } else if (!body.empty()) {
    message += ": " + std::string(body.substr(0, 500));
  }
  if (!code) {
    switch (http) {
      case 400: code = ErrorCode::kInvalidArgument; break;
      case 401: code = ErrorCode::kUnauthenticated; break;
      case 403: code = ErrorCode::kPermissionDenied; break;
      case 404: code = ErrorCode::kNotFound; break;
      case 405: code = ErrorCode::kMethodNotAllowed; break;
      case 409: code = ErrorCode::kConflict; break;
      case 410: code = ErrorCode::kHistoryReclaimed; break;
      case 412: code = ErrorCode::kPreconditionFailed; break;
      case 413: code = ErrorCode::kResourceExhausted; break;
      case 415: code = ErrorCode::kUnsupportedMediaType; break;
      case 429: code = ErrorCode::kAdmissionLimit; break;
      case 501: code = ErrorCode::kUnimplemented; break;
      case 503: code = ErrorCode::kTransient; break;
      default: code = ErrorCode::kInternal; break;
    }
  }
  Status s(*code, message);
  if (!details.empty()) s = s.WithDetails(details.dump());
  return s;
}

// HTTP through libcurl, loaded on first use (io/http/curl_lib.h): a local command never loads it.
// One easy handle per RemoteGraph, so consecutive requests reuse the connection.
struct RemoteGraph::Impl {
  std::string host;                  // scheme://host[:port]
  std::string prefix;                // the base URL's path, without a trailing '/'
  std::vector<std::string> headers;  // "Name: value"
  const io::CurlLib* lib = nullptr;
  CURL* curl = nullptr;
  ~Impl() {
    if (curl != nullptr) lib->easy_cleanup(curl);
  }
};

RemoteGraph::RemoteGraph(std::string base_url, std::string graph, std::optional<std::string> token)
    : base_url_(StripSlashes(std::move(base_url))), graph_(std::move(graph)), impl_(std::make_unique<Impl>()) {
  const size_t scheme_end = base_url_.find("://");
  const size_t path_start = base_url_.find('/', scheme_end == std::string::npos ? 0 : scheme_end + 3);
  impl_->host = path_start == std::string::npos ? base_url_ : base_url_.substr(0, path_start);
  impl_->prefix = path_start == std::string::npos ? "" : base_url_.substr(path_start);
  if (token) impl_->headers.push_back("Authorization: Bearer " + *token);
  impl_->headers.push_back(std::string("User-Agent: omnigraph-cli/") + OG_VERSION);
}

RemoteGraph::~RemoteGraph() = default;

std::string RemoteGraph::GraphUrl() const { return base_url_ + "/graphs/" + EscapeSegment(graph_); }

namespace {

std::string FullPath(const std::string& prefix, const std::string& graph, std::string_view path,
                     const QueryParams& query) {
  std::string out = prefix;
  if (path.starts_with("//")) {
    out += std::string(path.substr(1));
  } else {
    out += "/graphs/" + EscapeSegment(graph) + std::string(path);
  }
  char sep = '?';
  for (const auto& [k, v] : query) {
    out += sep + EscapeSegment(k) + "=" + EscapeSegment(v);
    sep = '&';
  }
  return out;
}

struct Receiver {
  const io::CurlLib* lib;
  CURL* curl;
  HttpAnswer* out;
  const std::function<Status(std::string_view)>* sink;  // nullptr: collect the body
  Status sink_status;
};

size_t Receive(char* data, size_t size, size_t n, void* user) {
  auto* r = static_cast<Receiver*>(user);
  const size_t bytes = size * n;
  if (r->sink == nullptr) {
    r->out->body.append(data, bytes);
    return bytes;
  }
  if (r->out->status == 0) r->lib->easy_getinfo(r->curl, CURLINFO_RESPONSE_CODE, &r->out->status);
  if (r->out->status < 200 || r->out->status >= 300) {  // an error's body, bounded
    r->out->body.append(data, bytes);
    return r->out->body.size() < (size_t{1} << 20) ? bytes : 0;
  }
  r->sink_status = (*r->sink)(std::string_view(data, bytes));
  return r->sink_status.ok() ? bytes : 0;  // 0 stops the transfer
}

}  // namespace

Result<HttpAnswer> RemoteGraph::Send(const std::string& method, const std::string& path,
                                     const std::vector<std::string>& headers, const std::string* body,
                                     const std::function<Status(std::string_view)>* sink) {
  if (impl_->curl == nullptr) {
    OG_ASSIGN_OR_RETURN(impl_->lib, io::Curl());
    impl_->curl = impl_->lib->easy_init();
    if (impl_->curl == nullptr) return Status(ErrorCode::kInternal, "curl_easy_init failed");
  }
  const io::CurlLib& lib = *impl_->lib;
  CURL* curl = impl_->curl;
  lib.easy_reset(curl);  // keeps the connection
  curl_slist* list = nullptr;
  for (const std::string& h : impl_->headers) list = lib.slist_append(list, h.c_str());
  for (const std::string& h : headers) list = lib.slist_append(list, h.c_str());
  list = lib.slist_append(list, "Expect:");  // no 100-continue round trip before a body
  const std::string url = impl_->host + path;
  HttpAnswer out;
  Receiver receiver{&lib, curl, &out, sink, Status::Ok()};
  lib.easy_setopt(curl, CURLOPT_URL, url.c_str());
  lib.easy_setopt(curl, CURLOPT_NOSIGNAL, 1L);
  lib.easy_setopt(curl, CURLOPT_PROTOCOLS_STR, "http,https");
  lib.easy_setopt(curl, CURLOPT_CONNECTTIMEOUT_MS, 10000L);
  lib.easy_setopt(curl, CURLOPT_LOW_SPEED_LIMIT, 1L);  // no byte for 10 minutes: give up
  lib.easy_setopt(curl, CURLOPT_LOW_SPEED_TIME, 600L);
  lib.easy_setopt(curl, CURLOPT_TCP_NODELAY, 1L);
  lib.easy_setopt(curl, CURLOPT_WRITEFUNCTION, Receive);
  lib.easy_setopt(curl, CURLOPT_WRITEDATA, &receiver);
  if (method == "POST") {
    lib.easy_setopt(curl, CURLOPT_POST, 1L);
    lib.easy_setopt(curl, CURLOPT_POSTFIELDS, body->data());
    lib.easy_setopt(curl, CURLOPT_POSTFIELDSIZE_LARGE, static_cast<curl_off_t>(body->size()));
  } else if (method != "GET") {
    lib.easy_setopt(curl, CURLOPT_CUSTOMREQUEST, method.c_str());
  }
  lib.easy_setopt(curl, CURLOPT_HTTPHEADER, list);
  const CURLcode rc = lib.easy_perform(curl);
  lib.slist_free_all(list);
  if (!receiver.sink_status.ok()) return receiver.sink_status;
  if (rc != CURLE_OK) {
    return Status(ErrorCode::kIo, (sink != nullptr ? "the stream of " : "cannot reach the server for ") + method + " " +
                                      path + (sink != nullptr ? " failed: " : ": ") + lib.easy_strerror(rc));
  }
  lib.easy_getinfo(curl, CURLINFO_RESPONSE_CODE, &out.status);
  return out;
}

namespace {

Result<OrderedJson> Answer(Result<HttpAnswer> r, const std::string& what) {
  OG_RETURN_IF_ERROR(r.status());
  if (r->status < 200 || r->status >= 300) return RemoteError(static_cast<int>(r->status), r->body);
  OrderedJson j = OrderedJson::parse(r->body, nullptr, /*allow_exceptions=*/false);
  if (j.is_discarded()) return Status(ErrorCode::kInternal, "the server's answer to " + what + " is not JSON");
  return j;
}

}  // namespace

Result<OrderedJson> RemoteGraph::Get(std::string_view path, const QueryParams& query) {
  const std::string p = FullPath(impl_->prefix, graph_, path, query);
  return Answer(Send("GET", p, {}, nullptr, nullptr), "GET " + p);
}

Result<OrderedJson> RemoteGraph::Post(std::string_view path, const OrderedJson& body,
                                      const std::vector<std::pair<std::string, std::string>>& headers) {
  const std::string p = FullPath(impl_->prefix, graph_, path, {});
  std::vector<std::string> h = {"Content-Type: application/json"};
  for (const auto& [k, v] : headers) h.push_back(k + ": " + v);
  const std::string text = body.dump();
  return Answer(Send("POST", p, h, &text, nullptr), "POST " + p);
}

Result<OrderedJson> RemoteGraph::PostRaw(std::string_view path, const QueryParams& query, const std::string& body,
                                         const std::string& content_type) {
  const std::string p = FullPath(impl_->prefix, graph_, path, query);
  return Answer(Send("POST", p, {"Content-Type: " + content_type}, &body, nullptr), "POST " + p);
}

Result<OrderedJson> RemoteGraph::Delete(std::string_view path) {
  const std::string p = FullPath(impl_->prefix, graph_, path, {});
  return Answer(Send("DELETE", p, {}, nullptr, nullptr), "DELETE " + p);
}

Status RemoteGraph::PostStream(std::string_view path, const OrderedJson& body,
                               const std::function<Status(std::string_view)>& sink) {
  const std::string p = FullPath(impl_->prefix, graph_, path, {});
  const std::string text = body.dump();
  OG_ASSIGN_OR_RETURN(HttpAnswer r, Send("POST", p, {"Content-Type: application/json"}, &text, &sink));
  if (r.status < 200 || r.status >= 300) return RemoteError(static_cast<int>(r.status), r.body);
  return Status::Ok();
}

namespace {

// The graph `graph` of the server at `url` (`label` names it in messages), with the token the
// operator config and environment give that URL; without a graph (and `need_graph`), the server's
// only graph.
Result<std::unique_ptr<RemoteGraph>> Connect(const OperatorConfig& config, const std::string& url,
                                             const std::string& label, const std::optional<std::string>& graph,
                                             bool need_graph) {
  if (!url.starts_with("http://") && !url.starts_with("https://")) {
    return UsageError("a server scope resolves to an http(s):// URL; '" + url + "' is not one");
  }
  OG_ASSIGN_OR_RETURN(std::optional<std::string> token, TokenFor(config, url));
  auto remote = std::make_unique<RemoteGraph>(url, graph.value_or(""), token);
  if (need_graph && !graph) {
    // No graph named: the server's only graph, else the list to choose from.
    auto listed = remote->Get("//graphs");
    if (!listed.ok()) {
      return UsageError("server '" + label + "': pass --graph <id> to select a graph (listing its graphs failed: " +
                        listed.status().message() + ")");
    }
    std::vector<std::string> ids;
    for (const auto& e : (*listed)["graphs"]) ids.push_back(e.value("graph_id", ""));
    if (ids.size() != 1) {
      std::string names;
      for (const auto& id : ids) names += (names.empty() ? "" : ", ") + id;
      return UsageError("server scope '" + label + "' has " + std::to_string(ids.size()) + " graphs: [" + names +
                        "]; pass --graph <id> to select one (or set `default_graph` in your operator config)");
    }
    remote = std::make_unique<RemoteGraph>(url, ids[0], token);
  }
  return remote;
}

}  // namespace

Result<std::unique_ptr<RemoteGraph>> ConnectServer(const std::string& server, const std::optional<std::string>& graph,
                                                   bool need_graph) {
  OG_ASSIGN_OR_RETURN(const OperatorConfig* config, LoadedOperatorConfig());
  std::string url;
  if (server.find("://") != std::string::npos) {
    url = server;
  } else {
    auto it = config->servers.find(server);
    if (it == config->servers.end()) {
      std::string names;
      for (const auto& [n, s] : config->servers) names += (names.empty() ? "" : ", ") + n;
      return UsageError("unknown server '" + server + "'; servers defined in the operator config: [" + names +
                        "] (add it under servers: in ~/.omnigraph/config.yaml)");
    }
    url = it->second.url;
  }
  return Connect(*config, url, server, graph, need_graph);
}

Result<std::optional<std::unique_ptr<RemoteGraph>>> ResolveRemote(const GraphFlags& flags, bool need_graph) {
  using Out = std::optional<std::unique_ptr<RemoteGraph>>;
  const GlobalFlags& g = Globals();
  OG_ASSIGN_OR_RETURN(const OperatorConfig* config, LoadedOperatorConfig());
  std::optional<std::string> graph = g.graph.empty() ? std::nullopt : std::optional<std::string>(g.graph);
  if (!g.server.empty()) {
    for (const std::string* given : {&g.store, &flags.uri_flag, &flags.positional_uri, &g.cluster}) {
      if (!given->empty()) {
        return UsageError(
            "--server and a store URI or --cluster are mutually exclusive; pick one way to address "
            "the graph");
      }
    }
    OG_ASSIGN_OR_RETURN(std::unique_ptr<RemoteGraph> remote, ConnectServer(g.server, graph, need_graph));
    return Out(std::move(remote));
  }
  for (const std::string* given : {&g.store, &flags.uri_flag, &flags.positional_uri}) {
    if (given->starts_with("http://") || given->starts_with("https://")) {
      return UsageError(
          "a remote graph must be addressed with `--server <url>`; a positional (or --store) "
          "http(s):// URL is not a graph's storage");
    }
    if (!given->empty()) return Out();
  }
  if (!g.cluster.empty()) return Out();
  OG_ASSIGN_OR_RETURN(OperatorSettings settings, flags.Settings(std::nullopt));
  if (settings.scope != ScopeKind::kServer) return Out();
  if (!graph) graph = settings.graph;
  OG_ASSIGN_OR_RETURN(
      std::unique_ptr<RemoteGraph> remote,
      Connect(*config, settings.server_url.value_or(settings.target), settings.target, graph, need_graph));
  return Out(std::move(remote));
}

std::string CredentialsPath() {
  const std::string config = OperatorConfigPath();
  if (config.empty()) return "";
  return (std::filesystem::path(config).parent_path() / "credentials").string();
}

Result<std::map<std::string, std::string>> ReadCredentials(const std::string& path) {
  std::map<std::string, std::string> out;
  if (path.empty()) return out;
  struct stat st {};
  if (::stat(path.c_str(), &st) != 0) return out;  // no file: no credentials
  if ((st.st_mode & 077) != 0) {
    char mode[8];
    std::snprintf(mode, sizeof(mode), "%o", st.st_mode & 0777);
    return PermissionDeniedError("credentials file '" + path + "' is group/world-accessible (mode " + mode +
                                 "); run `chmod 600 " + path + "`");
  }
  std::ifstream in(path);
  if (!in) return PermissionDeniedError("cannot read the credentials file '" + path + "'");
  std::string line, section;
  while (std::getline(in, line)) {
    line = Trim(line);
    if (line.empty() || line[0] == '#') continue;
    if (line.front() == '[' && line.back() == ']') {
      section = Trim(line.substr(1, line.size() - 2));
      continue;
    }
    const size_t eq = line.find('=');
    if (section.empty() || eq == std::string::npos || Trim(line.substr(0, eq)) != "token") continue;
    std::string v = Trim(line.substr(eq + 1));
    if (v.size() >= 2 && (v.front() == '"' || v.front() == '\'') && v.back() == v.front())
      v = v.substr(1, v.size() - 2);
    out.emplace(section, v);  // the first `token` of a section wins
  }
  return out;
}

Status WriteCredential(const std::string& path, const std::string& name, const std::optional<std::string>& token) {
  if (path.empty()) return InvalidArgumentError("no home directory resolvable for the credentials file");
  OG_ASSIGN_OR_RETURN(auto creds, ReadCredentials(path));
  creds.erase(name);
  if (token) creds[name] = *token;
  std::string text;
  for (const auto& [n, t] : creds) text += (text.empty() ? "" : "\n") + ("[" + n + "]\ntoken = " + t + "\n");
  std::error_code ec;
  std::filesystem::create_directories(std::filesystem::path(path).parent_path(), ec);
  // A fresh file only (O_EXCL, no symlink followed), so neither an existing file's mode nor a link
  // planted at the name can expose the token.
  const std::string tmp = path + ".tmp." + std::to_string(::getpid()) + "." + std::to_string(::time(nullptr));
  const int fd = ::open(tmp.c_str(), O_WRONLY | O_CREAT | O_EXCL | O_NOFOLLOW | O_CLOEXEC, 0600);
  if (fd < 0) return ErrnoError("cannot write '" + tmp + "'", errno);
  const bool written = ::write(fd, text.data(), text.size()) == static_cast<ssize_t>(text.size()) && ::fsync(fd) == 0;
  const int err = errno;
  ::close(fd);
  if (!written || ::rename(tmp.c_str(), path.c_str()) != 0) {
    ::unlink(tmp.c_str());
    return ErrnoError("cannot write the credentials file '" + path + "'", written ? errno : err);
  }
  return Status::Ok();
}

}  // namespace omnigraph::cli
