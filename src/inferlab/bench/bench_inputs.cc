#include "inferlab/bench/bench_inputs.h"

#include <algorithm>
#include <filesystem>
#include <random>

#include "inferlab/core/npy.h"

namespace inferlab::bench {

namespace fs = std::filesystem;

std::map<std::string, Shape> resolve_input_shapes(const std::vector<model::ValueInfo>& inputs,
                                                  const std::map<std::string, Shape>& fixed,
                                                  const std::optional<int64_t>& batch) {
  std::map<std::string, Shape> shapes;
  for (const model::ValueInfo& input : inputs) {
    if (auto it = fixed.find(input.name); it != fixed.end()) {
      shapes[input.name] = it->second;
      continue;
    }
    if (!input.has_shape)
      fail(ErrorCode::kInvalidArgument, "input '{}' has no declared shape: give --shape",
           input.name);
    Shape shape;
    for (size_t axis = 0; axis < input.dims.size(); ++axis) {
      const model::Dim& dim = input.dims[axis];
      if (axis == 0 && batch) {
        if (dim.is_static() && dim.value != *batch) {
          fail(ErrorCode::kInvalidArgument,
               "--batch {} asked of input '{}', whose batch dim is fixed at {} in the model",
               *batch, input.name, dim.value);
        }
        shape.push_back(*batch);
      } else if (dim.is_static()) {
        shape.push_back(dim.value);
      } else if (axis == 0) {
        shape.push_back(1);
      } else {
        fail(ErrorCode::kInvalidArgument, "input '{}' dim {} ('{}') is symbolic: give --shape {}=…",
             input.name, axis, dim.symbol, input.name);
      }
    }
    shapes[input.name] = shape;
  }
  return shapes;
}

namespace {

std::pair<double, double> value_range(const backends::ModelSource& source,
                                      const model::ValueInfo& input) {
  for (const backends::InputSpec& spec : source.inputs)
    if (spec.info.name == input.name && spec.range) return *spec.range;
  return is_integer_dtype(input.dtype) ? std::make_pair(0.0, 100.0) : std::make_pair(0.0, 1.0);
}

Tensor random_tensor(const model::ValueInfo& input, const Shape& shape,
                     std::pair<double, double> range, std::mt19937_64& generator) {
  Tensor tensor(input.dtype, shape);
  if (input.dtype == DataType::kBool) {
    std::bernoulli_distribution coin;
    bool* data = tensor.data<bool>();
    for (int64_t i = 0; i < tensor.numel(); ++i) data[i] = coin(generator);
    return tensor;
  }
  visit_dtype(input.dtype, "bench input '" + input.name + "'", [&](auto tag) {
    using T = typename decltype(tag)::type;
    T* data = tensor.data<T>();
    if constexpr (std::is_integral_v<T>) {
      std::uniform_int_distribution<int64_t> values(static_cast<int64_t>(range.first),
                                                    static_cast<int64_t>(range.second) - 1);
      for (int64_t i = 0; i < tensor.numel(); ++i) data[i] = static_cast<T>(values(generator));
    } else {
      std::uniform_real_distribution<double> values(range.first, range.second);
      for (int64_t i = 0; i < tensor.numel(); ++i) data[i] = static_cast<T>(values(generator));
    }
  });
  return tensor;
}

}  // namespace

backends::TensorMap random_inputs(const std::vector<model::ValueInfo>& inputs,
                                  const std::map<std::string, Shape>& shapes,
                                  const backends::ModelSource& source, uint64_t seed) {
  backends::TensorMap tensors;
  for (size_t i = 0; i < inputs.size(); ++i) {
    std::mt19937_64 generator(seed * 1000003 + i);
    tensors[inputs[i].name] = random_tensor(inputs[i], shapes.at(inputs[i].name),
                                            value_range(source, inputs[i]), generator);
  }
  return tensors;
}

std::vector<backends::TensorMap> samples_from_directory(
    const std::string& dir, const std::vector<model::ValueInfo>& inputs) {
  if (!fs::is_directory(dir)) fail(ErrorCode::kIo, "--inputs {} is not a directory", dir);
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(dir)) entries.push_back(entry.path());
  std::sort(entries.begin(), entries.end());
  std::vector<backends::TensorMap> samples;
  for (const fs::path& entry : entries) {
    if (inputs.size() == 1 && entry.extension() == ".npy") {
      samples.push_back({{inputs[0].name, read_npy(entry.string())}});
    } else if (inputs.size() > 1 && fs::is_directory(entry)) {
      backends::TensorMap sample;
      for (const model::ValueInfo& input : inputs)
        sample[input.name] = read_npy((entry / (input.name + ".npy")).string());
      samples.push_back(std::move(sample));
    }
  }
  if (samples.empty()) {
    fail(ErrorCode::kInvalidArgument, "--inputs {} holds no samples ({})", dir,
         inputs.size() == 1 ? "expected *.npy files" : "expected subdirectories of <input>.npy");
  }
  return samples;
}

}  // namespace inferlab::bench
