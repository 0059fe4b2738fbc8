// The S3 test server's HTTP server and its per-connection loop (s3_server_http.h).
#include "s3_server/s3_server_http.h"

#include <netdb.h>
#include <netinet/in.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

namespace omnigraph::s3server {
namespace {

constexpr size_t kReadBufferSize = size_t{16} << 10;

int ToMs(time_t sec, time_t usec) { return static_cast<int>(sec * 1000 + usec / 1000); }

// "ip", port of a socket address (numeric).
void AddressOf(const sockaddr_storage& addr, socklen_t len, std::string* ip, int* port) {
  char host[NI_MAXHOST];
  if (::getnameinfo(reinterpret_cast<const sockaddr*>(&addr), len, host, sizeof(host), nullptr, 0, NI_NUMERICHOST) ==
      0) {
    *ip = host;
  }
  if (addr.ss_family == AF_INET) {
    *port = ntohs(reinterpret_cast<const sockaddr_in*>(&addr)->sin_port);
  } else if (addr.ss_family == AF_INET6) {
    *port = ntohs(reinterpret_cast<const sockaddr_in6*>(&addr)->sin6_port);
  }
}

// httplib's view of one connection: a buffered socket with read and write timeouts. One per
// connection, reused by every request on it (buffered bytes of a pipelined request survive).
// Used by the connection's thread only.
class ConnectionStream : public httplib::Stream {
 public:
  ConnectionStream(socket_t sock, int read_timeout_ms, int write_timeout_ms)
      : sock_(sock), read_timeout_ms_(read_timeout_ms), write_timeout_ms_(write_timeout_ms), buffer_(kReadBufferSize) {}

  bool is_readable() const override { return begin_ < end_ || Poll(POLLIN, read_timeout_ms_); }
  bool is_writable() const override { return !discard_ && Poll(POLLOUT, write_timeout_ms_) && PeerOpen(); }

  ssize_t read(char* ptr, size_t size) override {
    if (begin_ == end_) {
      if (!Poll(POLLIN, read_timeout_ms_)) return -1;
      if (size >= buffer_.size()) return Recv(ptr, size, 0);  // large reads skip the buffer
      const ssize_t n = Recv(buffer_.data(), buffer_.size(), 0);
      if (n <= 0) return n;
      begin_ = 0;
      end_ = static_cast<size_t>(n);
    }
    const size_t n = std::min(size, end_ - begin_);
    std::memcpy(ptr, buffer_.data() + begin_, n);
    begin_ += n;
    return static_cast<ssize_t>(n);
  }

  ssize_t write(const char* ptr, size_t size) override {
    if (!is_writable()) return -1;
    while (true) {
      const ssize_t n = ::send(sock_, ptr, size, MSG_NOSIGNAL);
      if (n >= 0 || errno != EINTR) return n;
    }
  }

  void get_remote_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    if (::getpeername(sock_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) AddressOf(addr, len, &ip, &port);
  }

  void get_local_ip_and_port(std::string& ip, int& port) const override {
    sockaddr_storage addr{};
    socklen_t len = sizeof(addr);
    if (::getsockname(sock_, reinterpret_cast<sockaddr*>(&addr), &len) == 0) AddressOf(addr, len, &ip, &port);
  }

  socket_t socket() const override { return sock_; }

  // Waits up to `timeout_ms` for the first byte of the next request.
  bool WaitForRequest(int timeout_ms) const { return begin_ < end_ || Poll(POLLIN, timeout_ms); }

  // From now on nothing is written (the reset fault).
  void Discard() { discard_ = true; }

 private:
  bool Poll(short events, int timeout_ms) const {
    pollfd p{sock_, events, 0};
    int rc = 0;
    do {
      rc = ::poll(&p, 1, timeout_ms);
    } while (rc < 0 && errno == EINTR);
    return rc > 0;
  }

  ssize_t Recv(char* out, size_t n, int flags) const {
    while (true) {
      const ssize_t got = ::recv(sock_, out, n, flags);
      if (got >= 0 || errno != EINTR) return got;
    }
  }

  // False once the client has closed its side (no use writing a response to it).
  bool PeerOpen() const {
    if (begin_ < end_ || !Poll(POLLIN, 0)) return true;
    char byte;
    const ssize_t n = Recv(&byte, 1, MSG_PEEK | MSG_DONTWAIT);
    return n > 0 || (n < 0 && (errno == EAGAIN || errno == EWOULDBLOCK));
  }

  const socket_t sock_;
  const int read_timeout_ms_;
  const int write_timeout_ms_;
  std::vector<char> buffer_;
  size_t begin_ = 0;  // unread bytes are buffer_[begin_, end_)
  size_t end_ = 0;
  bool discard_ = false;
};

// The connection the calling worker thread serves.
struct ActiveConnection {
  socket_t sock;
  ConnectionStream* stream;
  bool reset = false;
};
thread_local ActiveConnection* current_connection = nullptr;

}  // namespace

bool HttpServer::process_and_close_socket(socket_t sock) {
  const int one = 1;
  ::setsockopt(sock, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));  // headers and body are separate writes
  uint64_t id = 0;
  {
    MutexLock lock(&mu_);
    id = ++next_id_;
    connections_[id] = sock;
  }
  ConnectionStream stream(sock, ToMs(read_timeout_sec_, read_timeout_usec_),
                          ToMs(write_timeout_sec_, write_timeout_usec_));
  ActiveConnection active{sock, &stream, false};
  current_connection = &active;
  bool ok = false;
  // Registered before the svr_sock_ checks: a Stop either sees this socket in the registry or
  // has invalidated svr_sock_ before the first check.
  for (size_t left = keep_alive_max_count_; left > 0 && svr_sock_ != INVALID_SOCKET; --left) {
    if (!stream.WaitForRequest(ToMs(keep_alive_timeout_sec_, 0)) || svr_sock_ == INVALID_SOCKET) break;
    bool connection_closed = false;
    ok = process_request(stream, /*close_connection=*/left == 1, connection_closed, nullptr);
    if (!ok || connection_closed || active.reset) break;
  }
  current_connection = nullptr;
  {
    MutexLock lock(&mu_);
    connections_.erase(id);
  }
  if (!active.reset) ::shutdown(sock, SHUT_RDWR);  // a FIN; after a reset, close sends the RST
  ::close(sock);
  return ok;
}

void HttpServer::ShutdownConnections() {
  MutexLock lock(&mu_);
  for (const auto& connection : connections_) ::shutdown(connection.second, SHUT_RDWR);
}

bool HttpServer::ResetCurrentConnection() {
  ActiveConnection* active = current_connection;
  if (active == nullptr) return false;
  // SO_LINGER 0: close() sends RST instead of FIN; the response is discarded unsent.
  const struct linger no_linger = {1, 0};
  ::setsockopt(active->sock, SOL_SOCKET, SO_LINGER, &no_linger, sizeof(no_linger));
  active->stream->Discard();
  active->reset = true;
  return true;
}

}  // namespace omnigraph::s3server
