// omnigraph-server over real loopback sockets (docs/server.md, /work/notes/server_spec.md): the
// route table against its OpenAPI document, routing misses, the query, mutate, load, branch,
// export and blob routes, body limits and content types, metrics, concurrent writers and path
// traversal. Authentication, runtime modes, policy and admission are in server_auth_test.cc.
#include <algorithm>
#include <atomic>
#include <cctype>
#include <chrono>
#include <cstdio>
#include <mutex>
#include <set>
#include <sstream>
#include <string>
#include <thread>
#include <vector>

#include "server/server_test_util.h"

namespace omnigraph::server::http_test {
namespace {

using ServerTest = ServerFixture;

std::string Upper(std::string s) {
  for (char& c : s) c = static_cast<char>(std::toupper(static_cast<unsigned char>(c)));
  return s;
}

// An OpenAPI path with plausible values for its parameters.
std::string FillPath(std::string path) {
  const std::vector<std::pair<std::string, std::string>> values = {{"{graph_id}", "default"},
                                                                   {"{branch}", "no-such-branch"},
                                                                   {"{commit_id}", "no-such-commit"},
                                                                   {"{name}", "no-such-query"}};
  for (const auto& [key, value] : values) {
    for (size_t at; (at = path.find(key)) != std::string::npos;) path.replace(at, key.size(), value);
  }
  return path;
}

std::vector<std::string> Lines(const std::string& body) {
  std::vector<std::string> out;
  std::istringstream in(body);
  for (std::string line; std::getline(in, line);) {
    if (!line.empty()) out.push_back(line);
  }
  return out;
}

bool Contains(const std::vector<std::string>& v, const std::string& s) {
  return std::find(v.begin(), v.end(), s) != v.end();
}

bool Has(const std::string& text, const std::string& part) { return text.find(part) != std::string::npos; }

TEST_F(ServerTest, HealthzNeedsNoTokenAndEchoesTheRequestId) {
  ASSERT_NO_FATAL_FAILURE(StartTokens());
  token_.reset();
  Reply r = Get("/healthz", {{"X-Request-Id", "req-42"}});
  ASSERT_EQ(r.status, 200) << r;
  EXPECT_EQ(r.body_json["status"], "ok");
  EXPECT_TRUE(r.body_json["version"].is_string()) << r;
  EXPECT_TRUE(r.body_json["internal_schema_version"].is_number_integer()) << r;
  EXPECT_EQ(r.Header("X-Request-Id"), "req-42");
  Reply fresh = Get("/healthz", {{"X-Request-Id", "not a token"}});
  EXPECT_EQ(fresh.Header("X-Request-Id").size(), 26u) << "a new ULID replaces an unusable id";
}

TEST_F(ServerTest, EveryDocumentedRouteIsServedWithADocumentedStatus) {
  ASSERT_NO_FATAL_FAILURE(StartTokens());  // default-deny: writes stop at 400/403, nothing changes
  Reply doc = Get("/openapi.json");
  ASSERT_EQ(doc.status, 200) << doc;
  ASSERT_TRUE(doc.is_json) << doc;
  EXPECT_EQ(doc.body_json["openapi"], "3.1.0");
  EXPECT_EQ(doc.body_json["info"]["title"], "Omnigraph API");
  EXPECT_EQ(doc.body_json["components"]["securitySchemes"]["bearer_token"],
            (json{{"type", "http"}, {"scheme", "bearer"}}));
  json& paths = doc.body_json["paths"];
  EXPECT_FALSE(paths.contains("/openapi.json"));
  size_t probed = 0;
  std::set<std::string> operation_ids;
  for (const auto& path_item : paths.items()) {
    for (const auto& op_item : path_item.value().items()) {
      const std::string method = Upper(op_item.key());
      const json& op = op_item.value();
      std::string target = FillPath(path_item.key());
      ASSERT_EQ(target.find('{'), std::string::npos) << "unfilled parameter in " << path_item.key();
      std::string body, type;
      for (const auto& p : op.value("parameters", json::array())) {
        if (p.value("in", "") == "query" && p.value("name", "") == "entity") {
          target += "?entity=node&type=Doc&id=readme&property=body";
        }
      }
      if (op.contains("requestBody")) {
        const bool ndjson = op["requestBody"].value("content", json::object()).contains("application/x-ndjson");
        type = ndjson ? "application/x-ndjson" : "application/json";
        body = ndjson ? "" : "{}";
      }
      SCOPED_TRACE(method + " " + target);
      Reply r = Send(method, target, body, type);
      EXPECT_NE(r.status, 0) << r;
      EXPECT_NE(r.status, 405) << r;
      if (r.status == 404) {
        EXPECT_FALSE(r.Message().starts_with("no route for")) << r;
      }
      EXPECT_TRUE(op.value("responses", json::object()).contains(std::to_string(r.status)))
          << "undocumented status: " << r;
      const bool open = path_item.key() == "/healthz" || path_item.key() == "/metrics";
      EXPECT_EQ(op.contains("security"), !open);
      EXPECT_TRUE(operation_ids.insert(op.value("operationId", "")).second) << "duplicate operationId";
      ++probed;
    }
  }
  EXPECT_GE(probed, 29u);
  EXPECT_EQ(paths["/healthz"]["get"]["operationId"], "health");
  EXPECT_EQ(paths["/graphs"]["get"]["operationId"], "listGraphs");
  EXPECT_EQ(paths["/graphs/{graph_id}/query"]["post"]["operationId"], "cluster_query");
  for (const char* p : {"/graphs/{graph_id}/read", "/graphs/{graph_id}/change", "/graphs/{graph_id}/ingest"}) {
    EXPECT_EQ(paths[p]["post"]["deprecated"], true) << p;
  }
}

TEST_F(ServerTest, UnknownPathIs404AndWrongMethodIs405BeforeAuthentication) {
  ASSERT_NO_FATAL_FAILURE(StartTokens());
  token_.reset();
  for (const std::string path : {"/nope", "/query", "/graphs/default", "/healthz/"}) {
    Reply r = Get(path);
    EXPECT_EQ(r.status, 404) << path << " " << r;
    EXPECT_EQ(r.body_json["code"], "not_found") << r;
    EXPECT_EQ(r.Message(), "no route for GET " + path) << r;
  }
  Reply del = Delete("/healthz");
  EXPECT_EQ(del.status, 405) << del;
  EXPECT_EQ(del.body_json["code"], "method_not_allowed") << del;
  EXPECT_TRUE(Has(del.Header("Allow"), "GET")) << del.Header("Allow");
  Reply put = Send("PUT", G("/branches"), "{}", "application/json");
  EXPECT_EQ(put.status, 405) << put;
  EXPECT_TRUE(Has(put.Header("Allow"), "GET") && Has(put.Header("Allow"), "POST")) << put.Header("Allow");
  EXPECT_FALSE(Has(put.Header("Allow"), "DELETE")) << put.Header("Allow");
}

// axum matches the static `/branches/merge` before `/branches/{branch}` and then answers 405 for
// a method it lacks (routes.cc's MatchRoute comment says the same: a literal segment wins).
TEST_F(ServerTest, StaticMergeSegmentBeatsTheBranchParameter) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  Reply r = Delete(G("/branches/merge"));
  EXPECT_EQ(r.status, 405) << r;
  EXPECT_EQ(r.Header("Allow"), "POST");
}

TEST_F(ServerTest, QueryRouteAnswersReadOutputAndRefusesBadRequests) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  Reply ok = Post(G("/query"), {{"query", kPeople}});
  ASSERT_EQ(ok.status, 200) << ok;
  EXPECT_EQ(ok.body_json["query_name"], "people");
  EXPECT_EQ(ok.body_json["target"], (json{{"branch", "main"}, {"snapshot", nullptr}}));
  EXPECT_EQ(ok.body_json["row_count"], 3);
  EXPECT_EQ(ok.body_json["columns"], json::array({"p.name"}));
  EXPECT_EQ(ok.body_json["rows"],
            json::array({json{{"p.name", "ada"}}, json{{"p.name", "bob"}}, json{{"p.name", "cy"}}}));
  EXPECT_EQ(Str(ok.body_json["graph_commit_id"]), HeadCommit());

