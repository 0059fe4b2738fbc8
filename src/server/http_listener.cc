#include "server/http_listener.h"

#include <httplib.h>
#include <sys/socket.h>

#include <atomic>
#include <chrono>
#include <thread>
#include <utility>

#include "common/error_codes.h"

namespace omnigraph::server {

struct HttpListener::Impl {
  ListenerOptions options;
  Precheck precheck;
  Dispatch dispatch;
  httplib::Server server;
  int port = 0;
  std::atomic<bool> stop_requested{false};
  std::atomic<bool> running{false};  // inside Run
  int listen_fd = -1;                // the listening socket, once bound
};

namespace {

HttpRequest FromLibrary(const httplib::Request& req) {
  HttpRequest r;
  r.method = req.method;
  std::string target = req.target.empty() ? req.path : req.target;
  r.path = target.substr(0, target.find('?'));
  for (const auto& [k, v] : req.params) r.query.emplace(k, v);
  for (const auto& [k, v] : req.headers) {
    // httplib adds these for its own bookkeeping; they are not the client's.
    if (k == "REMOTE_ADDR" || k == "REMOTE_PORT" || k == "LOCAL_ADDR" || k == "LOCAL_PORT") continue;
    r.headers.emplace_back(k, v);
  }
  r.remote = req.remote_addr;
  return r;
}

void ToLibrary(HttpResponse response, httplib::Response& res) {
  res.status = response.status;
  for (auto& [k, v] : response.headers) res.set_header(k, v);
  if (response.close_connection && !response.body.empty()) {
    // httplib 0.11 keeps a connection alive after any response the client did not ask to close;
    // its only way out is a failed write. The provider sends the whole body, then reports failure:
    // the client has the complete response, and the connection (with the unread request body
    // behind it) is closed instead of being parsed for a next request.
    res.set_header("Connection", "close");
    auto body = std::make_shared<std::string>(std::move(response.body));
    res.set_content_provider(body->size(), response.content_type,
                             [body](size_t offset, size_t, httplib::DataSink& sink) {
                               sink.write(body->data() + offset, body->size() - offset);
                               return false;
                             });
    return;
  }
  if (response.stream) {
    auto stream = std::move(response.stream);
    res.set_chunked_content_provider(response.content_type, [stream](size_t, httplib::DataSink& sink) {
      try {
        Status s =
            stream([&sink](std::string_view chunk) { return chunk.empty() || sink.write(chunk.data(), chunk.size()); });
        if (!s.ok()) return false;  // cut the body: the client sees an incomplete chunked stream
      } catch (...) {
        return false;  // outside httplib's handler guard: an escaping exception would end the process
      }
      sink.done();
      return true;
    });
    return;
  }
  if (response.head_content_length && *response.head_content_length > 0) {
    // HEAD: httplib sends the length and never calls the provider.
    res.set_content_provider(static_cast<size_t>(*response.head_content_length), response.content_type,
                             [](size_t, size_t, httplib::DataSink&) { return false; });
    return;
  }
  res.set_content(std::move(response.body), response.content_type);
}

}  // namespace

Result<std::unique_ptr<HttpListener>> HttpListener::Bind(const ListenerOptions& options, Precheck precheck,
                                                         Dispatch dispatch) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  impl->precheck = std::move(precheck);
  impl->dispatch = std::move(dispatch);
  Impl* raw = impl.get();
  httplib::Server& svr = impl->server;
  const size_t threads = options.threads == 0 ? 1 : options.threads;
  svr.new_task_queue = [threads] { return new httplib::ThreadPool(threads); };
  svr.set_payload_max_length(options.max_body_bytes);
  svr.set_read_timeout(options.read_timeout_s, 0);
  svr.set_write_timeout(options.write_timeout_s, 0);
  svr.set_keep_alive_timeout(options.keep_alive_timeout_s);
  svr.set_keep_alive_max_count(options.keep_alive_max_requests);
  svr.set_tcp_nodelay(true);  // small JSON answers must not wait for a delayed ACK (Nagle)
  svr.set_pre_routing_handler([raw](const httplib::Request& req, httplib::Response& res) {
    // Byte ranges are the Blob route's business (it answers 206 itself); left here, httplib would
    // cut every 200 body again by the client's Range header.
    const_cast<httplib::Request&>(req).ranges.clear();
    std::optional<HttpResponse> early = raw->precheck(FromLibrary(req));
    if (!early) return httplib::Server::HandlerResponse::Unhandled;
    ToLibrary(std::move(*early), res);
    return httplib::Server::HandlerResponse::Handled;
  });
  auto handler = [raw](const httplib::Request& req, httplib::Response& res) {
    HttpRequest r = FromLibrary(req);
    r.body = req.body;
    ToLibrary(raw->dispatch(r), res);
  };
  svr.Get(".*", handler);  // GET and HEAD (httplib sends no body for HEAD)
  svr.Post(".*", handler);
  svr.Put(".*", handler);
  svr.Patch(".*", handler);
  svr.Delete(".*", handler);
  svr.Options(".*", handler);
  // httplib 0.11 listens with a backlog of 5 (compiled into the library): a burst of clients
  // connecting at once would overflow it. The socket is caught here and listened on again below
  // with the system's limit (Linux updates the backlog of a listening socket).
  // SO_REUSEADDR only: httplib's default also sets SO_REUSEPORT, which lets a second server bind
  // the same port and silently share its connections.
  svr.set_socket_options([raw](int sock) {
    int yes = 1;
    ::setsockopt(sock, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    raw->listen_fd = sock;
  });
  int port = options.port == 0 ? svr.bind_to_any_port(options.host)
                               : (svr.bind_to_port(options.host, options.port) ? options.port : -1);
  if (port <= 0) {
    return Status(ErrorCode::kIo, "cannot listen on " + options.host + ":" + std::to_string(options.port) +
                                      " (address in use, not local, or not permitted)");
  }
  if (impl->listen_fd >= 0) ::listen(impl->listen_fd, SOMAXCONN);
  impl->port = port;
  return std::unique_ptr<HttpListener>(new HttpListener(std::move(impl)));
}

HttpListener::HttpListener(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpListener::~HttpListener() { Stop(); }

int HttpListener::port() const { return impl_->port; }
const std::string& HttpListener::host() const { return impl_->options.host; }
Status HttpListener::Run() {
  impl_->running = true;
  const bool clean = impl_->stop_requested || impl_->server.listen_after_bind();
  impl_->running = false;
  if (!clean && !impl_->stop_requested) {
    return Status(ErrorCode::kIo, "the listener on " + impl_->options.host + ":" + std::to_string(impl_->port) +
                                      " stopped accepting connections");
  }
  return Status::Ok();
}

void HttpListener::Stop() {
  impl_->stop_requested = true;
  // httplib ignores a stop before its accept loop started: wait for the loop (Run checks the flag
  // first, so a Stop before Run needs no wait).
  while (impl_->running && !impl_->server.is_running()) std::this_thread::sleep_for(std::chrono::milliseconds(1));
  impl_->server.stop();
}

}  // namespace omnigraph::server
