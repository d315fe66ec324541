// Blocking HTTP/1.1 exchanges on one socket. Every failure becomes an
// outcome and closes the socket, so a sending thread simply reconnects on
// its next request; nothing here throws once the address has resolved.
#include "inferlab/loadgen/http_client.h"

#include <fcntl.h>
#include <netdb.h>
#include <netinet/tcp.h>
#include <poll.h>
#include <strings.h>
#include <sys/socket.h>
#include <sys/uio.h>
#include <unistd.h>

#include <cerrno>
#include <charconv>
#include <cstring>

#include <fmt/format.h>

#include "inferlab/core/error.h"

namespace inferlab::loadgen {

namespace {

constexpr size_t kMaxHeadBytes = 64 * 1024;
constexpr size_t kReadChunk = 64 * 1024;

bool parse_port(std::string_view text, uint16_t& port) {
  unsigned value = 0;
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  if (error != std::errc() || end != text.data() + text.size() || value == 0 || value > 65535)
    return false;
  port = static_cast<uint16_t>(value);
  return true;
}

bool header_is(std::string_view line, std::string_view name, std::string_view& value) {
  if (line.size() <= name.size() || line[name.size()] != ':') return false;
  if (strncasecmp(line.data(), name.data(), name.size()) != 0) return false;
  value = line.substr(name.size() + 1);
  while (!value.empty() && (value.front() == ' ' || value.front() == '\t')) value.remove_prefix(1);
  while (!value.empty() && (value.back() == ' ' || value.back() == '\t')) value.remove_suffix(1);
  return true;
}

bool equals_ignoring_case(std::string_view a, std::string_view b) {
  return a.size() == b.size() && strncasecmp(a.data(), b.data(), a.size()) == 0;
}

void set_timeouts(int fd, std::chrono::milliseconds timeout) {
  timeval value{};
  value.tv_sec = static_cast<time_t>(timeout.count() / 1000);
  value.tv_usec = static_cast<suseconds_t>((timeout.count() % 1000) * 1000);
  setsockopt(fd, SOL_SOCKET, SO_RCVTIMEO, &value, sizeof(value));
  setsockopt(fd, SOL_SOCKET, SO_SNDTIMEO, &value, sizeof(value));
}

}  // namespace

Url Url::parse(const std::string& text) {
  std::string_view rest = text;
  if (rest.substr(0, 7) == "http://") {
    rest.remove_prefix(7);
  } else if (rest.find("://") != std::string_view::npos) {
    fail(ErrorCode::kInvalidArgument, "URL '{}': only http:// is supported", text);
  }
  const size_t slash = rest.find('/');
  const std::string_view authority = rest.substr(0, slash);
  Url url;
  if (slash != std::string_view::npos) url.prefix = std::string(rest.substr(slash));
  while (!url.prefix.empty() && url.prefix.back() == '/') url.prefix.pop_back();
  const size_t colon = authority.rfind(':');
  url.host = std::string(authority.substr(0, colon));
  if (colon != std::string_view::npos && !parse_port(authority.substr(colon + 1), url.port))
    fail(ErrorCode::kInvalidArgument, "URL '{}': the port is not a number in 1..65535", text);
  if (url.host.empty()) fail(ErrorCode::kInvalidArgument, "URL '{}' names no host", text);
  return url;
}

std::string Url::host_header() const { return fmt::format("{}:{}", host, port); }

HttpRequestBytes make_http_request(const std::string& method, const Url& url,
                                   const std::string& path, const std::string& content_type,
                                   const std::string& extra_headers, std::string body) {
  HttpRequestBytes request;
  request.head =
      fmt::format("{} {}{} HTTP/1.1\r\nHost: {}\r\n", method, url.prefix, path, url.host_header());
  if (method != "GET") {
    request.head +=
        fmt::format("Content-Type: {}\r\nContent-Length: {}\r\n", content_type, body.size());
  }
  request.head += extra_headers;
  request.head += "\r\n";
  request.body = std::move(body);
  return request;
}

HttpConnection::HttpConnection(const Url& url, std::chrono::milliseconds timeout)
    : timeout_(timeout) {
  addrinfo hints{};
  hints.ai_family = AF_UNSPEC;
  hints.ai_socktype = SOCK_STREAM;
  addrinfo* found = nullptr;
  const std::string port = std::to_string(url.port);
  if (getaddrinfo(url.host.c_str(), port.c_str(), &hints, &found) != 0 || found == nullptr)
    fail(ErrorCode::kNotFound, "host '{}' does not resolve", url.host);
  std::memcpy(&address_, found->ai_addr, found->ai_addrlen);
  address_length_ = found->ai_addrlen;
  freeaddrinfo(found);
}

HttpConnection::~HttpConnection() { close_socket(); }

void HttpConnection::close_socket() {
  if (fd_ >= 0) ::close(fd_);
  fd_ = -1;
  buffer_.clear();
}

HttpOutcome HttpConnection::failed(const char* kind) {
  close_socket();
  return HttpOutcome{0, kind};
}

// Non-blocking connect bounded by the time-out, then a blocking socket whose
// every send and receive is bounded by it too.
bool HttpConnection::connect_now() {
  if (fd_ >= 0) return true;
  const auto* address = reinterpret_cast<const sockaddr*>(&address_);
  fd_ = ::socket(address->sa_family, SOCK_STREAM | SOCK_CLOEXEC | SOCK_NONBLOCK, 0);
  if (fd_ < 0) return false;
  if (::connect(fd_, address, address_length_) != 0) {
    pollfd waiting{fd_, POLLOUT, 0};
    int error = errno;
    if (error == EINPROGRESS) {
      error = ETIMEDOUT;
      if (::poll(&waiting, 1, static_cast<int>(timeout_.count())) == 1) {
        socklen_t length = sizeof(error);
        getsockopt(fd_, SOL_SOCKET, SO_ERROR, &error, &length);
      }
    }
    if (error != 0) {
      close_socket();
      return false;
    }
  }
  fcntl(fd_, F_SETFL, fcntl(fd_, F_GETFL) & ~O_NONBLOCK);
  const int one = 1;
  setsockopt(fd_, IPPROTO_TCP, TCP_NODELAY, &one, sizeof(one));
  set_timeouts(fd_, timeout_);
  ++connections_opened_;
  return true;
}

bool HttpConnection::send_request(const HttpRequestBytes& request, HttpOutcome& outcome) {
  iovec parts[2] = {{const_cast<char*>(request.head.data()), request.head.size()},
                    {const_cast<char*>(request.body.data()), request.body.size()}};
  msghdr message{};
  message.msg_iov = parts;
  message.msg_iovlen = request.body.empty() ? 1 : 2;
  while (message.msg_iovlen > 0) {
    const ssize_t sent = ::sendmsg(fd_, &message, MSG_NOSIGNAL);
    if (sent < 0 && errno == EINTR) continue;
    if (sent <= 0) {
      outcome = failed(errno == EAGAIN || errno == EWOULDBLOCK ? "timeout" : "reset");
      return false;
    }
    size_t left = static_cast<size_t>(sent);
    while (message.msg_iovlen > 0 && left >= message.msg_iov->iov_len) {
      left -= message.msg_iov->iov_len;
      ++message.msg_iov;
      --message.msg_iovlen;
    }
    if (message.msg_iovlen > 0) {
      message.msg_iov->iov_base = static_cast<char*>(message.msg_iov->iov_base) + left;
      message.msg_iov->iov_len -= left;
    }
  }
  return true;
}

bool HttpConnection::fill(HttpOutcome& outcome) {
  char chunk[kReadChunk];
  for (;;) {
    const ssize_t received = ::recv(fd_, chunk, sizeof(chunk), 0);
    if (received > 0) {
      buffer_.append(chunk, static_cast<size_t>(received));
      return true;
    }
    if (received < 0 && errno == EINTR) continue;
    outcome =
        failed(received < 0 && (errno == EAGAIN || errno == EWOULDBLOCK) ? "timeout" : "reset");
    return false;
  }
}

// Reads up to the blank line and parses the status and the headers that
// frame the body.
bool HttpConnection::read_head(HttpOutcome& outcome, size_t& head_end, int64_t& content_length,
                               bool& chunked, bool& close_after) {
  size_t blank = std::string::npos;
  while ((blank = buffer_.find("\r\n\r\n")) == std::string::npos) {
    if (buffer_.size() > kMaxHeadBytes) {
      outcome = failed("protocol");
      return false;
    }
    if (!fill(outcome)) return false;
  }
  head_end = blank + 4;
  const std::string_view head(buffer_.data(), blank);
  if (head.size() < 12 || head.substr(0, 7) != "HTTP/1." || head[8] != ' ') {
    outcome = failed("protocol");
    return false;
  }
  outcome.status = (head[9] - '0') * 100 + (head[10] - '0') * 10 + (head[11] - '0');
  close_after = head[7] == '0';  // HTTP/1.0 closes unless it says keep-alive
  content_type_.clear();
  size_t line_start = head.find("\r\n");
  while (line_start != std::string_view::npos) {
    line_start += 2;
    const size_t line_end = head.find("\r\n", line_start);
    const std::string_view line = head.substr(line_start, line_end - line_start);
    std::string_view value;
    if (header_is(line, "Content-Length", value)) {
      std::from_chars(value.data(), value.data() + value.size(), content_length);
    } else if (header_is(line, "Transfer-Encoding", value)) {
      chunked = equals_ignoring_case(value, "chunked");
    } else if (header_is(line, "Connection", value)) {
      close_after = equals_ignoring_case(value, "close");
    } else if (header_is(line, "Content-Type", value)) {
      content_type_ = std::string(value);
    }
    line_start = line_end;
  }
  return true;
}

bool HttpConnection::read_exact_body(size_t head_end, int64_t content_length,
                                     HttpOutcome& outcome) {
  const size_t end = head_end + static_cast<size_t>(content_length);
  while (buffer_.size() < end)
    if (!fill(outcome)) return false;
  body_.assign(buffer_, head_end, static_cast<size_t>(content_length));
  buffer_.erase(0, end);
  return true;
}

bool HttpConnection::read_chunked_body(size_t head_end, HttpOutcome& outcome) {
  body_.clear();
  size_t position = head_end;
  for (;;) {
    size_t line_end = 0;
    while ((line_end = buffer_.find("\r\n", position)) == std::string::npos)
      if (!fill(outcome)) return false;
    size_t size = 0;
    const auto [end, error] =
        std::from_chars(buffer_.data() + position, buffer_.data() + line_end, size, 16);
    if (error != std::errc() || end == buffer_.data() + position) {
      outcome = failed("protocol");
      return false;
    }
    position = line_end + 2;
    if (size == 0) break;
    while (buffer_.size() < position + size + 2)
      if (!fill(outcome)) return false;
    body_.append(buffer_, position, size);
    position += size + 2;
  }
  // Trailers, if any, end with a blank line.
  size_t trailer_end = 0;
  while ((trailer_end = buffer_.find("\r\n", position)) == std::string::npos)
    if (!fill(outcome)) return false;
  while (trailer_end != position) {
    position = trailer_end + 2;
    while ((trailer_end = buffer_.find("\r\n", position)) == std::string::npos)
      if (!fill(outcome)) return false;
  }
  buffer_.erase(0, position + 2);
  return true;
}

HttpOutcome HttpConnection::exchange(const HttpRequestBytes& request) {
  if (!connect_now()) return failed("connect");
  buffer_.clear();  // bytes nobody asked for are dropped, not taken as the next reply
  HttpOutcome outcome;
  if (!send_request(request, outcome)) return outcome;
  size_t head_end = 0;
  int64_t content_length = -1;
  bool chunked = false, close_after = false;
  if (!read_head(outcome, head_end, content_length, chunked, close_after)) return outcome;
  const bool no_body = outcome.status == 204 || outcome.status == 304 || outcome.status < 200 ||
                       request.head.compare(0, 5, "HEAD ") == 0;
  if (chunked) {
    if (!read_chunked_body(head_end, outcome)) return outcome;
  } else if (content_length >= 0 || no_body) {
    if (!read_exact_body(head_end, no_body ? 0 : content_length, outcome)) return outcome;
  } else {
    // No framing: the body runs to the end of the connection.
    char chunk[kReadChunk];
    ssize_t received = 0;
    while ((received = ::recv(fd_, chunk, sizeof(chunk), 0)) > 0 ||
           (received < 0 && errno == EINTR))
      if (received > 0) buffer_.append(chunk, static_cast<size_t>(received));
    body_.assign(buffer_, head_end);
    close_after = true;
  }
  if (close_after) close_socket();
  return outcome;
}

std::string fetch_ok(const Url& url, const std::string& path, std::chrono::milliseconds timeout) {
  HttpConnection connection(url, timeout);
  const HttpOutcome outcome =
      connection.exchange(make_http_request("GET", url, path, "", "Connection: close\r\n", ""));
  if (!outcome.failure.empty()) {
    fail(ErrorCode::kUnavailable, "GET http://{}{}{}: {}", url.host_header(), url.prefix, path,
         outcome.failure);
  }
  if (!outcome.ok()) {
    fail(ErrorCode::kUnavailable, "GET http://{}{}{}: status {}: {}", url.host_header(), url.prefix,
         path, outcome.status, connection.body().substr(0, 300));
  }
  return connection.body();
}

}  // namespace inferlab::loadgen
