// Reading a Triton-layout repository: model folders, numbered version
// folders and what serves each, version policies, and names that cannot
// leave the repository.
#include "inferlab/serve/repository/repository.h"

#include <gtest/gtest.h>

#include <filesystem>
#include <fstream>

#include "inferlab/core/error.h"
#include "test_util.h"

namespace inferlab::serve {
namespace {

namespace fs = std::filesystem;

void touch(const fs::path& path, const std::string& text = "x") {
  fs::create_directories(path.parent_path());
  std::ofstream(path) << text;
}

class RepositoryTest : public ::testing::Test {
 protected:
  void SetUp() override { repo_ = testing::make_temp_dir("repository"); }
  void TearDown() override { fs::remove_all(repo_); }
  fs::path repo_;
};

std::vector<int64_t> versions_of(const RepositoryModel& model) {
  std::vector<int64_t> versions;
  for (const ModelVersion& version : model.versions) versions.push_back(version.version);
  return versions;
}

TEST_F(RepositoryTest, ListsModelFoldersSortedAndSkipsOthers) {
  fs::create_directories(repo_ / "b");
  fs::create_directories(repo_ / "a.v2");
  fs::create_directories(repo_ / "bad name");
  touch(repo_ / "README");
  EXPECT_EQ(list_models(repo_), (std::vector<std::string>{"a.v2", "b"}));
  try {
    list_models(repo_ / "missing");
    FAIL() << "a missing repository was listed";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kNotFound);
  }
}

TEST_F(RepositoryTest, EachVersionIsServedByTheFileItHolds) {
  touch(repo_ / "m" / "1" / "model.onnx");
  touch(repo_ / "m" / "2" / "model.pt");
  touch(repo_ / "m" / "3" / "model.json", "{}");
  touch(repo_ / "m" / "3" / "model.onnx");
  touch(repo_ / "m" / "4" / "notes.txt");          // nothing to serve: not a version
  fs::create_directories(repo_ / "m" / "latest");  // not a number
  touch(repo_ / "m" / "config.pbtxt", "version_policy { all {} }");
  const RepositoryModel model = read_repository_model(repo_, "m");
  ASSERT_EQ(versions_of(model), (std::vector<int64_t>{1, 2, 3}));
  EXPECT_EQ(model.versions[0].source, repo_ / "m" / "1" / "model.onnx");
  EXPECT_EQ(model.versions[1].source, repo_ / "m" / "2" / "model.pt");
  EXPECT_EQ(model.versions[2].source, repo_ / "m" / "3");  // the model directory
  EXPECT_EQ(model.config.config.name(), "m");
}

TEST_F(RepositoryTest, TheDefaultPolicyServesTheLatestVersion) {
  for (const char* version : {"1", "2", "10"}) touch(repo_ / "m" / version / "model.onnx");
  EXPECT_EQ(versions_of(read_repository_model(repo_, "m")), std::vector<int64_t>{10});
}

TEST(SelectVersions, LatestAllAndSpecific) {
  const std::vector<int64_t> available = {1, 2, 5, 7};
  config::ModelVersionPolicy latest;
  latest.mutable_latest()->set_num_versions(2);
  EXPECT_EQ(select_versions(latest, available), (std::vector<int64_t>{5, 7}));
  latest.mutable_latest()->set_num_versions(9);
  EXPECT_EQ(select_versions(latest, available), available);
  config::ModelVersionPolicy all;
  all.mutable_all();
  EXPECT_EQ(select_versions(all, available), available);
  config::ModelVersionPolicy specific;
  specific.mutable_specific()->add_versions(2);
  specific.mutable_specific()->add_versions(3);  // not on disk
  specific.mutable_specific()->add_versions(7);
  EXPECT_EQ(select_versions(specific, available), (std::vector<int64_t>{2, 7}));
  EXPECT_EQ(select_versions(config::ModelVersionPolicy(), available), std::vector<int64_t>{7});
}

TEST_F(RepositoryTest, AModelWithNothingToServeSaysWhatAVersionNeeds) {
  fs::create_directories(repo_ / "empty" / "1");
  try {
    read_repository_model(repo_, "empty");
    FAIL() << "a model without versions was read";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kNotFound);
    EXPECT_NE(std::string(error.what()).find("model.json, model.onnx or model.pt"),
              std::string::npos)
        << error.what();
  }
  touch(repo_ / "old" / "1" / "model.onnx");
  touch(repo_ / "old" / "config.pbtxt", "version_policy { specific { versions: [ 4 ] } }");
  try {
    read_repository_model(repo_, "old");
    FAIL() << "a policy selecting no version was accepted";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("version_policy"), std::string::npos);
  }
}

TEST_F(RepositoryTest, NamesCannotLeaveTheRepository) {
  touch(repo_ / "m" / "1" / "model.onnx");
  for (const char* name : {"..", ".", "../m", "m/1", "", "a b", "m\n", "%2e%2e"}) {
    try {
      read_repository_model(repo_, name);
      ADD_FAILURE() << "accepted '" << name << "'";
    } catch (const Error& error) {
      EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument) << name;
    }
  }
  EXPECT_NO_THROW(check_model_name("resnet50_v1.5-int8"));
  EXPECT_THROW(check_model_name(std::string(129, 'a')), Error);
  try {
    read_repository_model(repo_, "absent");
    FAIL();
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kNotFound);
  }
}

}  // namespace
}  // namespace inferlab::serve
