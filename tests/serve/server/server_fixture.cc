#include "serve/server/server_fixture.h"

#include <chrono>
#include <fstream>
#include <thread>

#include <fmt/format.h>

namespace inferlab::serve {

namespace fs = std::filesystem;

ServerFixture::ServerFixture() {
  scratch_ = testing::make_temp_dir("inferlab-serve-test");
  repository_ = scratch_ / "repository";
  fs::create_directories(repository_);
  log_ = std::make_unique<ServerLog>(log_text_, 0, false);
  registry_ = std::make_unique<backends::BackendRegistry>(
      backends::BackendEnvironment::from_process_environment());
}

ServerFixture::~ServerFixture() {
  server_.reset();
  std::error_code ignored;
  fs::remove_all(scratch_, ignored);
}

void ServerFixture::add_onnx_model(const std::string& name, const std::string& config_pbtxt,
                                   const std::string& node_test) {
  fs::create_directories(repository_ / name / "1");
  fs::copy_file("/usr/share/libonnx-testdata/data/node/" + node_test + "/model.onnx",
                repository_ / name / "1" / "model.onnx");
  if (!config_pbtxt.empty()) testing::write_file(repository_ / name / "config.pbtxt", config_pbtxt);
}

std::string ServerFixture::add_gated_model(const std::string& name,
                                           const std::string& config_pbtxt) {
  const fs::path version = repository_ / name / "1";
  fs::create_directories(version);
  const fs::path fixture = fs::path(testing::source_dir()) / "tests/serve/data/gated";
  fs::copy_file(fixture / "gated_model.py", version / "gated_model.py");
  const std::string gate = (scratch_ / (name + ".gate")).string();
  std::string manifest = testing::read_file(fixture / "model.json");
  manifest.replace(manifest.find("GATE"), 4, gate);
  testing::write_file(version / "model.json", manifest);
  testing::write_file(repository_ / name / "config.pbtxt", config_pbtxt);
  testing::write_file(gate, "");
  return gate;
}

void ServerFixture::start(ServerOptions options) {
  options.repository = repository_;
  options.http_port = 0;
  server_ = std::make_unique<InferenceServer>(options, *registry_, *log_);
}

Answer ServerFixture::request(const std::string& method, const std::string& target,
                              const std::string& body, const std::vector<std::string>& headers) {
  const int n = ++requests_made_;
  const fs::path body_file = scratch_ / fmt::format("request-{}.bin", n);
  const fs::path answer_file = scratch_ / fmt::format("answer-{}.bin", n);
  const fs::path header_file = scratch_ / fmt::format("headers-{}.txt", n);
  std::string command = fmt::format(
      "curl -s --max-time 60 -o '{}' -D '{}' -w '%{{http_code}}' -X {} "
      "'http://127.0.0.1:{}{}'",
      answer_file.string(), header_file.string(), method, server_->http_port(), target);
  if (!body.empty() || method == "POST") {
    testing::write_file(body_file, body);
    command += fmt::format(" --data-binary '@{}'", body_file.string());
  }
  for (const std::string& header : headers) command += fmt::format(" -H '{}'", header);
  const testing::CommandResult result = testing::run_command(command);
  Answer answer;
  answer.status = std::atoi(result.stdout_text.c_str());
  if (fs::exists(answer_file)) answer.body = testing::read_file(answer_file);
  if (fs::exists(header_file)) answer.headers = testing::read_file(header_file);
  return answer;
}

std::string add_request_json(const std::string& id) {
  nlohmann::json x = nlohmann::json::array(), y = nlohmann::json::array();
  for (int i = 0; i < 60; ++i) {
    x.push_back(i);
    y.push_back(2 * i);
  }
  nlohmann::json body = {
      {"inputs",
       {{{"name", "x"}, {"shape", {3, 4, 5}}, {"datatype", "FP32"}, {"data", x}},
        {{"name", "y"}, {"shape", {3, 4, 5}}, {"datatype", "FP32"}, {"data", y}}}}};
  if (!id.empty()) body["id"] = id;
  return body.dump();
}

std::string gated_request_json(const std::string& parameters) {
  return R"({"inputs":[{"name":"input","shape":[1,4],"datatype":"FP32","data":[1,2,3,4]}],)"
         R"("parameters":)" +
         parameters + "}";
}

bool eventually(const std::function<bool()>& condition, std::chrono::milliseconds limit) {
  const auto deadline = std::chrono::steady_clock::now() + limit;
  while (!condition()) {
    if (std::chrono::steady_clock::now() > deadline) return false;
    std::this_thread::sleep_for(std::chrono::milliseconds(10));
  }
  return true;
}

bool wait_for_file(const fs::path& path) {
  return eventually([&] { return fs::exists(path); });
}

}  // namespace inferlab::serve
