// omnigraph-server (docs/server.md): the HTTP API over the graphs of a Registry. A request is
// routed by the route table (routes.cc), authenticated (auth.h), authorized by the graph's policy
// mode, admitted (per-actor caps on writes), handled through the public embedded API, and
// answered with JSON or an NDJSON stream; every request leaves one access-log line and metrics.
#pragma once

#include <cstdint>
#include <cstdio>
#include <memory>
#include <optional>
#include <string>

#include "omnigraph/result.h"
#include "server/auth.h"
#include "server/http.h"
#include "server/http_listener.h"
#include "server/registry.h"

namespace omnigraph::server {

struct ServerOptions {
  BootOptions boot;
  ListenerOptions listen;
  bool unauthenticated = false;                      // --unauthenticated: serve without tokens (no policy allowed)
  size_t body_limit_bytes = size_t{1} << 20;         // every JSON route
  size_t load_body_limit_bytes = size_t{32} << 20;   // /load, /load/ndjson, /ingest
  size_t per_actor_inflight_max = 16;                // writes one actor may have running at once
  uint64_t per_actor_bytes_max = uint64_t{4} << 30;  // request bytes of one actor's running writes
  FILE* access_log = stderr;                         // one JSON line per request (nullptr: none)
};

class Server {
 public:
  // Boots the registry, checks the auth configuration (docs/server.md "Runtime modes": no tokens
  // and no --unauthenticated, or a policy without tokens, refuse to start) and binds.
  static Result<std::unique_ptr<Server>> Start(ServerOptions options, TokenTable tokens);
  ~Server();
  Server(const Server&) = delete;
  Server& operator=(const Server&) = delete;

  int port() const;
  std::string listen_address() const;  // host:port
  [[nodiscard]] Status Run();          // serves until Stop (ok), or until the listener fails (io_error)
  void Stop();                         // stops accepting; in-flight requests finish

  // One request through routing, auth, policy, admission and its handler (what the listener
  // calls; also usable without sockets).
  HttpResponse Handle(HttpRequest& request);
  // The refusal of a request from its head alone (unknown route, bad token, too large), or nullopt.
  std::optional<HttpResponse> Precheck(HttpRequest& head);

  const Registry& registry() const;

  struct Impl;

 private:
  explicit Server(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

// The OpenAPI 3.1 document of the route table (served at /openapi.json; `security` left out when
// the server runs unauthenticated).
std::string OpenApiJson(bool with_security);

}  // namespace omnigraph::server
