// External-data tensors: a valid model loads; escaping, absolute, symlinked,
// missing and short data files are rejected with messages naming them.
#include <gtest/gtest.h>

#include <filesystem>

#include "inferlab/model/onnx_import.h"
#include "onnx_test_models.h"
#include "test_util.h"

namespace inferlab::model {
namespace {

namespace fs = std::filesystem;
using inferlab::testing::expect_error;

class ExternalData : public ::testing::Test {
 protected:
  void SetUp() override {
    root_ = inferlab::testing::make_temp_dir("inferlab-extdata");
    model_dir_ = root_ + "/model";
    fs::create_directory(model_dir_);
    for (int i = 0; i < 6; ++i) {
      const float value = static_cast<float>(i) + 0.5f;
      weights_.append(reinterpret_cast<const char*>(&value), sizeof value);
    }
  }
  void TearDown() override { fs::remove_all(root_); }

  // Writes the add/relu model with `w` in external data at `location`.
  std::string write_model(const std::string& location, const std::string& offset = "",
                          const std::string& length = "") {
    auto proto = inferlab::testing::make_add_relu_model();
    onnx::TensorProto* w = proto.mutable_graph()->mutable_initializer(0);
    w->clear_float_data();
    w->set_data_location(onnx::TensorProto::EXTERNAL);
    const auto add_entry = [&](const char* key, const std::string& value) {
      auto* entry = w->add_external_data();
      entry->set_key(key);
      entry->set_value(value);
    };
    add_entry("location", location);
    if (!offset.empty()) add_entry("offset", offset);
    if (!length.empty()) add_entry("length", length);
    const std::string path = model_dir_ + "/model.onnx";
    inferlab::testing::write_file(path, inferlab::testing::serialize(proto));
    return path;
  }

  std::string root_, model_dir_, weights_;
};

TEST_F(ExternalData, LoadsValidExternalDataWithOffset) {
  inferlab::testing::write_file(model_dir_ + "/weights.bin", "PAD!" + weights_);
  const Model model = import_model_file(write_model("weights.bin", "4", "24"));
  const Tensor& w = model.graph->initializers.at("w");
  EXPECT_EQ(w.shape(), (Shape{2, 3}));
  EXPECT_EQ(w.data<float>()[0], 0.5f);
  EXPECT_EQ(w.data<float>()[5], 5.5f);
}

TEST_F(ExternalData, RejectsParentDirectoryLocation) {
  inferlab::testing::write_file(root_ + "/outside.bin", weights_);
  const std::string path = write_model("../outside.bin");
  expect_error([&] { import_model_file(path); }, ErrorCode::kInvalidModel,
               {path, "initializer 'w'", "'../outside.bin' escapes the model directory"});
}

TEST_F(ExternalData, RejectsAbsoluteLocation) {
  inferlab::testing::write_file(root_ + "/outside.bin", weights_);
  const std::string path = write_model(root_ + "/outside.bin");
  expect_error([&] { import_model_file(path); }, ErrorCode::kInvalidModel,
               {path, "initializer 'w'", "must be a relative path"});
}

TEST_F(ExternalData, RejectsSymlinkEscapingTheModelDirectory) {
  inferlab::testing::write_file(root_ + "/outside.bin", weights_);
  fs::create_symlink(root_ + "/outside.bin", model_dir_ + "/link.bin");
  const std::string path = write_model("link.bin");
  expect_error([&] { import_model_file(path); }, ErrorCode::kInvalidModel,
               {path, "'link.bin' escapes the model directory", "symlink"});
}

TEST_F(ExternalData, AcceptsSymlinkInsideTheModelDirectory) {
  fs::create_directory(model_dir_ + "/data");
  inferlab::testing::write_file(model_dir_ + "/data/real.bin", weights_);
  fs::create_symlink("data/real.bin", model_dir_ + "/link.bin");
  const Model model = import_model_file(write_model("link.bin"));
  EXPECT_EQ(model.graph->initializers.at("w").data<float>()[1], 1.5f);
}

TEST_F(ExternalData, RejectsMissingFileNamingTensorAndFile) {
  const std::string path = write_model("absent.bin");
  expect_error([&] { import_model_file(path); }, ErrorCode::kIo,
               {path, "initializer 'w'", "absent.bin", "missing"});
}

TEST_F(ExternalData, RejectsShortFile) {
  inferlab::testing::write_file(model_dir_ + "/short.bin", weights_.substr(0, 10));
  const std::string path = write_model("short.bin");
  expect_error([&] { import_model_file(path); }, ErrorCode::kIo,
               {path, "initializer 'w'", "too short", "file has 10"});
}

TEST_F(ExternalData, RejectsOffsetBeyondTheFile) {
  inferlab::testing::write_file(model_dir_ + "/weights.bin", weights_);
  const std::string path = write_model("weights.bin", "1000");
  expect_error([&] { import_model_file(path); }, ErrorCode::kIo,
               {path, "too short", "offset 1000"});
}

TEST_F(ExternalData, RejectsLengthNotMatchingTheTensor) {
  inferlab::testing::write_file(model_dir_ + "/weights.bin", weights_);
  const std::string path = write_model("weights.bin", "0", "20");
  expect_error([&] { import_model_file(path); }, ErrorCode::kInvalidModel,
               {path, "length 20 does not match", "24 bytes"});
}

TEST_F(ExternalData, BytesWithoutBaseDirRejectExternalData) {
  inferlab::testing::write_file(model_dir_ + "/weights.bin", weights_);
  const std::string bytes = inferlab::testing::read_file(write_model("weights.bin"));
  expect_error([&] { import_model_bytes(bytes.data(), bytes.size()); }, ErrorCode::kInvalidModel,
               {"<memory>", "external data", "model directory"});
  const Model model = import_model_bytes(bytes.data(), bytes.size(), {}, model_dir_, "mem.onnx");
  EXPECT_EQ(model.graph->initializers.at("w").data<float>()[2], 2.5f);
}

}  // namespace
}  // namespace inferlab::model
