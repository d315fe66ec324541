// The two channels and the inputs they send. Both keep the hot path to the
// one call that is measured: the HTTP request's bytes and the in-process
// TensorMap are built before the clock starts and only read afterwards.
#include "inferlab/loadgen/targets.h"

#include <mutex>

#include <fmt/format.h>

#include "inferlab/core/error.h"
#include "inferlab/inputs/input_files.h"
#include "inferlab/inputs/input_generator.h"
#include "inferlab/inputs/input_shapes.h"

namespace inferlab::loadgen {

namespace {

constexpr size_t kDetailBytes = 200;

class HttpChannel : public Channel {
 public:
  HttpChannel(const Url& url, std::shared_ptr<const HttpRequestBytes> request,
              std::chrono::milliseconds timeout)
      : connection_(url, timeout), request_(std::move(request)) {}
  void prepare() override { connection_.connect_now(); }
  Outcome send() override {
    const HttpOutcome outcome = connection_.exchange(*request_);
    if (outcome.ok()) return {};
    if (!outcome.failure.empty()) return {false, outcome.failure, {}};
    return {false, std::to_string(outcome.status), connection_.body().substr(0, kDetailBytes)};
  }
  int64_t connections_opened() const override { return connection_.connections_opened(); }

 private:
  HttpConnection connection_;
  std::shared_ptr<const HttpRequestBytes> request_;
};

// An instance computes one request at a time, as the server runs it: with
// more sending threads than instances, the threads sharing an instance wait
// for it (that wait is in their latency, as queueing is in the server's).
class ModelChannel : public Channel {
 public:
  ModelChannel(backends::Model& model, std::shared_ptr<std::vector<std::mutex>> locks, int instance,
               std::shared_ptr<const backends::TensorMap> inputs)
      : model_(model),
        locks_(std::move(locks)),
        instance_((*locks_)[static_cast<size_t>(instance)]),
        inputs_(std::move(inputs)) {}
  Outcome send() override {
    std::lock_guard lock(instance_);
    try {
      model_.run(*inputs_);
      return {};
    } catch (const Error& error) {
      return {false, error_code_name(error.code()),
              std::string(error.what()).substr(0, kDetailBytes)};
    } catch (const std::exception& error) {
      return {false, "exception", std::string(error.what()).substr(0, kDetailBytes)};
    }
  }

 private:
  backends::Model& model_;
  std::shared_ptr<std::vector<std::mutex>> locks_;  // one per instance, shared by the channels
  std::mutex& instance_;
  std::shared_ptr<const backends::TensorMap> inputs_;
};

}  // namespace

ChannelFactory http_channels(const Url& url, std::shared_ptr<const HttpRequestBytes> request,
                             std::chrono::milliseconds timeout) {
  return [url, request, timeout](int) -> std::unique_ptr<Channel> {
    return std::make_unique<HttpChannel>(url, request, timeout);
  };
}

ChannelFactory model_channels(const backends::InstanceSet& instances,
                              std::shared_ptr<const backends::TensorMap> inputs) {
  auto locks = std::make_shared<std::vector<std::mutex>>(static_cast<size_t>(instances.count()));
  return [&instances, inputs, locks](int index) -> std::unique_ptr<Channel> {
    const int instance = index % instances.count();
    return std::make_unique<ModelChannel>(instances.model(instance), locks, instance, inputs);
  };
}

NamedTensors load_inputs(const std::vector<model::ValueInfo>& declared,
                         const std::string& inputs_dir, const std::map<std::string, Shape>& shapes,
                         uint64_t seed, const backends::ModelSource* source) {
  NamedTensors tensors;
  if (!inputs_dir.empty()) {
    const std::vector<backends::TensorMap> samples =
        inputs::samples_from_directory(inputs_dir, declared);
    if (samples.size() > 1) {
      fmt::print(stderr, "note: --inputs {} holds {} samples; every request sends the first\n",
                 inputs_dir, samples.size());
    }
    for (const model::ValueInfo& input : declared) {
      const auto found = samples.front().find(input.name);
      if (found == samples.front().end())
        fail(ErrorCode::kNotFound, "--inputs {}: no tensor for input '{}'", inputs_dir, input.name);
      tensors.emplace_back(input.name, found->second);
    }
    return tensors;
  }
  inputs::check_given_shapes(declared, shapes);
  for (const model::ValueInfo& input : declared) {
    const Shape shape = inputs::resolve_input_shape(input, shapes);
    const inputs::ValueRange range = source != nullptr ? inputs::input_range(input, {}, *source)
                                                       : inputs::default_range(input.dtype);
    tensors.emplace_back(input.name, inputs::random_tensor(input, shape, range, seed));
  }
  return tensors;
}

int64_t samples_per_request(const std::vector<model::ValueInfo>& declared,
                            const NamedTensors& inputs) {
  if (inputs.empty() || inputs.front().second.shape().empty()) return 1;
  // A fixed first dimension is part of one sample ([1000] is one vector);
  // a dynamic one is the batch.
  if (!declared.empty() && !declared.front().dims.empty() &&
      declared.front().dims.front().is_static()) {
    return 1;
  }
  return inputs.front().second.shape().front();
}

}  // namespace inferlab::loadgen