  Reply both = Post(G("/query"), {{"query", kPeople}, {"branch", "main"}, {"snapshot", HeadCommit()}});
  EXPECT_EQ(both.status, 400) << both;
  EXPECT_EQ(both.body_json["code"], "bad_request");
  EXPECT_EQ(both.Message(), "request may specify branch or snapshot, not both");

  Reply mutation = Post(G("/query"), {{"query", "query m() { insert Person { name: \"zed\" } }"}});
  EXPECT_EQ(mutation.status, 400) << mutation;
  EXPECT_EQ(mutation.Message(),
            "query 'm' contains mutations (insert/update/delete); use POST /mutate for write queries");
  EXPECT_EQ(CountPeople(), kSeedPeople);

  Reply type_error = Post(G("/query"), {{"query", "query q() { match { $p: Nobody } return { $p.name } }"}});
  EXPECT_EQ(type_error.status, 400) << type_error;
  EXPECT_EQ(type_error.body_json["code"], "bad_request");
  EXPECT_TRUE(Str(type_error.body_json["error_code"]).starts_with("T")) << type_error;
  Reply syntax = Post(G("/query"), {{"query", "query q( {"}});
  EXPECT_EQ(syntax.status, 400) << syntax;
  EXPECT_EQ(syntax.body_json["error_code"], "Q000") << syntax;
  EXPECT_TRUE(syntax.body_json.contains("span")) << syntax;
  Reply missing = Post(G("/query"), json::object());
  EXPECT_EQ(missing.status, 400) << missing;
  EXPECT_EQ(missing.Message(), "missing field `query`");

  Reply unknown = Post("/graphs/nope/query", {{"query", kPeople}});
  EXPECT_EQ(unknown.status, 404) << unknown;
  EXPECT_EQ(unknown.body_json["code"], "not_found");
  EXPECT_EQ(unknown.Message(), "graph 'nope' not found");
  Reply underscore = Post("/graphs/a_b/query", {{"query", kPeople}});
  EXPECT_EQ(underscore.status, 400) << underscore;
  EXPECT_TRUE(underscore.Message().starts_with("graph_id 'a_b' must match ^[a-zA-Z0-9-]{1,64}$")) << underscore;
  Reply reserved = Post("/graphs/healthz/query", {{"query", kPeople}});
  EXPECT_EQ(reserved.status, 400) << reserved;
  EXPECT_TRUE(reserved.Message().starts_with("graph_id 'healthz' is reserved")) << reserved;
  const std::string long_id(65, 'a');
  Reply too_long = Post("/graphs/" + long_id + "/query", {{"query", kPeople}});
  EXPECT_EQ(too_long.status, 400) << too_long;
  EXPECT_EQ(too_long.Message(), "graph_id '" + long_id + "' is 65 chars; max 64");

