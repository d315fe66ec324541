// Error codes across the worker wire: a Backend served by serve_backend() on
// one end of a real channel throws each ErrorCode in turn; the parent end
// reads each `error` reply back to the same code with the same message,
// and the worker keeps serving after every one.
#include "inferlab/backends/worker/worker_server.h"

#include <gtest/gtest.h>

#include <atomic>
#include <set>
#include <string>
#include <thread>

#include "inferlab/backends/tensor_wire.h"
#include "inferlab/backends/worker/channel.h"

namespace inferlab::backends {
namespace {

// Every open() fails with the code the test chose last.
class FailingBackend final : public Backend {
 public:
  std::string name() const override { return "failing"; }
  BackendInfo info() const override {
    BackendInfo info;
    info.name = "failing";
    info.available = true;
    return info;
  }
  std::unique_ptr<Model> open(const ModelSource& source, const BackendOptions&) override {
    const ErrorCode code = next_code.load();
    fail(code, "failing: model '{}' fails with {}", source.name, error_code_name(code));
  }

  std::atomic<ErrorCode> next_code{ErrorCode::kRuntime};
};

nlohmann::json open_request(const std::string& name) {
  ModelSource source;
  source.name = name;
  return {{"type", "open"}, {"model", source.to_json()}, {"options", options_json({})}};
}

nlohmann::json receive_body(const Channel& channel) {
  std::optional<ChannelMessage> message = channel.receive(60000);
  if (!message) throw std::runtime_error("the worker end closed");
  return message->body;
}

TEST(WorkerWire, EveryErrorCodeCrossesTheWireAndBack) {
  auto channels = Channel::create_pair();
  Channel& parent = channels.first;
  Channel& worker = channels.second;  // a reference the lambda can capture (clang 14)
  FailingBackend backend;
  std::thread server([&] { serve_backend(backend, worker, 0.0); });
  EXPECT_EQ(receive_body(parent).at("type"), "hello");
  for (ErrorCode code : kAllErrorCodes) {
    backend.next_code = code;
    parent.send(open_request("m"));
    const nlohmann::json reply = receive_body(parent);
    ASSERT_EQ(reply.at("type"), "error") << reply.dump();
    const std::string wire_name = reply.at("code").get<std::string>();
    EXPECT_EQ(wire_name, wire_error_code(code));
    EXPECT_EQ(parse_wire_error_code(wire_name), code) << wire_name;
    EXPECT_EQ(reply.at("message").get<std::string>(),
              std::string("failing: model 'm' fails with ") + error_code_name(code));
  }
  parent.send({{"type", "close"}});
  EXPECT_EQ(receive_body(parent).at("type"), "closed");
  server.join();
}

TEST(WorkerWire, EveryCodeHasItsOwnSnakeCaseName) {
  std::set<std::string> names;
  for (ErrorCode code : kAllErrorCodes) {
    const std::string name = wire_error_code(code);
    EXPECT_EQ(name.find_first_not_of("abcdefghijklmnopqrstuvwxyz_"), std::string::npos) << name;
    EXPECT_TRUE(names.insert(name).second) << name << " names two codes";
  }
  EXPECT_EQ(wire_error_code(ErrorCode::kNotFound), "not_found");
  EXPECT_EQ(wire_error_code(ErrorCode::kUnavailable), "unavailable");
  EXPECT_EQ(wire_error_code(ErrorCode::kDeadlineExceeded), "deadline_exceeded");
  EXPECT_EQ(wire_error_code(ErrorCode::kCancelled), "cancelled");
}

TEST(WorkerWire, AnUnknownCodeNameReadsAsRuntime) {
  EXPECT_EQ(parse_wire_error_code("quota_exceeded"), ErrorCode::kRuntime);
}

}  // namespace
}  // namespace inferlab::backends
