// A scripted HTTP peer for the client's tests: it listens on 127.0.0.1 port
// 0, reads each request (head and Content-Length body) and writes whatever
// bytes the script returns, so a test can send replies a real server would
// rarely send on cue: "Connection: close", chunked bodies, HTTP/1.0 with no
// length, silence, or a close before any reply.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <poll.h>
#include <sys/socket.h>
#include <unistd.h>

#include <atomic>
#include <functional>
#include <string>
#include <thread>

namespace inferlab::testing {

class RawServer {
 public:
  // What to write for one request; kSilent to say nothing, kClose to close.
  using Script = std::function<std::string(const std::string& request)>;
  static inline const std::string kSilent = "<silent>";
  static inline const std::string kClose = "<close>";

  explicit RawServer(Script script) : script_(std::move(script)) {
    listener_ = socket(AF_INET, SOCK_STREAM, 0);
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    bind(listener_, reinterpret_cast<sockaddr*>(&address), sizeof(address));
    listen(listener_, 16);
    socklen_t length = sizeof(address);
    getsockname(listener_, reinterpret_cast<sockaddr*>(&address), &length);
    port_ = ntohs(address.sin_port);
    thread_ = std::thread([this] { serve(); });
  }
  ~RawServer() {
    stop_ = true;
    thread_.join();
    close(listener_);
  }
  uint16_t port() const { return port_; }
  int connections() const { return connections_.load(); }
  int requests() const { return requests_.load(); }

 private:
  // True when `fd` has bytes (or a close) within 50 ms.
  bool readable(int fd) {
    pollfd waiting{fd, POLLIN, 0};
    return poll(&waiting, 1, 50) == 1;
  }
  void serve() {
    while (!stop_) {
      if (!readable(listener_)) continue;
      const int fd = accept(listener_, nullptr, nullptr);
      if (fd < 0) continue;
      ++connections_;
      handle(fd);
      close(fd);
    }
  }
  // Serves one connection's requests until the peer or the script closes.
  void handle(int fd) {
    std::string buffer;
    char chunk[65536];
    while (!stop_) {
      const size_t head_end = buffer.find("\r\n\r\n");
      if (head_end != std::string::npos) {
        size_t length = 0;
        const size_t at = buffer.find("Content-Length: ");
        if (at != std::string::npos && at < head_end) length = std::stoul(buffer.substr(at + 16));
        if (buffer.size() >= head_end + 4 + length) {
          const std::string request = buffer.substr(0, head_end + 4 + length);
          buffer.erase(0, request.size());
          ++requests_;
          const std::string reply = script_(request);
          if (reply == kClose) return;
          if (reply == kSilent) {
            while (!stop_ && !(readable(fd) && recv(fd, chunk, sizeof(chunk), 0) <= 0)) {
            }
            return;
          }
          send(fd, reply.data(), reply.size(), MSG_NOSIGNAL);
          if (reply.find("Connection: close") != std::string::npos ||
              reply.rfind("HTTP/1.0", 0) == 0)
            return;
          continue;
        }
      }
      if (!readable(fd)) continue;
      const ssize_t received = recv(fd, chunk, sizeof(chunk), 0);
      if (received <= 0) return;
      buffer.append(chunk, static_cast<size_t>(received));
    }
  }

  Script script_;
  int listener_ = -1;
  uint16_t port_ = 0;
  std::atomic<bool> stop_{false};
  std::atomic<int> connections_{0};
  std::atomic<int> requests_{0};
  std::thread thread_;
};

}  // namespace inferlab::testing