  Reply legacy = Post(G("/read"), {{"query_source", kPeople}});
  ASSERT_EQ(legacy.status, 200) << legacy;
  EXPECT_EQ(legacy.Header("Deprecation"), "true");
  EXPECT_EQ(legacy.Header("Link"), "<query>; rel=\"successor-version\"");
  EXPECT_EQ(legacy.body_json["row_count"], 3);
  EXPECT_FALSE(legacy.body_json.contains("graph_commit_id")) << legacy;
  Reply legacy_error = Post(G("/read"), {{"query", kPeople}});  // /read has no `query` field
  EXPECT_EQ(legacy_error.status, 400) << legacy_error;
  EXPECT_EQ(legacy_error.HeaderCount("Deprecation"), 0u);
}

TEST_F(ServerTest, ConditionalMutateComparesTheBranchHead) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  const std::string h0 = HeadCommit();
  const json add_eve = {{"query", kAddPerson}, {"params", {{"name", "eve"}}}};
  Reply no_header = Post(G("/mutate/if-graph-commit"), add_eve);
  EXPECT_EQ(no_header.status, 400) << no_header;
  EXPECT_EQ(no_header.Message(), "Omnigraph-If-Graph-Commit is required on this conditional mutation route");

  Reply plain = AddPerson("dee");
  ASSERT_EQ(plain.status, 200) << plain;
  const std::string h1 = Str(plain.body_json["commit"]["graph_commit_id"]);
  ASSERT_FALSE(h1.empty()) << plain;
  EXPECT_NE(h1, h0);
  EXPECT_EQ(HeadCommit(), h1);
  Reply commits = Get(G("/commits"));
  EXPECT_EQ(Str(commits.body_json["commits"][0]["graph_commit_id"]), h1) << commits;

  Reply stale = Post(G("/mutate/if-graph-commit"), add_eve, {{"Omnigraph-If-Graph-Commit", h0}});
  EXPECT_EQ(stale.status, 412) << stale;
  EXPECT_FALSE(stale.body_json.contains("code")) << stale;
  EXPECT_EQ(stale.body_json["error_code"], "precondition_failure");
  EXPECT_EQ(stale.body_json["precondition_failure"], (json{{"expected", h0}, {"actual", h1}})) << stale;
  EXPECT_EQ(stale.Message(), "precondition failed on branch 'main': expected head '" + h0 + "' but current is " + h1);
  EXPECT_EQ(CountPeople(), kSeedPeople + 1) << "a failed precondition writes nothing";

  Reply fresh = Post(G("/mutate/if-graph-commit"), add_eve, {{"Omnigraph-If-Graph-Commit", h1}});
  ASSERT_EQ(fresh.status, 200) << fresh;
  EXPECT_EQ(fresh.body_json["commit"]["parent_commit_id"], h1);
  EXPECT_EQ(CountPeople(), kSeedPeople + 2);

  const std::string h2 = HeadCommit();
  Reply on_plain = Post(G("/mutate"), add_eve, {{"Omnigraph-If-Graph-Commit", h2}});
  EXPECT_EQ(on_plain.status, 400) << on_plain;
  EXPECT_EQ(on_plain.Message(),
            "Omnigraph-If-Graph-Commit requires the fail-closed conditional route /mutate/if-graph-commit");
  Reply etag = Post(G("/mutate/if-graph-commit"), add_eve, {{"Omnigraph-If-Graph-Commit", "\"" + h2 + "\""}});
  EXPECT_EQ(etag.status, 400) << etag;
  EXPECT_EQ(etag.Message(), "Omnigraph-If-Graph-Commit must contain one raw graph commit id, not entity-tag syntax");
  Reply twice = Post(G("/mutate/if-graph-commit"), add_eve,
                     {{"Omnigraph-If-Graph-Commit", h2}, {"Omnigraph-If-Graph-Commit", h2}});
  EXPECT_EQ(twice.status, 400) << twice;
  EXPECT_EQ(twice.Message(), "Omnigraph-If-Graph-Commit must be sent exactly once");
  EXPECT_EQ(HeadCommit(), h2);
}

