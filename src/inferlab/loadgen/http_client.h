// The load client's HTTP/1.1: one blocking keep-alive connection per
// sending thread, plain POSIX sockets with TCP_NODELAY and time-outs, and a
// request whose bytes are built once and sent as they are. It is kept lean
// on purpose: its figures are compared with wrk's, so its own cost per
// request must be a few microseconds, not a library's.
#pragma once

#include <netinet/in.h>

#include <chrono>
#include <cstdint>
#include <string>
#include <string_view>

namespace inferlab::loadgen {

// "http://HOST[:PORT][/PREFIX]" (the scheme may be left out; PORT defaults
// to 80). Throws Error(kInvalidArgument) naming the URL otherwise.
struct Url {
  std::string host;
  uint16_t port = 80;
  std::string prefix;  // path prefix without a trailing '/', often empty
  static Url parse(const std::string& text);
  std::string host_header() const;  // "HOST:PORT"
};

// A request ready to send: the head (request line and headers, ending in
// the blank line) and the body, kept apart so a large body is never copied.
struct HttpRequestBytes {
  std::string head;
  std::string body;
};

// `extra_headers`: whole lines, each ending in "\r\n".
HttpRequestBytes make_http_request(const std::string& method, const Url& url,
                                   const std::string& path, const std::string& content_type,
                                   const std::string& extra_headers, std::string body);

// How one exchange ended. A transport failure has status 0 and names its
// kind: "connect", "timeout", "reset" (closed or refused mid-exchange) or
// "protocol" (a reply that is not HTTP/1.x).
struct HttpOutcome {
  int status = 0;
  std::string failure;
  bool ok() const { return status >= 200 && status < 300; }
};

class HttpConnection {
 public:
  // Resolves `url` now (Error(kNotFound) when the host does not resolve);
  // connects lazily, on the first exchange and after any close.
  HttpConnection(const Url& url, std::chrono::milliseconds timeout);
  ~HttpConnection();
  HttpConnection(const HttpConnection&) = delete;
  HttpConnection& operator=(const HttpConnection&) = delete;

  // Sends `request` and reads the whole reply. Never throws for network
  // trouble: that is an outcome, and the connection is closed so the next
  // exchange reconnects. The server's "Connection: close" closes it too.
  HttpOutcome exchange(const HttpRequestBytes& request);
  // Opens the connection now if it is not open (before a measured window);
  // false when it cannot.
  bool connect_now();

  // The last reply's body and its Content-Type (for metadata and tests).
  const std::string& body() const { return body_; }
  const std::string& content_type() const { return content_type_; }
  // TCP connections this object has opened so far.
  int64_t connections_opened() const { return connections_opened_; }

 private:
  bool send_request(const HttpRequestBytes& request, HttpOutcome& outcome);
  bool read_head(HttpOutcome& outcome, size_t& head_end, int64_t& content_length, bool& chunked,
                 bool& close_after);
  bool read_exact_body(size_t head_end, int64_t content_length, HttpOutcome& outcome);
  bool read_chunked_body(size_t head_end, HttpOutcome& outcome);
  bool fill(HttpOutcome& outcome);  // reads more bytes into buffer_
  HttpOutcome failed(const char* kind);
  void close_socket();

  sockaddr_storage address_{};
  unsigned address_length_ = 0;
  std::chrono::milliseconds timeout_;
  int fd_ = -1;
  std::string buffer_;  // bytes received and not yet consumed
  std::string body_;
  std::string content_type_;
  int64_t connections_opened_ = 0;
};

// One GET or POST on a fresh connection, for metadata: the body of a 2xx
// reply, else Error(kUnavailable) naming the URL and the status or failure.
std::string fetch_ok(const Url& url, const std::string& path, std::chrono::milliseconds timeout);

}  // namespace inferlab::loadgen
