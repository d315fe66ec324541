// The parent side of an out-of-process model. Timings: the worker measures
// its own conversions and execution; what a round trip costs beyond those is
// channel time (socket, scheduling, copies into and out of shared memory).
#include "inferlab/backends/worker/worker_backend.h"
#include "inferlab/core/process_stats.h"
#include "inferlab/core/stopwatch.h"

#include <array>
#include <chrono>

namespace inferlab::backends {

namespace {

std::vector<model::ValueInfo> value_infos(const nlohmann::json& list) {
  std::vector<model::ValueInfo> infos;
  for (const nlohmann::json& entry : list) infos.push_back(value_info_from_json(entry));
  return infos;
}

class WorkerModel final : public Model {
 public:
  WorkerModel(const std::string& backend, const WorkerLaunch& launch, const ModelSource& source,
              const BackendOptions& options)
      : backend_(backend), connection_(launch) {
    // The worker's memory after start-up and imports: what the model adds is
    // measured against this.
    const int64_t rss_before_open_kb = process_memory_kib(connection_.pid(), "VmRSS");
    const nlohmann::json opened = connection_.request(
        {{"type", "open"}, {"model", source.to_json()}, {"options", options_json(options)}},
        "opened");
    inputs_ = value_infos(opened.at("inputs"));
    outputs_ = value_infos(opened.at("outputs"));
    const nlohmann::json capabilities = opened.value("capabilities", nlohmann::json::object());
    capabilities_.concurrent_run = false;  // one channel, one request at a time
    capabilities_.extra_outputs = capabilities.value("extra_outputs", false);
    capabilities_.node_timing = capabilities.value("node_timing", false);
    capabilities_.plan_cache = capabilities.value("plan_cache", false);
    capabilities_.out_of_process = true;
    configuration_ = opened.value("configuration", nlohmann::json::object());
    configuration_["worker_pid"] = connection_.pid();
    configuration_["rss_before_open_kb"] = rss_before_open_kb;
    configuration_["worker"] = connection_.hello().value("configuration", nlohmann::json::object());
    load_timings_.startup_ms = connection_.startup_ms();
    load_timings_.load_ms = opened.value("load_ms", 0.0);
  }

  const std::vector<model::ValueInfo>& inputs() const override { return inputs_; }
  const std::vector<model::ValueInfo>& outputs() const override { return outputs_; }
  Capabilities capabilities() const override { return capabilities_; }
  nlohmann::json configuration() const override { return configuration_; }
  LoadTimings load_timings() const override { return load_timings_; }

  void bind(const TensorMap& inputs) override {
    check_inputs(backend_, inputs_, inputs);
    const auto start = std::chrono::steady_clock::now();
    const nlohmann::json reply =
        connection_.request({{"type", "bind"}}, "bound", &inputs, "inputs");
    timings_ = {};
    timings_.convert_in_ns = reply.value("convert_in_ns", int64_t{0});
    channel_ns_ = {nanoseconds_since(start) - timings_.convert_in_ns, 0, 0};
    timings_.channel_ns = channel_ns_[0];
  }

  int64_t execute() override {
    const auto start = std::chrono::steady_clock::now();
    const nlohmann::json reply = connection_.request({{"type", "execute"}}, "executed");
    const int64_t round_trip_ns = nanoseconds_since(start);
    timings_.execute_ns = reply.value("execute_ns", int64_t{0});
    timings_.engine_runs = reply.value("engine_runs", int64_t{0});
    channel_ns_[1] = round_trip_ns - timings_.execute_ns;
    timings_.channel_ns = channel_ns_[0] + channel_ns_[1] + channel_ns_[2];
    events_.clear();
    for (const nlohmann::json& event : reply.value("events", nlohmann::json::array())) {
      events_.push_back(
          {event.value("node", ""), event.value("op_type", ""), event.value("start_ns", int64_t{0}),
           event.value("duration_ns", int64_t{0}), event.value("thread", int64_t{0})});
    }
    return timings_.execute_ns;
  }

  TensorMap fetch() override {
    const auto start = std::chrono::steady_clock::now();
    TensorMap outputs;
    const nlohmann::json reply =
        connection_.request({{"type", "fetch"}}, "outputs", nullptr, nullptr, &outputs);
    timings_.convert_out_ns = reply.value("convert_out_ns", int64_t{0});
    channel_ns_[2] = nanoseconds_since(start) - timings_.convert_out_ns;
    timings_.channel_ns = channel_ns_[0] + channel_ns_[1] + channel_ns_[2];
    return outputs;
  }

  TensorMap run(const TensorMap& inputs) override {
    check_inputs(backend_, inputs_, inputs);
    const auto start = std::chrono::steady_clock::now();
    TensorMap outputs;
    const nlohmann::json reply =
        connection_.request({{"type", "run"}}, "outputs", &inputs, "inputs", &outputs);
    timings_.convert_in_ns = reply.value("convert_in_ns", int64_t{0});
    timings_.execute_ns = reply.value("execute_ns", int64_t{0});
    timings_.engine_runs = reply.value("engine_runs", int64_t{0});
    timings_.convert_out_ns = reply.value("convert_out_ns", int64_t{0});
    timings_.channel_ns = nanoseconds_since(start) - timings_.convert_in_ns - timings_.execute_ns -
                          timings_.convert_out_ns;
    return outputs;
  }

  RunTimings last_timings() const override { return timings_; }
  std::vector<NodeEvent> node_events() const override { return events_; }

 private:
  std::string backend_;
  WorkerConnection connection_;
  std::vector<model::ValueInfo> inputs_;
  std::vector<model::ValueInfo> outputs_;
  Capabilities capabilities_;
  nlohmann::json configuration_;
  LoadTimings load_timings_;
  RunTimings timings_;
  // Channel time of the latest bind, execute and fetch: a repeated execute()
  // replaces its own share instead of adding up.
  std::array<int64_t, 3> channel_ns_{};
  std::vector<NodeEvent> events_;
};

class WorkerBackend final : public Backend {
 public:
  WorkerBackend(std::string name, LaunchFactory launch)
      : name_(std::move(name)), launch_(std::move(launch)) {}

  std::string name() const override { return name_; }

  // Starts a worker just to hear its hello: version, devices, configuration.
  BackendInfo info() const override {
    BackendInfo info;
    info.name = name_;
    try {
      const WorkerLaunch launch = launch_(BackendOptions{});
      WorkerConnection connection(launch);
      const nlohmann::json& hello = connection.hello();
      info.available = true;
      info.version = hello.value("version", "");
      info.devices = hello.value("devices", std::vector<std::string>{"cpu"});
      info.configuration = hello.value("configuration", nlohmann::json::object());
      info.configuration["worker_environment"] = launch.environment;
      info.startup_ms = connection.startup_ms();
    } catch (const Error& error) {
      info.available = false;
      info.unavailable_reason = error.what();
    }
    return info;
  }

  std::unique_ptr<Model> open(const ModelSource& source, const BackendOptions& options) override {
    WorkerLaunch launch = launch_(options);
    launch.call_timeout_s = options.call_timeout_s;
    return std::make_unique<WorkerModel>(name_, launch, source, options);
  }

 private:
  std::string name_;
  LaunchFactory launch_;
};

}  // namespace

std::unique_ptr<Backend> make_worker_backend(std::string name, LaunchFactory launch) {
  return std::make_unique<WorkerBackend>(std::move(name), std::move(launch));
}

}  // namespace inferlab::backends
