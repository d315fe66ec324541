// Export of an optimized model back to ONNX (see onnx_export.h). The one
// idea: the IR maps one to one onto ModelProto, except the fused ai.inferlab
// operators, which their families lower first; value_info is not written
// (ONNX Runtime infers it, and stale hints would only mislead it).
#include "inferlab/optimizer/onnx_export.h"

#include <algorithm>
#include <fstream>

#include <onnx/onnx_pb.h>

#include "inferlab/core/error.h"
#include "inferlab/model/onnx_convert.h"
#include "inferlab/optimizer/fused_lowering.h"
#include "inferlab/optimizer/graph_editor.h"

namespace inferlab::optimizer {

namespace {

constexpr const char* kInferLabDomain = "ai.inferlab";
constexpr const char* kMicrosoftDomain = "com.microsoft";
constexpr const char* kFusedNodesAttribute = "fused_nodes";

void graph_to_proto(const model::Graph& graph, onnx::GraphProto* proto);

void value_info_to_proto(const model::ValueInfo& info, onnx::ValueInfoProto* proto) {
  proto->set_name(info.name);
  if (info.dtype == DataType::kUndefined) return;
  onnx::TypeProto_Tensor* tensor = proto->mutable_type()->mutable_tensor_type();
  tensor->set_elem_type(static_cast<int32_t>(info.dtype));
  if (!info.has_shape) return;
  onnx::TensorShapeProto* shape = tensor->mutable_shape();
  for (const model::Dim& dim : info.dims) {
    onnx::TensorShapeProto_Dimension* out = shape->add_dim();
    if (dim.is_static()) {
      out->set_dim_value(dim.value);
    } else if (!dim.symbol.empty()) {
      out->set_dim_param(dim.symbol);
    }
  }
}

void attribute_to_proto(const std::string& name, const model::Attribute& attribute,
                        onnx::AttributeProto* proto) {
  using A = onnx::AttributeProto;
  using Kind = model::Attribute::Kind;
  proto->set_name(name);
  switch (attribute.kind) {
    case Kind::kFloat:
      proto->set_type(A::FLOAT);
      proto->set_f(attribute.f);
      break;
    case Kind::kInt:
      proto->set_type(A::INT);
      proto->set_i(attribute.i);
      break;
    case Kind::kString:
      proto->set_type(A::STRING);
      proto->set_s(attribute.s);
      break;
    case Kind::kTensor:
      proto->set_type(A::TENSOR);
      model::tensor_to_proto(attribute.t, "", proto->mutable_t());
      break;
    case Kind::kGraph:
      proto->set_type(A::GRAPH);
      graph_to_proto(*attribute.g, proto->mutable_g());
      break;
    case Kind::kFloats:
      proto->set_type(A::FLOATS);
      for (float value : attribute.floats) proto->add_floats(value);
      break;
    case Kind::kInts:
      proto->set_type(A::INTS);
      for (int64_t value : attribute.ints) proto->add_ints(value);
      break;
    case Kind::kStrings:
      proto->set_type(A::STRINGS);
      for (const std::string& value : attribute.strings) proto->add_strings(value);
      break;
    case Kind::kTensors:
      proto->set_type(A::TENSORS);
      for (const Tensor& tensor : attribute.tensors) {
        model::tensor_to_proto(tensor, "", proto->add_tensors());
      }
      break;
  }
}

void node_to_proto(const model::Node& node, onnx::NodeProto* proto) {
  proto->set_name(node.name);
  proto->set_op_type(node.op_type);
  if (!node.domain.empty()) proto->set_domain(node.domain);
  for (const std::string& input : node.inputs) proto->add_input(input);
  for (const std::string& output : node.outputs) proto->add_output(output);
  for (const auto& [name, attribute] : node.attributes) {
    attribute_to_proto(name, attribute, proto->add_attribute());
  }
}

void graph_to_proto(const model::Graph& graph, onnx::GraphProto* proto) {
  proto->set_name(graph.name);
  for (const model::ValueInfo& input : graph.inputs) value_info_to_proto(input, proto->add_input());
  for (const model::ValueInfo& input : graph.overridable_initializers) {
    value_info_to_proto(input, proto->add_input());
  }
  for (const model::ValueInfo& output : graph.outputs) {
    value_info_to_proto(output, proto->add_output());
  }
  std::vector<std::string> names;
  for (const auto& [name, tensor] : graph.initializers) names.push_back(name);
  std::sort(names.begin(), names.end());  // deterministic files
  for (const std::string& name : names) {
    model::tensor_to_proto(graph.initializers.at(name), name, proto->add_initializer());
  }
  for (const model::Node& node : graph.nodes) node_to_proto(node, proto->add_node());
}

bool uses_domain(const model::Graph& graph, const std::string& domain) {
  for (const model::Node& node : graph.nodes) {
    if (node.domain == domain) return true;
    for (const auto& [key, attribute] : node.attributes) {
      if (attribute.kind == model::Attribute::Kind::kGraph && attribute.g &&
          uses_domain(*attribute.g, domain)) {
        return true;
      }
    }
  }
  return false;
}

// Offers every ai.inferlab node to the families; nodes they add are visited too.
void lower_fused_nodes(model::Model& model) {
  GraphEditor editor(*model.graph);
  for (size_t i = 0; i < model.graph->nodes.size(); ++i) {
    const int index = static_cast<int>(i);
    if (editor.is_removed(index) || model.graph->nodes[i].domain != kInferLabDomain) continue;
    if (lower_layout_family(editor, index) || lower_conv_family(editor, index) ||
        lower_transformer_family(editor, index))
      continue;
    const model::Node& node = model.graph->nodes[i];
    fail(ErrorCode::kUnsupported,
         "{}: cannot write node '{}' ({}::{}) as ONNX: no operator family lowers it", model.source,
         node.name, node.domain, node.op_type);
  }
  editor.compact();
}

// `fused_nodes` is InferLab's record of the ONNX nodes a fusion covers; ONNX
// Runtime rejects attributes its operators do not define.
void strip_inferlab_attributes(model::Graph& graph) {
  for (model::Node& node : graph.nodes) node.attributes.erase(kFusedNodesAttribute);
}

}  // namespace

model::Model export_for_onnxruntime(const model::Model& optimized) {
  if (!optimized.graph) {
    fail(ErrorCode::kInvalidModel, "{}: the model has no graph", optimized.source);
  }
  model::Model exported = optimized;
  exported.graph = std::make_shared<model::Graph>(*optimized.graph);
  exported.opsets[kMicrosoftDomain] = std::max<int64_t>(1, exported.opset_of(kMicrosoftDomain));
  lower_fused_nodes(exported);
  strip_inferlab_attributes(*exported.graph);
  exported.opsets.erase(kInferLabDomain);
  if (!uses_domain(*exported.graph, kMicrosoftDomain)) exported.opsets.erase(kMicrosoftDomain);
  return exported;
}

std::string serialize_model(const model::Model& model) {
  if (!model.graph) fail(ErrorCode::kInvalidModel, "{}: the model has no graph", model.source);
  onnx::ModelProto proto;
  proto.set_ir_version(model.ir_version > 0 ? model.ir_version
                                            : static_cast<int64_t>(onnx::IR_VERSION));
  proto.set_producer_name("inferlab-optimize");
  proto.set_producer_version(model.producer_version);
  for (const auto& [domain, version] : model.opsets) {
    onnx::OperatorSetIdProto* opset = proto.add_opset_import();
    opset->set_domain(domain == "ai.onnx" ? "" : domain);
    opset->set_version(version);
  }
  graph_to_proto(*model.graph, proto.mutable_graph());
  std::string bytes;
  if (!proto.SerializeToString(&bytes)) {
    fail(ErrorCode::kLimitExceeded, "{}: the model is too large to write as one ONNX file",
         model.source);
  }
  return bytes;
}

void write_model_file(const model::Model& model, const std::string& path) {
  const std::string bytes = serialize_model(model);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(ErrorCode::kIo, "cannot open '{}' for writing", path);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  if (!out) fail(ErrorCode::kIo, "cannot write '{}'", path);
}

}  // namespace inferlab::optimizer
