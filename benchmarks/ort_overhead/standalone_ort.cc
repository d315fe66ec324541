// The standalone ONNX Runtime loop (see standalone_ort.h). Kept deliberately
// plain: this is what the backend's overhead is measured against.
#include "standalone_ort.h"

#include <dlfcn.h>
#include <onnxruntime_cxx_api.h>

#include <chrono>
#include <random>

#include "inferlab/core/error.h"

namespace inferlab::benchmarks {

struct StandaloneOrt::Impl {
  void* library = nullptr;
  std::string version;
  std::unique_ptr<Ort::Env> env;
  std::unique_ptr<Ort::Session> session;
  std::vector<std::pair<std::string, Tensor>> inputs;
  std::vector<Ort::Value> input_values;
  std::vector<std::string> input_names;
  std::vector<std::string> output_names;
  std::vector<const char*> input_name_pointers;
  std::vector<const char*> output_name_pointers;

  ~Impl() {
    session.reset();
    env.reset();
    if (library != nullptr) dlclose(library);
  }

  void load_api(const std::string& path) {
    library = dlopen(path.c_str(), RTLD_NOW | RTLD_LOCAL | RTLD_NODELETE);
    if (library == nullptr) fail(ErrorCode::kUnsupported, "cannot load {}: {}", path, dlerror());
    using GetApiBase = const OrtApiBase* (*)();
    auto get_api_base = reinterpret_cast<GetApiBase>(dlsym(library, "OrtGetApiBase"));
    if (get_api_base == nullptr) fail(ErrorCode::kUnsupported, "{} has no OrtGetApiBase", path);
    version = get_api_base()->GetVersionString();
    Ort::InitApi(get_api_base()->GetApi(ORT_API_VERSION));
  }
};

namespace {

Tensor fixed_seed_tensor(DataType dtype, const Shape& shape, uint32_t seed) {
  Tensor tensor(dtype, shape);
  if (dtype == DataType::kFloat32) {
    std::mt19937 generator(seed);
    std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
    float* data = tensor.data<float>();
    for (int64_t i = 0; i < tensor.numel(); ++i) data[i] = uniform(generator);
  }
  return tensor;  // other types stay zero (valid token ids, indices, masks)
}

}  // namespace

StandaloneOrt::StandaloneOrt(const std::string& library, const std::string& model_path, int threads)
    : impl_(std::make_unique<Impl>()) {
  impl_->load_api(library);
  impl_->env = std::make_unique<Ort::Env>(ORT_LOGGING_LEVEL_FATAL, "ort_overhead");
  Ort::SessionOptions options;
  options.SetIntraOpNumThreads(threads);
  options.SetGraphOptimizationLevel(GraphOptimizationLevel::ORT_ENABLE_ALL);
  options.SetExecutionMode(ExecutionMode::ORT_SEQUENTIAL);
  impl_->session = std::make_unique<Ort::Session>(*impl_->env, model_path.c_str(), options);

  Ort::MemoryInfo memory = Ort::MemoryInfo::CreateCpu(OrtArenaAllocator, OrtMemTypeDefault);
  impl_->input_names = impl_->session->GetInputNames();
  impl_->output_names = impl_->session->GetOutputNames();
  for (size_t i = 0; i < impl_->input_names.size(); ++i) {
    const auto type_info = impl_->session->GetInputTypeInfo(i);
    const auto tensor_info = type_info.GetTensorTypeAndShapeInfo();
    Shape shape = tensor_info.GetShape();
    for (int64_t& dim : shape) dim = dim < 0 ? 1 : dim;
    const auto dtype = static_cast<DataType>(static_cast<int32_t>(tensor_info.GetElementType()));
    impl_->inputs.emplace_back(impl_->input_names[i],
                               fixed_seed_tensor(dtype, shape, static_cast<uint32_t>(i + 1)));
    Tensor& tensor = impl_->inputs.back().second;
    impl_->input_values.push_back(
        Ort::Value::CreateTensor(memory, tensor.raw_data(), tensor.nbytes(), shape.data(),
                                 shape.size(), tensor_info.GetElementType()));
  }
  for (const std::string& name : impl_->input_names)
    impl_->input_name_pointers.push_back(name.c_str());
  for (const std::string& name : impl_->output_names)
    impl_->output_name_pointers.push_back(name.c_str());
}

StandaloneOrt::~StandaloneOrt() = default;

const std::vector<std::pair<std::string, Tensor>>& StandaloneOrt::inputs() const {
  return impl_->inputs;
}

std::string StandaloneOrt::version() const { return impl_->version; }

int64_t StandaloneOrt::run_once() {
  const auto start = std::chrono::steady_clock::now();
  std::vector<Ort::Value> outputs =
      impl_->session->Run(Ort::RunOptions{nullptr}, impl_->input_name_pointers.data(),
                          impl_->input_values.data(), impl_->input_values.size(),
                          impl_->output_name_pointers.data(), impl_->output_name_pointers.size());
  const auto end = std::chrono::steady_clock::now();
  return std::chrono::duration_cast<std::chrono::nanoseconds>(end - start).count();
}

}  // namespace inferlab::benchmarks
