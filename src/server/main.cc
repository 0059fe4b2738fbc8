// omnigraph-server: serves the applied revision of a cluster (--cluster DIR|s3://ROOT) or one graph
// (--store URI) over HTTP (docs/server.md). Prints OMNIGRAPH_LISTEN_ADDR=host:port on stdout once
// bound; SIGINT/SIGTERM stop accepting, let in-flight requests finish and exit 0.
#include <signal.h>
#include <CLI/CLI.hpp>

#include <cstdio>
#include <cstdlib>
#include <optional>
#include <string>
#include <thread>

#include "common/error_codes.h"
#include "omnigraph/omnigraph.h"
#include "server/server.h"

namespace {

std::optional<std::string> Env(const char* name) {
  const char* v = std::getenv(name);
  if (v == nullptr) return std::nullopt;
  return std::string(v);
}

// Non-empty after trimming, not "0", not "false" (any case).
bool EnvFlag(const char* name) {
  auto v = Env(name);
  if (!v) return false;
  std::string t;
  for (char c : *v) {
    if (c != ' ' && c != '\t') t.push_back(static_cast<char>(std::tolower(static_cast<unsigned char>(c))));
  }
  return !t.empty() && t != "0" && t != "false";
}

template <typename T>
T EnvNumber(const char* name, T fallback) {
  auto v = Env(name);
  if (!v || v->empty() || v->find_first_not_of("0123456789") != std::string::npos || v->size() > 19) return fallback;
  return static_cast<T>(std::stoull(*v));
}

int Fail(const omnigraph::Status& s) {
  std::fprintf(stderr, "omnigraph-server: error[%s]: %s\n", std::string(s.code_string()).c_str(), s.message().c_str());
  return 1;
}

}  // namespace

int main(int argc, char** argv) {
  using namespace omnigraph;
  using namespace omnigraph::server;
  TuneProcessAllocator();
  CLI::App app{"omnigraph-server: the Omnigraph HTTP API (docs/server.md)"};
  ServerOptions options;
  std::string bind = Env("OMNIGRAPH_BIND").value_or("127.0.0.1:8080");
  options.boot.cluster = Env("OMNIGRAPH_CLUSTER").value_or("");
  options.unauthenticated = EnvFlag("OMNIGRAPH_UNAUTHENTICATED");
  options.boot.require_all_graphs = EnvFlag("OMNIGRAPH_REQUIRE_ALL_GRAPHS");
  options.per_actor_inflight_max = EnvNumber<size_t>("OMNIGRAPH_PER_ACTOR_INFLIGHT_MAX", 16);
  options.per_actor_bytes_max = EnvNumber<uint64_t>("OMNIGRAPH_PER_ACTOR_BYTES_MAX", uint64_t{4} << 30);
  std::string cache_dir = Env("OMNIGRAPH_CACHE_DIR").value_or("");
  bool quiet = false;
  bool print_openapi = false;
  app.add_option("--cluster", options.boot.cluster, "Cluster folder or storage root (s3://bucket/prefix) to serve");
  app.add_option("--store", options.boot.store, "Serve one graph at this URI instead of a cluster");
  app.add_option("--graph-id", options.boot.graph_id, "The id a --store graph is served under (default: default)");
  app.add_option("--policy", options.boot.policy_file, "--store: a policy file (*.policy.yaml) for that graph");
  app.add_option("--bind", bind, "host:port to listen on (port 0: any free port; default 127.0.0.1:8080)");
  app.add_flag("--unauthenticated", options.unauthenticated, "Serve without bearer tokens (no policy allowed)");
  app.add_flag("--require-all-graphs", options.boot.require_all_graphs,
               "Refuse to start when any graph of the cluster fails to open");
  app.add_option("--threads", options.listen.threads, "Connection threads (requests served at once; default 32)");
  app.add_option("--cache-dir", cache_dir, "Local disk cache for graphs on object storage");
  app.add_flag("--quiet", quiet, "No access log on stderr");
  app.add_flag("--openapi", print_openapi, "Print the OpenAPI document (docs/openapi.json) and exit");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    return app.exit(e);
  }
  if (print_openapi) {
    std::fputs(OpenApiJson(/*with_security=*/true).c_str(), stdout);
    return 0;
  }
  if (quiet) options.access_log = nullptr;
  options.boot.open.disk_cache_dir = cache_dir;
  const size_t colon = bind.rfind(':');
  if (colon == std::string::npos || colon + 1 >= bind.size() ||
      bind.find_first_not_of("0123456789", colon + 1) != std::string::npos || bind.size() - colon - 1 > 5) {
    return Fail(Status(ErrorCode::kUsage, "--bind takes host:port, got '" + bind + "'"));
  }
  options.listen.host = bind.substr(0, colon);
  options.listen.port = std::stoi(bind.substr(colon + 1));
  if (options.listen.host.size() > 2 && options.listen.host.front() == '[') {
    options.listen.host = options.listen.host.substr(1, options.listen.host.size() - 2);
  }
  if (options.listen.port > 65535) return Fail(Status(ErrorCode::kUsage, "--bind port must be at most 65535"));

  // Signals are taken by one thread (sigwait), never by a handler inside a request.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);
  signal(SIGPIPE, SIG_IGN);

  auto tokens = TokenTable::FromEnvironment([](const char* name) { return Env(name); });
  if (!tokens.ok()) return Fail(tokens.status());
  if (options.unauthenticated && !tokens->empty()) {
    std::fprintf(stderr, "omnigraph-server: warning: --unauthenticated is ignored: bearer tokens are configured (%s)\n",
                 tokens->source().c_str());
  }
  auto server = Server::Start(std::move(options), std::move(*tokens));
  if (!server.ok()) return Fail(server.status());
  for (const auto& q : (*server)->registry().quarantined) {
    std::fprintf(stderr, "omnigraph-server: graph '%s' quarantined: %s\n", q.id.c_str(), q.reason.c_str());
  }
  std::printf("OMNIGRAPH_LISTEN_ADDR=%s\n", (*server)->listen_address().c_str());
  std::fflush(stdout);
  Server* raw = server->get();
  std::thread waiter([raw, signals] {
    int sig = 0;
    sigwait(&signals, &sig);
    raw->Stop();
  });
  Status served = raw->Run();
  // Run returned: stopped by a signal (the waiter is done) or the listener failed.
  pthread_kill(waiter.native_handle(), SIGTERM);
  waiter.join();
  if (!served.ok()) return Fail(served);
  return 0;
}
