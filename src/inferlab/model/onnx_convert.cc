// TensorProto -> Tensor: raw_data (little-endian), the typed repeated fields
// ONNX assigns to each element type, or external data; and ValueInfoProto ->
// ValueInfo. Sizes are validated before allocation so a hostile file cannot
// make InferLab allocate more than max_tensor_bytes per tensor.
#include "inferlab/model/onnx_convert.h"

#include <cstring>

#include "inferlab/core/error.h"
#include "inferlab/model/external_data.h"

namespace inferlab::model {
namespace {

Shape tensor_shape(const onnx::TensorProto& proto, const ConvertContext& ctx,
                   const std::string& what) {
  Shape shape;
  shape.reserve(static_cast<size_t>(proto.dims_size()));
  for (int64_t dim : proto.dims()) {
    if (dim < 0)
      fail(ErrorCode::kInvalidModel, "{}: {} has a negative dimension {}", ctx.source, what, dim);
    shape.push_back(dim);
  }
  return shape;
}

// Bytes the tensor will occupy in memory (strings: the string objects only,
// their characters are bounded by the file size).
int64_t checked_tensor_bytes(DataType dtype, const Shape& shape, const ConvertContext& ctx,
                             const std::string& what) {
  int64_t numel = 1;
  for (int64_t dim : shape) {
    if (dim != 0 && numel > INT64_MAX / dim) {
      fail(ErrorCode::kLimitExceeded, "{}: {} with shape {} has too many elements (overflow)",
           ctx.source, what, shape_to_string(shape));
    }
    numel *= dim;
  }
  const auto element_bytes = static_cast<int64_t>(dtype_size(dtype));
  if (numel != 0 && numel > INT64_MAX / element_bytes) {
    fail(ErrorCode::kLimitExceeded, "{}: {} with shape {} is too large (overflow)", ctx.source,
         what, shape_to_string(shape));
  }
  const int64_t bytes = numel * element_bytes;
  if (bytes > ctx.max_tensor_bytes) {
    fail(ErrorCode::kLimitExceeded,
         "{}: {} needs {} bytes ({} {}), more than max_tensor_bytes = {}", ctx.source, what, bytes,
         shape_to_string(shape), dtype_name(dtype), ctx.max_tensor_bytes);
  }
  return bytes;
}

void check_count(int64_t count, const Tensor& tensor, const char* field, const ConvertContext& ctx,
                 const std::string& what) {
  if (count != tensor.numel()) {
    fail(ErrorCode::kInvalidModel, "{}: {} has {} values in {} but its dims {} need {}", ctx.source,
         what, count, field, shape_to_string(tensor.shape()), tensor.numel());
  }
}

template <typename T, typename Field, typename Convert>
void copy_field(const Field& field, const char* field_name, Tensor& tensor,
                const ConvertContext& ctx, const std::string& what, Convert convert) {
  check_count(field.size(), tensor, field_name, ctx, what);
  T* out = tensor.data<T>();
  for (int i = 0; i < field.size(); ++i) out[i] = convert(field.Get(i));
}

// Fills `tensor` from the typed repeated field ONNX uses for its element type.
void copy_typed_fields(const onnx::TensorProto& proto, Tensor& tensor, const ConvertContext& ctx,
                       const std::string& what) {
  const auto& i32 = proto.int32_data();
  const auto half_bits = [](int32_t v) { return static_cast<uint16_t>(v & 0xffff); };
  switch (tensor.dtype()) {
    case DataType::kFloat32:
      return copy_field<float>(proto.float_data(), "float_data", tensor, ctx, what,
                               [](float v) { return v; });
    case DataType::kFloat64:
      return copy_field<double>(proto.double_data(), "double_data", tensor, ctx, what,
                                [](double v) { return v; });
    case DataType::kInt64:
      return copy_field<int64_t>(proto.int64_data(), "int64_data", tensor, ctx, what,
                                 [](int64_t v) { return v; });
    case DataType::kUint32:
      return copy_field<uint32_t>(proto.uint64_data(), "uint64_data", tensor, ctx, what,
                                  [](uint64_t v) { return static_cast<uint32_t>(v); });
    case DataType::kUint64:
      return copy_field<uint64_t>(proto.uint64_data(), "uint64_data", tensor, ctx, what,
                                  [](uint64_t v) { return v; });
    case DataType::kInt32:
      return copy_field<int32_t>(i32, "int32_data", tensor, ctx, what, [](int32_t v) { return v; });
    case DataType::kInt16:
      return copy_field<int16_t>(i32, "int32_data", tensor, ctx, what,
                                 [](int32_t v) { return static_cast<int16_t>(v); });
    case DataType::kInt8:
      return copy_field<int8_t>(i32, "int32_data", tensor, ctx, what,
                                [](int32_t v) { return static_cast<int8_t>(v); });
    case DataType::kUint16:
      return copy_field<uint16_t>(i32, "int32_data", tensor, ctx, what,
                                  [](int32_t v) { return static_cast<uint16_t>(v); });
    case DataType::kUint8:
      return copy_field<uint8_t>(i32, "int32_data", tensor, ctx, what,
                                 [](int32_t v) { return static_cast<uint8_t>(v); });
    case DataType::kBool:
      return copy_field<bool>(i32, "int32_data", tensor, ctx, what,
                              [](int32_t v) { return v != 0; });
    case DataType::kFloat16:
      return copy_field<Float16>(i32, "int32_data", tensor, ctx, what,
                                 [&](int32_t v) { return Float16{half_bits(v)}; });
    case DataType::kBFloat16:
      return copy_field<BFloat16>(i32, "int32_data", tensor, ctx, what,
                                  [&](int32_t v) { return BFloat16{half_bits(v)}; });
    case DataType::kString:
      return copy_field<std::string>(proto.string_data(), "string_data", tensor, ctx, what,
                                     [](const std::string& v) { return v; });
    case DataType::kUndefined:
      break;
  }
}

// `raw` holds exactly tensor.nbytes() bytes (checked by the caller).
void copy_raw_bytes(const std::string& raw, Tensor& tensor) {
  if (tensor.dtype() == DataType::kBool) {
    auto* out = tensor.data<bool>();
    for (size_t i = 0; i < raw.size(); ++i) out[i] = raw[i] != 0;
    return;
  }
  if (tensor.nbytes() > 0) std::memcpy(tensor.raw_data(), raw.data(), tensor.nbytes());
}

// Number of values in the repeated field ONNX uses for `dtype`.
int64_t typed_field_count(const onnx::TensorProto& proto, DataType dtype) {
  switch (dtype) {
    case DataType::kFloat32:
      return proto.float_data_size();
    case DataType::kFloat64:
      return proto.double_data_size();
    case DataType::kInt64:
      return proto.int64_data_size();
    case DataType::kUint32:
    case DataType::kUint64:
      return proto.uint64_data_size();
    case DataType::kString:
      return proto.string_data_size();
    default:
      return proto.int32_data_size();
  }
}

DataType checked_dtype(int32_t onnx_type, const ConvertContext& ctx, const std::string& what) {
  if (onnx_type == 0)
    fail(ErrorCode::kInvalidModel, "{}: {} has an undefined element type", ctx.source, what);
  if (!is_known_dtype(onnx_type)) {
    fail(ErrorCode::kUnsupported,
         "{}: {} has element type {} ({}), which InferLab does not support", ctx.source, what,
         onnx_type,
         onnx::TensorProto_DataType_IsValid(onnx_type)
             ? onnx::TensorProto_DataType_Name(static_cast<onnx::TensorProto_DataType>(onnx_type))
             : std::string("unknown"));
  }
  return static_cast<DataType>(onnx_type);
}

// tensor_from_proto; with `pending`, raw_data (at `raw_data`, the same field
// as proto.raw_data()) is queued instead of copied.
Tensor convert_tensor(const onnx::TensorProto& proto, const ConvertContext& ctx,
                      const std::string& what, std::string* raw_data,
                      std::vector<PendingRawData>* pending) {
  const DataType dtype = checked_dtype(proto.data_type(), ctx, what);
  if (proto.has_segment()) {
    fail(ErrorCode::kUnsupported, "{}: {} is a segmented tensor, which InferLab does not support",
         ctx.source, what);
  }
  const Shape shape = tensor_shape(proto, ctx, what);
  const int64_t bytes = checked_tensor_bytes(dtype, shape, ctx, what);
  if (proto.data_location() == onnx::TensorProto::EXTERNAL) {
    if (dtype == DataType::kString) {
      fail(ErrorCode::kUnsupported, "{}: {} is a string tensor in external data", ctx.source, what);
    }
    Tensor tensor(dtype, shape);
    read_external_data(proto, ctx, what, tensor.raw_data(), bytes);
    if (dtype == DataType::kBool) {
      auto* values = static_cast<uint8_t*>(tensor.raw_data());
      for (int64_t i = 0; i < bytes; ++i) values[i] = values[i] != 0;
    }
    return tensor;
  }
  // Compare the file's value count with the dims before allocating.
  const int64_t numel = shape_numel(shape);
  if (proto.has_raw_data() && dtype == DataType::kString) {
    fail(ErrorCode::kInvalidModel,
         "{}: {} is a string tensor with raw_data (strings use string_data)", ctx.source, what);
  }
  if (proto.has_raw_data()) {
    if (proto.raw_data().size() != static_cast<size_t>(bytes)) {
      fail(ErrorCode::kInvalidModel, "{}: {} has {} bytes of raw_data but its dims {} need {}",
           ctx.source, what, proto.raw_data().size(), shape_to_string(shape), bytes);
    }
    if (pending != nullptr) {
      Tensor tensor = Tensor::uninitialized(dtype, shape);
      pending->push_back({tensor, raw_data});
      return tensor;
    }
    Tensor tensor(dtype, shape);
    copy_raw_bytes(proto.raw_data(), tensor);
    return tensor;
  }
  if (typed_field_count(proto, dtype) != numel) {
    fail(ErrorCode::kInvalidModel, "{}: {} has {} values but its dims {} need {}", ctx.source, what,
         typed_field_count(proto, dtype), shape_to_string(shape), numel);
  }
  Tensor tensor(dtype, shape);
  copy_typed_fields(proto, tensor, ctx, what);
  return tensor;
}

}  // namespace

Tensor tensor_from_proto(const onnx::TensorProto& proto, const ConvertContext& ctx,
                         const std::string& what) {
  return convert_tensor(proto, ctx, what, nullptr, nullptr);
}

Tensor tensor_from_proto_deferred(onnx::TensorProto& proto, const ConvertContext& ctx,
                                  const std::string& what, std::vector<PendingRawData>& pending) {
  // mutable_raw_data() would mark an absent field present: ask only when it is.
  if (!proto.has_raw_data() || proto.data_location() == onnx::TensorProto::EXTERNAL)
    return tensor_from_proto(proto, ctx, what);
  return convert_tensor(proto, ctx, what, proto.mutable_raw_data(), &pending);
}

void take_pending_raw_data(std::vector<PendingRawData>& pending) {
  for (PendingRawData& item : pending) {
    copy_raw_bytes(*item.raw_data, item.tensor);
    std::string().swap(*item.raw_data);  // clear() would keep the capacity
  }
  pending.clear();
}

void tensor_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto) {
  proto->Clear();
  if (!name.empty()) proto->set_name(name);
  proto->set_data_type(static_cast<int32_t>(tensor.dtype()));
  for (int64_t dim : tensor.shape()) proto->add_dims(dim);
  if (tensor.dtype() == DataType::kString) {
    const auto* strings = tensor.data<std::string>();
    for (int64_t i = 0; i < tensor.numel(); ++i) proto->add_string_data(strings[i]);
    return;
  }
  proto->set_raw_data(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
}

ValueInfo value_info_from_proto(const onnx::ValueInfoProto& proto, const ConvertContext& ctx,
                                const std::string& what, bool strict) {
  ValueInfo info;
  info.name = proto.name();
  if (!proto.has_type()) {
    if (strict) fail(ErrorCode::kInvalidModel, "{}: {} has no type", ctx.source, what);
    return info;
  }
  if (!proto.type().has_tensor_type()) {
    fail(ErrorCode::kUnsupported, "{}: {} is not a tensor (InferLab supports tensor values only)",
         ctx.source, what);
  }
  const onnx::TypeProto_Tensor& type = proto.type().tensor_type();
  if (type.elem_type() != 0 || strict) info.dtype = checked_dtype(type.elem_type(), ctx, what);
  if (!type.has_shape()) return info;
  info.has_shape = true;
  for (const onnx::TensorShapeProto_Dimension& dim : type.shape().dim()) {
    if (dim.has_dim_value() && dim.dim_value() >= 0)
      info.dims.push_back(Dim::fixed(dim.dim_value()));
    else if (dim.has_dim_param())
      info.dims.push_back(Dim::symbolic(dim.dim_param()));
    else
      info.dims.push_back(Dim::symbolic(""));
  }
  return info;
}

}  // namespace inferlab::model
