// The CLI's remote mode (docs/cli.md, "Remote graphs"): a graph served by omnigraph-server,
// addressed with --server NAME|URL [--graph ID] (or a server profile), reached over HTTP. Resolves
// the server's URL and the bearer token (OMNIGRAPH_TOKEN_<NAME>, the credentials file,
// OMNIGRAPH_BEARER_TOKEN), sends requests and turns error bodies back into typed Status values,
// so the commands print remote results and errors as they print local ones.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "cli/cli_graph.h"
#include "common/json.h"
#include "omnigraph/result.h"

namespace omnigraph::cli {

using QueryParams = std::vector<std::pair<std::string, std::string>>;

// One HTTP request's answer: its status and body (when streamed, the body of a non-2xx answer).
struct HttpAnswer {
  long status = 0;
  std::string body;
};

class RemoteGraph {
 public:
  // `base_url` is scheme://host[:port][/prefix]; `graph` the graph id ("" for server routes).
  RemoteGraph(std::string base_url, std::string graph, std::optional<std::string> token);
  ~RemoteGraph();
  RemoteGraph(const RemoteGraph&) = delete;
  RemoteGraph& operator=(const RemoteGraph&) = delete;

  const std::string& base_url() const { return base_url_; }
  const std::string& graph() const { return graph_; }
  // The graph's URL (base/graphs/<id>), what write-target lines and `uri` fields name.
  std::string GraphUrl() const;

  // A request to `path` under the graph (`/query`, `/branches/x`: segments already escaped), or
  // to a server route when `path` starts with "//" ("//graphs" = GET /graphs). A non-2xx answer
  // is a Status carrying the server's error (its error_code when known, else one by HTTP status;
  // structured fields as details).
  Result<OrderedJson> Get(std::string_view path, const QueryParams& query = {});
  Result<OrderedJson> Post(std::string_view path, const OrderedJson& body,
                           const std::vector<std::pair<std::string, std::string>>& headers = {});
  Result<OrderedJson> PostRaw(std::string_view path, const QueryParams& query, const std::string& body,
                              const std::string& content_type);
  Result<OrderedJson> Delete(std::string_view path);
  // POST with a streamed answer, passed to `sink` chunk by chunk.
  Status PostStream(std::string_view path, const OrderedJson& body,
                    const std::function<Status(std::string_view chunk)>& sink);

 private:
  struct Impl;
  // One request to `path` (already under the base URL's prefix) with extra "Name: value" headers
  // and a body (POST); with `sink`, a 2xx answer's body is streamed to it (remote.cc).
  Result<HttpAnswer> Send(const std::string& method, const std::string& path, const std::vector<std::string>& headers,
                          const std::string* body, const std::function<Status(std::string_view)>* sink);
  std::string base_url_;
  std::string graph_;
  std::unique_ptr<Impl> impl_;
};

// The remote graph the flags address: --server (or a server profile / defaults.server), with the
// graph from --graph, else the scope's default graph, else the server's only graph. nullopt when
// the flags address local storage. `need_graph` false for server-wide commands (`graphs list`).
Result<std::optional<std::unique_ptr<RemoteGraph>>> ResolveRemote(const GraphFlags& flags, bool need_graph = true);

// A graph of `server` (a `servers:` name of the operator config, or a URL holding "://"), resolved
// as --server resolves it: the entry's url (an unknown name is a usage error listing the defined
// ones) and the token for that URL; `graph`, else (when `need_graph`) the server's only graph.
Result<std::unique_ptr<RemoteGraph>> ConnectServer(const std::string& server, const std::optional<std::string>& graph,
                                                   bool need_graph = true);

// One path segment, percent-encoded.
std::string EscapeSegment(std::string_view segment);

// The credentials file: $OMNIGRAPH_HOME/credentials, else ~/.omnigraph/credentials.
std::string CredentialsPath();
// [name] sections with `token = ...` lines (docs/cli.md, "login"). Refuses a file other users
// can read.
Result<std::map<std::string, std::string>> ReadCredentials(const std::string& path);
// Writes the file whole (mode 0600, temp file renamed over it), `name` set to `token` or removed.
Status WriteCredential(const std::string& path, const std::string& name, const std::optional<std::string>& token);

// The Status of an HTTP error answer (exposed for tests).
Status RemoteError(int http_status, std::string_view body);

}  // namespace omnigraph::cli
