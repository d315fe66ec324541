#include "inferlab/core/data_type.h"

#include <string>

namespace inferlab {

size_t dtype_size(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32: return 4;
    case DataType::kFloat64: return 8;
    case DataType::kInt8: return 1;
    case DataType::kInt16: return 2;
    case DataType::kInt32: return 4;
    case DataType::kInt64: return 8;
    case DataType::kUint8: return 1;
    case DataType::kUint16: return 2;
    case DataType::kUint32: return 4;
    case DataType::kUint64: return 8;
    case DataType::kBool: return 1;
    case DataType::kFloat16: return 2;
    case DataType::kBFloat16: return 2;
    case DataType::kString: return sizeof(std::string);
    case DataType::kUndefined: return 0;
  }
  return 0;
}

std::string_view dtype_name(DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32: return "float";
    case DataType::kFloat64: return "double";
    case DataType::kInt8: return "int8";
    case DataType::kInt16: return "int16";
    case DataType::kInt32: return "int32";
    case DataType::kInt64: return "int64";
    case DataType::kUint8: return "uint8";
    case DataType::kUint16: return "uint16";
    case DataType::kUint32: return "uint32";
    case DataType::kUint64: return "uint64";
    case DataType::kBool: return "bool";
    case DataType::kFloat16: return "float16";
    case DataType::kBFloat16: return "bfloat16";
    case DataType::kString: return "string";
    case DataType::kUndefined: return "undefined";
  }
  return "unknown";
}

DataType parse_dtype(std::string_view name) {
  if (name == "float32") return DataType::kFloat32;
  if (name == "float64") return DataType::kFloat64;
  for (int32_t value = 1; value <= 16; ++value) {
    if (is_known_dtype(value) && dtype_name(static_cast<DataType>(value)) == name) {
      return static_cast<DataType>(value);
    }
  }
  fail(ErrorCode::kInvalidArgument, "unknown element type '{}'", name);
}

bool is_known_dtype(int32_t onnx_value) {
  return (onnx_value >= 1 && onnx_value <= 13) || onnx_value == 16;
}

bool is_float_dtype(DataType dtype) {
  return dtype == DataType::kFloat32 || dtype == DataType::kFloat64 ||
         dtype == DataType::kFloat16 || dtype == DataType::kBFloat16;
}

bool is_integer_dtype(DataType dtype) {
  switch (dtype) {
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kUint8:
    case DataType::kUint16:
    case DataType::kUint32:
    case DataType::kUint64: return true;
    default: return false;
  }
}

bool is_signed_dtype(DataType dtype) {
  switch (dtype) {
    case DataType::kInt8:
    case DataType::kInt16:
    case DataType::kInt32:
    case DataType::kInt64:
    case DataType::kFloat32:
    case DataType::kFloat64:
    case DataType::kFloat16:
    case DataType::kBFloat16: return true;
    default: return false;
  }
}

}  // namespace inferlab
