#include "inferlab/backends/worker/worker_connection.h"

#include <chrono>

#include "inferlab/backends/tensor_wire.h"
#include "inferlab/core/error.h"

namespace inferlab::backends {

namespace {

constexpr int kCloseTimeoutMs = 5000;
constexpr int kExitAfterEofTimeoutMs = 2000;

std::string trimmed_tail(const std::string& output) {
  constexpr size_t kShownBytes = 4000;
  std::string tail =
      output.size() > kShownBytes ? output.substr(output.size() - kShownBytes) : output;
  while (!tail.empty() && (tail.back() == '\n' || tail.back() == ' ')) tail.pop_back();
  return tail;
}

}  // namespace

WorkerConnection::WorkerConnection(const WorkerLaunch& launch) : backend_(launch.backend) {
  const auto start = std::chrono::steady_clock::now();
  auto [parent_end, worker_end] = Channel::create_pair();
  ChildSpec spec;
  spec.argv = launch.argv;
  spec.argv.push_back("--channel-fd");
  spec.argv.push_back(std::to_string(worker_end.fd()));
  spec.environment = launch.environment;
  spec.inherited_fds = {worker_end.fd()};
  try {
    child_ = std::make_unique<ChildProcess>(spec);
  } catch (const Error& error) {
    fail(ErrorCode::kUnavailable, "{}: {}", backend_, error.what());
  }
  worker_end = Channel();  // only the worker holds that end now, so its death reads as EOF
  channel_ = std::move(parent_end);
  if (launch.call_timeout_s > 0)
    call_timeout_ms_ = std::max(1, static_cast<int>(launch.call_timeout_s * 1000.0));
  const int timeout_ms = static_cast<int>(launch.start_timeout_s * 1000.0);
  ChannelMessage hello = receive_reply("start-up", timeout_ms);
  const std::string type = hello.body.at("type").get<std::string>();
  if (type == "error") {
    std::string message = hello.body.value("message", "no message");
    if (message.rfind(backend_ + ": ", 0) == 0) message.erase(0, backend_.size() + 2);
    child_->wait_for_exit(kExitAfterEofTimeoutMs);
    fail(ErrorCode::kUnavailable, "{}: the worker could not start: {}", backend_, message);
  }
  if (type != "hello")
    fail(ErrorCode::kRuntime, "{}: the worker said '{}' instead of hello", backend_, type);
  hello_ = std::move(hello.body);
  startup_ms_ =
      std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
}

WorkerConnection::~WorkerConnection() {
  try {
    close();
  } catch (...) {
    // The child is killed and reaped by its own destructor regardless.
  }
}

void WorkerConnection::fail_worker_gone(const std::string& during) {
  child_->wait_for_exit(kExitAfterEofTimeoutMs);
  if (!child_->wait_for_exit(0)) child_->kill_and_reap();
  const std::string tail = trimmed_tail(child_->output_tail());
  fail(ErrorCode::kUnavailable, "{}: the worker (pid {}) {} during {}{}{}", backend_, child_->pid(),
       child_->exit_description(), during, tail.empty() ? "" : "; its last output:\n", tail);
}

ChannelMessage WorkerConnection::receive_reply(const std::string& during, int timeout_ms) {
  std::optional<ChannelMessage> reply;
  try {
    reply = channel_.receive(timeout_ms);
  } catch (const Error& error) {
    child_->kill_and_reap();
    const std::string tail = trimmed_tail(child_->output_tail());
    fail(error.code(), "{}: {} during {} (worker killed){}{}", backend_, error.what(), during,
         tail.empty() ? "" : "; its last output:\n", tail);
  }
  if (!reply) fail_worker_gone(during);
  return std::move(*reply);
}

nlohmann::json WorkerConnection::request(nlohmann::json request, const char* expected_reply,
                                         const TensorMap* tensors, const char* tensor_key,
                                         TensorMap* received) {
  const std::string type = request.at("type").get<std::string>();
  int attached_fd = -1;
  if (tensors != nullptr) attached_fd = write_tensors(arena_, *tensors, request, tensor_key);
  try {
    channel_.send(request, attached_fd);
  } catch (const Error&) {
    fail_worker_gone("'" + type + "'");
  }
  ChannelMessage reply = receive_reply("'" + type + "'", call_timeout_ms_);
  const std::string reply_type = reply.body.at("type").get<std::string>();
  if (reply_type == "error") {
    std::string message = reply.body.value("message", "the worker reported an error");
    if (message.rfind(backend_ + ": ", 0) != 0) message = backend_ + ": " + message;
    throw Error(parse_wire_error_code(reply.body.value("code", "runtime")), message);
  }
  if (reply_type != expected_reply) {
    fail(ErrorCode::kRuntime, "{}: the worker answered '{}' with '{}' (expected '{}')", backend_,
         type, reply_type, expected_reply);
  }
  if (received != nullptr)
    *received = read_tensors(peer_arena_, reply.body, std::move(reply.attached_fd), "outputs");
  return std::move(reply.body);
}

void WorkerConnection::close() {
  if (!child_ || child_->wait_for_exit(0)) return;
  try {
    channel_.send({{"type", "close"}});
    channel_.receive(kCloseTimeoutMs);
  } catch (const Error&) {
    // Killed below.
  }
  if (!child_->wait_for_exit(kCloseTimeoutMs)) child_->kill_and_reap();
}

}  // namespace inferlab::backends
