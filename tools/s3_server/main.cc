// omnigraph-s3-server: runs the S3 test server (s3_server.h) until SIGINT or SIGTERM.
//   omnigraph-s3-server --listen HOST:PORT --root DIR --access-key-id K --secret-access-key S
//                       [--fault SPEC]... [--fsync] [--bucket NAME]...
// Prints "listening on HOST:PORT" (the bound port when 0 was asked) once it serves. Exit codes:
// 0 after a signal, 1 when the server cannot start, 2 for bad arguments.
#include <pthread.h>
#include <signal.h>

#include <CLI/CLI.hpp>
#include <cstdio>
#include <string>
#include <utility>
#include <vector>

#include "s3_server/s3_server.h"
#include "s3_server/s3_server_errors.h"

namespace {

constexpr int kExitFailure = 1;
constexpr int kExitUsage = 2;

struct ListenAddress {
  std::string host;  // as given (an IPv6 address keeps its brackets)
  int port = 0;
};

// "HOST:PORT" ("[::1]:PORT" for IPv6); false when malformed.
bool ParseListen(const std::string& text, ListenAddress* out) {
  const size_t colon = text.rfind(':');
  if (colon == std::string::npos || colon == 0 || colon + 1 == text.size() || text.size() - colon - 1 > 5) {
    return false;
  }
  int port = 0;
  for (size_t i = colon + 1; i < text.size(); ++i) {
    if (text[i] < '0' || text[i] > '9') return false;
    port = port * 10 + (text[i] - '0');
  }
  if (port > 65535) return false;
  out->host = text.substr(0, colon);
  out->port = port;
  return true;
}

// The host to bind: without the brackets of an IPv6 literal.
std::string BindHost(const std::string& host) {
  if (host.size() >= 2 && host.front() == '[' && host.back() == ']') return host.substr(1, host.size() - 2);
  return host;
}

int Usage(const std::string& message) {
  std::fprintf(stderr, "omnigraph-s3-server: %s\nRun with --help for usage.\n", message.c_str());
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"omnigraph-s3-server: an S3-protocol test server that stores objects as files"};
  std::string listen;
  omnigraph::s3server::S3ServerOptions options;
  app.add_option("--listen", listen, "HOST:PORT to listen on (PORT 0: any free port)")->required();
  app.add_option("--root", options.root, "Folder of the buckets (created if missing)")->required();
  app.add_option("--access-key-id", options.access_key_id, "The one access key id accepted")->required();
  app.add_option("--secret-access-key", options.secret_access_key, "Its secret key")->required();
  app.add_option(
         "--fault", options.faults,
         "Inject faults (repeatable): latency=MS, slowdown=N, error500=N, reset=N, conflict=N, lost=N, truncate=N")
      ->allow_extra_args(false);
  app.add_flag("--fsync", options.fsync, "fsync object files and folders");
  std::vector<std::string> buckets;
  app.add_option("--bucket", buckets, "Create this bucket at start unless it exists (repeatable)");
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& e) {
    if (e.get_exit_code() == 0) return app.exit(e);  // --help
    return Usage(e.what());
  }
  ListenAddress address;
  if (!ParseListen(listen, &address)) return Usage("--listen wants HOST:PORT, got '" + listen + "'");

  // SIGINT and SIGTERM are blocked before any thread starts (threads inherit the mask) and taken
  // synchronously below, so no handler runs on a serving thread.
  sigset_t signals;
  sigemptyset(&signals);
  sigaddset(&signals, SIGINT);
  sigaddset(&signals, SIGTERM);
  pthread_sigmask(SIG_BLOCK, &signals, nullptr);

  auto server = omnigraph::s3server::S3Server::Create(std::move(options));
  if (!server.ok()) {
    if (server.status().category() == omnigraph::StatusCode::kInvalidArgument) {
      return Usage(server.status().message());
    }
    std::fprintf(stderr, "omnigraph-s3-server: %s\n", server.status().ToString().c_str());
    return kExitFailure;
  }
  for (const std::string& bucket : buckets) {
    const omnigraph::Status created = (*server)->CreateBucket(bucket);
    if (!created.ok() && omnigraph::s3server::ToS3Error(created).code != "BucketAlreadyOwnedByYou") {
      std::fprintf(stderr, "omnigraph-s3-server: bucket '%s': %s\n", bucket.c_str(), created.ToString().c_str());
      return kExitUsage;
    }
  }
  omnigraph::Result<int> port = (*server)->Start(BindHost(address.host), address.port);
  if (!port.ok()) {
    std::fprintf(stderr, "omnigraph-s3-server: %s\n", port.status().ToString().c_str());
    return kExitFailure;
  }
  std::printf("listening on %s:%d\n", address.host.c_str(), *port);
  std::fflush(stdout);

  int received = 0;
  while (sigwait(&signals, &received) != 0) {
  }
  (*server)->Stop();
  return 0;
}
