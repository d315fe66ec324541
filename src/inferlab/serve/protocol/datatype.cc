#include "inferlab/serve/protocol/datatype.h"

#include <array>
#include <utility>

#include "inferlab/core/error.h"

namespace inferlab::serve {
namespace {

constexpr std::array<std::pair<std::string_view, DataType>, 13> kDatatypes = {{
    {"BOOL", DataType::kBool},
    {"UINT8", DataType::kUint8},
    {"UINT16", DataType::kUint16},
    {"UINT32", DataType::kUint32},
    {"UINT64", DataType::kUint64},
    {"INT8", DataType::kInt8},
    {"INT16", DataType::kInt16},
    {"INT32", DataType::kInt32},
    {"INT64", DataType::kInt64},
    {"FP16", DataType::kFloat16},
    {"FP32", DataType::kFloat32},
    {"FP64", DataType::kFloat64},
    {"BF16", DataType::kBFloat16},
}};

}  // namespace

std::string_view kserve_datatype(DataType dtype) {
  for (const auto& [name, type] : kDatatypes) {
    if (type == dtype) return name;
  }
  return {};
}

DataType datatype_from_kserve(std::string_view name, std::string_view tensor) {
  for (const auto& [known, type] : kDatatypes) {
    if (known == name) return type;
  }
  if (name == "BYTES") {
    fail(ErrorCode::kUnsupported,
         "tensor '{}': datatype BYTES is not supported (InferLab's engines take numeric tensors)",
         tensor);
  }
  fail(ErrorCode::kInvalidArgument,
       "tensor '{}': unknown datatype '{}' (expected BOOL, UINT8, UINT16, UINT32, UINT64, INT8, "
       "INT16, INT32, INT64, FP16, FP32, FP64 or BF16)",
       tensor, name);
}

}  // namespace inferlab::serve