TEST_F(ServerTest, LoadRoutes) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  const std::string data =
      "{\"type\":\"Person\",\"data\":{\"name\":\"dan\",\"age\":50}}\n"
      "{\"type\":\"Person\",\"data\":{\"name\":\"ada\",\"age\":37}}\n";
  Reply load = Post(G("/load"), {{"data", data}, {"mode", "merge"}});
  ASSERT_EQ(load.status, 200) << load;
  EXPECT_EQ(load.body_json["total_entities"], 2);
  EXPECT_EQ(load.body_json["branch"], "main");
  EXPECT_EQ(load.body_json["mode"], "merge");
  EXPECT_EQ(load.body_json["branch_created"], false);
  EXPECT_TRUE(load.body_json["uri"].is_string()) << load;
  EXPECT_TRUE(NullField(load.body_json, "actor_id")) << load;
  EXPECT_EQ(Str(load.body_json["commit"]["graph_commit_id"]), HeadCommit());
  EXPECT_EQ(CountPeople(), kSeedPeople + 1);

  const std::string gus = "{\"type\":\"Person\",\"data\":{\"name\":\"gus\"}}\n";
  Reply wrong_type = Send("POST", G("/load/ndjson"), gus, "text/plain");
  EXPECT_EQ(wrong_type.status, 415) << wrong_type;
  EXPECT_EQ(wrong_type.body_json["code"], "bad_request");
  EXPECT_EQ(wrong_type.Message(), "graph-batch load requires Content-Type: application/x-ndjson");
  Reply ndjson = Send("POST", G("/load/ndjson?mode=merge"), gus, "application/x-ndjson");
  ASSERT_EQ(ndjson.status, 200) << ndjson;
  EXPECT_EQ(ndjson.body_json["total_entities"], 1);
  EXPECT_FALSE(ndjson.body_json.contains("uri")) << ndjson;
  EXPECT_EQ(CountPeople(), kSeedPeople + 2);

  Reply missing = Post(G("/load"), {{"data", gus}, {"branch", "staging"}});
  EXPECT_EQ(missing.status, 404) << missing;
  EXPECT_EQ(missing.body_json["code"], "not_found");
  EXPECT_EQ(missing.Message(), "branch 'staging' not found; pass `from` to create it");
  EXPECT_FALSE(Contains(Branches(), "staging"));
  Reply created = Post(G("/load"), {{"data", gus}, {"branch", "staging"}, {"from", "main"}});
  ASSERT_EQ(created.status, 200) << created;
  EXPECT_EQ(created.body_json["branch_created"], true);
  EXPECT_EQ(created.body_json["base_branch"], "main");
  EXPECT_TRUE(Contains(Branches(), "staging"));

  Reply ingest = Post(G("/ingest"), {{"data", "{\"type\":\"Person\",\"data\":{\"name\":\"hal\"}}"}});
  ASSERT_EQ(ingest.status, 200) << ingest;
  EXPECT_EQ(ingest.Header("Deprecation"), "true");
  EXPECT_EQ(ingest.Header("Link"), "<load>; rel=\"successor-version\"");
  EXPECT_TRUE(NullField(ingest.body_json, "base_branch")) << "IngestOutput.base_branch is str|null: " << ingest;
  Reply bad_mode = Post(G("/load"), {{"data", gus}, {"mode", "sideways"}});
  EXPECT_EQ(bad_mode.status, 400) << bad_mode;
}

TEST_F(ServerTest, BodyLimitsAndContentTypes) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  // A Content-Length over the 1 MiB JSON limit is refused from the head, before any body byte.
  const std::string head = "POST " + G("/query") +
                           " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                           "Content-Length: 2097152\r\nConnection: close\r\n\r\n";
  const std::string raw = RawExchange(server_->port(), head);
  ASSERT_TRUE(raw.starts_with("HTTP/1.1 413")) << raw.substr(0, 300);
  const size_t split = raw.find("\r\n\r\n");
  ASSERT_NE(split, std::string::npos) << raw;
  const json head_refusal = json::parse(raw.substr(split + 4), nullptr, false);
  ASSERT_TRUE(head_refusal.is_object()) << raw;
  EXPECT_EQ(head_refusal.value("code", ""), "bad_request") << raw;
  EXPECT_EQ(head_refusal.value("error_code", ""), "resource_limit") << raw;
  EXPECT_EQ(head_refusal.value("resource_limit", json()),
            (json{{"resource", "request_body_bytes"}, {"limit", 1048576}, {"actual", 2097152}}))
      << raw;

  // A chunked body is read like a sized one, against the same limit: a valid query is answered,
  // and one over the limit is refused with 413 as it arrives.
  httplib::Client cli("127.0.0.1", server_->port());
  cli.set_read_timeout(60, 0);
  auto send_chunked = [&cli, this](std::string body) {
    auto shared = std::make_shared<std::string>(std::move(body));
    return ToReply(cli.Post(
        G("/query"),
        [shared](size_t offset, httplib::DataSink& sink) {
          if (offset >= shared->size()) {
            sink.done();
            return true;
          }
          return sink.write(shared->data() + offset, std::min<size_t>(shared->size() - offset, 65536));
        },
        "application/json"));
  };
  Reply chunked = send_chunked(json{{"query", kPeople}}.dump());
  EXPECT_EQ(chunked.status, 200) << chunked;
  Reply chunked_big = send_chunked(json{{"query", std::string(size_t{2} << 20, ' ')}}.dump());
  EXPECT_EQ(chunked_big.status, 413) << chunked_big;
  EXPECT_EQ(chunked_big.body_json["error_code"], "resource_limit") << chunked_big;
  // Another transfer coding is not taken: 400 (RFC 9112: a request whose last coding is not
  // chunked), unread.
  Reply gzip_te = Send("POST", G("/query"), "xxxx", "application/json", {{"Transfer-Encoding", "gzip"}});
  EXPECT_EQ(gzip_te.status, 400) << gzip_te;
  EXPECT_NE(gzip_te.Message().find("Transfer-Encoding"), std::string::npos) << gzip_te;
  // A compressed body could inflate without bound: 415, unread.
  Reply gz = Send("POST", G("/query"), "xxxx", "application/json", {{"Content-Encoding", "gzip"}});
  EXPECT_EQ(gz.status, 415) << gz;

  // /load takes 32 MiB: the same size is read and judged on its content.
  const std::string big_load = json{{"data", 5}, {"pad", std::string(size_t{2} << 20, 'x')}}.dump();
  Reply load = Send("POST", G("/load"), big_load, "application/json");
  EXPECT_EQ(load.status, 400) << load;
  EXPECT_EQ(load.Message(), "`data` must be a string");

  Reply malformed = Send("POST", G("/query"), "{\"query\": ", "application/json");
  EXPECT_EQ(malformed.status, 400) << malformed;
  EXPECT_EQ(malformed.body_json["code"], "bad_request");
  Reply array = Send("POST", G("/query"), "[1]", "application/json");
  EXPECT_EQ(array.status, 400) << array;
  EXPECT_EQ(array.Message(), "the request body must be a JSON object");
  const std::string body = json{{"query", kPeople}}.dump();
  Reply text = Send("POST", G("/query"), body, "text/plain");
  EXPECT_EQ(text.status, 415) << text;
  EXPECT_EQ(text.body_json["code"], "bad_request");
  EXPECT_EQ(text.Message(), "Expected request with `Content-Type: application/json`");
  EXPECT_EQ(Send("POST", G("/query"), body, "application/json; charset=utf-8").status, 200);
  EXPECT_EQ(Send("POST", G("/query"), body, "application/vnd.omnigraph+json").status, 200);
}

