#include "inferlab/backends/worker/worker_server.h"
#include "inferlab/core/stopwatch.h"

#include <unistd.h>

#include <chrono>
#include <memory>

#include "inferlab/backends/tensor_wire.h"
#include "inferlab/backends/worker/shared_arena.h"

namespace inferlab::backends {

namespace {

nlohmann::json capabilities_json(const Capabilities& capabilities) {
  return {{"concurrent_run", capabilities.concurrent_run},
          {"extra_outputs", capabilities.extra_outputs},
          {"node_timing", capabilities.node_timing},
          {"plan_cache", capabilities.plan_cache},
          {"out_of_process", true}};
}

class Server {
 public:
  Server(Backend& backend, const Channel& channel) : backend_(backend), channel_(channel) {}

  // false when the parent asked to close.
  bool handle(ChannelMessage message) {
    const std::string type = message.body.at("type").get<std::string>();
    if (type == "close") {
      channel_.send({{"type", "closed"}});
      return false;
    }
    nlohmann::json reply;
    int attached_fd = -1;
    if (type == "open") {
      reply = open(message.body);
    } else if (type == "bind") {
      reply = bind(message);
    } else if (type == "execute") {
      reply = execute();
    } else if (type == "fetch") {
      reply = fetch(attached_fd);
    } else if (type == "run") {
      const nlohmann::json bound = bind(message);
      const nlohmann::json executed = execute();
      reply = fetch(attached_fd);
      reply["convert_in_ns"] = bound["convert_in_ns"];
      reply["execute_ns"] = executed["execute_ns"];
      reply["engine_runs"] = executed["engine_runs"];
    } else {
      fail(ErrorCode::kInvalidArgument, "unknown request '{}'", type);
    }
    channel_.send(reply, attached_fd);
    return true;
  }

 private:
  Model& model() {
    if (!model_) fail(ErrorCode::kInvalidArgument, "no model is open in this worker");
    return *model_;
  }

  nlohmann::json open(const nlohmann::json& request) {
    model_.reset();
    options_ = options_from_json(request.at("options"));
    model_ = backend_.open(ModelSource::from_json(request.at("model")), options_);
    nlohmann::json inputs = nlohmann::json::array(), outputs = nlohmann::json::array();
    for (const model::ValueInfo& info : model_->inputs()) inputs.push_back(value_info_json(info));
    for (const model::ValueInfo& info : model_->outputs()) outputs.push_back(value_info_json(info));
    return {{"type", "opened"},
            {"inputs", inputs},
            {"outputs", outputs},
            {"capabilities", capabilities_json(model_->capabilities())},
            {"configuration", model_->configuration()},
            {"load_ms", model_->load_timings().load_ms}};
  }

  nlohmann::json bind(ChannelMessage& message) {
    const auto start = std::chrono::steady_clock::now();
    const TensorMap inputs =
        read_tensors(peer_arena_, message.body, std::move(message.attached_fd), "inputs");
    model().bind(inputs);
    return {{"type", "bound"}, {"convert_in_ns", nanoseconds_since(start)}};
  }

  nlohmann::json execute() {
    nlohmann::json reply = {{"type", "executed"}, {"execute_ns", model().execute()}};
    reply["engine_runs"] = model().last_timings().engine_runs;
    if (options_.node_timing) {
      nlohmann::json events = nlohmann::json::array();
      for (const NodeEvent& event : model().node_events()) {
        events.push_back({{"node", event.node_name},
                          {"op_type", event.op_type},
                          {"start_ns", event.start_ns},
                          {"duration_ns", event.duration_ns},
                          {"thread", event.thread_id}});
      }
      reply["events"] = std::move(events);
    }
    return reply;
  }

  nlohmann::json fetch(int& attached_fd) {
    const auto start = std::chrono::steady_clock::now();
    nlohmann::json reply = {{"type", "outputs"}};
    attached_fd = write_tensors(arena_, model().fetch(), reply, "outputs");
    reply["convert_out_ns"] = nanoseconds_since(start);
    return reply;
  }

  Backend& backend_;
  const Channel& channel_;
  std::unique_ptr<Model> model_;
  BackendOptions options_;
  SharedArena arena_;
  ArenaView peer_arena_;
};

nlohmann::json error_message(ErrorCode code, const std::string& message) {
  return {{"type", "error"}, {"code", wire_error_code(code)}, {"message", message}};
}

}  // namespace

void send_start_error(const Channel& channel, const Error& error) {
  channel.send(error_message(error.code(), error.what()));
}

int serve_backend(Backend& backend, const Channel& channel, double import_ms) {
  const BackendInfo info = backend.info();
  channel.send({{"type", "hello"},
                {"backend", info.name},
                {"version", info.version},
                {"pid", getpid()},
                {"devices", info.devices},
                {"configuration", info.configuration},
                {"import_ms", import_ms}});
  Server server(backend, channel);
  for (;;) {
    std::optional<ChannelMessage> message = channel.receive();
    if (!message) return 0;  // the parent is gone
    try {
      if (!server.handle(std::move(*message))) return 0;
    } catch (const Error& error) {
      channel.send(error_message(error.code(), error.what()));
    } catch (const std::exception& error) {
      channel.send(error_message(ErrorCode::kRuntime, error.what()));
    }
  }
}

}  // namespace inferlab::backends
