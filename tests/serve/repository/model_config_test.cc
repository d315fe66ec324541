// Reading Triton-layout model configs: config.pbtxt and config.json with
// Triton's field names, an absent config completed later, and an error that
// names the file and the line or field for every invalid or unsupported one.
#include "inferlab/serve/repository/model_config.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "inferlab/core/error.h"
#include "test_util.h"

namespace inferlab::serve {
namespace {

namespace fs = std::filesystem;

// The message of the Error `parse_and_validate` throws, or "" (a failure).
std::string text_config_error(const std::string& text, ErrorCode expected) {
  try {
    validate_model_config(parse_model_config_text(text, "m/config.pbtxt"), "m", "m/config.pbtxt");
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), expected) << error.what();
    return error.what();
  }
  ADD_FAILURE() << "accepted:\n" << text;
  return "";
}

bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

void write(const fs::path& path, const std::string& text) {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

TEST(ModelConfig, ReadsTritonsTextFormat) {
  const config::ModelConfig config = parse_model_config_text(R"(
    name: "m"
    backend: "native"
    max_batch_size: 8
    input [ { name: "x" data_type: TYPE_FP32 dims: [ 3, -1, -1 ] } ]
    output [ { name: "y" data_type: TYPE_FP32 dims: [ 1000 ] } ]
    instance_group [ { count: 2 kind: KIND_CPU } ]
    version_policy: { latest: { num_versions: 2 } }
    dynamic_batching {
      max_queue_delay_microseconds: 100
      priority_levels: 2
      default_priority_level: 2
      default_queue_policy { max_queue_size: 16 default_timeout_microseconds: 5000
                             allow_timeout_override: true timeout_action: REJECT }
      priority_queue_policy { key: 1 value: { max_queue_size: 4 } }
    }
    parameters { key: "threads" value: { string_value: "2" } }
  )",
                                                             "m/config.pbtxt");
  validate_model_config(config, "m", "m/config.pbtxt");
  EXPECT_EQ(config.max_batch_size(), 8);
  ASSERT_EQ(config.input_size(), 1);
  EXPECT_EQ(config.input(0).dims_size(), 3);
  EXPECT_EQ(config.input(0).dims(1), -1);
  EXPECT_EQ(config.instance_group(0).count(), 2);
  EXPECT_EQ(config.version_policy().latest().num_versions(), 2u);
  EXPECT_EQ(config.dynamic_batching().default_queue_policy().max_queue_size(), 16u);
  EXPECT_EQ(config.dynamic_batching().priority_queue_policy().at(1).max_queue_size(), 4u);
  EXPECT_EQ(config.parameters().at("threads").string_value(), "2");
  EXPECT_EQ(backend_of(config, "m/config.pbtxt"), "native");
}

TEST(ModelConfig, ReadsTritonsJsonWithEitherFieldSpelling) {
  const config::ModelConfig config = parse_model_config_json(
      R"({"name": "m", "platform": "onnxruntime_onnx", "maxBatchSize": 4,
          "input": [{"name": "x", "data_type": "TYPE_INT64", "dims": ["-1"]}],
          "instance_group": [{"count": 3, "kind": "KIND_CPU"}]})",
      "m/config.json");
  validate_model_config(config, "m", "m/config.json");
  EXPECT_EQ(config.max_batch_size(), 4);
  EXPECT_EQ(config.input(0).data_type(), config::TYPE_INT64);
  EXPECT_EQ(backend_of(config, "m/config.json"), "onnxruntime");
}

TEST(ModelConfig, AFieldInferLabDoesNotSupportIsNamedWithItsLine) {
  const std::string message = text_config_error(
      "name: \"m\"\noptimization { graph { level: 1 } }\n", ErrorCode::kInvalidArgument);
  EXPECT_TRUE(contains(message, "m/config.pbtxt:2:")) << message;
  EXPECT_TRUE(contains(message, "optimization")) << message;
  try {
    parse_model_config_json(R"({"name": "m", "sequence_batching": {}})", "m/config.json");
    FAIL() << "an unknown JSON field was accepted";
  } catch (const Error& error) {
    EXPECT_TRUE(contains(error.what(), "m/config.json")) << error.what();
    EXPECT_TRUE(contains(error.what(), "sequence_batching")) << error.what();
  }
}

