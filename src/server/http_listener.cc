#include "server/http_listener.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/eventfd.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <arpa/inet.h>

#include <atomic>
#include <cerrno>
#include <chrono>
#include <condition_variable>
#include <cstring>
#include <deque>
#include <mutex>
#include <thread>
#include <utility>
#include <vector>

#include <boost/asio/buffer.hpp>
#include <boost/asio/error.hpp>
#include <boost/asio/write.hpp>
#include <boost/beast/core/error.hpp>
#include <boost/beast/core/flat_buffer.hpp>
#include <boost/beast/http.hpp>

#include "common/error_codes.h"

namespace omnigraph::server {

namespace http = boost::beast::http;
namespace net = boost::asio;
using Clock = std::chrono::steady_clock;

namespace {

// A connected socket as Beast's synchronous stream: non-blocking reads and writes that wait with
// poll() until a deadline. Owning the descriptor here (rather than using an asio socket) gives a
// deadline for a whole request, one sendmsg per answer, and a wake-up when the listener stops.
class SocketStream {
 public:
  SocketStream(int fd, int stop_fd) : fd_(fd), stop_fd_(stop_fd) {}
  ~SocketStream() { ::close(fd_); }
  SocketStream(const SocketStream&) = delete;
  SocketStream& operator=(const SocketStream&) = delete;

  void set_deadline(Clock::time_point deadline) { deadline_ = deadline; }
  int fd() const { return fd_; }

  template <class Buffers>
  size_t read_some(const Buffers& buffers, boost::beast::error_code& ec) {
    iovec iov[kMaxIov];
    const size_t n_iov = Gather<net::mutable_buffer>(buffers, iov);
    return Transfer(n_iov, POLLIN, ec, [&] { return ::readv(fd_, iov, static_cast<int>(n_iov)); });
  }
  template <class Buffers>
  size_t read_some(const Buffers& buffers) {
    return OrThrow([&](boost::beast::error_code& ec) { return read_some(buffers, ec); });
  }

  template <class Buffers>
  size_t write_some(const Buffers& buffers, boost::beast::error_code& ec) {
    iovec iov[kMaxIov];
    msghdr msg{};
    msg.msg_iov = iov;
    msg.msg_iovlen = Gather<net::const_buffer>(buffers, iov);
    return Transfer(msg.msg_iovlen, POLLOUT, ec, [&] { return ::sendmsg(fd_, &msg, MSG_NOSIGNAL); });
  }
  template <class Buffers>
  size_t write_some(const Buffers& buffers) {
    return OrThrow([&](boost::beast::error_code& ec) { return write_some(buffers, ec); });
  }

  // Waits until the socket is readable: true; false when `timeout` passed or the listener
  // stopped first (an idle connection between requests).
  bool WaitIdle(std::chrono::milliseconds timeout) {
    pollfd fds[2] = {{fd_, POLLIN, 0}, {stop_fd_, POLLIN, 0}};
    const Clock::time_point end = Clock::now() + timeout;
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(end - Clock::now()).count();
      if (left <= 0) return false;
      const int r = ::poll(fds, 2, static_cast<int>(left));
      if (r < 0 && errno == EINTR) continue;
      if (r <= 0) return false;
      // A request already sent is served even when the listener is stopping.
      return fds[0].revents != 0;
    }
  }

 private:
  static constexpr size_t kMaxIov = 64;

  // The non-empty buffers of `buffers` as iovecs (at most kMaxIov; a short transfer is fine).
  template <class Buffer, class Buffers>
  static size_t Gather(const Buffers& buffers, iovec* iov) {
    size_t n = 0;
    for (auto it = net::buffer_sequence_begin(buffers); it != net::buffer_sequence_end(buffers) && n < kMaxIov; ++it) {
      const Buffer b = *it;
      if (b.size() > 0) iov[n++] = iovec{const_cast<void*>(static_cast<const void*>(b.data())), b.size()};
    }
    return n;
  }

  // Runs `op` (readv / sendmsg) until it moves bytes, waiting in poll (until the deadline) while
  // it would block. A read of 0 bytes is the peer's end of stream.
  template <class Op>
  size_t Transfer(size_t n_iov, short events, boost::beast::error_code& ec, Op op) {
    ec = {};
    if (n_iov == 0) return 0;
    for (;;) {
      const ssize_t n = op();
      if (n > 0) return static_cast<size_t>(n);
      if (n == 0) {
        if (events == POLLIN) ec = net::error::eof;
        return 0;
      }
      if (errno == EINTR) continue;
      if (errno != EAGAIN && errno != EWOULDBLOCK) {
        ec = boost::beast::error_code(errno, boost::system::system_category());
        return 0;
      }
      if (!Wait(events, ec)) return 0;
    }
  }

