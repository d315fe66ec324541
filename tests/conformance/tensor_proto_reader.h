// Reads the test data's TensorProto `.pb` files into Tensors with the ONNX
// protobuf API. The runner reads expected outputs with this reader and inputs
// with model::read_tensor_pb, so that a bug in InferLab's reader shows up as
// a conformance failure instead of being hidden on both sides of the comparison.
#pragma once

#include <algorithm>
#include <cstring>
#include <fstream>
#include <iterator>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "inferlab/core/error.h"
#include "inferlab/core/tensor.h"

namespace inferlab::conformance {

namespace detail {

// Copies a typed repeated field into the tensor, converting each element.
template <typename T, typename Field>
void copy_typed_field(const Field& field, Tensor& tensor, const std::string& path) {
  if (field.size() != tensor.numel()) {
    fail(ErrorCode::kInvalidModel, "{}: {} values for {} elements", path, field.size(),
         tensor.numel());
  }
  T* out = tensor.data<T>();
  for (int i = 0; i < field.size(); ++i) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      out[i].bits = static_cast<uint16_t>(field.Get(i));
    } else {
      out[i] = static_cast<T>(field.Get(i));
    }
  }
}

inline void fill_from_typed_fields(const onnx::TensorProto& proto, Tensor& tensor,
                                   const std::string& path) {
  switch (tensor.dtype()) {
    case DataType::kFloat32:
      return copy_typed_field<float>(proto.float_data(), tensor, path);
    case DataType::kFloat64:
      return copy_typed_field<double>(proto.double_data(), tensor, path);
    case DataType::kInt64:
      return copy_typed_field<int64_t>(proto.int64_data(), tensor, path);
    case DataType::kUint32:
      return copy_typed_field<uint32_t>(proto.uint64_data(), tensor, path);
    case DataType::kUint64:
      return copy_typed_field<uint64_t>(proto.uint64_data(), tensor, path);
    case DataType::kInt32:
      return copy_typed_field<int32_t>(proto.int32_data(), tensor, path);
    case DataType::kInt16:
      return copy_typed_field<int16_t>(proto.int32_data(), tensor, path);
    case DataType::kInt8:
      return copy_typed_field<int8_t>(proto.int32_data(), tensor, path);
    case DataType::kUint16:
      return copy_typed_field<uint16_t>(proto.int32_data(), tensor, path);
    case DataType::kUint8:
      return copy_typed_field<uint8_t>(proto.int32_data(), tensor, path);
    case DataType::kBool:
      return copy_typed_field<bool>(proto.int32_data(), tensor, path);
    case DataType::kFloat16:
      return copy_typed_field<Float16>(proto.int32_data(), tensor, path);
    case DataType::kBFloat16:
      return copy_typed_field<BFloat16>(proto.int32_data(), tensor, path);
    case DataType::kString: {
      if (proto.string_data_size() != tensor.numel()) {
        fail(ErrorCode::kInvalidModel, "{}: {} strings for {} elements", path,
             proto.string_data_size(), tensor.numel());
      }
      auto* out = tensor.data<std::string>();
      for (int i = 0; i < proto.string_data_size(); ++i) out[i] = proto.string_data(i);
      return;
    }
    default:
      fail(ErrorCode::kUnsupported, "{}: element type {} is not supported", path,
           dtype_name(tensor.dtype()));
  }
}

}  // namespace detail

// `encoded_bytes` bounds the element count: every element takes at least one
// byte in any encoding, so a larger count means the file is not a TensorProto
// (a SequenceProto or OptionalProto read as one yields such garbage).
inline Tensor tensor_from_proto(const onnx::TensorProto& proto, const std::string& path,
                                size_t encoded_bytes) {
  if (!is_known_dtype(proto.data_type())) {
    fail(ErrorCode::kUnsupported, "{}: TensorProto data_type {} is not supported", path,
         proto.data_type());
  }
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    fail(ErrorCode::kUnsupported, "{}: external data in test tensors is not supported", path);
  }
  const auto& dims = proto.dims();
  const bool has_zero_dim = std::find(dims.begin(), dims.end(), 0) != dims.end();
  uint64_t elements = 1;
  for (const int64_t dim : dims) {
    if (dim < 0 || (!has_zero_dim && elements > encoded_bytes / static_cast<uint64_t>(dim))) {
      fail(ErrorCode::kInvalidModel, "{}: dims do not fit the file (not a TensorProto?)", path);
    }
    if (!has_zero_dim) elements *= static_cast<uint64_t>(dim);
  }
  Tensor tensor(static_cast<DataType>(proto.data_type()),
                Shape(proto.dims().begin(), proto.dims().end()));
  if (proto.has_raw_data() && tensor.dtype() != DataType::kString) {
    if (proto.raw_data().size() != tensor.nbytes()) {
      fail(ErrorCode::kInvalidModel, "{}: raw_data holds {} bytes, shape {} needs {}", path,
           proto.raw_data().size(), shape_to_string(tensor.shape()), tensor.nbytes());
    }
    if (tensor.nbytes() > 0)
      std::memcpy(tensor.raw_data(), proto.raw_data().data(), tensor.nbytes());
  } else {
    detail::fill_from_typed_fields(proto, tensor, path);
  }
  return tensor;
}

// Reads `path`; `name_out` receives the TensorProto's name (often empty).
inline Tensor read_tensor_proto_file(const std::string& path, std::string* name_out) {
  std::ifstream stream(path, std::ios::binary);
  if (!stream) fail(ErrorCode::kIo, "{}: cannot open", path);
  const std::string bytes((std::istreambuf_iterator<char>(stream)),
                          std::istreambuf_iterator<char>());
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) {
    fail(ErrorCode::kInvalidModel, "{}: not a TensorProto (sequence/optional data?)", path);
  }
  if (name_out) *name_out = proto.name();
  return tensor_from_proto(proto, path, bytes.size());
}

}  // namespace inferlab::conformance
