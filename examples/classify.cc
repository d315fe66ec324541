// A minimal InferLab program using only the public header: load a model,
// feed its first input random values (a leading symbolic dim counts as 1),
// run it, and print the top-5 entries of the first output.
//   example_classify model.onnx
#include <algorithm>
#include <cstdio>
#include <numeric>
#include <random>
#include <vector>

#include "inferlab/inferlab.h"

namespace {

inferlab::Shape first_input_shape(const inferlab::model::ValueInfo& input) {
  inferlab::Shape shape;
  for (size_t i = 0; i < input.dims.size(); ++i) {
    const inferlab::model::Dim& dim = input.dims[i];
    if (dim.is_static())
      shape.push_back(dim.value);
    else if (i == 0)
      shape.push_back(1);
    else
      inferlab::fail(inferlab::ErrorCode::kInvalidArgument, "input '{}' has a symbolic dim {}",
                     input.name, i);
  }
  return shape;
}

int classify(const char* model_path) {
  inferlab::runtime::Session session = inferlab::runtime::Session::load(model_path);
  const inferlab::model::ValueInfo& input = session.inputs().at(0);
  if (input.dtype != inferlab::DataType::kFloat32) {
    inferlab::fail(inferlab::ErrorCode::kUnsupported, "input '{}' is not float", input.name);
  }
  inferlab::Tensor tensor(inferlab::DataType::kFloat32, first_input_shape(input));
  std::mt19937 generator(0);
  std::uniform_real_distribution<float> uniform(0.0f, 1.0f);
  for (int64_t i = 0; i < tensor.numel(); ++i) tensor.data<float>()[i] = uniform(generator);

  const inferlab::runtime::TensorMap outputs = session.run({{input.name, tensor}});
  const std::string& output_name = session.outputs().at(0).name;
  const inferlab::Tensor& scores = outputs.at(output_name);
  std::vector<int64_t> order(static_cast<size_t>(scores.numel()));
  std::iota(order.begin(), order.end(), 0);
  const size_t shown = std::min<size_t>(5, order.size());
  std::partial_sort(order.begin(), order.begin() + static_cast<std::ptrdiff_t>(shown), order.end(),
                    [&](int64_t a, int64_t b) {
                      return scores.element_as_double(a) > scores.element_as_double(b);
                    });
  std::printf("top-%zu of '%s' %s:\n", shown, output_name.c_str(),
              inferlab::shape_to_string(scores.shape()).c_str());
  for (size_t i = 0; i < shown; ++i) {
    std::printf("  #%zu  index %lld  score %.6f\n", i + 1, static_cast<long long>(order[i]),
                scores.element_as_double(order[i]));
  }
  return 0;
}

}  // namespace

int main(int argc, char** argv) {
  if (argc != 2) {
    std::fprintf(stderr, "usage: %s MODEL.onnx\n", argv[0]);
    return 2;
  }
  try {
    return classify(argv[1]);
  } catch (const std::exception& error) {
    std::fprintf(stderr, "error: %s\n", error.what());
    return 1;
  }
}