  // The throwing form Beast's stream concept also asks for.
  template <class Call>
  static size_t OrThrow(Call call) {
    boost::beast::error_code ec;
    const size_t n = call(ec);
    if (ec) throw boost::system::system_error(ec);
    return n;
  }

  bool Wait(short events, boost::beast::error_code& ec) {
    for (;;) {
      const auto left = std::chrono::duration_cast<std::chrono::milliseconds>(deadline_ - Clock::now()).count();
      if (left <= 0) {
        ec = boost::beast::error::timeout;
        return false;
      }
      pollfd p{fd_, events, 0};
      const int r = ::poll(&p, 1, static_cast<int>(std::min<long long>(left, 1 << 30)));
      if (r > 0) return true;  // ready, or an error the next call reports
      if (r < 0 && errno != EINTR) {
        ec = boost::beast::error_code(errno, boost::system::system_category());
        return false;
      }
    }
  }

  int fd_;
  int stop_fd_;
  Clock::time_point deadline_ = Clock::now();
};

std::string PeerAddress(int fd) {
  sockaddr_storage addr{};
  socklen_t len = sizeof(addr);
  if (::getpeername(fd, reinterpret_cast<sockaddr*>(&addr), &len) != 0) return "";
  char buf[INET6_ADDRSTRLEN] = {};
  if (addr.ss_family == AF_INET) {
    ::inet_ntop(AF_INET, &reinterpret_cast<sockaddr_in*>(&addr)->sin_addr, buf, sizeof(buf));
  } else if (addr.ss_family == AF_INET6) {
    ::inet_ntop(AF_INET6, &reinterpret_cast<sockaddr_in6*>(&addr)->sin6_addr, buf, sizeof(buf));
  }
  return buf;
}

HttpRequest FromParsed(const http::request<http::string_body>& msg, const std::string& remote) {
  HttpRequest r;
  r.method = std::string(msg.method_string());
  const std::string_view target = msg.target();
  const size_t q = target.find('?');
  r.path = std::string(target.substr(0, q));
  if (q != std::string_view::npos) r.query = ParseQueryString(target.substr(q + 1));
  for (const auto& field : msg) r.headers.emplace_back(std::string(field.name_string()), std::string(field.value()));
  r.remote = remote;
  return r;
}

// Closes the sending side, then reads and drops what the client still sends (a request body left
// unread) for a moment, so the answer is not lost to a reset before the client reads it.
void LingeringClose(SocketStream& stream) {
  ::shutdown(stream.fd(), SHUT_WR);
  stream.set_deadline(Clock::now() + std::chrono::seconds(2));
  char sink[16384];
  size_t dropped = 0;
  boost::beast::error_code ec;
  while (dropped < (size_t{64} << 20)) {
    const size_t n = stream.read_some(net::buffer(sink), ec);
    if (ec || n == 0) break;
    dropped += n;
  }
}

}  // namespace

struct HttpListener::Impl {
  ListenerOptions options;
  Precheck precheck;
  Dispatch dispatch;
  Refuse refuse;
  int listen_fd = -1;
  int stop_fd = -1;  // an eventfd, readable once Stop was called
  int port = 0;
  std::atomic<bool> stopping{false};

  std::mutex mu;
  std::condition_variable cv;
  std::deque<int> pending;  // accepted connections waiting for a thread
  bool accepting_done = false;

  ~Impl() {
    if (listen_fd >= 0) ::close(listen_fd);
    if (stop_fd >= 0) ::close(stop_fd);
    for (int fd : pending) ::close(fd);
  }

  void Worker();
  void Serve(int fd);
  // Writes `response` to a request of HTTP version `version` (10 or 11); false when the
  // connection must close (the write failed or was cut, or the response asks for it).
  bool Write(SocketStream& stream, const HttpRequest& req, HttpResponse response, unsigned version, bool keep_alive);
};

