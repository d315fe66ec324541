#include "inferlab/backends/worker/channel.h"

#include <poll.h>
#include <sys/socket.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "inferlab/core/error.h"

namespace inferlab::backends {

namespace {

// Big enough for any header we send (tensors travel in shared memory); the
// kernel caps it at net.core.wmem_max when that is lower.
constexpr int kSocketBufferBytes = 4 << 20;

void set_buffer_sizes(int fd) {
  const int bytes = kSocketBufferBytes;
  setsockopt(fd, SOL_SOCKET, SO_SNDBUF, &bytes, sizeof(bytes));
  setsockopt(fd, SOL_SOCKET, SO_RCVBUF, &bytes, sizeof(bytes));
}

}  // namespace

std::pair<Channel, Channel> Channel::create_pair() {
  int fds[2];
  if (socketpair(AF_UNIX, SOCK_SEQPACKET | SOCK_CLOEXEC, 0, fds) != 0)
    fail(ErrorCode::kRuntime, "cannot create a worker channel: {}", std::strerror(errno));
  set_buffer_sizes(fds[0]);
  set_buffer_sizes(fds[1]);
  return {Channel(UniqueFd(fds[0])), Channel(UniqueFd(fds[1]))};
}

void Channel::send(const nlohmann::json& body, int attached_fd) const {
  const std::string text = body.dump();
  if (text.size() > kMaxMessageBytes)
    fail(ErrorCode::kRuntime, "worker message of {} bytes exceeds the 1 MiB limit", text.size());
  iovec payload{const_cast<char*>(text.data()), text.size()};
  msghdr header{};
  header.msg_iov = &payload;
  header.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  if (attached_fd >= 0) {
    header.msg_control = control;
    header.msg_controllen = sizeof(control);
    cmsghdr* message = CMSG_FIRSTHDR(&header);
    message->cmsg_level = SOL_SOCKET;
    message->cmsg_type = SCM_RIGHTS;
    message->cmsg_len = CMSG_LEN(sizeof(int));
    std::memcpy(CMSG_DATA(message), &attached_fd, sizeof(int));
  }
  ssize_t sent;
  do {
    sent = sendmsg(fd_.get(), &header, MSG_NOSIGNAL);
  } while (sent < 0 && errno == EINTR);
  if (sent < 0) fail(ErrorCode::kRuntime, "worker channel send failed: {}", std::strerror(errno));
}

std::optional<ChannelMessage> Channel::receive(int timeout_ms) const {
  pollfd waiting{fd_.get(), POLLIN, 0};
  int ready;
  do {
    ready = poll(&waiting, 1, timeout_ms);
  } while (ready < 0 && errno == EINTR);
  if (ready == 0)
    fail(ErrorCode::kDeadlineExceeded, "no reply from the worker within {} ms", timeout_ms);
  if (buffer_.size() < kMaxMessageBytes) buffer_.resize(kMaxMessageBytes);
  iovec payload{buffer_.data(), buffer_.size()};
  msghdr header{};
  header.msg_iov = &payload;
  header.msg_iovlen = 1;
  alignas(cmsghdr) char control[CMSG_SPACE(sizeof(int))] = {};
  header.msg_control = control;
  header.msg_controllen = sizeof(control);
  ssize_t received;
  do {
    received = recvmsg(fd_.get(), &header, MSG_CMSG_CLOEXEC);
  } while (received < 0 && errno == EINTR);
  if (received == 0) return std::nullopt;
  if (received < 0) {
    if (errno == ECONNRESET) return std::nullopt;
    fail(ErrorCode::kRuntime, "worker channel receive failed: {}", std::strerror(errno));
  }
  ChannelMessage message;
  for (cmsghdr* item = CMSG_FIRSTHDR(&header); item != nullptr; item = CMSG_NXTHDR(&header, item)) {
    if (item->cmsg_level == SOL_SOCKET && item->cmsg_type == SCM_RIGHTS) {
      int fd;
      std::memcpy(&fd, CMSG_DATA(item), sizeof(int));
      message.attached_fd.reset(fd);
    }
  }
  if ((header.msg_flags & MSG_TRUNC) != 0)
    fail(ErrorCode::kRuntime, "worker message exceeds the 1 MiB limit");
  try {
    message.body = nlohmann::json::parse(buffer_.begin(), buffer_.begin() + received);
  } catch (const nlohmann::json::exception& error) {
    fail(ErrorCode::kRuntime, "malformed worker message: {}", error.what());
  }
  if (!message.body.is_object() || !message.body.contains("type"))
    fail(ErrorCode::kRuntime, "worker message without a type: {}", message.body.dump());
  return message;
}

}  // namespace inferlab::backends
