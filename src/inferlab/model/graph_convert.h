// GraphProto -> Graph: initializers, inputs (initializers listed as inputs
// become overridable_initializers), outputs, value_info, nodes with their
// attributes, and subgraphs (If/Loop/Scan bodies) recursively. Nodes without a
// name get a unique generated one. Ordering and validation: validate.h.
#pragma once

#include <memory>
#include <vector>

#include <onnx/onnx_pb.h>

#include "inferlab/model/graph.h"
#include "inferlab/model/onnx_convert.h"

namespace inferlab::model {

// With `pending`, raw tensor bytes are left in `proto` and queued there
// (tensor_from_proto_deferred); without, they are copied, and `proto` is not
// modified.
std::shared_ptr<Graph> convert_main_graph(onnx::GraphProto& proto, const ConvertContext& ctx,
                                          std::vector<PendingRawData>* pending = nullptr);

}  // namespace inferlab::model