void HttpListener::Impl::Worker() {
  for (;;) {
    int fd = -1;
    {
      std::unique_lock<std::mutex> lock(mu);
      cv.wait(lock, [&] { return !pending.empty() || accepting_done; });
      if (pending.empty()) return;
      fd = pending.front();
      pending.pop_front();
    }
    try {
      Serve(fd);
    } catch (...) {
      // An exception from a callback or the parser ends this connection, never the process.
    }
  }
}

void HttpListener::Impl::Serve(int fd) {
  SocketStream stream(fd, stop_fd);
  const std::string remote = PeerAddress(fd);
  boost::beast::flat_buffer buffer;  // outlives one request: it may hold the next one's bytes
  for (size_t served = 0; served < options.keep_alive_max_requests; ++served) {
    if (buffer.size() == 0) {
      // The first request gets the read timeout to start; later ones the keep-alive timeout.
      const int wait_s = served == 0 ? options.read_timeout_s : options.keep_alive_timeout_s;
      if (!stream.WaitIdle(std::chrono::seconds(wait_s))) return;
    }
    const Clock::time_point started = Clock::now();
    stream.set_deadline(started + std::chrono::seconds(options.read_timeout_s));
    http::request_parser<http::string_body> parser;
    parser.header_limit(static_cast<std::uint32_t>(options.max_header_bytes));
    parser.body_limit(options.max_body_bytes);
    boost::beast::error_code ec;
    http::read_header(stream, buffer, parser, ec);
    if (ec == http::error::end_of_stream || ec == net::error::eof) return;  // closed between requests
    HttpRequest fallback;
    fallback.method = "GET";
    if (ec == boost::beast::error::timeout) {
      if (buffer.size() == 0 && !parser.got_some()) return;
      Write(stream, fallback, refuse(408, InvalidArgumentError("the request line and headers did not arrive in time")),
            11, false);
      return LingeringClose(stream);
    }
    if (ec == http::error::header_limit) {
      Write(stream, fallback,
            refuse(431, InvalidArgumentError("the request line and headers exceed " +
                                             std::to_string(options.max_header_bytes) + " bytes")),
            11, false);
      return LingeringClose(stream);
    }
    if (ec) {
      Write(stream, fallback, refuse(400, InvalidArgumentError("malformed HTTP request: " + ec.message())), 11, false);
      return LingeringClose(stream);
    }
    const unsigned version = parser.get().version();
    const bool stopping_now = stopping.load();
    bool keep_alive = parser.get().keep_alive() && !stopping_now && served + 1 < options.keep_alive_max_requests;
    HttpRequest req = FromParsed(parser.get(), remote);
    req.max_body = options.max_body_bytes;
    if (std::optional<HttpResponse> early = precheck(req)) {
      // A refusal before the body: the body (if any) is never read, so the connection closes.
      const bool has_body = !parser.is_done();
      if (!Write(stream, req, std::move(*early), version, keep_alive && !has_body)) return LingeringClose(stream);
      if (has_body || !keep_alive) return LingeringClose(stream);
      continue;
    }
    if (!parser.is_done()) {
      parser.body_limit(std::min(options.max_body_bytes, req.max_body));
      // A client that waits for "100 Continue" before its body gets it now the head passed.
      if (auto expect = req.Header("Expect"); expect && HeaderNameEquals(*expect, "100-continue")) {
        static constexpr std::string_view kContinue = "HTTP/1.1 100 Continue\r\n\r\n";
        net::write(stream, net::buffer(kContinue.data(), kContinue.size()), ec);
        if (ec) return;
      }
      const uint64_t announced = parser.content_length().value_or(0);
      stream.set_deadline(Clock::now() + std::chrono::seconds(options.read_timeout_s) +
                          std::chrono::seconds(announced >> 20));
      http::read(stream, buffer, parser, ec);
      if (ec) {
        if (ec == http::error::body_limit) {
          Write(stream, req,
                refuse(413, ResourceExhaustedError("request body exceeds " +
                                                   std::to_string(std::min(options.max_body_bytes, req.max_body)) +
                                                   " bytes")),
                version, false);
        } else if (ec == boost::beast::error::timeout) {
          Write(stream, req, refuse(408, InvalidArgumentError("the request body did not arrive in time")), version,
                false);
        } else if (ec != net::error::eof && ec != http::error::partial_message) {
          Write(stream, req, refuse(400, InvalidArgumentError("malformed request body: " + ec.message())), version,
                false);
        }
        return LingeringClose(stream);
      }
    }
    req.body = std::move(parser.get().body());
    HttpResponse response = dispatch(req);
    if (!Write(stream, req, std::move(response), version, keep_alive)) return LingeringClose(stream);
    if (!keep_alive) return LingeringClose(stream);
  }
}