TEST(ModelConfig, InvalidValuesNameTheFieldAndTheFile) {
  EXPECT_TRUE(contains(text_config_error("name: \"other\"", ErrorCode::kInvalidArgument),
                       "differs from the model's folder 'm'"));
  EXPECT_TRUE(contains(
      text_config_error("input [ { name: \"x\" dims: [ 1 ] } ]", ErrorCode::kInvalidArgument),
      "input 'x' has no data_type"));
  EXPECT_TRUE(
      contains(text_config_error("input [ { name: \"x\" data_type: TYPE_FP32 dims: [ -2 ] } ]",
                                 ErrorCode::kInvalidArgument),
               "dims has -2"));
  EXPECT_TRUE(contains(text_config_error("input [ { name: \"x\" data_type: TYPE_FP32 },"
                                         "        { name: \"x\" data_type: TYPE_FP32 } ]",
                                         ErrorCode::kInvalidArgument),
                       "input 'x' is listed twice"));
  EXPECT_TRUE(contains(text_config_error("max_batch_size: -1", ErrorCode::kInvalidArgument),
                       "max_batch_size is -1"));
  EXPECT_TRUE(contains(text_config_error("version_policy { latest { num_versions: 0 } }",
                                         ErrorCode::kInvalidArgument),
                       "num_versions"));
  EXPECT_TRUE(contains(text_config_error("version_policy { specific { versions: [ 0 ] } }",
                                         ErrorCode::kInvalidArgument),
                       "version 0"));
  EXPECT_TRUE(contains(text_config_error("dynamic_batching { priority_levels: 2 "
                                         "default_priority_level: 3 }",
                                         ErrorCode::kInvalidArgument),
                       "default_priority_level 3"));
  EXPECT_TRUE(contains(text_config_error("max_batch_size: 4 dynamic_batching { "
                                         "preferred_batch_size: [ 8 ] }",
                                         ErrorCode::kInvalidArgument),
                       "preferred_batch_size 8"));
  EXPECT_TRUE(
      contains(text_config_error("name: \"m\" max_batch_size: ", ErrorCode::kInvalidArgument),
               "m/config.pbtxt:1:"));
}

TEST(ModelConfig, ValidForTritonButNotHereIsUnsupported) {
  EXPECT_TRUE(contains(
      text_config_error("instance_group [ { kind: KIND_GPU } ]", ErrorCode::kUnsupported), "GPU"));
  EXPECT_TRUE(contains(
      text_config_error("instance_group [ { gpus: [ 0 ] } ]", ErrorCode::kUnsupported), "GPU"));
  EXPECT_TRUE(contains(text_config_error("backend: \"tensorrt\"", ErrorCode::kUnsupported),
                       "backend 'tensorrt'"));
  EXPECT_TRUE(
      contains(text_config_error("platform: \"tensorflow_savedmodel\"", ErrorCode::kUnsupported),
               "platform 'tensorflow_savedmodel'"));
  EXPECT_TRUE(contains(text_config_error("output [ { name: \"y\" data_type: TYPE_STRING } ]",
                                         ErrorCode::kUnsupported),
                       "TYPE_STRING"));
}

TEST(ModelConfig, ReadsTheModelFolderAndNamesAnAbsentConfigAfterIt) {
  const fs::path repo = testing::make_temp_dir("model_config");
  fs::create_directories(repo / "bare" / "1");
  const ModelConfigFile bare = read_model_config(repo / "bare");
  EXPECT_TRUE(bare.path.empty());
  EXPECT_EQ(bare.config.name(), "bare");

  write(repo / "text" / "config.pbtxt", "backend: \"onnxruntime\"\n");
  const ModelConfigFile text = read_model_config(repo / "text");
  EXPECT_EQ(text.path, repo / "text" / "config.pbtxt");
  EXPECT_EQ(text.config.name(), "text");
  EXPECT_EQ(text.config.backend(), "onnxruntime");

  write(repo / "both" / "config.pbtxt", "");
  write(repo / "both" / "config.json", "{}");
  try {
    read_model_config(repo / "both");
    FAIL() << "both config files were accepted";
  } catch (const Error& error) {
    EXPECT_TRUE(contains(error.what(), "both config.pbtxt and config.json")) << error.what();
  }

  write(repo / "bad" / "config.json", R"({"max_batch_size": "many"})");
  try {
    read_model_config(repo / "bad");
    FAIL() << "a malformed config.json was accepted";
  } catch (const Error& error) {
    EXPECT_TRUE(contains(error.what(), (repo / "bad" / "config.json").string())) << error.what();
  }
  fs::remove_all(repo);
}

}  // namespace
}  // namespace inferlab::serve
