// Shared helpers for InferLab's tests: where data lives, running the CLI,
// building tensors, and the project's accuracy measure.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "inferlab/core/tensor.h"

namespace inferlab::testing {

// The model/data cache (INFERLAB_CACHE, else ~/.cache/inferlab).
std::string cache_dir();
// The repository root (INFERLAB_SOURCE_DIR, set by ctest).
std::string source_dir();
// The inferlab CLI binary (INFERLAB_CLI, set by ctest).
std::string cli_path();
// A fresh empty directory under the system temp dir, removed by the caller or left.
std::string make_temp_dir(const std::string& prefix);

struct CommandResult {
  int exit_code = -1;  // -1 and `signal` set when killed by a signal
  int signal = 0;
  std::string stdout_text;
  std::string stderr_text;
};
// Runs `command` through /bin/sh, capturing both streams.
CommandResult run_command(const std::string& command);

void write_file(const std::string& path, const std::string& bytes);
std::string read_file(const std::string& path);

// Uniform random float tensor in [lo, hi) from a fixed seed.
Tensor random_float_tensor(const Shape& shape, uint32_t seed, float lo = -1.0f, float hi = 1.0f);

// err = max|a - b| / max(1, max|ref|) over float tensors (float32/float64).
double relative_error(const Tensor& actual, const Tensor& reference);
double cosine_similarity(const Tensor& actual, const Tensor& reference);

}  // namespace inferlab::testing
