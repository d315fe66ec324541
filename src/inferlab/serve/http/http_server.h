// The server's HTTP/1.1 transport: connections, keep-alive, limits and
// timeouts, on Boost.Beast. It knows nothing of the protocol on top: each
// complete request goes to an HttpHandler, which answers through a
// Responder, at once or later from any thread (after queueing, inference).
// Boost is included by http_server.cc alone: Beast compiles slowly.
#pragma once

#include <chrono>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <utility>
#include <vector>

#include "inferlab/serve/http/responder.h"

namespace inferlab::serve {

struct HttpLimits {
  size_t max_header_bytes = 16 * 1024;
  size_t max_body_bytes = size_t{64} << 20;
  size_t max_connections = 1024;  // beyond: 503 and close
  // From a connection's opening (or its previous response) to the end of
  // the next request's headers, and then to the end of its body: a slow or
  // silent client cannot hold a connection longer.
  std::chrono::milliseconds header_timeout{std::chrono::seconds(60)};
  std::chrono::milliseconds body_timeout{std::chrono::seconds(60)};
};

struct HttpRequest {
  std::string remote;  // the client's "address:port"
  std::string method;  // "GET", "POST", ...
  std::string target;  // the path and query, as sent
  std::vector<std::pair<std::string, std::string>> headers;
  // The body's bytes and what keeps them alive: what is decoded from them
  // (binary tensor data) may point into them instead of copying. A body
  // read past the parser (64 KiB and more) ends on a 64-byte boundary, so
  // binary tensors at its end are aligned as their elements need.
  std::string_view body;
  std::shared_ptr<void> body_owner;
  // The value of header `name` (case-insensitive), or empty.
  std::string header(std::string_view name) const;
};

using HttpHandler = std::function<void(HttpRequest, Responder)>;

// One answered request, for an access log.
struct AccessRecord {
  std::string remote;
  std::string method;
  std::string target;
  int status = 0;
  size_t response_bytes = 0;
  double duration_ms = 0;  // from the end of the request to the answer
};
using AccessLogger = std::function<void(const AccessRecord&)>;

class HttpServer {
 public:
  // Listens on `address`:`port` (0: a free port, port() says which) with
  // `io_threads` threads running the connections. Throws Error
  // (kUnavailable) when it cannot listen.
  HttpServer(const std::string& address, uint16_t port, HttpHandler handler, HttpLimits limits = {},
             int io_threads = 2, AccessLogger access_logger = {});
  // stop(). Every Responder must have been called or dropped by then: a
  // late one would post to a context that no longer exists.
  ~HttpServer();
  HttpServer(const HttpServer&) = delete;
  HttpServer& operator=(const HttpServer&) = delete;

  uint16_t port() const;
  size_t open_connections() const;
  // Requests handed to the handler whose answer is not yet written (or
  // failed to write): what a drain waits for.
  size_t requests_in_flight() const;
  // Closes the listening socket; connections already open carry on.
  void stop_accepting();
  // Stops accepting, closes every connection, joins the threads.
  void stop();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace inferlab::serve