// docs/server.md "Body limits": a request refused from its head has its connection closed, so its
// unread body can never be taken for a next request on a kept-alive connection.
TEST_F(ServerTest, RefusedRequestBodyIsNeverReadAsANextRequest) {
  ASSERT_NO_FATAL_FAILURE(StartTokens());
  const std::string smuggled = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\n\r\n";
  const std::string request = "POST " + G("/query") +
                              " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                              "Content-Length: " +
                              std::to_string(smuggled.size()) + "\r\n\r\n" + smuggled;
  const std::string raw = RawExchange(server_->port(), request);  // no token: 401 from the head
  ASSERT_TRUE(raw.starts_with("HTTP/1.1 401")) << raw.substr(0, 300);
  size_t responses = 0;
  for (size_t at = 0; (at = raw.find("HTTP/1.1 ", at)) != std::string::npos; at += 9) ++responses;
  EXPECT_EQ(responses, 1u) << "the refused body was served as a request:\n" << raw;
}

// A body on a method that takes none and a body framed both by length and chunks are refused
// from the head, and their connection closed: the bytes behind them are never served as a request.
TEST_F(ServerTest, BodiesThatWouldBeLeftUnreadCloseTheConnection) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  const std::string smuggled = "POST " + G("/branches") +
                               " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
                               "Content-Length: 17\r\n\r\n{\"name\":\"evil\"}";
  const std::vector<std::string> carriers = {
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Length: " + std::to_string(smuggled.size()) + "\r\n\r\n" +
          smuggled,
      // Both framings at once: the classic smuggling ambiguity.
      "POST " + G("/query") +
          " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nContent-Length: 5\r\n"
          "Transfer-Encoding: chunked\r\n\r\n0\r\n\r\n" +
          smuggled,
  };
  for (const std::string& request : carriers) {
    const std::string raw = RawExchange(server_->port(), request);
    size_t responses = 0;
    for (size_t at = 0; (at = raw.find("HTTP/1.1 ", at)) != std::string::npos; at += 9) ++responses;
    EXPECT_EQ(responses, 1u) << raw;
    EXPECT_TRUE(raw.starts_with("HTTP/1.1 400")) << raw.substr(0, 200);
  }
  EXPECT_EQ(Branches(), std::vector<std::string>{"main"});
}

// docs/server.md "Limits": the request line and headers must arrive within the read timeout as a
// whole. A client trickling one byte at a time is answered 408 and cut off at that deadline, and a
// connection that sends nothing is closed at it: neither holds a thread longer.
TEST_F(ServerTest, SlowClientsAreCutOffAtTheRequestDeadline) {
  ASSERT_NO_FATAL_FAILURE(StartOpen([](ServerOptions& o) { o.listen.read_timeout_s = 1; }));
  const int fd = ::socket(AF_INET, SOCK_STREAM, 0);
  ASSERT_GE(fd, 0);
  sockaddr_in addr{};
  addr.sin_family = AF_INET;
  addr.sin_port = htons(static_cast<uint16_t>(server_->port()));
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  ASSERT_EQ(::connect(fd, reinterpret_cast<sockaddr*>(&addr), sizeof(addr)), 0);
  const auto start = std::chrono::steady_clock::now();
  const std::string line = "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nX-Slow: ";
  std::string got;
  // One byte every 100 ms: each read is quick, the whole head never completes.
  for (size_t i = 0; i < 60 && got.empty(); ++i) {
    const char c = i < line.size() ? line[i] : 'x';
    if (::send(fd, &c, 1, MSG_NOSIGNAL) != 1) break;
    std::this_thread::sleep_for(std::chrono::milliseconds(100));
    char buf[4096];
    const ssize_t n = ::recv(fd, buf, sizeof(buf), MSG_DONTWAIT);
    if (n > 0) got.append(buf, static_cast<size_t>(n));
    if (n == 0) break;
  }
  const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  ::close(fd);
  EXPECT_TRUE(got.starts_with("HTTP/1.1 408")) << got;
  EXPECT_LT(seconds, 4.0) << "a trickling client held its connection past the 1 s deadline";

  // Silent after connecting: closed after the read timeout, without an answer.
  const auto idle_start = std::chrono::steady_clock::now();
  const std::string nothing = RawExchange(server_->port(), "");
  const double idle_seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - idle_start).count();
  EXPECT_EQ(nothing, "");
  EXPECT_LT(idle_seconds, 4.0);
}

