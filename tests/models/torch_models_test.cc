// Real models against PyTorch: each model that tools/export_models.py wrote
// (`make models`) runs once on InferLab and its output must match the one
// PyTorch saved beside it at FP32 accuracy, err = max|a-b| / max(1, max|ref|)
// <= 1e-4. A missing model is a failure: `make test` always exports first.
#include <gtest/gtest.h>

#include <filesystem>
#include <iomanip>
#include <iostream>
#include <ostream>
#include <string>
#include <vector>

#include "inferlab/core/npy.h"
#include "inferlab/runtime/session.h"
#include "test_util.h"

namespace inferlab::testing {
namespace {

namespace fs = std::filesystem;

constexpr double kMaxFp32Error = 1e-4;

struct ModelCase {
  std::string model;  // file stem in the models directory
  int batch = 1;      // 2 reads the `.batch2` input/output pair of a dynamic model
};

// Names the case in gtest's messages instead of dumping its bytes.
void PrintTo(const ModelCase& model_case, std::ostream* out) {
  *out << model_case.model << " at batch " << model_case.batch;
}

std::string models_dir() { return cache_dir() + "/models"; }

// Success, or a failure that says which file is missing and how to make it.
::testing::AssertionResult files_exist(const std::vector<std::string>& paths) {
  for (const std::string& path : paths) {
    if (!fs::exists(path)) {
      return ::testing::AssertionFailure()
             << path << " is missing: run `make models` (tools/export_models.py)";
    }
  }
  return ::testing::AssertionSuccess();
}

std::string input_name_of(const std::string& model) {
  return model.rfind("encoder", 0) == 0 ? "input_ids" : "input";
}

std::string case_name(const ::testing::TestParamInfo<ModelCase>& info) {
  return info.param.model + (info.param.batch == 2 ? "_batch2" : "");
}

class TorchModel : public ::testing::TestWithParam<ModelCase> {};

TEST_P(TorchModel, MatchesPyTorchAtFp32) {
  const ModelCase& model_case = GetParam();
  const std::string model_path = models_dir() + "/" + model_case.model + ".onnx";
  const std::string stem =
      models_dir() + "/" + model_case.model + (model_case.batch == 2 ? ".batch2" : "");
  const std::string input_path = stem + ".input.npy";
  const std::string output_path = stem + ".output.npy";
  ASSERT_TRUE(files_exist({model_path, input_path, output_path}));

  const Tensor input = read_npy(input_path);
  const Tensor reference = read_npy(output_path);
  const std::string input_name = input_name_of(model_case.model);
  runtime::SessionOptions options;
  if (model_case.batch != 1) options.input_shapes[input_name] = input.shape();
  runtime::Session session = runtime::Session::load(model_path, options);
  const runtime::TensorMap outputs = session.run({{input_name, input}});

  ASSERT_EQ(outputs.count("output"), 1u) << model_path << " produced no 'output'";
  const Tensor& actual = outputs.at("output");
  ASSERT_EQ(actual.dtype(), DataType::kFloat32);
  ASSERT_EQ(actual.shape(), reference.shape())
      << shape_to_string(actual.shape()) << " vs " << shape_to_string(reference.shape());
  const double error = relative_error(actual, reference);
  const double cosine = cosine_similarity(actual, reference);
  std::cout << "[ accuracy ] " << case_name({model_case, 0}) << ": err=" << error
            << " cosine=" << std::setprecision(9) << cosine << std::endl;
  RecordProperty("err", std::to_string(error));
  RecordProperty("cosine", std::to_string(cosine));
  EXPECT_LE(error, kMaxFp32Error) << "cosine similarity " << cosine;
}

// The models tools/export_models.py writes for `opset`, named
// <arch>[_bn]_op<opset>[_dyn], at batch 1, or the dynamic ones at batch 2.
std::vector<ModelCase> exported_models(int opset, int batch) {
  std::vector<ModelCase> cases;
  for (const char* arch : {"resnet50", "mobilenet_v2", "efficientnet_b0"}) {
    for (const char* bn : {"", "_bn"}) {
      const std::string name = std::string(arch) + bn + "_op" + std::to_string(opset);
      if (batch == 1) cases.push_back({name, 1});
      cases.push_back({name + "_dyn", batch});
    }
  }
  if (batch == 1) cases.push_back({"encoder_op" + std::to_string(opset), 1});
  return cases;
}

INSTANTIATE_TEST_SUITE_P(Opset17, TorchModel, ::testing::ValuesIn(exported_models(17, 1)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Opset17Batch2, TorchModel, ::testing::ValuesIn(exported_models(17, 2)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Opset13, TorchModel, ::testing::ValuesIn(exported_models(13, 1)),
                         case_name);
INSTANTIATE_TEST_SUITE_P(Opset13Batch2, TorchModel, ::testing::ValuesIn(exported_models(13, 2)),
                         case_name);

}  // namespace
}  // namespace inferlab::testing
