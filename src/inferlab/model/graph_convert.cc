#include "inferlab/model/graph_convert.h"

#include <unordered_set>

#include "inferlab/core/error.h"

namespace inferlab::model {
namespace {

class GraphConverter {
 public:
  GraphConverter(const onnx::GraphProto& main, const ConvertContext& ctx,
                 std::vector<PendingRawData>* pending)
      : ctx_(ctx), pending_(pending) {
    collect_node_names(main);
  }

  std::shared_ptr<Graph> convert(onnx::GraphProto& proto, bool is_main);

 private:
  void collect_node_names(const onnx::GraphProto& proto);
  std::string unique_node_name(const onnx::NodeProto& node, int index);
  Tensor convert_tensor(onnx::TensorProto& proto, const std::string& what);
  void convert_initializers(onnx::GraphProto& proto, Graph& graph);
  void convert_inputs(const onnx::GraphProto& proto, bool is_main, Graph& graph);
  Node convert_node(onnx::NodeProto& proto, int index);
  Attribute convert_attribute(onnx::AttributeProto& proto, const std::string& where);

  const ConvertContext& ctx_;
  std::vector<PendingRawData>* pending_;  // null: copy tensor bytes at once
  std::unordered_set<std::string> used_names_;
};

void GraphConverter::collect_node_names(const onnx::GraphProto& proto) {
  for (const onnx::NodeProto& node : proto.node()) {
    if (!node.name().empty()) used_names_.insert(node.name());
    for (const onnx::AttributeProto& attr : node.attribute()) {
      if (attr.has_g()) collect_node_names(attr.g());
    }
  }
}

std::string GraphConverter::unique_node_name(const onnx::NodeProto& node, int index) {
  if (!node.name().empty()) return node.name();
  std::string name = fmt::format("{}_{}", node.op_type(), index);
  for (int suffix = 2; used_names_.count(name); ++suffix) {
    name = fmt::format("{}_{}_{}", node.op_type(), index, suffix);
  }
  used_names_.insert(name);
  return name;
}

Tensor GraphConverter::convert_tensor(onnx::TensorProto& proto, const std::string& what) {
  return pending_ != nullptr ? tensor_from_proto_deferred(proto, ctx_, what, *pending_)
                             : tensor_from_proto(proto, ctx_, what);
}

void GraphConverter::convert_initializers(onnx::GraphProto& proto, Graph& graph) {
  if (proto.sparse_initializer_size() > 0) {
    const onnx::SparseTensorProto& sparse = proto.sparse_initializer(0);
    fail(ErrorCode::kUnsupported, "{}: sparse initializer '{}' is not supported", ctx_.source,
         sparse.values().name());
  }
  for (onnx::TensorProto& tensor : *proto.mutable_initializer()) {
    if (tensor.name().empty()) {
      fail(ErrorCode::kInvalidModel, "{}: graph '{}' has an initializer without a name",
           ctx_.source, proto.name());
    }
    if (graph.initializers.count(tensor.name())) {
      fail(ErrorCode::kInvalidModel, "{}: initializer '{}' is defined twice", ctx_.source,
           tensor.name());
    }
    graph.initializers.emplace(tensor.name(),
                               convert_tensor(tensor, "initializer '" + tensor.name() + "'"));
  }
}

void GraphConverter::convert_inputs(const onnx::GraphProto& proto, bool is_main, Graph& graph) {
  for (const onnx::ValueInfoProto& input : proto.input()) {
    auto init = graph.initializers.find(input.name());
    if (init == graph.initializers.end()) {
      graph.inputs.push_back(
          value_info_from_proto(input, ctx_, "graph input '" + input.name() + "'", is_main));
      continue;
    }
    ValueInfo info =
        value_info_from_proto(input, ctx_, "initializer input '" + input.name() + "'", false);
    if (info.dtype == DataType::kUndefined) info.dtype = init->second.dtype();
    if (!info.has_shape) {
      info.has_shape = true;
      for (int64_t dim : init->second.shape()) info.dims.push_back(Dim::fixed(dim));
    }
    graph.overridable_initializers.push_back(std::move(info));
  }
}

Attribute GraphConverter::convert_attribute(onnx::AttributeProto& proto, const std::string& where) {
  using A = onnx::AttributeProto;
  Attribute attr;
  A::AttributeType type = proto.type();
  if (type == A::UNDEFINED) {  // IR < 2 files may leave it out: infer it from the set field
    if (proto.has_f())
      type = A::FLOAT;
    else if (proto.has_i())
      type = A::INT;
    else if (proto.has_s())
      type = A::STRING;
    else if (proto.has_t())
      type = A::TENSOR;
    else if (proto.has_g())
      type = A::GRAPH;
    else if (proto.floats_size())
      type = A::FLOATS;
    else if (proto.ints_size())
      type = A::INTS;
    else if (proto.strings_size())
      type = A::STRINGS;
    else if (proto.tensors_size())
      type = A::TENSORS;
    else
      fail(ErrorCode::kInvalidModel, "{}: {} has no type and no value", ctx_.source, where);
  }
  switch (type) {
    case A::FLOAT:
      attr.kind = Attribute::Kind::kFloat;
      attr.f = proto.f();
      break;
    case A::INT:
      attr.kind = Attribute::Kind::kInt;
      attr.i = proto.i();
      break;
    case A::STRING:
      attr.kind = Attribute::Kind::kString;
      attr.s = proto.s();
      break;
    case A::TENSOR:
      attr.kind = Attribute::Kind::kTensor;
      // mutable_t() and mutable_g() would add a missing field to the message.
      attr.t = proto.has_t() ? convert_tensor(*proto.mutable_t(), where)
                             : tensor_from_proto(proto.t(), ctx_, where);
      break;
    case A::GRAPH:
      attr.kind = Attribute::Kind::kGraph;
      if (proto.has_g()) {
        attr.g = convert(*proto.mutable_g(), false);
      } else {
        onnx::GraphProto empty;
        attr.g = convert(empty, false);
      }
      break;
    case A::FLOATS:
      attr.kind = Attribute::Kind::kFloats;
      attr.floats.assign(proto.floats().begin(), proto.floats().end());
      break;
    case A::INTS:
      attr.kind = Attribute::Kind::kInts;
      attr.ints.assign(proto.ints().begin(), proto.ints().end());
      break;
    case A::STRINGS:
      attr.kind = Attribute::Kind::kStrings;
      attr.strings.assign(proto.strings().begin(), proto.strings().end());
      break;
    case A::TENSORS:
      attr.kind = Attribute::Kind::kTensors;
      for (int i = 0; i < proto.tensors_size(); ++i) {
        attr.tensors.push_back(
            convert_tensor(*proto.mutable_tensors(i), fmt::format("{} tensor {}", where, i)));
      }
      break;
    default:
      fail(ErrorCode::kUnsupported, "{}: {} has type {}, which InferLab does not support",
           ctx_.source, where, A::AttributeType_Name(type));
  }
  return attr;
}

Node GraphConverter::convert_node(onnx::NodeProto& proto, int index) {
  Node node;
  node.name = unique_node_name(proto, index);
  node.op_type = proto.op_type();
  if (node.op_type.empty()) {
    fail(ErrorCode::kInvalidModel, "{}: node '{}' has no operator type", ctx_.source, node.name);
  }
  node.domain = proto.domain() == "ai.onnx" ? std::string() : proto.domain();
  node.inputs.assign(proto.input().begin(), proto.input().end());
  node.outputs.assign(proto.output().begin(), proto.output().end());
  for (onnx::AttributeProto& attr : *proto.mutable_attribute()) {
    const std::string where =
        fmt::format("attribute '{}' of node '{}' ({})", attr.name(), node.name, node.op_type);
    if (attr.name().empty()) {
      fail(ErrorCode::kInvalidModel, "{}: node '{}' ({}) has an attribute without a name",
           ctx_.source, node.name, node.op_type);
    }
    if (!node.attributes.emplace(attr.name(), convert_attribute(attr, where)).second) {
      fail(ErrorCode::kInvalidModel, "{}: {} is given twice", ctx_.source, where);
    }
  }
  return node;
}

std::shared_ptr<Graph> GraphConverter::convert(onnx::GraphProto& proto, bool is_main) {
  auto graph = std::make_shared<Graph>();
  graph->name = proto.name();
  convert_initializers(proto, *graph);
  convert_inputs(proto, is_main, *graph);
  for (const onnx::ValueInfoProto& output : proto.output()) {
    graph->outputs.push_back(
        value_info_from_proto(output, ctx_, "graph output '" + output.name() + "'", false));
  }
  for (const onnx::ValueInfoProto& info : proto.value_info()) {
    // value_info is a hint: entries InferLab cannot represent are skipped.
    if (!info.type().has_tensor_type()) continue;
    const int32_t elem_type = info.type().tensor_type().elem_type();
    if (elem_type != 0 && !is_known_dtype(elem_type)) continue;
    graph->value_info[info.name()] =
        value_info_from_proto(info, ctx_, "value_info '" + info.name() + "'", false);
  }
  graph->nodes.reserve(static_cast<size_t>(proto.node_size()));
  for (int i = 0; i < proto.node_size(); ++i)
    graph->nodes.push_back(convert_node(*proto.mutable_node(i), i));
  return graph;
}

}  // namespace

std::shared_ptr<Graph> convert_main_graph(onnx::GraphProto& proto, const ConvertContext& ctx,
                                          std::vector<PendingRawData>* pending) {
  GraphConverter converter(proto, ctx, pending);
  return converter.convert(proto, true);
}

}  // namespace inferlab::model