// Pipelined requests on one connection are answered in order, a properly framed chunked body
// included, and a client that asks for "100 Continue" before its body gets it.
TEST_F(ServerTest, PipelinedRequestsAndExpectContinue) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  const std::string query = json{{"query", kPeople}}.dump();
  char size_hex[32];
  std::snprintf(size_hex, sizeof(size_hex), "%zx", query.size());
  const std::string pipelined =
      "POST " + G("/query") +
      " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nTransfer-Encoding: chunked\r\n\r\n" +
      size_hex + "\r\n" + query + "\r\n0\r\n\r\n" +
      "GET /healthz HTTP/1.1\r\nHost: 127.0.0.1\r\nConnection: close\r\n\r\n";
  const std::string raw = RawExchange(server_->port(), pipelined);
  ASSERT_TRUE(raw.starts_with("HTTP/1.1 200")) << raw.substr(0, 300);
  const size_t second = raw.find("HTTP/1.1 ", 9);
  ASSERT_NE(second, std::string::npos) << raw;
  EXPECT_TRUE(raw.substr(second).starts_with("HTTP/1.1 200")) << raw.substr(second, 200);
  EXPECT_NE(raw.find("\"row_count\""), std::string::npos) << raw;

  const std::string expecting = "POST " + G("/query") +
                                " HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\nConnection: "
                                "close\r\nExpect: 100-continue\r\nContent-Length: " +
                                std::to_string(query.size()) + "\r\n\r\n" + query;
  const std::string answered = RawExchange(server_->port(), expecting);
  EXPECT_TRUE(answered.starts_with("HTTP/1.1 100 Continue\r\n\r\nHTTP/1.1 200")) << answered.substr(0, 300);
}

// GET /changes: a poll goes on past commits its filters leave without a block, and reports
// caught_up only when the feed is at the branch head.
TEST_F(ServerTest, ChangeFeedPollsPastCommitsTheFiltersSkip) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  for (const char* name : {"dan", "eve"}) {
    Reply m = Post(G("/mutate"), {{"query", kAddPerson}, {"params", {{"name", name}}}});
    ASSERT_EQ(m.status, 200) << m;
  }
  const std::string add_company = "query add($name: String) { insert Company { name: $name } }";
  Reply c = Post(G("/mutate"), {{"query", add_company}, {"params", {{"name", "beta"}}}});
  ASSERT_EQ(c.status, 200) << c;
  // Companies only: the two Person commits in between carry no Company change.
  Reply feed = Get(G("/changes?start=beginning&type=Company"));
  ASSERT_EQ(feed.status, 200) << feed;
  std::vector<std::string> companies;
  for (const auto& block : feed.body_json["blocks"]) {
    for (const auto& ch : block["changes"]) companies.push_back(ch["after"]["properties"]["name"]);
  }
  EXPECT_EQ(companies, (std::vector<std::string>{"acme", "beta"})) << feed;
  EXPECT_EQ(feed.body_json["caught_up"], true) << feed;
  // Resuming from its cursor: nothing new, still caught up.
  Reply again = Get(G("/changes?type=Company&cursor=" + feed.body_json["cursor"].get<std::string>()));
  ASSERT_EQ(again.status, 200) << again;
  EXPECT_TRUE(again.body_json["blocks"].empty()) << again;
  EXPECT_EQ(again.body_json["caught_up"], true) << again;
  // A limit of one change stops after the first block that has one, not caught up.
  Reply first = Get(G("/changes?start=beginning&type=Company&limit=1"));
  ASSERT_EQ(first.status, 200) << first;
  EXPECT_EQ(first.body_json["blocks"].size(), 1u) << first;
  EXPECT_EQ(first.body_json["caught_up"], false) << first;
}

// Search runs inside queries over HTTP like any query (docs/search.md); a too-long query text is
// the typed resource_limit (413).
TEST_F(ServerTest, SearchFunctionsRunThroughTheQueryRoute) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  const std::string q =
      "query s($q: String) { match { $p: Person search($p.name, $q) } return { $p.name, bm25($p.name, $q) as score } "
      "order { bm25($p.name, $q) } }";
  Reply r = Post(G("/query"), {{"query", q}, {"params", {{"q", "Ada"}}}});
  ASSERT_EQ(r.status, 200) << r;
  ASSERT_EQ(r.body_json["row_count"], 1) << r;
  EXPECT_EQ(r.body_json["rows"][0]["p.name"], "ada") << r;
  EXPECT_GT(r.body_json["rows"][0]["score"].get<double>(), 0.0) << r;
  Reply big = Post(G("/query"), {{"query", q}, {"params", {{"q", std::string(size_t{100} << 10, 'x')}}}});
  EXPECT_EQ(big.status, 413) << big;
  EXPECT_EQ(big.body_json["error_code"], "resource_limit") << big;
}

