#include "inferlab/backends/tensor_wire.h"

#include <array>
#include <utility>

namespace inferlab::backends {

namespace {

constexpr std::array<std::pair<DataType, std::string_view>, 13> kWireDtypes = {{
    {DataType::kFloat32, "float32"},
    {DataType::kFloat64, "float64"},
    {DataType::kFloat16, "float16"},
    {DataType::kBFloat16, "bfloat16"},
    {DataType::kInt8, "int8"},
    {DataType::kInt16, "int16"},
    {DataType::kInt32, "int32"},
    {DataType::kInt64, "int64"},
    {DataType::kUint8, "uint8"},
    {DataType::kUint16, "uint16"},
    {DataType::kUint32, "uint32"},
    {DataType::kUint64, "uint64"},
    {DataType::kBool, "bool"},
}};

// docs/worker-protocol.md lists these names; an unknown name reads as runtime.
constexpr std::array<std::pair<ErrorCode, std::string_view>, 11> kWireErrors = {{
    {ErrorCode::kInvalidArgument, "invalid_argument"},
    {ErrorCode::kInvalidModel, "invalid_model"},
    {ErrorCode::kUnsupported, "unsupported"},
    {ErrorCode::kIo, "io"},
    {ErrorCode::kOutOfRange, "out_of_range"},
    {ErrorCode::kLimitExceeded, "limit_exceeded"},
    {ErrorCode::kRuntime, "runtime"},
    {ErrorCode::kNotFound, "not_found"},
    {ErrorCode::kUnavailable, "unavailable"},
    {ErrorCode::kDeadlineExceeded, "deadline_exceeded"},
    {ErrorCode::kCancelled, "cancelled"},
}};
static_assert(kWireErrors.size() == std::size(kAllErrorCodes), "every ErrorCode needs a wire name");

}  // namespace

std::string wire_dtype_name(DataType dtype) {
  for (const auto& [type, name] : kWireDtypes)
    if (type == dtype) return std::string(name);
  fail(ErrorCode::kUnsupported, "element type {} cannot cross to another engine",
       dtype_name(dtype));
}

DataType parse_wire_dtype(std::string_view name) {
  for (const auto& [type, wire_name] : kWireDtypes)
    if (wire_name == name) return type;
  fail(ErrorCode::kInvalidArgument, "unknown element type '{}'", name);
}

std::string wire_error_code(ErrorCode code) {
  for (const auto& [error, name] : kWireErrors)
    if (error == code) return std::string(name);
  return "runtime";
}

ErrorCode parse_wire_error_code(std::string_view name) {
  for (const auto& [error, wire_name] : kWireErrors)
    if (wire_name == name) return error;
  return ErrorCode::kRuntime;
}

}  // namespace inferlab::backends
