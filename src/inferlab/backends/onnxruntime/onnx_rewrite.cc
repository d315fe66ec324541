// Reading and rewriting the ONNX file for the plugin (see onnx_rewrite.h).
#include "inferlab/backends/onnxruntime/onnx_rewrite.h"

#include <onnx/onnx_pb.h>
#include <onnx/shape_inference/implementation.h>

#include <set>

#include "inferlab/core/error.h"
#include "inferlab/model/file_io.h"

namespace inferlab::backends::ort {

namespace {

// Protobuf refuses messages of 2 GiB and more; larger models keep their
// weights in external data files.
constexpr int64_t kMaxModelFileBytes = (int64_t{1} << 31) - 1;

const onnx::ValueInfoProto* find_value_info(
    const google::protobuf::RepeatedPtrField<onnx::ValueInfoProto>& infos,
    const std::string& name) {
  for (const onnx::ValueInfoProto& info : infos) {
    if (info.name() == name) return &info;
  }
  return nullptr;
}

// The type of `name` as the graph declares it, or nullptr.
const onnx::TypeProto* declared_type(const onnx::GraphProto& graph, const std::string& name) {
  for (const auto* infos : {&graph.value_info(), &graph.input(), &graph.output()}) {
    const onnx::ValueInfoProto* info = find_value_info(*infos, name);
    if (info != nullptr && info->has_type() &&
        info->type().tensor_type().elem_type() != onnx::TensorProto::UNDEFINED) {
      return &info->type();
    }
  }
  return nullptr;
}

bool is_initializer(const onnx::GraphProto& graph, const std::string& name, onnx::TypeProto* type) {
  for (const onnx::TensorProto& tensor : graph.initializer()) {
    if (tensor.name() != name) continue;
    auto* tensor_type = type->mutable_tensor_type();
    tensor_type->set_elem_type(tensor.data_type());
    for (int64_t dim : tensor.dims()) tensor_type->mutable_shape()->add_dim()->set_dim_value(dim);
    return true;
  }
  return false;
}

std::set<std::string> main_graph_values(const onnx::GraphProto& graph) {
  std::set<std::string> names;
  for (const onnx::ValueInfoProto& input : graph.input()) names.insert(input.name());
  for (const onnx::TensorProto& tensor : graph.initializer()) names.insert(tensor.name());
  for (const onnx::NodeProto& node : graph.node()) {
    for (const std::string& output : node.output()) {
      if (!output.empty()) names.insert(output);
    }
  }
  return names;
}

}  // namespace

OnnxFile::OnnxFile(const std::string& path)
    : path_(path), model_(std::make_unique<onnx::ModelProto>()) {
  const std::string bytes = model::read_whole_file(path, kMaxModelFileBytes);
  if (!model_->ParseFromString(bytes)) {
    fail(ErrorCode::kInvalidModel, "onnxruntime: model {}: not a valid ONNX protobuf", path);
  }
}

OnnxFile::~OnnxFile() = default;

std::map<std::string, int64_t> OnnxFile::free_dimension_sizes(
    const std::map<std::string, Shape>& input_shapes) const {
  std::map<std::string, int64_t> sizes;
  for (const auto& [name, shape] : input_shapes) {
    const onnx::ValueInfoProto* input = find_value_info(model_->graph().input(), name);
    if (input == nullptr) {
      fail(ErrorCode::kInvalidArgument,
           "onnxruntime: model {}: input_shapes names '{}', which is not an input", path_, name);
    }
    const auto& dims = input->type().tensor_type().shape().dim();
    if (input->type().tensor_type().has_shape() && dims.size() != static_cast<int>(shape.size())) {
      fail(ErrorCode::kInvalidArgument,
           "onnxruntime: model {}: input_shapes gives '{}' rank {}, the model declares rank {}",
           path_, name, shape.size(), dims.size());
    }
    for (int i = 0; i < dims.size(); ++i) {
      const int64_t size = shape[static_cast<size_t>(i)];
      if (dims[i].has_dim_value() && dims[i].dim_value() != size) {
        fail(ErrorCode::kInvalidArgument,
             "onnxruntime: model {}: input_shapes gives '{}' dim {} size {}, the model fixes it at "
             "{}",
             path_, name, i, size, dims[i].dim_value());
      }
      if (!dims[i].has_dim_param() || dims[i].dim_param().empty()) continue;
      auto [it, inserted] = sizes.emplace(dims[i].dim_param(), size);
      if (!inserted && it->second != size) {
        fail(ErrorCode::kInvalidArgument,
             "onnxruntime: model {}: input_shapes sets dim '{}' to both {} and {}", path_,
             dims[i].dim_param(), it->second, size);
      }
    }
  }
  return sizes;
}

std::string OnnxFile::with_extra_outputs(const std::vector<std::string>& value_names,
                                         size_t* added) {
  *added = 0;
  onnx::GraphProto& graph = *model_->mutable_graph();
  const std::set<std::string> values = main_graph_values(graph);
  bool inferred = false;
  for (const std::string& name : value_names) {
    if (find_value_info(graph.output(), name) != nullptr) continue;
    if (values.count(name) == 0) {
      fail(ErrorCode::kInvalidArgument,
           "onnxruntime: model {}: extra output '{}' is not a value of the main graph", path_,
           name);
    }
    onnx::TypeProto type;
    if (!is_initializer(graph, name, &type)) {
      if (declared_type(graph, name) == nullptr && !inferred) {
        inferred = true;
        try {
          onnx::shape_inference::InferShapes(*model_);
        } catch (const std::exception&) {
          // Partial inference is fine: the value may still have got its type.
        }
      }
      const onnx::TypeProto* known = declared_type(graph, name);
      if (known == nullptr) {
        fail(ErrorCode::kUnsupported,
             "onnxruntime: model {}: the type of extra output '{}' is unknown (ONNX shape "
             "inference could not tell)",
             path_, name);
      }
      type = *known;
    }
    onnx::ValueInfoProto* output = graph.add_output();
    output->set_name(name);
    *output->mutable_type() = type;
    ++*added;
  }
  return model_->SerializeAsString();
}

}  // namespace inferlab::backends::ort