bool HttpListener::Impl::Write(SocketStream& stream, const HttpRequest& req, HttpResponse response, unsigned version,
                               bool keep_alive) {
  keep_alive = keep_alive && !response.close_connection;
  stream.set_deadline(Clock::now() + std::chrono::seconds(options.write_timeout_s));
  boost::beast::error_code ec;
  const bool head = req.method == "HEAD";
  const bool no_body = head || response.status == 204 || response.status == 304;
  auto fill = [&](auto& res) {
    res.version(version);
    res.result(static_cast<unsigned>(response.status));
    for (auto& [k, v] : response.headers) res.insert(k, v);
    if (!response.body.empty() || response.stream || response.head_content_length.value_or(0) > 0) {
      res.set(http::field::content_type, response.content_type);
    }
    res.keep_alive(keep_alive);
  };
  if (response.stream && !no_body) {
    http::response<http::empty_body> res;
    fill(res);
    const bool chunked = version >= 11;
    if (chunked) {
      res.chunked(true);
    } else {
      res.keep_alive(false);  // HTTP/1.0: the body ends when the connection does
      keep_alive = false;
    }
    http::response_serializer<http::empty_body> sr(res);
    http::write_header(stream, sr, ec);
    if (ec) return false;
    bool cut = false;
    try {
      Status s = response.stream([&](std::string_view chunk) {
        if (chunk.empty()) return true;
        stream.set_deadline(Clock::now() + std::chrono::seconds(options.write_timeout_s));
        if (chunked) {
          net::write(stream, http::make_chunk(net::const_buffer(chunk.data(), chunk.size())), ec);
        } else {
          net::write(stream, net::const_buffer(chunk.data(), chunk.size()), ec);
        }
        return !ec;
      });
      cut = !s.ok() || static_cast<bool>(ec);
    } catch (...) {
      cut = true;
    }
    if (cut) return false;  // the client sees a stream without its last chunk
    if (chunked) {
      stream.set_deadline(Clock::now() + std::chrono::seconds(options.write_timeout_s));
      net::write(stream, http::make_chunk_last(), ec);
      if (ec) return false;
    }
    return keep_alive;
  }
  if (no_body) {
    http::response<http::empty_body> res;
    fill(res);
    if (head) {
      const uint64_t length = response.head_content_length.value_or(response.body.size());
      res.content_length(length);
    } else if (response.status != 204 && response.status != 304) {
      res.content_length(0);
    }
    http::response_serializer<http::empty_body> sr(res);
    http::write_header(stream, sr, ec);
    return !ec && keep_alive;
  }
  http::response<http::string_body> res;
  fill(res);
  res.body() = std::move(response.body);
  res.content_length(res.body().size());
  http::write(stream, res, ec);  // status line, headers and body in one sendmsg
  return !ec && keep_alive;
}

