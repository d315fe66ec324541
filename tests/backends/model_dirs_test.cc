// Model directories (docs/model-format.md): the zoo directories that
// tools/export_models.py writes resolve to their artifacts and input specs,
// and malformed manifests are errors naming the manifest and the key at fault.
#include <gtest/gtest.h>

#include <filesystem>
#include <string>

#include "inferlab/backends/model_source.h"
#include "inferlab/core/error.h"
#include "inferlab/core/npy.h"
#include "test_util.h"

namespace inferlab::backends {
namespace {

namespace fs = std::filesystem;

std::string zoo_dir(const std::string& arch) {
  return testing::cache_dir() + "/models/zoo/" + arch;
}

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

class ZooModelDirectory : public ::testing::TestWithParam<std::string> {};

TEST_P(ZooModelDirectory, ResolvesArtifactsAndSpecs) {
  const std::string& arch = GetParam();
  ASSERT_TRUE(fs::exists(zoo_dir(arch) + "/.complete"))
      << zoo_dir(arch) << " is missing: run `make models` (tools/export_models.py)";
  const ModelSource source = ModelSource::resolve(zoo_dir(arch));
  EXPECT_EQ(source.name, arch);
  EXPECT_TRUE(ends_with(source.onnx_path, "/model.onnx")) << source.onnx_path;
  EXPECT_TRUE(ends_with(source.torchscript_path, "/model.torchscript.pt"));
  EXPECT_TRUE(fs::exists(source.onnx_path) && fs::exists(source.torchscript_path));
  ASSERT_TRUE(source.python.has_value());
  EXPECT_EQ(source.python->factory, "zoo_models:" + arch);
  EXPECT_TRUE(ends_with(source.python->state_dict, "/weights.pt"));
  EXPECT_TRUE(fs::exists(source.python->module_path + "/zoo_models.py"));

  const bool encoder = arch == "encoder";
  ASSERT_EQ(source.inputs.size(), 1u);
  const InputSpec& input = source.inputs[0];
  EXPECT_EQ(input.info.name, encoder ? "input_ids" : "input");
  EXPECT_EQ(input.info.dtype, encoder ? DataType::kInt64 : DataType::kFloat32);
  ASSERT_TRUE(input.range.has_value());
  EXPECT_EQ(input.range->second, encoder ? 30522.0 : 1.0);
  ASSERT_EQ(input.info.dims.size(), encoder ? 2u : 4u);
  EXPECT_EQ(input.info.dims[0].symbol, encoder ? "" : "batch");

  ASSERT_EQ(source.outputs.size(), 1u);
  EXPECT_EQ(source.outputs[0].info.name, "output");
  EXPECT_EQ(source.outputs[0].class_scores, !encoder);

  // The reference input fits the spec it is filed under.
  const Tensor reference = read_npy(source.reference_inputs.at(input.info.name));
  EXPECT_EQ(reference.dtype(), input.info.dtype);
  EXPECT_EQ(reference.rank(), static_cast<int64_t>(input.info.dims.size()));
  EXPECT_TRUE(fs::exists(source.reference_outputs.at("output")));
}

TEST_P(ZooModelDirectory, ManifestPathResolvesLikeItsDirectory) {
  const ModelSource by_directory = ModelSource::resolve(zoo_dir(GetParam()));
  const ModelSource by_manifest = ModelSource::resolve(zoo_dir(GetParam()) + "/model.json");
  EXPECT_EQ(by_manifest.to_json(), by_directory.to_json());
}

INSTANTIATE_TEST_SUITE_P(Zoo, ZooModelDirectory,
                         ::testing::Values("resnet50", "mobilenet_v2", "efficientnet_b0",
                                           "encoder"));

// A directory holding model.onnx and a manifest whose text is `manifest`.
class MalformedManifest : public ::testing::Test {
 protected:
  void SetUp() override {
    directory_ = testing::make_temp_dir("model_dirs_test");
    testing::write_file(directory_ + "/model.onnx", "not checked by resolve");
  }
  void TearDown() override { fs::remove_all(directory_); }

  // resolve() must fail with `code`, naming the manifest and `part`.
  void expect_rejected(const std::string& manifest, ErrorCode code, const std::string& part) {
    testing::write_file(directory_ + "/model.json", manifest);
    try {
      ModelSource::resolve(directory_);
      ADD_FAILURE() << "accepted: " << manifest;
    } catch (const Error& error) {
      const std::string message = error.what();
      EXPECT_EQ(error.code(), code) << message;
      EXPECT_NE(message.find("model.json"), std::string::npos) << message;
      EXPECT_NE(message.find(part), std::string::npos) << message;
    }
  }

  static std::string manifest_with(const std::string& artifacts, const std::string& extra = "") {
    return R"({"format": "inferlab-model", "version": 1, "name": "m", "artifacts": )" + artifacts +
           R"(, "inputs": [{"name": "input", "dtype": "float32", "shape": ["batch", 3]}])" + extra +
           "}";
  }

  std::string directory_;
};

TEST_F(MalformedManifest, WellFormedOneIsAccepted) {
  testing::write_file(directory_ + "/model.json", manifest_with(R"({"onnx": "model.onnx"})"));
  const ModelSource source = ModelSource::resolve(directory_);
  EXPECT_EQ(source.onnx_path, fs::weakly_canonical(directory_ + "/model.onnx").string());
  EXPECT_TRUE(source.torchscript_path.empty());
}

TEST_F(MalformedManifest, UnknownKeyIsAnError) {
  expect_rejected(manifest_with(R"({"onnx": "model.onnx"})", R"(, "refrence": {})"),
                  ErrorCode::kInvalidModel, "refrence");
}

TEST_F(MalformedManifest, UnknownArtifactKindIsAnError) {
  expect_rejected(manifest_with(R"({"onnx": "model.onnx", "torch_script": "model.pt"})"),
                  ErrorCode::kInvalidModel, "torch_script");
}

TEST_F(MalformedManifest, PathEscapingTheDirectoryIsAnError) {
  expect_rejected(manifest_with(R"({"onnx": "../model.onnx"})"), ErrorCode::kInvalidModel,
                  "outside the model directory");
}

TEST_F(MalformedManifest, MissingArtifactFileIsAnError) {
  expect_rejected(manifest_with(R"({"torchscript": "model.torchscript.pt"})"),
                  ErrorCode::kInvalidModel, "artifacts.torchscript");
}

TEST_F(MalformedManifest, BadJsonIsAnError) {
  expect_rejected(R"({"format": "inferlab-model", "version": 1,)", ErrorCode::kInvalidModel,
                  "not valid JSON");
}

TEST_F(MalformedManifest, WrongFormatIsAnError) {
  expect_rejected(R"({"format": "onnx", "version": 1, "artifacts": {"onnx": "model.onnx"}})",
                  ErrorCode::kInvalidModel, "format");
}

TEST_F(MalformedManifest, NoArtifactIsAnError) {
  expect_rejected(manifest_with("{}"), ErrorCode::kInvalidModel, "artifacts");
}

}  // namespace
}  // namespace inferlab::backends
