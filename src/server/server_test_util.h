// Shared by server_test.cc and server_auth_test.cc: a real omnigraph-server on loopback over a
// temporary graph (Database::Init + Load), run on a thread, and a small cpp-httplib client for it.
#pragma once

#include <arpa/inet.h>
#include <gtest/gtest.h>
#include <httplib.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <sys/time.h>
#include <unistd.h>

#include <filesystem>
#include <fstream>
#include <functional>
#include <memory>
#include <optional>
#include <ostream>
#include <string>
#include <thread>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "common/ulid.h"
#include "omnigraph/omnigraph.h"
#include "server/auth.h"
#include "server/server.h"

namespace omnigraph::server::http_test {

namespace fs = std::filesystem;
using json = nlohmann::json;

inline constexpr const char* kSchema = R"(
node Person { name: String @key, age: I32? }
node Company { name: String @key }
node Doc { slug: String @key, body: Blob? }
edge WorksAt: Person -> Company
)";

// 6 records: 3 people, 1 company, 1 document (body "0123456789"), 1 edge.
inline constexpr const char* kSeed = R"({"type":"Person","data":{"name":"ada","age":36}}
{"type":"Person","data":{"name":"bob","age":41}}
{"type":"Person","data":{"name":"cy","age":29}}
{"type":"Company","data":{"name":"acme"}}
{"type":"Doc","data":{"slug":"readme","body":"base64:MDEyMzQ1Njc4OQ=="}}
{"edge":"WorksAt","from":"ada","to":"acme"})";
inline constexpr size_t kSeedRecords = 6;
inline constexpr int kSeedPeople = 3;

inline constexpr const char* kPeople = "query people() { match { $p: Person } return { $p.name } order { $p.name } }";
inline constexpr const char* kCountPeople = "query n() { match { $p: Person } return { count($p) as n } }";
inline constexpr const char* kAddPerson = "query add($name: String) { insert Person { name: $name } }";

// A graph policy: alice (team) reads and exports anywhere, changes only unprotected branches and
// creates unprotected branches; main is protected. mallory has a token but is in no group.
inline constexpr const char* kPolicy = R"(version: 1
groups:
  team: [alice]
protected_branches: [main]
rules:
  - id: team-read
    allow:
      actors: { group: team }
      actions: [read, export]
      branch_scope: any
  - id: team-change-unprotected
    allow:
      actors: { group: team }
      actions: [change]
      branch_scope: unprotected
  - id: team-branch-create
    allow:
      actors: { group: team }
      actions: [branch_create]
      target_branch_scope: unprotected
)";

inline std::string Str(const json& j) { return j.is_string() ? j.get<std::string>() : std::string(); }
// `key` is present in object `j` and null (not merely absent).
inline bool NullField(const json& j, const std::string& key) {
  return j.is_object() && j.contains(key) && j.at(key).is_null();
}

struct Reply {
  int status = 0;  // 0: no response (`transport` says why)
  std::string transport;
  std::string body;
  httplib::Headers headers;
  bool is_json = false;
  json body_json = json::object();  // {} when the body is not JSON

  std::string Header(const std::string& name) const {
    auto it = headers.find(name);
    return it == headers.end() ? std::string() : it->second;
  }
  size_t HeaderCount(const std::string& name) const { return headers.count(name); }
  std::string Message() const { return body_json.contains("error") ? Str(body_json["error"]) : std::string(); }
};

inline std::ostream& operator<<(std::ostream& os, const Reply& r) {
  os << "HTTP " << r.status;
  if (!r.transport.empty()) os << " (" << r.transport << ")";
  return os << " " << r.body.substr(0, 2000);
}

// Sends `request` on a fresh connection and returns all the server answers until it closes.
inline std::string RawExchange(int port, const std::string& request) {
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  if (fd < 0) return "";
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(port));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  timeval tv{};
  tv.tv_sec = 20;
  ::setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &tv, sizeof(tv));
  std::string out;
  if (::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)) == 0 &&
      ::send(fd, request.data(), request.size(), MSG_NOSIGNAL) == static_cast<ssize_t>(request.size())) {
    char buf[4096];
    for (ssize_t n; (n = ::recv(fd, buf, sizeof(buf), 0)) > 0;) out.append(buf, static_cast<size_t>(n));
  }
  ::close(fd);
  return out;
}

class ServerFixture : public ::testing::Test {
 protected:
  using Tokens = std::vector<std::pair<std::string, std::string>>;
  using Tweak = std::function<void(ServerOptions&)>;

  void SetUp() override {
    dir_ = fs::temp_directory_path() / ("og-server-" + NewUlidString());
    fs::create_directories(dir_);
    store_ = (dir_ / "graph").string();
    auto db = Database::Init(store_, kSchema);
    ASSERT_TRUE(db.ok()) << db.status().ToString();
    auto loaded = (*db)->Load(kSeed, LoadMode::kAppend);
    ASSERT_TRUE(loaded.ok()) << loaded.status().ToString();
  }

  void TearDown() override {
    if (server_) server_->Stop();
    if (thread_.joinable()) thread_.join();
    server_.reset();
    std::error_code ec;
    fs::remove_all(dir_, ec);
  }