Result<std::unique_ptr<HttpListener>> HttpListener::Bind(const ListenerOptions& options, Precheck precheck,
                                                         Dispatch dispatch, Refuse refuse) {
  auto impl = std::make_unique<Impl>();
  impl->options = options;
  if (impl->options.threads == 0) impl->options.threads = 1;
  impl->precheck = std::move(precheck);
  impl->dispatch = std::move(dispatch);
  impl->refuse = std::move(refuse);
  auto fail = [&](const std::string& why) {
    return Status(ErrorCode::kIo,
                  "cannot listen on " + options.host + ":" + std::to_string(options.port) + " (" + why + ")");
  };
  if (options.port < 0 || options.port > 65535) return fail("not a port number");
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  hints.ai_flags = AI_PASSIVE | AI_NUMERICSERV;
  addrinfo* found = nullptr;
  const std::string port_text = std::to_string(options.port);
  if (const int rc = ::getaddrinfo(options.host.c_str(), port_text.c_str(), &hints, &found); rc != 0) {
    return fail(std::string("address not resolved: ") + ::gai_strerror(rc));
  }
  std::string last_error = "no address";
  for (addrinfo* a = found; a != nullptr && impl->listen_fd < 0; a = a->ai_next) {
    const int fd = ::socket(a->ai_family, a->ai_socktype | SOCK_CLOEXEC, a->ai_protocol);
    if (fd < 0) continue;
    // SO_REUSEADDR only: SO_REUSEPORT would let a second server bind the same port and silently
    // share its connections.
    int yes = 1;
    ::setsockopt(fd, SOL_SOCKET, SO_REUSEADDR, &yes, sizeof(yes));
    if (::bind(fd, a->ai_addr, a->ai_addrlen) == 0 && ::listen(fd, SOMAXCONN) == 0) {
      impl->listen_fd = fd;
    } else {
      last_error = std::strerror(errno);
      ::close(fd);
    }
  }
  ::freeaddrinfo(found);
  if (impl->listen_fd < 0) return fail(last_error);
  sockaddr_storage bound{};
  socklen_t len = sizeof(bound);
  ::getsockname(impl->listen_fd, reinterpret_cast<sockaddr*>(&bound), &len);
  impl->port = ntohs(bound.ss_family == AF_INET6 ? reinterpret_cast<sockaddr_in6*>(&bound)->sin6_port
                                                 : reinterpret_cast<sockaddr_in*>(&bound)->sin_port);
  impl->stop_fd = ::eventfd(0, EFD_CLOEXEC | EFD_NONBLOCK);
  if (impl->stop_fd < 0) return fail(std::string("eventfd: ") + std::strerror(errno));
  return std::unique_ptr<HttpListener>(new HttpListener(std::move(impl)));
}

HttpListener::HttpListener(std::unique_ptr<Impl> impl) : impl_(std::move(impl)) {}
HttpListener::~HttpListener() { Stop(); }

int HttpListener::port() const { return impl_->port; }
const std::string& HttpListener::host() const { return impl_->options.host; }

Status HttpListener::Run() {
  Impl& im = *impl_;
  std::vector<std::thread> workers;
  workers.reserve(im.options.threads);
  for (size_t i = 0; i < im.options.threads; ++i) workers.emplace_back([&im] { im.Worker(); });
  Status result = Status::Ok();
  // Connections beyond this many waiting for a thread are closed at once (the client retries).
  const size_t max_pending = im.options.threads * 64;
  while (!im.stopping.load()) {
    pollfd fds[2] = {{im.listen_fd, POLLIN, 0}, {im.stop_fd, POLLIN, 0}};
    const int r = ::poll(fds, 2, -1);
    if (r < 0) {
      if (errno == EINTR) continue;
      result =
          Status(ErrorCode::kIo, std::string("the listener stopped accepting connections: ") + std::strerror(errno));
      break;
    }
    if (fds[1].revents != 0) break;
    const int fd = ::accept4(im.listen_fd, nullptr, nullptr, SOCK_NONBLOCK | SOCK_CLOEXEC);
    if (fd < 0) {
      if (errno == EINTR || errno == EAGAIN || errno == ECONNABORTED || errno == EPROTO) continue;
      if (errno == EMFILE || errno == ENFILE || errno == ENOBUFS || errno == ENOMEM) {
        std::this_thread::sleep_for(std::chrono::milliseconds(5));  // out of descriptors: let some close
        continue;
      }
      result =
          Status(ErrorCode::kIo, std::string("the listener stopped accepting connections: ") + std::strerror(errno));
      break;
    }
    int yes = 1;
    ::setsockopt(fd, IPPROTO_TCP, TCP_NODELAY, &yes, sizeof(yes));  // small answers must not wait (Nagle)
    std::lock_guard<std::mutex> lock(im.mu);
    if (im.pending.size() >= max_pending) {
      ::close(fd);
      continue;
    }
    im.pending.push_back(fd);
    im.cv.notify_one();
  }
  {
    std::lock_guard<std::mutex> lock(im.mu);
    im.accepting_done = true;
  }
  im.cv.notify_all();
  for (std::thread& t : workers) t.join();
  if (!im.stopping.load() && result.ok()) {
    result = Status(ErrorCode::kIo, "the listener stopped accepting connections");
  }
  return result;
}

void HttpListener::Stop() {
  if (impl_->stopping.exchange(true)) return;
  const uint64_t one = 1;
  // Level-triggered: the eventfd stays readable, so every poll on it (the accept loop, idle
  // connections) wakes now and later.
  [[maybe_unused]] const ssize_t n = ::write(impl_->stop_fd, &one, sizeof(one));
}

}  // namespace omnigraph::server
