// Inputs in files; see input_files.h.
#include "inferlab/inputs/input_files.h"

#include <algorithm>
#include <filesystem>
#include <fstream>
#include <optional>

#include "inferlab/core/npy.h"
#include "inferlab/model/tensor_file.h"

namespace inferlab::inputs {

namespace fs = std::filesystem;

namespace {

bool ends_with(const std::string& text, const std::string& suffix) {
  return text.size() >= suffix.size() &&
         text.compare(text.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// DIR/<input>.npy for every input, or nothing when one is missing.
std::optional<backends::TensorMap> one_sample(const fs::path& dir,
                                              const std::vector<model::ValueInfo>& inputs) {
  for (const model::ValueInfo& input : inputs)
    if (!fs::is_regular_file(dir / npy_file_name(input.name))) return std::nullopt;
  backends::TensorMap sample;
  for (const model::ValueInfo& input : inputs)
    sample[input.name] = read_npy((dir / npy_file_name(input.name)).string());
  return sample;
}

}  // namespace

Tensor read_tensor_file(const std::string& path) {
  if (ends_with(path, ".npy")) return read_npy(path);
  if (ends_with(path, ".pb")) return model::read_tensor_pb(path);
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(ErrorCode::kIo, "cannot open input file '{}'", path);
  char magic[6] = {};
  in.read(magic, sizeof(magic));
  const bool is_npy = in.gcount() == 6 && std::string(magic, 6) == "\x93NUMPY";
  return is_npy ? read_npy(path) : model::read_tensor_pb(path);
}

std::string npy_file_name(const std::string& tensor_name) {
  std::string name = tensor_name;
  std::replace(name.begin(), name.end(), '/', '_');
  std::replace(name.begin(), name.end(), ':', '_');
  return name + ".npy";
}

std::vector<backends::TensorMap> samples_from_directory(
    const std::string& dir, const std::vector<model::ValueInfo>& inputs) {
  if (!fs::is_directory(dir)) fail(ErrorCode::kIo, "--inputs {} is not a directory", dir);
  if (inputs.size() > 1) {
    if (auto sample = one_sample(dir, inputs)) return {std::move(*sample)};
  }
  std::vector<fs::path> entries;
  for (const auto& entry : fs::directory_iterator(dir)) entries.push_back(entry.path());
  std::sort(entries.begin(), entries.end());
  std::vector<backends::TensorMap> samples;
  for (const fs::path& entry : entries) {
    if (inputs.size() == 1 && entry.extension() == ".npy") {
      samples.push_back({{inputs[0].name, read_npy(entry.string())}});
    } else if (inputs.size() > 1 && fs::is_directory(entry)) {
      backends::TensorMap sample;  // a missing file is an error naming it
      for (const model::ValueInfo& input : inputs)
        sample[input.name] = read_npy((entry / npy_file_name(input.name)).string());
      samples.push_back(std::move(sample));
    }
  }
  if (samples.empty()) {
    fail(ErrorCode::kInvalidArgument, "--inputs {} holds no samples ({})", dir,
         inputs.size() == 1 ? "expected *.npy files"
                            : "expected <input>.npy files, or subdirectories of them");
  }
  return samples;
}

void write_input_files(const std::string& dir, const backends::TensorMap& tensors) {
  std::error_code error;
  fs::create_directories(dir, error);
  if (error) fail(ErrorCode::kIo, "cannot create the directory {}: {}", dir, error.message());
  for (const auto& [name, tensor] : tensors)
    write_npy((fs::path(dir) / npy_file_name(name)).string(), tensor);
}

}  // namespace inferlab::inputs
