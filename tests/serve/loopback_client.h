// A raw loopback HTTP client for the server's tests: a blocking socket
// that sends exactly the bytes a test wants (half a request, a pipelined
// pair, a lie about the length) and reads what comes back.
#pragma once

#include <arpa/inet.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cstdint>
#include <string>

namespace inferlab::serve {

// A blocking loopback client socket, closed on destruction.
class Client {
 public:
  explicit Client(uint16_t port) : fd_(socket(AF_INET, SOCK_STREAM, 0)) {
    sockaddr_in address{};
    address.sin_family = AF_INET;
    address.sin_port = htons(port);
    address.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
    connected_ = connect(fd_, reinterpret_cast<sockaddr*>(&address), sizeof(address)) == 0;
    timeval timeout{10, 0};  // no test waits for ever
    setsockopt(fd_, SOL_SOCKET, SO_RCVTIMEO, &timeout, sizeof(timeout));
  }
  ~Client() { ::close(fd_); }
  Client(const Client&) = delete;
  Client& operator=(const Client&) = delete;
  bool connected() const { return connected_; }
  void send_all(const std::string& bytes) {
    size_t sent = 0;
    while (sent < bytes.size()) {
      const ssize_t n = ::send(fd_, bytes.data() + sent, bytes.size() - sent, MSG_NOSIGNAL);
      if (n <= 0) return;
      sent += static_cast<size_t>(n);
    }
  }
  // What arrives until `marker` has (or the server closes, or 10 s pass),
  // reading no further than that: the rest stays for the next read.
  std::string read_until(const std::string& marker) {
    std::string received;
    char byte = 0;
    while (received.find(marker) == std::string::npos && recv(fd_, &byte, 1, 0) == 1) {
      received.push_back(byte);
    }
    return received;
  }

  // Everything until the server closes (or 10 s pass).
  std::string read_all() {
    std::string received;
    char chunk[4096];
    for (;;) {
      const ssize_t n = recv(fd_, chunk, sizeof(chunk), 0);
      if (n <= 0) return received;
      received.append(chunk, static_cast<size_t>(n));
    }
  }

 private:
  int fd_;
  bool connected_ = false;
};

inline std::string post(const std::string& target, const std::string& body, bool close = true) {
  return "POST " + target +
         " HTTP/1.1\r\nHost: x\r\nContent-Length: " + std::to_string(body.size()) +
         (close ? "\r\nConnection: close" : "") + "\r\n\r\n" + body;
}

}  // namespace inferlab::serve