  ServerOptions Options() const {
    ServerOptions o;
    o.boot.store = store_;
    o.listen.host = "127.0.0.1";
    o.listen.port = 0;
    o.listen.threads = 16;
    o.access_log = nullptr;
    return o;
  }

  std::string WriteFile(const std::string& name, const std::string& text) const {
    const fs::path p = dir_ / name;
    std::ofstream(p, std::ios::binary | std::ios::trunc) << text;
    return p.string();
  }

  void Start(ServerOptions o, const Tokens& tokens = {}) {
    auto table = TokenTable::FromPairs(tokens);
    ASSERT_TRUE(table.ok()) << table.status().ToString();
    auto s = Server::Start(std::move(o), std::move(*table));
    ASSERT_TRUE(s.ok()) << s.status().ToString();
    server_ = std::move(*s);
    thread_ = std::thread([srv = server_.get()] { EXPECT_TRUE(srv->Run().ok()); });
  }
  // Open mode (--unauthenticated, no tokens).
  void StartOpen(const Tweak& tweak = {}) {
    ServerOptions o = Options();
    o.unauthenticated = true;
    if (tweak) tweak(o);
    Start(std::move(o));
  }
  // Tokens for alice and mallory; requests send alice's. With `policy`, policy mode; else
  // default-deny.
  void StartTokens(const std::string& policy = "", const Tweak& tweak = {}) {
    ServerOptions o = Options();
    if (!policy.empty()) o.boot.policy_file = WriteFile("graph.policy.yaml", policy);
    if (tweak) tweak(o);
    Start(std::move(o), {{"alice", "tok-alice"}, {"mallory", "tok-mallory"}});
    token_ = "tok-alice";
  }

  // One request on a fresh connection. Sends `Authorization: Bearer <token_>` unless `headers`
  // has an Authorization or token_ is unset; a Content-Type when there is a body or a POST.
  Reply Send(const std::string& method, const std::string& path, const std::string& body = "",
             const std::string& content_type = "application/json", const httplib::Headers& headers = {}) const {
    httplib::Client cli("127.0.0.1", server_->port());
    cli.set_url_encode(false);
    cli.set_read_timeout(60, 0);
    cli.set_write_timeout(60, 0);
    httplib::Request req;
    req.method = method;
    req.path = path;
    req.headers = headers;
    if (token_ && !req.has_header("Authorization")) req.headers.emplace("Authorization", "Bearer " + *token_);
    if (!content_type.empty() && (method == "POST" || !body.empty())) req.headers.emplace("Content-Type", content_type);
    req.body = body;
    return ToReply(cli.send(req));
  }
  Reply Get(const std::string& path, const httplib::Headers& headers = {}) const {
    return Send("GET", path, "", "", headers);
  }
  Reply Post(const std::string& path, const json& body, const httplib::Headers& headers = {}) const {
    return Send("POST", path, body.dump(), "application/json", headers);
  }
  Reply Delete(const std::string& path) const { return Send("DELETE", path, "", ""); }

  static Reply ToReply(const httplib::Result& res) {
    Reply r;
    if (!res) {
      r.transport = httplib::to_string(res.error());
      return r;
    }
    r.status = res->status;
    r.body = res->body;
    r.headers = res->headers;
    json parsed = json::parse(r.body, nullptr, /*allow_exceptions=*/false);
    r.is_json = !parsed.is_discarded();
    if (r.is_json) r.body_json = std::move(parsed);
    return r;
  }

  // A path under the served graph.
  static std::string G(const std::string& rest) { return "/graphs/default" + rest; }

  Reply Query(const std::string& source, const std::string& branch = "main") const {
    return Post(G("/query"), {{"query", source}, {"branch", branch}});
  }
  Reply AddPerson(const std::string& name, const std::string& branch = "main",
                  const httplib::Headers& headers = {}) const {
    return Post(G("/mutate"), {{"query", kAddPerson}, {"params", {{"name", name}}}, {"branch", branch}}, headers);
  }
  // The number of people on `branch`, or -1.
  int CountPeople(const std::string& branch = "main") const {
    Reply r = Query(kCountPeople, branch);
    EXPECT_EQ(r.status, 200) << r;
    const json& n = r.body_json["rows"][0]["n"];
    return n.is_number_integer() ? n.get<int>() : -1;
  }
  // The head commit of `branch` (GET /snapshot).
  std::string HeadCommit(const std::string& branch = "main") const {
    Reply r = Get(G("/snapshot?branch=" + branch));
    EXPECT_EQ(r.status, 200) << r;
    return Str(r.body_json["graph_commit_id"]);
  }
  std::vector<std::string> Branches() const {
    Reply r = Get(G("/branches"));
    EXPECT_EQ(r.status, 200) << r;
    std::vector<std::string> out;
    for (const auto& b : r.body_json["branches"]) out.push_back(Str(b));
    return out;
  }

  fs::path dir_;
  std::string store_;
  std::unique_ptr<Server> server_;
  std::thread thread_;
  std::optional<std::string> token_;
};

}  // namespace omnigraph::server::http_test
