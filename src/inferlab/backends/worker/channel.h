// Channel: the parent<->worker message pipe of docs/worker-protocol.md. One
// SOCK_SEQPACKET datagram per JSON message, optionally carrying one file
// descriptor (a shared-memory arena) with SCM_RIGHTS.
#pragma once

#include <optional>
#include <utility>
#include <vector>

#include <nlohmann/json.hpp>

#include "inferlab/backends/worker/unique_fd.h"

namespace inferlab::backends {

struct ChannelMessage {
  nlohmann::json body;
  UniqueFd attached_fd;  // invalid when none came with the message
};

class Channel {
 public:
  static constexpr size_t kMaxMessageBytes = size_t{1} << 20;

  // A connected pair, both ends close-on-exec: {parent end, worker end}.
  static std::pair<Channel, Channel> create_pair();

  Channel() = default;
  explicit Channel(UniqueFd fd) : fd_(std::move(fd)) {}

  int fd() const { return fd_.get(); }
  UniqueFd release_fd() { return std::move(fd_); }

  // Throws Error(kRuntime) when the peer is gone or the message is too big.
  void send(const nlohmann::json& body, int attached_fd = -1) const;
  // The next message; std::nullopt when the peer closed its end. Throws
  // Error(kDeadlineExceeded) on timeout (timeout_ms >= 0), Error(kRuntime) on a
  // malformed message.
  std::optional<ChannelMessage> receive(int timeout_ms = -1) const;

 private:
  UniqueFd fd_;
  mutable std::vector<char> buffer_;  // receive buffer, allocated on first use
};

}  // namespace inferlab::backends
