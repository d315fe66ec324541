// An in-process InferenceServer on loopback port 0 over a repository made
// for the test, and curl to talk to it: what a KServe client sees.
#pragma once

#include <gtest/gtest.h>

#include <chrono>
#include <filesystem>
#include <functional>
#include <memory>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "inferlab/backends/registry.h"
#include "inferlab/serve/server/inference_server.h"
#include "test_util.h"

namespace inferlab::serve {

struct Answer {
  int status = 0;
  std::string body;
  std::string headers;  // the raw response headers
  nlohmann::json json() const { return nlohmann::json::parse(body); }
};

class ServerFixture : public ::testing::Test {
 protected:
  ServerFixture();
  ~ServerFixture() override;

  // REPO/<name>/1/model.onnx: an ONNX conformance model
  // (/usr/share/libonnx-testdata/data/node/<node_test>), by default test_add
  // (x + y, float[3, 4, 5]).
  void add_onnx_model(const std::string& name, const std::string& config_pbtxt = "",
                      const std::string& node_test = "test_add");
  // REPO/<name>/1/: the python fixture whose forward() waits while the
  // returned gate file exists (tests/serve/data/gated).
  std::string add_gated_model(const std::string& name, const std::string& config_pbtxt);
  void start(ServerOptions options = {});

  // curl -X method; `body_file` is sent as is; extra headers "Name: value".
  Answer request(const std::string& method, const std::string& target, const std::string& body = "",
                 const std::vector<std::string>& headers = {});
  Answer get(const std::string& target) { return request("GET", target); }
  Answer post(const std::string& target, const std::string& body = "",
              const std::vector<std::string>& headers = {}) {
    return request("POST", target, body, headers);
  }

  std::filesystem::path repository_;
  std::filesystem::path scratch_;
  std::ostringstream log_text_;
  std::unique_ptr<ServerLog> log_;
  std::unique_ptr<backends::BackendRegistry> registry_;
  std::unique_ptr<InferenceServer> server_;
  int requests_made_ = 0;
};

// {"inputs": [x, y]} for the Add model, x[i] = i, y[i] = 2 i.
std::string add_request_json(const std::string& id = "");
// A KServe request of the gated model's input [1, 4].
std::string gated_request_json(const std::string& parameters = "{}");
// Polls `condition` every 10 ms until it holds or `limit` passes (a bound
// against hanging, never a timing assertion); whether it held.
bool eventually(const std::function<bool()>& condition,
                std::chrono::milliseconds limit = std::chrono::seconds(60));
// Waits (up to 60 s) until `path` exists.
bool wait_for_file(const std::filesystem::path& path);

}  // namespace inferlab::serve
