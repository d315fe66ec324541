// Conversions between InferLab's types and ONNX Runtime's: element types,
// value descriptions (with symbolic dims), and tensors in both directions.
#pragma once

#include <string>

#include "inferlab/backends/onnxruntime/ort_api.h"
#include "inferlab/core/tensor.h"
#include "inferlab/model/graph.h"

namespace inferlab::backends::ort {

// Throws Error(kUnsupported) naming `what` for element types InferLab lacks.
DataType dtype_from_ort(ONNXTensorElementDataType type, const std::string& what);
ONNXTensorElementDataType dtype_to_ort(DataType dtype, const std::string& what);

// Name, element type and dims (symbol names where ORT knows them) of a tensor
// value; throws Error(kUnsupported) naming the value when it is not a tensor.
model::ValueInfo value_info_from_ort(const std::string& name, const Ort::TypeInfo& type_info);

// An Ort::Value over `tensor`'s memory (no copy: `tensor` must outlive it);
// string tensors are copied into ORT-owned memory.
Ort::Value wrap_tensor(Tensor& tensor, const Ort::MemoryInfo& cpu_memory, OrtAllocator* allocator);

// A new InferLab tensor holding a copy of a CPU-resident tensor value.
Tensor copy_to_tensor(const Ort::Value& value, const std::string& name);

}  // namespace inferlab::backends::ort
