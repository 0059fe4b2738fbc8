// The S3 test server's HTTP server: cpp-httplib's Server with our own per-connection loop.
//
// httplib 0.11.4 runs each accepted connection through the virtual process_and_close_socket
// (private in Debian's header, so it can be overridden but not called). Our override serves the
// connection itself: a keep-alive loop around httplib's protected process_request, over our own
// Stream on the socket. Owning the socket gives what httplib lacks:
//  - ShutdownConnections: after stop(), wakes the threads that wait on idle keep-alive
//    connections, so stopping takes milliseconds instead of the keep-alive timeout;
//  - ResetCurrentConnection: the `reset` fault, a connection closed with a TCP reset before any
//    byte of the response is sent.
// It also keeps one read buffer per connection (httplib's own loop makes one per request).
// Thread-safe.
#pragma once

#include <httplib.h>

#include <cstdint>
#include <map>

#include "common/mutex.h"

namespace omnigraph::s3server {

class HttpServer : public httplib::Server {
 public:
  HttpServer() = default;

  // Shuts down every open connection (call after stop(): idle workers then exit at once).
  void ShutdownConnections();

  // Makes the connection served by the calling handler thread end with a TCP reset and no
  // response: nothing the handler's response holds is sent. False when the calling thread serves
  // no connection.
  bool ResetCurrentConnection();

 private:
  bool process_and_close_socket(socket_t sock) override;

  Mutex mu_;
  uint64_t next_id_ OG_GUARDED_BY(mu_) = 0;
  // Open connections; a socket is removed before it is closed, so it is never touched after.
  std::map<uint64_t, socket_t> connections_ OG_GUARDED_BY(mu_);
};

}  // namespace omnigraph::s3server