TEST_F(ServerTest, BranchLifecycle) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  Reply create = Post(G("/branches"), {{"name", "feature"}});
  ASSERT_EQ(create.status, 200) << create;
  EXPECT_EQ(create.body_json["name"], "feature");
  EXPECT_EQ(create.body_json["from"], "main");
  EXPECT_TRUE(create.body_json["uri"].is_string()) << create;
  EXPECT_TRUE(NullField(create.body_json, "actor_id")) << create;
  Reply again = Post(G("/branches"), {{"name", "feature"}});
  EXPECT_EQ(again.status, 409) << again;
  EXPECT_EQ(again.body_json["code"], "conflict");
  Reply from_missing = Post(G("/branches"), {{"name", "other"}, {"from", "nope"}});
  EXPECT_EQ(from_missing.status, 404) << from_missing;
  EXPECT_EQ(Branches(), (std::vector<std::string>{"feature", "main"}));

  ASSERT_EQ(AddPerson("fay", "feature").status, 200);
  EXPECT_EQ(CountPeople("feature"), kSeedPeople + 1);
  EXPECT_EQ(CountPeople("main"), kSeedPeople);
  Reply merge = Post(G("/branches/merge"), {{"source", "feature"}});
  ASSERT_EQ(merge.status, 200) << merge;
  EXPECT_EQ(merge.body_json["source"], "feature");
  EXPECT_EQ(merge.body_json["target"], "main");
  EXPECT_EQ(merge.body_json["outcome"], "fast_forward");
  EXPECT_TRUE(NullField(merge.body_json, "actor_id")) << merge;
  EXPECT_FALSE(merge.body_json.contains("branch_deleted")) << merge;
  EXPECT_EQ(CountPeople("main"), kSeedPeople + 1);

  Reply del = Delete(G("/branches/feature"));
  ASSERT_EQ(del.status, 200) << del;
  EXPECT_EQ(del.body_json["name"], "feature");
  EXPECT_TRUE(NullField(del.body_json, "actor_id")) << del;
  Reply del_again = Delete(G("/branches/feature"));
  EXPECT_EQ(del_again.status, 404) << del_again;
  EXPECT_EQ(del_again.body_json["code"], "not_found");
  EXPECT_EQ(Branches(), std::vector<std::string>{"main"});
}

TEST_F(ServerTest, ExportStreamsNdjson) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  Reply all = Post(G("/export"), json::object());
  ASSERT_EQ(all.status, 200) << all;
  EXPECT_TRUE(all.Header("Content-Type").starts_with("application/x-ndjson")) << all.Header("Content-Type");
  EXPECT_FALSE(all.Header("Omnigraph-Snapshot-Id").empty());
  const std::vector<std::string> lines = Lines(all.body);
  EXPECT_EQ(lines.size(), kSeedRecords) << all.body;
  for (const auto& line : lines) EXPECT_TRUE(json::parse(line, nullptr, false).is_object()) << line;

  Reply people = Post(G("/export"), {{"branch", "main"}, {"type_names", {"Person"}}});
  ASSERT_EQ(people.status, 200) << people;
  EXPECT_EQ(Lines(people.body).size(), static_cast<size_t>(kSeedPeople)) << people.body;
  Reply empty_body = Send("POST", G("/export"), "", "application/json");
  EXPECT_EQ(empty_body.status, 200) << empty_body;

  Reply unknown_field = Post(G("/export"), {{"bogus", 1}});
  EXPECT_EQ(unknown_field.status, 400) << unknown_field;
  EXPECT_TRUE(unknown_field.Message().starts_with("invalid export request: unknown field `bogus`")) << unknown_field;
  Reply unknown_type = Post(G("/export"), {{"type_names", {"Nope"}}});
  EXPECT_EQ(unknown_type.status, 404) << unknown_type;
  Reply blank = Post(G("/export"), {{"branch", "  "}});
  EXPECT_EQ(blank.status, 400) << blank;
  EXPECT_EQ(blank.Message(), "branch name cannot be empty");
}

