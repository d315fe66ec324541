// A model opened on ONNX Runtime. The staged path (bind/execute/fetch) keeps
// one Ort::IoBinding: bind() wraps the caller's tensors as Ort::Values (no
// copy) and binds outputs to preallocated buffers where their shape is known,
// so execute() times session.Run alone. run() uses no shared state (its own
// values and preallocated outputs per call) and is safe from several threads.
#pragma once

#include <atomic>
#include <memory>
#include <mutex>
#include <string>
#include <vector>

#include "inferlab/backends/backend.h"
#include "inferlab/backends/onnxruntime/node_profile.h"
#include "inferlab/backends/onnxruntime/ort_api.h"
#include "inferlab/backends/onnxruntime/ort_library.h"

namespace inferlab::backends::ort {

class OrtModel : public Model {
 public:
  // Throws inferlab::Error naming the model: kInvalidModel when ORT cannot
  // load it, kInvalidArgument/kUnsupported for options it cannot honour.
  OrtModel(std::shared_ptr<OrtLibrary> library, std::shared_ptr<Ort::Env> env,
           const std::string& model_path, const BackendOptions& options);
  ~OrtModel() override;

  const std::vector<model::ValueInfo>& inputs() const override { return inputs_; }
  const std::vector<model::ValueInfo>& outputs() const override { return outputs_; }
  Capabilities capabilities() const override;
  nlohmann::json configuration() const override { return configuration_; }
  LoadTimings load_timings() const override { return load_timings_; }

  void bind(const TensorMap& inputs) override;
  int64_t execute() override;
  TensorMap fetch() override;
  RunTimings last_timings() const override;
  std::vector<NodeEvent> node_events() const override { return node_events_; }

  TensorMap run(const TensorMap& inputs) override;

 private:
  void create_session(const BackendOptions& options);
  void describe_values(const BackendOptions& options);
  std::vector<Ort::Value> wrap_inputs(std::vector<Tensor>& held, const TensorMap& inputs) const;
  // A new tensor for each output whose shape is fully known (empty otherwise).
  std::vector<Tensor> preallocate_outputs() const;
  void record_timings(const RunTimings& timings);

  std::shared_ptr<OrtLibrary> library_;
  std::shared_ptr<Ort::Env> env_;
  std::string model_path_;
  bool node_timing_ = false;
  Ort::Session session_{nullptr};
  Ort::MemoryInfo cpu_memory_{nullptr};
  Ort::RunOptions run_options_;

  std::vector<model::ValueInfo> inputs_;
  std::vector<model::ValueInfo> outputs_;      // the model's own outputs
  std::vector<model::ValueInfo> all_outputs_;  // model outputs, then extra outputs
  size_t model_output_count_ = 0;
  std::vector<std::string> input_names_;
  std::vector<std::string> output_names_;  // of all_outputs_
  std::vector<const char*> input_name_pointers_;
  std::vector<const char*> output_name_pointers_;
  nlohmann::json configuration_;
  LoadTimings load_timings_;

  // Staged-run state (one caller at a time).
  std::vector<Tensor> bound_inputs_;
  std::vector<Tensor> bound_outputs_;
  Ort::IoBinding binding_{nullptr};
  bool bound_ = false;
  bool executed_ = false;
  std::unique_ptr<ProfileDirectory> profile_directory_;
  std::vector<NodeEvent> node_events_;

  mutable std::mutex timings_mutex_;
  RunTimings timings_;
  // Session::Run calls so far: each call's RunTimings::engine_runs is its share.
  std::atomic<int64_t> engine_runs_{0};
  std::mutex profiled_run_mutex_;
};

}  // namespace inferlab::backends::ort
