// Tests of the environment record: SHA-256 of files against digests computed
// with coreutils' sha256sum, and a machine record that describes this machine.
#include "inferlab/bench/environment_record.h"
#include "inferlab/core/file_hash.h"

#include <algorithm>
#include <filesystem>
#include <string>

#include <gtest/gtest.h>

#include "inferlab/core/error.h"
#include "test_util.h"

namespace inferlab::bench {
namespace {

class FileSha256 : public ::testing::Test {
 protected:
  void SetUp() override { dir_ = testing::make_temp_dir("inferlab-sha256"); }
  void TearDown() override { std::filesystem::remove_all(dir_); }
  std::string dir_;
};

TEST_F(FileSha256, MatchesSha256sumOfKnownContent) {
  const std::string path = dir_ + "/model.onnx";
  testing::write_file(path, "InferLab bench hash test\n");
  // printf 'InferLab bench hash test\n' | sha256sum
  EXPECT_EQ(file_sha256(path), "b4c589db3624d96fac110bda3a7101eed7951055e955e756b96a7035bb6e7b9c");
}

TEST_F(FileSha256, StreamsFilesLargerThanOneChunk) {
  const std::string path = dir_ + "/large.bin";
  testing::write_file(path, std::string(3000000, 'a'));  // three 1 MiB chunks, the last partial
  // head -c 3000000 /dev/zero | tr '\0' 'a' | sha256sum
  EXPECT_EQ(file_sha256(path), "2a152c894398719c0570f83fac34ac03a0f6e8e474b995c2403aa5434f7b9dd4");
}

TEST_F(FileSha256, EmptyFileHasTheEmptyDigest) {
  const std::string path = dir_ + "/empty";
  testing::write_file(path, "");
  // printf '' | sha256sum
  EXPECT_EQ(file_sha256(path), "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855");
}

TEST_F(FileSha256, MissingFileIsAnIoErrorNamingIt) {
  const std::string path = dir_ + "/no-such-model.onnx";
  try {
    file_sha256(path);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kIo);
    EXPECT_NE(std::string(error.what()).find(path), std::string::npos) << error.what();
  }
}

TEST_F(FileSha256, DirectoryIsAnIoError) {
  try {
    file_sha256(dir_);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kIo);
    EXPECT_NE(std::string(error.what()).find(dir_), std::string::npos) << error.what();
  }
}

TEST(MachineRecord, DescribesThisMachine) {
  const nlohmann::json machine = machine_record();
  ASSERT_TRUE(machine.is_object());
  EXPECT_FALSE(machine["cpu_model"].get<std::string>().empty());
  EXPECT_GE(machine["logical_cores"].get<int64_t>(), 1);
  EXPECT_GE(machine["usable_cores"].get<int64_t>(), 1);
  EXPECT_LE(machine["usable_cores"].get<int64_t>(), machine["logical_cores"].get<int64_t>());
  EXPECT_GT(machine["memory_mib"].get<int64_t>(), 0);
  EXPECT_EQ(machine["kernel"].get<std::string>().rfind("Linux ", 0), 0u) << machine["kernel"];
  EXPECT_FALSE(machine["os"].get<std::string>().empty());
  EXPECT_FALSE(machine["inferlab_version"].get<std::string>().empty());
  EXPECT_FALSE(machine["inferlab_commit"].get<std::string>().empty());
  const std::string compiler = machine["compiler"].get<std::string>();
  EXPECT_TRUE(compiler.rfind("GCC ", 0) == 0 || compiler.rfind("clang ", 0) == 0) << compiler;
  EXPECT_FALSE(machine.contains("hostname"));
}

TEST(MachineRecord, CpuFlagsAreSortedAndUnique) {
  const auto flags = machine_record()["cpu_flags"].get<std::vector<std::string>>();
  EXPECT_TRUE(std::is_sorted(flags.begin(), flags.end()));
  EXPECT_EQ(std::adjacent_find(flags.begin(), flags.end()), flags.end());
#if defined(__x86_64__)
  EXPECT_TRUE(std::binary_search(flags.begin(), flags.end(), "sse2"));
#endif
}

}  // namespace
}  // namespace inferlab::bench
