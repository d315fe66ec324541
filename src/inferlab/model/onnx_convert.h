// Conversions from ONNX protobuf messages (TensorProto, ValueInfoProto) into
// InferLab's Tensor and ValueInfo, and back for tensors. Everything read from
// the file is checked before any memory is allocated for it: element counts
// against dims, sizes for overflow and against max_tensor_bytes.
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include <onnx/onnx_pb.h>

#include "inferlab/core/tensor.h"
#include "inferlab/model/graph.h"

namespace inferlab::model {

// What every conversion needs to know to check sizes and name the culprit.
struct ConvertContext {
  std::string source;    // model or tensor file path ("<memory>" for bytes); starts every error
  std::string base_dir;  // directory anchoring external data; empty: external data rejected
  int64_t max_tensor_bytes = int64_t{4} << 30;
};

// `what` names the tensor in errors, e.g. "initializer 'conv1.weight'".
Tensor tensor_from_proto(const onnx::TensorProto& proto, const ConvertContext& ctx,
                         const std::string& what);

// A tensor allocated but not filled yet, and the message field holding its
// bytes (raw_data of a message the caller is about to discard).
struct PendingRawData {
  Tensor tensor;
  std::string* raw_data = nullptr;
};
// As tensor_from_proto, with every check done now, except that raw_data is not
// copied: the tensor is allocated untouched and queued in `pending`, for
// take_pending_raw_data once nothing else reads the message (the ONNX
// checker). Other encodings are converted at once.
Tensor tensor_from_proto_deferred(onnx::TensorProto& proto, const ConvertContext& ctx,
                                  const std::string& what, std::vector<PendingRawData>& pending);
// Copies each pending tensor's bytes and frees its raw_data field right away,
// so the weights are never held twice over (the message's copy and the
// tensors) beyond one tensor at a time. Leaves `pending` empty.
void take_pending_raw_data(std::vector<PendingRawData>& pending);
// Stores raw little-endian data (string_data for strings).
void tensor_to_proto(const Tensor& tensor, const std::string& name, onnx::TensorProto* proto);

// `strict`: the type must be a tensor type with a defined element type (graph
// inputs); otherwise a missing type gives dtype kUndefined and an unknown rank.
ValueInfo value_info_from_proto(const onnx::ValueInfoProto& proto, const ConvertContext& ctx,
                                const std::string& what, bool strict);

}  // namespace inferlab::model
