#include "test_util.h"

#include <sys/wait.h>

#include <array>
#include <cmath>
#include <cstdio>
#include <cstdlib>
#include <filesystem>
#include <fstream>
#include <random>
#include <sstream>

#include "inferlab/core/error.h"

namespace inferlab::testing {

namespace fs = std::filesystem;

std::string cache_dir() {
  if (const char* dir = std::getenv("INFERLAB_CACHE")) return dir;
  const char* home = std::getenv("HOME");
  return std::string(home ? home : "/tmp") + "/.cache/inferlab";
}

std::string source_dir() {
  if (const char* dir = std::getenv("INFERLAB_SOURCE_DIR")) return dir;
  return INFERLAB_SOURCE_DIR_PATH;
}

std::string cli_path() {
  if (const char* cli = std::getenv("INFERLAB_CLI")) return cli;
  return INFERLAB_CLI_PATH;
}

std::string make_temp_dir(const std::string& prefix) {
  std::string pattern = (fs::temp_directory_path() / (prefix + "-XXXXXX")).string();
  if (mkdtemp(pattern.data()) == nullptr) fail(ErrorCode::kIo, "mkdtemp {} failed", pattern);
  return pattern;
}

CommandResult run_command(const std::string& command) {
  const std::string dir = make_temp_dir("inferlab-cmd");
  const std::string out_path = dir + "/stdout";
  const std::string err_path = dir + "/stderr";
  const std::string full = command + " >" + out_path + " 2>" + err_path + " </dev/null";
  const int status = std::system(full.c_str());
  CommandResult result;
  if (WIFEXITED(status)) {
    result.exit_code = WEXITSTATUS(status);
    // /bin/sh reports a child killed by a signal as 128 + signal.
    if (result.exit_code > 128) result.signal = result.exit_code - 128;
  } else if (WIFSIGNALED(status)) {
    result.signal = WTERMSIG(status);
  }
  result.stdout_text = read_file(out_path);
  result.stderr_text = read_file(err_path);
  fs::remove_all(dir);
  return result;
}

void write_file(const std::string& path, const std::string& bytes) {
  std::ofstream out(path, std::ios::binary);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) fail(ErrorCode::kIo, "cannot write {}", path);
}

std::string read_file(const std::string& path) {
  std::ifstream in(path, std::ios::binary);
  std::stringstream buffer;
  buffer << in.rdbuf();
  return buffer.str();
}

Tensor random_float_tensor(const Shape& shape, uint32_t seed, float lo, float hi) {
  Tensor tensor(DataType::kFloat32, shape);
  std::mt19937 generator(seed);
  std::uniform_real_distribution<float> distribution(lo, hi);
  float* data = tensor.data<float>();
  for (int64_t i = 0; i < tensor.numel(); ++i) data[i] = distribution(generator);
  return tensor;
}

double relative_error(const Tensor& actual, const Tensor& reference) {
  if (actual.numel() != reference.numel()) return INFINITY;
  double max_diff = 0.0;
  double max_ref = 0.0;
  for (int64_t i = 0; i < actual.numel(); ++i) {
    const double a = actual.element_as_double(i);
    const double b = reference.element_as_double(i);
    if (std::isnan(a) != std::isnan(b)) return INFINITY;
    if (std::isnan(a)) continue;
    max_diff = std::max(max_diff, std::fabs(a - b));
    max_ref = std::max(max_ref, std::fabs(b));
  }
  return max_diff / std::max(1.0, max_ref);
}

double cosine_similarity(const Tensor& actual, const Tensor& reference) {
  double dot = 0.0, norm_a = 0.0, norm_b = 0.0;
  for (int64_t i = 0; i < std::min(actual.numel(), reference.numel()); ++i) {
    const double a = actual.element_as_double(i);
    const double b = reference.element_as_double(i);
    dot += a * b;
    norm_a += a * a;
    norm_b += b * b;
  }
  if (norm_a == 0.0 && norm_b == 0.0) return 1.0;
  return dot / (std::sqrt(norm_a) * std::sqrt(norm_b));
}

}  // namespace inferlab::testing
