// KServe v2 / Open Inference Protocol tensor datatypes ("FP32", "INT64",
// "BOOL", ...) against InferLab's DataType.
#pragma once

#include <string_view>

#include "inferlab/core/data_type.h"

namespace inferlab::serve {

// The protocol's name of `dtype`; empty when the protocol has none.
std::string_view kserve_datatype(DataType dtype);

// The InferLab type of a protocol name. `tensor` names the input or output
// in the error: an unknown name is kInvalidArgument, "BYTES" kUnsupported
// (InferLab's engines take numeric tensors only).
DataType datatype_from_kserve(std::string_view name, std::string_view tensor);

}  // namespace inferlab::serve
