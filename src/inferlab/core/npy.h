// Tensors as NumPy `.npy` files (format versions 1.0-3.0, little-endian,
// C order). Malformed files get an Error naming the file and the fault.
#pragma once

#include <cstdint>
#include <string>

#include "inferlab/core/tensor.h"

namespace inferlab {

Tensor read_npy(const std::string& path, int64_t max_tensor_bytes = int64_t{4} << 30);
Tensor parse_npy(const std::string& bytes, const std::string& source,
                 int64_t max_tensor_bytes = int64_t{4} << 30);
void write_npy(const std::string& path, const Tensor& tensor);
std::string serialize_npy(const Tensor& tensor);

}  // namespace inferlab
