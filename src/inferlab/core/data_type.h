// Element types. The numeric values equal ONNX's TensorProto.DataType so the
// importer and the tensor files convert without a table.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <string_view>
#include <type_traits>

#include "inferlab/core/error.h"
#include "inferlab/core/float16.h"

namespace inferlab {

enum class DataType : int32_t {
  kUndefined = 0,
  kFloat32 = 1,
  kUint8 = 2,
  kInt8 = 3,
  kUint16 = 4,
  kInt16 = 5,
  kInt32 = 6,
  kInt64 = 7,
  kString = 8,
  kBool = 9,
  kFloat16 = 10,
  kFloat64 = 11,
  kUint32 = 12,
  kUint64 = 13,
  kBFloat16 = 16,
};

// Bytes per element; strings report sizeof(std::string) (they are stored as
// an array of std::string).
size_t dtype_size(DataType dtype);
// ONNX spelling: "float", "int64", "bool", "string", ...
std::string_view dtype_name(DataType dtype);
// Parses the names dtype_name returns (and "float32", "float64"); throws on others.
DataType parse_dtype(std::string_view name);
// True for the types ONNX defines and InferLab stores.
bool is_known_dtype(int32_t onnx_value);
bool is_float_dtype(DataType dtype);  // float16, bfloat16, float32, float64
bool is_integer_dtype(DataType dtype);
bool is_signed_dtype(DataType dtype);

template <typename T>
struct TypeTag {
  using type = T;
};

template <typename T>
constexpr DataType dtype_of() {
  if constexpr (std::is_same_v<T, float>) return DataType::kFloat32;
  else if constexpr (std::is_same_v<T, double>) return DataType::kFloat64;
  else if constexpr (std::is_same_v<T, int8_t>) return DataType::kInt8;
  else if constexpr (std::is_same_v<T, int16_t>) return DataType::kInt16;
  else if constexpr (std::is_same_v<T, int32_t>) return DataType::kInt32;
  else if constexpr (std::is_same_v<T, int64_t>) return DataType::kInt64;
  else if constexpr (std::is_same_v<T, uint8_t>) return DataType::kUint8;
  else if constexpr (std::is_same_v<T, uint16_t>) return DataType::kUint16;
  else if constexpr (std::is_same_v<T, uint32_t>) return DataType::kUint32;
  else if constexpr (std::is_same_v<T, uint64_t>) return DataType::kUint64;
  else if constexpr (std::is_same_v<T, bool>) return DataType::kBool;
  else if constexpr (std::is_same_v<T, Float16>) return DataType::kFloat16;
  else if constexpr (std::is_same_v<T, BFloat16>) return DataType::kBFloat16;
  else if constexpr (std::is_same_v<T, std::string>) return DataType::kString;
  else return DataType::kUndefined;
}

// Calls visitor(TypeTag<T>{}) for the C++ type of `dtype`, covering every
// numeric type and bool (not float16/bfloat16/string: use visit_any_dtype).
// `what` names the caller in the error for an unhandled type.
template <typename Visitor>
decltype(auto) visit_dtype(DataType dtype, std::string_view what, Visitor&& visitor) {
  switch (dtype) {
    case DataType::kFloat32: return visitor(TypeTag<float>{});
    case DataType::kFloat64: return visitor(TypeTag<double>{});
    case DataType::kInt8: return visitor(TypeTag<int8_t>{});
    case DataType::kInt16: return visitor(TypeTag<int16_t>{});
    case DataType::kInt32: return visitor(TypeTag<int32_t>{});
    case DataType::kInt64: return visitor(TypeTag<int64_t>{});
    case DataType::kUint8: return visitor(TypeTag<uint8_t>{});
    case DataType::kUint16: return visitor(TypeTag<uint16_t>{});
    case DataType::kUint32: return visitor(TypeTag<uint32_t>{});
    case DataType::kUint64: return visitor(TypeTag<uint64_t>{});
    case DataType::kBool: return visitor(TypeTag<bool>{});
    default:
      fail(ErrorCode::kUnsupported, "{}: element type {} is not supported", what, dtype_name(dtype));
  }
}

// Like visit_dtype, and also float16, bfloat16 and string.
template <typename Visitor>
decltype(auto) visit_any_dtype(DataType dtype, std::string_view what, Visitor&& visitor) {
  switch (dtype) {
    case DataType::kFloat16: return visitor(TypeTag<Float16>{});
    case DataType::kBFloat16: return visitor(TypeTag<BFloat16>{});
    case DataType::kString: return visitor(TypeTag<std::string>{});
    default: return visit_dtype(dtype, what, std::forward<Visitor>(visitor));
  }
}

// Only float32 and float64: for kernels ONNX defines on floating types.
template <typename Visitor>
decltype(auto) visit_float_dtype(DataType dtype, std::string_view what, Visitor&& visitor) {
  switch (dtype) {
    case DataType::kFloat32: return visitor(TypeTag<float>{});
    case DataType::kFloat64: return visitor(TypeTag<double>{});
    default:
      fail(ErrorCode::kUnsupported, "{}: element type {} is not supported (float or double expected)",
           what, dtype_name(dtype));
  }
}

}  // namespace inferlab
