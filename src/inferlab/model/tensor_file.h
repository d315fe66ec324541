// Tensors as ONNX TensorProto `.pb` files (the ONNX test-data format).
#pragma once

#include <cstdint>
#include <string>

#include "inferlab/core/tensor.h"

namespace inferlab::model {

// Reads a serialized TensorProto; `name_out` (optional) receives its name.
Tensor read_tensor_pb(const std::string& path, std::string* name_out = nullptr,
                      int64_t max_tensor_bytes = int64_t{4} << 30);
void write_tensor_pb(const std::string& path, const Tensor& tensor, const std::string& name = {});

}  // namespace inferlab::model
