// ONNX Runtime's element type enum and InferLab's DataType both use ONNX's
// TensorProto numbering, so element types convert by value.
#include "inferlab/backends/onnxruntime/ort_values.h"

#include <cstring>
#include <vector>

namespace inferlab::backends::ort {

DataType dtype_from_ort(ONNXTensorElementDataType type, const std::string& what) {
  const auto value = static_cast<int32_t>(type);
  if (type == ONNX_TENSOR_ELEMENT_DATA_TYPE_UNDEFINED || !is_known_dtype(value)) {
    fail(ErrorCode::kUnsupported,
         "onnxruntime: {} has an element type (ONNX type {}) InferLab does not store", what, value);
  }
  return static_cast<DataType>(value);
}

ONNXTensorElementDataType dtype_to_ort(DataType dtype, const std::string& what) {
  if (dtype == DataType::kUndefined) {
    fail(ErrorCode::kInvalidArgument, "onnxruntime: {} has no element type", what);
  }
  return static_cast<ONNXTensorElementDataType>(static_cast<int32_t>(dtype));
}

model::ValueInfo value_info_from_ort(const std::string& name, const Ort::TypeInfo& type_info) {
  if (type_info.GetONNXType() != ONNX_TYPE_TENSOR) {
    fail(
        ErrorCode::kUnsupported,
        "onnxruntime: value '{}' is not a tensor (sequences, maps and optionals are not supported)",
        name);
  }
  const auto tensor_info = type_info.GetTensorTypeAndShapeInfo();
  model::ValueInfo info;
  info.name = name;
  info.dtype = dtype_from_ort(tensor_info.GetElementType(), "value '" + name + "'");
  const std::vector<int64_t> dims = tensor_info.GetShape();
  const std::vector<const char*> symbols = tensor_info.GetSymbolicDimensions();
  info.has_shape = true;
  for (size_t i = 0; i < dims.size(); ++i) {
    if (dims[i] >= 0) {
      info.dims.push_back(model::Dim::fixed(dims[i]));
    } else {
      const char* symbol = i < symbols.size() ? symbols[i] : nullptr;
      info.dims.push_back(model::Dim::symbolic(symbol != nullptr ? symbol : ""));
    }
  }
  return info;
}

Ort::Value wrap_tensor(Tensor& tensor, const Ort::MemoryInfo& cpu_memory, OrtAllocator* allocator) {
  const Shape& shape = tensor.shape();
  if (tensor.numel() == 0) {
    // Nothing to wrap: an empty tensor may have no memory at all.
    return Ort::Value::CreateTensor(allocator, shape.data(), shape.size(),
                                    dtype_to_ort(tensor.dtype(), "a tensor"));
  }
  if (tensor.dtype() == DataType::kString) {
    Ort::Value value = Ort::Value::CreateTensor(allocator, shape.data(), shape.size(),
                                                ONNX_TENSOR_ELEMENT_DATA_TYPE_STRING);
    const auto* strings = static_cast<const std::string*>(tensor.raw_data());
    std::vector<const char*> pointers(static_cast<size_t>(tensor.numel()));
    for (size_t i = 0; i < pointers.size(); ++i) pointers[i] = strings[i].c_str();
    value.FillStringTensor(pointers.data(), pointers.size());
    return value;
  }
  return Ort::Value::CreateTensor(cpu_memory, tensor.raw_data(), tensor.nbytes(), shape.data(),
                                  shape.size(), dtype_to_ort(tensor.dtype(), "a tensor"));
}

Tensor copy_to_tensor(const Ort::Value& value, const std::string& name) {
  if (!value.IsTensor()) {
    fail(ErrorCode::kUnsupported, "onnxruntime: output '{}' is not a tensor", name);
  }
  const auto info = value.GetTensorTypeAndShapeInfo();
  Tensor tensor(dtype_from_ort(info.GetElementType(), "output '" + name + "'"), info.GetShape());
  if (tensor.dtype() == DataType::kString) {
    auto* strings = static_cast<std::string*>(tensor.raw_data());
    for (int64_t i = 0; i < tensor.numel(); ++i) {
      strings[i] = value.GetStringTensorElement(static_cast<size_t>(i));
    }
  } else if (tensor.nbytes() > 0) {
    std::memcpy(tensor.raw_data(), value.GetTensorRawData(), tensor.nbytes());
  }
  return tensor;
}

}  // namespace inferlab::backends::ort
