// Inputs in files: one tensor from .npy or ONNX TensorProto .pb (`run
// --input`), samples from a directory (`bench --inputs`), and the inputs a
// command fed written back as .npy (`run`/`bench --save-inputs`), in a layout
// `bench --inputs` reads again.
#pragma once

#include <string>
#include <vector>

#include "inferlab/backends/backend.h"

namespace inferlab::inputs {

// Reads a tensor from .npy or TensorProto .pb (by extension, else by content).
Tensor read_tensor_file(const std::string& path);

// The file an input or output NAME is written to: NAME.npy with '/' and ':'
// made '_'.
std::string npy_file_name(const std::string& tensor_name);

// Samples from `dir`, sorted by name: when `dir` holds <input>.npy for every
// input, that is one sample (what write_input_files writes); else, for a
// one-input model, every *.npy file is a sample; else every subdirectory
// holding <input>.npy is one. Throws Error naming the directory when it holds none.
std::vector<backends::TensorMap> samples_from_directory(
    const std::string& dir, const std::vector<model::ValueInfo>& inputs);

// Writes DIR/<input>.npy per tensor (npy_file_name), creating DIR.
void write_input_files(const std::string& dir, const backends::TensorMap& tensors);

}  // namespace inferlab::inputs
