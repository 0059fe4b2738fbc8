// The HTTP listener: binds a socket, runs a bounded pool of connection threads, parses each
// request into an HttpRequest for the server's callbacks and writes their HttpResponse back.
// The only file that knows the HTTP library, Boost.Beast (docs/decisions.md, "The HTTP library").
#pragma once

#include <cstddef>
#include <functional>
#include <memory>
#include <optional>
#include <string>

#include "omnigraph/result.h"
#include "server/http.h"

namespace omnigraph::server {

struct ListenerOptions {
  std::string host = "127.0.0.1";
  int port = 8080;      // 0 = the system picks
  size_t threads = 32;  // connection threads: at most this many connections are served at once
  // The largest body any route takes; the precheck lowers it per request (HttpRequest::max_body).
  size_t max_body_bytes = size_t{32} << 20;
  size_t max_header_bytes = size_t{64} << 10;  // request line + headers; more is 431
  // A request's line and headers must arrive within this; its body within this plus one second
  // per MiB. A deadline for the whole request, not per read: a client trickling bytes cannot
  // hold a thread longer.
  int read_timeout_s = 10;
  int write_timeout_s = 30;      // writing one response (or one chunk of a stream) takes at most this
  int keep_alive_timeout_s = 5;  // an idle kept-alive connection is closed after this
  size_t keep_alive_max_requests = 1000;
};

class HttpListener {
 public:
  // Answers a request from its line and headers alone, before its body is read (a refusal: 401,
  // 404, 405, 413, 415), or nullopt to read the body and dispatch it. May lower
  // `head.max_body` (the route's limit): a longer body is refused with 413 as it arrives.
  using Precheck = std::function<std::optional<HttpResponse>(HttpRequest& head)>;
  using Dispatch = std::function<HttpResponse(HttpRequest& request)>;
  // The answer to a request the listener itself refuses (malformed 400, timed out 408, body over
  // its limit 413, headers too large 431). The connection is closed after it.
  using Refuse = std::function<HttpResponse(int http_status, const Status& why)>;

  // Binds host:port. `io_error` when the address cannot be bound.
  static Result<std::unique_ptr<HttpListener>> Bind(const ListenerOptions& options, Precheck precheck,
                                                    Dispatch dispatch, Refuse refuse);
  ~HttpListener();
  HttpListener(const HttpListener&) = delete;
  HttpListener& operator=(const HttpListener&) = delete;

  int port() const;                 // the bound port
  const std::string& host() const;  // the bound host
  // Serves until Stop; returns when the listener has stopped and in-flight requests finished:
  // ok after Stop, `io_error` when the accept loop failed on its own.
  [[nodiscard]] Status Run();
  // Stops accepting; requests in flight finish (their connections close after them), idle
  // kept-alive connections close at once. Thread-safe; may be called before Run, from a
  // signal-waiting thread.
  void Stop();

 private:
  struct Impl;
  explicit HttpListener(std::unique_ptr<Impl> impl);
  std::unique_ptr<Impl> impl_;
};

}  // namespace omnigraph::server
