// Decoding against PIL: every case tests/pipeline/data/make_decode_cases.py
// writes (skimage's photos and PNGs, generated JPEGs: 4:2:0, 4:4:4,
// progressive, gray, Adobe CMYK, all eight EXIF orientations; a 16-bit PNG)
// decodes to the pixels PIL gets; every broken file (truncated, corrupt,
// unknown, a decompression bomb) is refused with a message naming the file
// and the problem.
#include "inferlab/pipeline/image/decode.h"

#include <gtest/gtest.h>

#include <cstdlib>
#include <filesystem>
#include <nlohmann/json.hpp>
#include <string>

#include "inferlab/core/error.h"
#include "test_util.h"

namespace inferlab::pipeline {
namespace {

namespace fs = std::filesystem;

class DecodeCases : public ::testing::Test {
 protected:
  static void SetUpTestSuite() {
    directory_ =
        new fs::path(fs::temp_directory_path() / ("inferlab-decode-" + std::to_string(::getpid())));
    const std::string command = "/usr/bin/python3 " + testing::source_dir() +
                                "/tests/pipeline/data/make_decode_cases.py " +
                                directory_->string() + " 2>/dev/null";
    ASSERT_EQ(std::system(command.c_str()), 0) << command;
    cases_ = new nlohmann::json(
        nlohmann::json::parse(testing::read_file((*directory_ / "cases.json").string())));
  }
  static void TearDownTestSuite() {
    fs::remove_all(*directory_);
    delete directory_;
    delete cases_;
  }
  static std::string path(const nlohmann::json& entry) {
    return (*directory_ / entry["file"].get<std::string>()).string();
  }
  static fs::path* directory_;
  static nlohmann::json* cases_;
};

fs::path* DecodeCases::directory_ = nullptr;
nlohmann::json* DecodeCases::cases_ = nullptr;

TEST_F(DecodeCases, EveryGoodFileDecodesToPilsPixels) {
  int checked = 0;
  for (const auto& entry : *cases_) {
    if (!entry["ok"].get<bool>()) continue;
    SCOPED_TRACE(entry["file"].get<std::string>() + " (" + entry["note"].get<std::string>() + ")");
    const Image image = decode_image_file(path(entry));
    ASSERT_EQ(image.width, entry["width"].get<int>());
    ASSERT_EQ(image.height, entry["height"].get<int>());
    ASSERT_EQ(image.channels, 3);
    const std::string expected = testing::read_file(path(entry) + ".rgb");
    ASSERT_EQ(image.pixels.size(), expected.size());
    size_t differing = 0;
    int largest = 0;
    for (size_t i = 0; i < expected.size(); ++i) {
      const int difference = std::abs(image.pixels[i] - static_cast<uint8_t>(expected[i]));
      differing += difference != 0;
      largest = std::max(largest, difference);
    }
    EXPECT_EQ(differing, 0u) << "largest difference " << largest;
    ++checked;
  }
  EXPECT_GE(checked, 20);
}

TEST_F(DecodeCases, EveryBrokenFileGetsAnErrorNamingItAndTheProblem) {
  int checked = 0;
  for (const auto& entry : *cases_) {
    if (entry["ok"].get<bool>()) continue;
    SCOPED_TRACE(entry["file"].get<std::string>() + " (" + entry["note"].get<std::string>() + ")");
    try {
      decode_image_file(path(entry));
      ADD_FAILURE() << "decoded without an error";
    } catch (const Error& error) {
      const std::string message = error.what();
      EXPECT_NE(message.find(entry["file"].get<std::string>()), std::string::npos) << message;
      EXPECT_NE(message.find(entry["words"].get<std::string>()), std::string::npos) << message;
    }
    ++checked;
  }
  EXPECT_GE(checked, 7);
}

TEST_F(DecodeCases, AJpegAtLeastTwiceTheTargetIsDecodedByTheDctAtReducedScale) {
  DecodeOptions options;
  options.target_width = 100;
  options.target_height = 100;
  const Image quarter = decode_image_file((*directory_ / "q90_420.jpg").string(), options);
  EXPECT_EQ(quarter.width, 128);  // 512 / 4: 1/8 would be below 100
  EXPECT_EQ(quarter.height, 128);
  options.target_width = 300;  // less than twice smaller: full size
  const Image full = decode_image_file((*directory_ / "q90_420.jpg").string(), options);
  EXPECT_EQ(full.width, 512);
}

TEST_F(DecodeCases, GrayOutputAndThePixelLimit) {
  DecodeOptions options;
  options.gray = true;
  const Image gray = decode_image_file((*directory_ / "astronaut.png").string(), options);
  EXPECT_EQ(gray.channels, 1);
  EXPECT_EQ(gray.pixels.size(), 512u * 512u);
  options.max_pixels = 512 * 512 - 1;
  try {
    decode_image_file((*directory_ / "astronaut.png").string(), options);
    FAIL() << "decoded beyond the pixel limit";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kLimitExceeded);
    EXPECT_NE(std::string(error.what()).find("512x512"), std::string::npos) << error.what();
  }
}

TEST_F(DecodeCases, AFileOverTheSizeLimitOrMissingIsRefusedByName) {
  DecodeOptions options;
  options.max_file_bytes = 1000;
  const std::string file = (*directory_ / "astronaut.png").string();
  try {
    decode_image_file(file, options);
    FAIL() << "read a file over the size limit";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kLimitExceeded);
    EXPECT_NE(std::string(error.what()).find(file), std::string::npos) << error.what();
  }
  try {
    decode_image_file((*directory_ / "nothing.png").string());
    FAIL() << "decoded a missing file";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kNotFound);
    EXPECT_NE(std::string(error.what()).find("nothing.png"), std::string::npos) << error.what();
  }
}

}  // namespace
}  // namespace inferlab::pipeline