TEST_F(ServerTest, BlobRouteServesBytesRangesAndConditionals) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  const std::string blob = G("/blob?entity=node&type=Doc&id=readme&property=body");
  Reply full = Get(blob);
  ASSERT_EQ(full.status, 200) << full;
  EXPECT_EQ(full.body, "0123456789");
  EXPECT_EQ(full.Header("Content-Type"), "application/octet-stream");
  EXPECT_EQ(full.Header("Accept-Ranges"), "bytes");
  EXPECT_FALSE(full.Header("Omnigraph-Snapshot-Id").empty());
  const std::string etag = full.Header("ETag");
  ASSERT_FALSE(etag.empty());

  Reply range = Get(blob, {{"Range", "bytes=2-5"}});
  EXPECT_EQ(range.status, 206) << range;
  EXPECT_EQ(range.body, "2345");
  EXPECT_EQ(range.HeaderCount("Content-Range"), 1u);
  EXPECT_EQ(range.Header("Content-Range"), "bytes 2-5/10");
  // A malformed range is ignored and the whole body sent, as by the existing server. Several
  // ranges are ignored too.
  Reply malformed = Get(blob, {{"Range", "bytes=abc"}});
  EXPECT_EQ(malformed.status, 200) << malformed;
  EXPECT_EQ(malformed.body, "0123456789");
  Reply several = Get(blob, {{"Range", "bytes=0-1,4-5"}});
  EXPECT_EQ(several.status, 200) << several;
  EXPECT_EQ(several.body, "0123456789");
  Reply not_modified = Get(blob, {{"If-None-Match", etag}});
  EXPECT_EQ(not_modified.status, 304) << not_modified;
  Reply head = Send("HEAD", blob, "", "");
  EXPECT_EQ(head.status, 200) << head;
  EXPECT_EQ(head.Header("Content-Length"), "10");
  EXPECT_EQ(head.Header("ETag"), etag);

  Reply not_blob = Get(G("/blob?entity=node&type=Doc&id=readme&property=slug"));
  EXPECT_EQ(not_blob.status, 400) << not_blob;
  Reply no_id = Get(G("/blob?entity=node&type=Doc&property=body"));
  EXPECT_EQ(no_id.status, 400) << no_id;
  EXPECT_EQ(no_id.Message(), "invalid Blob selector query parameters: missing field `id`");
}

TEST_F(ServerTest, MetricsCountRequestsByOperation) {
  ASSERT_NO_FATAL_FAILURE(StartTokens());
  token_.reset();
  EXPECT_EQ(Post(G("/query"), {{"query", kPeople}}).status, 401);
  EXPECT_EQ(Get("/nope").status, 404);
  token_ = "tok-alice";
  EXPECT_EQ(Post(G("/query"), {{"query", kPeople}}).status, 200);
  token_.reset();
  Reply m = Get("/metrics");
  ASSERT_EQ(m.status, 200) << m;
  EXPECT_TRUE(m.Header("Content-Type").starts_with("text/plain")) << m.Header("Content-Type");
  EXPECT_TRUE(Has(m.body, "# TYPE omnigraph_http_requests_total counter")) << m.body;
  EXPECT_TRUE(Has(m.body, "omnigraph_http_requests_total{operation=\"cluster_query\",status=\"200\"} 1\n")) << m.body;
  EXPECT_TRUE(Has(m.body, "omnigraph_http_requests_total{operation=\"cluster_query\",status=\"401\"} 1\n")) << m.body;
  EXPECT_TRUE(Has(m.body, "omnigraph_http_requests_total{operation=\"unmatched\",status=\"404\"} 1\n")) << m.body;
  EXPECT_TRUE(Has(m.body, "omnigraph_http_errors_total{error_code=\"unauthenticated\"} 1\n")) << m.body;
  EXPECT_TRUE(Has(m.body, "omnigraph_http_request_duration_seconds_count")) << m.body;
}

TEST_F(ServerTest, ConcurrentMutationsAllCommit) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  constexpr int kThreads = 8, kEach = 25;
  std::mutex mu;
  std::vector<std::string> failures;
  std::atomic<int> committed{0};
  std::vector<std::thread> threads;
  for (int t = 0; t < kThreads; ++t) {
    threads.emplace_back([&, t] {
      for (int i = 0; i < kEach; ++i) {
        Reply r = AddPerson("t" + std::to_string(t) + "-" + std::to_string(i));
        if (r.status == 200 && r.body_json["commit"].is_object()) {
          ++committed;
        } else {
          std::lock_guard<std::mutex> lock(mu);
          std::ostringstream os;
          os << r;
          failures.push_back(os.str());
        }
      }
    });
  }
  for (auto& th : threads) th.join();
  EXPECT_TRUE(failures.empty()) << failures.size() << " failed, first: " << failures.front();
  EXPECT_EQ(committed.load(), kThreads * kEach);
  EXPECT_EQ(CountPeople(), kSeedPeople + kThreads * kEach);
}

TEST_F(ServerTest, PathTraversalIsRefused) {
  ASSERT_NO_FATAL_FAILURE(StartOpen());
  for (const std::string& path :
       std::vector<std::string>{"/graphs/..%2F../snapshot", "/graphs/%2E%2E/snapshot", "/graphs/../snapshot",
                                "/graphs/default%2F..%2Fx/snapshot", "/graphs/%00/snapshot", "/graphs/%zz/snapshot",
                                G("/commits/..%2F..%2Fetc%2Fpasswd")}) {
    Reply r = Get(path);
    EXPECT_TRUE(r.status == 400 || r.status == 404) << path << " " << r;
  }
  for (const std::string branch : {"..%2Fmain", "%2E%2E", "..", "main%2F..%2Fmain", "%2Fmain"}) {
    Reply r = Delete(G("/branches/" + branch));
    EXPECT_TRUE(r.status == 400 || r.status == 404) << branch << " " << r;
  }
  EXPECT_EQ(Branches(), std::vector<std::string>{"main"});
  EXPECT_EQ(CountPeople(), kSeedPeople);
}

}  // namespace
}  // namespace omnigraph::server::http_test
