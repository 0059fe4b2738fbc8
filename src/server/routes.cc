#include "server/routes.h"

#include "common/error_codes.h"

namespace omnigraph::server {

namespace {

constexpr std::string_view kG = "/graphs/{graph_id}";

std::vector<Route> BuildRoutes() {
  // Statuses every authenticated per-graph route can answer with besides its own.
  const std::vector<int> read{200, 400, 401, 403, 404, 500};
  const std::vector<int> write{200, 400, 401, 403, 404, 409, 413, 415, 429, 500, 503};
  std::vector<Route> r = {
      {"GET",
       "/healthz",
       "health",
       "health",
       "Liveness and version",
       false,
       BodyKind::kNone,
       false,
       "",
       {},
       {200},
       HandleHealth},
      {"GET",
       "/openapi.json",
       "openapi",
       "health",
       "This document",
       false,
       BodyKind::kNone,
       false,
       "",
       {},
       {200},
       HandleOpenApi},
      {"GET",
       "/metrics",
       "metrics",
       "health",
       "Prometheus text metrics",
       false,
       BodyKind::kNone,
       false,
       "",
       {},
       {200},
       HandleMetrics},
      {"GET",
       "/graphs",
       "listGraphs",
       "management",
       "The graphs this server serves",
       true,
       BodyKind::kNone,
       false,
       "",
       {},
       {200, 401, 403},
       HandleListGraphs},
  };
  auto add = [&](std::string_view method, std::string_view path, std::string_view op, std::string_view tag,
                 std::string_view summary, BodyKind body, std::vector<std::string_view> query,
                 std::vector<int> statuses, RouteHandler h, std::string_view successor = "", bool large = false) {
    Route route{method, path, op, tag, summary, true, body, large, successor, std::move(query), std::move(statuses), h};
    r.push_back(std::move(route));
  };
  add("GET", "/graphs/{graph_id}/snapshot", "cluster_getSnapshot", "snapshots", "The tables of a branch head",
      BodyKind::kNone, {"branch"}, read, HandleSnapshot);
  add("GET", "/graphs/{graph_id}/blob", "cluster_getBlob", "blobs", "One Blob cell's bytes", BodyKind::kNone,
      {"entity", "type", "id", "property", "branch", "snapshot"}, {200, 206, 304, 400, 401, 403, 404, 412, 416, 500},
      HandleGetBlob);
  add("HEAD", "/graphs/{graph_id}/blob", "cluster_headBlob", "blobs", "One Blob cell's headers", BodyKind::kNone,
      {"entity", "type", "id", "property", "branch", "snapshot"}, {200, 304, 400, 401, 403, 404, 412, 500},
      HandleGetBlob);
  add("POST", "/graphs/{graph_id}/query", "cluster_query", "queries", "Run a read query", BodyKind::kJson, {},
      {200, 400, 401, 403, 404, 413, 415, 500}, HandleQuery);
  add("POST", "/graphs/{graph_id}/read", "cluster_read", "queries", "Run a read query (deprecated: /query)",
      BodyKind::kJson, {}, {200, 400, 401, 403, 404, 413, 415, 500}, HandleLegacyRead, "query");
  add("POST", "/graphs/{graph_id}/mutate", "cluster_mutate", "mutations", "Run a mutation as one commit",
      BodyKind::kJson, {}, write, HandleMutate);
  std::vector<int> conditional = write;
  conditional.push_back(412);
  add("POST", "/graphs/{graph_id}/mutate/if-graph-commit", "cluster_mutate_if_graph_commit", "mutations",
      "Run a mutation if the branch head is the commit in Omnigraph-If-Graph-Commit", BodyKind::kJson, {}, conditional,
      HandleMutateIfGraphCommit);
  add("POST", "/graphs/{graph_id}/change", "cluster_change", "mutations", "Run a mutation (deprecated: /mutate)",
      BodyKind::kJson, {}, write, HandleLegacyChange, "mutate");
  add("GET", "/graphs/{graph_id}/queries", "cluster_list_queries", "queries", "The stored queries", BodyKind::kNone, {},
      {200, 401, 403, 404}, HandleListQueries);
  add("POST", "/graphs/{graph_id}/queries/{name}", "cluster_invoke_query", "queries", "Run a stored query",
      BodyKind::kOptionalJson, {}, write, HandleInvokeQuery);
  add("POST", "/graphs/{graph_id}/queries/{name}/if-graph-commit", "cluster_invoke_query_if_graph_commit", "queries",
      "Run a stored mutation if the branch head is the commit in Omnigraph-If-Graph-Commit", BodyKind::kOptionalJson,
      {}, conditional, HandleInvokeQueryIfGraphCommit);
  add("GET", "/graphs/{graph_id}/schema", "cluster_getSchema", "schema", "The schema source of main", BodyKind::kNone,
      {}, {200, 401, 403, 404, 500}, HandleGetSchema);
  add("POST", "/graphs/{graph_id}/schema/apply", "cluster_applySchema", "mutations",
      "Migrate main to a new schema (refused on cluster-served graphs)", BodyKind::kJson, {}, write, HandleApplySchema);
  add("POST", "/graphs/{graph_id}/load", "cluster_load", "mutations", "Load NDJSON records as one commit",
      BodyKind::kJson, {}, write, HandleLoad, "", true);
  add("POST", "/graphs/{graph_id}/load/ndjson", "cluster_loadNdjson", "mutations",
      "Load a raw NDJSON body as one commit", BodyKind::kNdjson, {"branch", "from", "mode"}, write, HandleLoadNdjson,
      "", true);
  add("POST", "/graphs/{graph_id}/ingest", "cluster_ingest", "mutations", "Load NDJSON records (deprecated: /load)",
      BodyKind::kJson, {}, write, HandleIngest, "load", true);
  add("POST", "/graphs/{graph_id}/export", "cluster_export", "queries", "Stream a branch as NDJSON", BodyKind::kJson,
      {}, {200, 400, 401, 403, 404, 413, 415, 500}, HandleExport);
  add("GET", "/graphs/{graph_id}/branches", "cluster_listBranches", "branches", "The live branches", BodyKind::kNone,
      {}, {200, 401, 403, 404, 500}, HandleListBranches);
  add("POST", "/graphs/{graph_id}/branches", "cluster_createBranch", "branches", "Create a branch", BodyKind::kJson, {},
      write, HandleCreateBranch);
  add("DELETE", "/graphs/{graph_id}/branches/{branch}", "cluster_deleteBranch", "branches", "Delete a branch",
      BodyKind::kNone, {}, {200, 400, 401, 403, 404, 409, 429, 500}, HandleDeleteBranch);
  add("POST", "/graphs/{graph_id}/branches/merge", "cluster_mergeBranches", "branches",
      "Merge a branch into another (three-way, entity by entity)", BodyKind::kJson, {}, write, HandleMergeBranches);
  add("GET", "/graphs/{graph_id}/commits", "cluster_listCommits", "commits", "A branch's commits, newest first",
      BodyKind::kNone, {"branch"}, read, HandleListCommits);
  add("GET", "/graphs/{graph_id}/commits/{commit_id}", "cluster_getCommit", "commits", "One commit", BodyKind::kNone,
      {}, read, HandleGetCommit);
  add("GET", "/graphs/{graph_id}/commits/{commit_id}/changes", "cluster_getCommitChanges", "changes",
      "The entity changes of one commit, a page at a time", BodyKind::kNone,
      {"page_token", "limit", "kind", "type", "op"}, {200, 400, 401, 404, 409, 410, 500}, HandleCommitChanges);
  add("GET", "/graphs/{graph_id}/changes", "cluster_pollChanges", "changes", "A branch's change feed", BodyKind::kNone,
      {"branch", "cursor", "start", "page_token", "limit", "kind", "type", "op"}, {200, 400, 401, 403, 404, 410, 500},
      HandlePollChanges);
  add("POST", "/graphs/{graph_id}/changes/baseline", "cluster_captureChangeBaseline", "changes",
      "Stream a branch head and the feed cursor that resumes after it", BodyKind::kJson, {},
      {200, 400, 401, 403, 404, 413, 415, 500}, HandleChangeBaseline);
  return r;
}

// Splits "/a/b/c" into {"a", "b", "c"}; nullopt for an empty segment (a doubled or trailing '/').
std::optional<std::vector<std::string_view>> Segments(std::string_view path) {
  std::vector<std::string_view> out;
  if (path.empty() || path.front() != '/') return std::nullopt;
  path.remove_prefix(1);
  while (true) {
    size_t slash = path.find('/');
    std::string_view seg = path.substr(0, slash);
    if (seg.empty()) return std::nullopt;
    out.push_back(seg);
    if (slash == std::string_view::npos) break;
    path.remove_prefix(slash + 1);
  }
  return out;
}

}  // namespace

const std::vector<Route>& Routes() {
  static const std::vector<Route> routes = BuildRoutes();
  return routes;
}

RouteMatch MatchRoute(std::string_view method, std::string_view path) {
  RouteMatch m;
  auto segments = Segments(path);
  if (!segments) return m;
  // The routes whose pattern matches the path. A literal segment beats a parameter at the same
  // position (/branches/merge is never /branches/{branch}), so only the most literal patterns stay.
  struct Candidate {
    const Route* route;
    std::map<std::string, std::string> params;
    std::vector<bool> literal;  // per segment
  };
  std::vector<Candidate> candidates;
  for (const Route& r : Routes()) {
    auto pattern = Segments(r.path);
    if (!pattern || pattern->size() != segments->size()) continue;
    Candidate c{&r, {}, {}};
    bool ok = true;
    for (size_t i = 0; i < pattern->size() && ok; ++i) {
      std::string_view p = (*pattern)[i];
      const bool literal = p.front() != '{';
      c.literal.push_back(literal);
      if (literal) {
        ok = p == (*segments)[i];
        continue;
      }
      auto decoded = DecodePathSegment((*segments)[i]);
      if (!decoded) {
        m.error = InvalidArgumentError("path segment '" + std::string((*segments)[i]) +
                                       "' is not a valid percent-encoded name");
        ok = false;
        break;
      }
      c.params[std::string(p.substr(1, p.size() - 2))] = *decoded;
    }
    if (ok) candidates.push_back(std::move(c));
  }
  // Keep the candidates no other candidate beats: one is beaten when, at the first segment where
  // the two differ in kind, the other is literal.
  auto beats = [](const Candidate& a, const Candidate& b) {
    for (size_t i = 0; i < a.literal.size(); ++i) {
      if (a.literal[i] != b.literal[i]) return a.literal[i];
    }
    return false;
  };
  std::vector<const Candidate*> best;
  for (const auto& c : candidates) {
    bool beaten = false;
    for (const auto& o : candidates) beaten = beaten || beats(o, c);
    if (!beaten) best.push_back(&c);
  }
  const Candidate* chosen = nullptr;
  for (const Candidate* c : best) {
    m.path_known = true;
    const std::string name(c->route->method);
    auto add = [&](const std::string& verb) {
      if (m.allowed.find(verb) == std::string::npos) m.allowed += (m.allowed.empty() ? "" : ", ") + verb;
    };
    add(name);
    if (name == "GET") add("HEAD");
    if (c->route->method == method) chosen = c;
  }
  if (chosen == nullptr && method == "HEAD") {  // HEAD of a GET route
    for (const Candidate* c : best) {
      if (c->route->method == "GET") chosen = c;
    }
  }
  if (chosen != nullptr) {
    m.route = chosen->route;
    m.params = chosen->params;
    m.error = Status::Ok();
  }
  return m;
}

}  // namespace omnigraph::server
