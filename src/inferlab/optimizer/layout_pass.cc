// channels_last_layout (level 3, run once after every fusion has settled):
// keeps activations channels-last (NHWC) across chains of convolutions and
// the operators between them, so oneDNN's convolutions — which compute NHWC
// directly — never reorder their input or output.
//
// How: a channels-last value is an ordinary value whose shape is the
// physical one, [N, H, W, C] (kernels/layout/channels_last.h), so shape
// inference and the memory planner see nothing new. Walking the graph in
// order, a node is converted when it has a channels-last form and (except
// for convolutions, which always convert) one of its layout inputs is
// already channels-last:
//   Conv, FusedConv             -> FusedConv with channels_last = 1
//   MaxPool, AveragePool,       -> NhwcMaxPool, NhwcAveragePool,
//   GlobalAveragePool              NhwcGlobalAveragePool (ai.inferlab)
//   activations, Add/Mul/...    -> the same operator on channels-last inputs
//                                  (constant operands permuted once)
//   Concat on the channel axis  -> Concat on the last axis
//   Resize                      -> Resize with permuted scales or sizes
// A converted node's outputs get new names; a value read in the other layout
// gets one conversion (a Transpose, or a Reshape when H = W = 1, where both
// layouts are the same bytes), shared by all such readers. The log counts
// the conversions and names the values they sit on.
#include <algorithm>
#include <set>
#include <unordered_map>
#include <unordered_set>

#include "inferlab/kernels/layout/channels_last.h"
#include "inferlab/optimizer/conv_fusion_util.h"
#include "inferlab/optimizer/layout_pass.h"

namespace inferlab::optimizer {
namespace {

using conv_fusion::is_op;
using conv_fusion::kInferLabDomain;

const Shape kToLast = {0, 2, 3, 1};
const Shape kToFirst = {0, 3, 1, 2};

model::Attribute int_attribute(int64_t value) {
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kInt;
  attribute.i = value;
  return attribute;
}

model::Attribute ints_attribute(const Shape& values) {
  model::Attribute attribute;
  attribute.kind = model::Attribute::Kind::kInts;
  attribute.ints = values.to_vector();
  return attribute;
}

bool is_unary_agnostic(const model::Node& node) {
  static const std::set<std::string> kOps = {
      "Relu", "LeakyRelu", "Clip", "Sigmoid",  "HardSigmoid",    "HardSwish", "Tanh",
      "Elu",  "Selu",      "Celu", "Softplus", "Softsign",       "Mish",      "Exp",
      "Log",  "Abs",       "Neg",  "Sqrt",     "Reciprocal",     "Erf",       "Floor",
      "Ceil", "Round",     "Sign", "Identity", "ThresholdedRelu"};
  return (node.domain.empty() || node.domain == "ai.onnx") && kOps.count(node.op_type) != 0;
}

bool is_binary_agnostic(const model::Node& node) {
  static const std::set<std::string> kOps = {"Add", "Sub", "Mul", "Div",
                                             "Max", "Min", "Pow", "PRelu"};
  return (node.domain.empty() || node.domain == "ai.onnx") && kOps.count(node.op_type) != 0;
}

class LayoutRewrite {
 public:
  LayoutRewrite(PassContext& context, PassStats& stats)
      : context_(context),
        editor_(context.graph()),
        stats_(stats),
        has_subgraphs_(any_subgraph(context.graph())) {}

  void run() {
    const size_t count = editor_.graph().nodes.size();
    for (size_t i = 0; i < count; ++i) visit(static_cast<int>(i));
    if (converted_outputs_.empty()) return;
    add_channels_first_copies();
    // Outputs were renamed in place, which editor_'s index does not know:
    // a fresh index sorts the graph by its real edges.
    GraphEditor sorted(context_.graph());
    sorted.compact();
    sorted.remove_unused_initializers();
    context_.model.opsets[kInferLabDomain] = 1;
  }

 private:
  model::Node& node(int index) { return editor_.graph().nodes[static_cast<size_t>(index)]; }

  // The static 4-D float shape of `value`, or nullopt.
  std::optional<Shape> image_shape(const std::string& value) const {
    const model::ValueInfo* info = context_.static_info(value);
    if (info == nullptr || info->dtype != DataType::kFloat32) return std::nullopt;
    std::optional<Shape> shape = conv_fusion::static_shape(context_, value);
    if (!shape || shape->size() != 4) return std::nullopt;
    return shape;
  }

  bool is_last(const std::string& value) const { return last_.count(value) != 0; }

  void visit(int index) {
    model::Node& n = node(index);
    bool converted = false;
    if (is_conv(n)) {
      converted = convert_conv(index);
    } else if (any_last_input(n)) {
      converted = convert_other(index);
    }
    if (!converted) read_channels_first(index);
  }

  bool any_last_input(const model::Node& n) const {
    return std::any_of(n.inputs.begin(), n.inputs.end(),
                       [&](const std::string& input) { return is_last(input); });
  }

  bool is_conv(const model::Node& n) const {
    const bool conv = is_op(n, "", "Conv") || is_op(n, kInferLabDomain, "FusedConv");
    if (!conv || n.outputs.size() != 1 || n.inputs.size() < 2) return false;
    if (n.attributes.count("channels_last") != 0) return false;  // already decided
    return image_shape(n.inputs[0]) && image_shape(n.outputs[0]) &&
           editor_.constant(n.inputs[1]) != nullptr;
  }

  bool convert_conv(int index) {
    model::Node& n = node(index);
    const bool residual = n.inputs.size() > 3 && !n.inputs[3].empty();
    if (residual && !image_shape(n.inputs[3])) return false;
    if (is_op(n, "", "Conv")) {
      conv_fusion::set_strings(n, "fused_nodes", {n.name});
      n.op_type = "FusedConv";
      n.domain = kInferLabDomain;
    }
    n.attributes["channels_last"] = int_attribute(1);
    // to_last may add a node, which invalidates `n`.
    const std::string x = to_last(n.inputs[0]);
    const std::string z = residual ? to_last(node(index).inputs[3]) : std::string();
    node(index).inputs[0] = x;
    if (residual) node(index).inputs[3] = z;
    rename_outputs(index);
    return true;
  }

  bool convert_other(int index) {
    model::Node& n = node(index);
    if (n.outputs.size() != 1 || !image_shape(n.outputs[0])) return false;
    if (is_op(n, "", "MaxPool") || is_op(n, "", "AveragePool") ||
        is_op(n, "", "GlobalAveragePool")) {
      return convert_pool(index);
    }
    if (is_unary_agnostic(n)) return convert_unary(index);
    if (is_binary_agnostic(n)) return convert_elementwise(index);
    if (is_op(n, "", "Concat")) return convert_concat(index);
    if (is_op(n, "", "Resize")) return convert_resize(index);
    return false;
  }

  bool convert_pool(int index) {
    model::Node& n = node(index);
    if (!is_last(n.inputs[0])) return false;
    n.op_type = "Nhwc" + n.op_type;
    n.domain = kInferLabDomain;
    n.inputs[0] = last_.at(n.inputs[0]);
    rename_outputs(index);
    return true;
  }

  bool convert_unary(int index) {
    model::Node& n = node(index);
    // Only the first input is the image (Clip's bounds are scalars).
    if (!is_last(n.inputs[0])) return false;
    for (size_t i = 1; i < n.inputs.size(); ++i) {
      if (is_last(n.inputs[i])) return false;
    }
    n.inputs[0] = last_.at(n.inputs[0]);
    rename_outputs(index);
    return true;
  }

  // Every operand becomes channels-last: converted values as they are,
  // constants permuted once, other 4-D values through a conversion.
  bool convert_elementwise(int index) {
    std::vector<std::string> inputs = node(index).inputs;
    for (std::string& input : inputs) {
      std::optional<std::string> last = operand_as_last(input);
      if (!last) return false;
      input = *last;
    }
    node(index).inputs = std::move(inputs);
    rename_outputs(index);
    return true;
  }

  std::optional<std::string> operand_as_last(const std::string& value) {
    if (is_last(value)) return last_.at(value);
    if (const Tensor* constant = editor_.constant(value))
      return permuted_constant(value, *constant);
    if (image_shape(value)) return to_last(value);
    return std::nullopt;
  }

  // A constant broadcast against an NCHW image, re-laid for the NHWC one.
  std::optional<std::string> permuted_constant(const std::string& value, const Tensor& constant) {
    if (constant.numel() == 1) return value;  // a scalar broadcasts the same either way
    if (constant.rank() > 4 || dtype_size(constant.dtype()) == 0) return std::nullopt;
    Shape padded(static_cast<size_t>(4 - constant.rank()), 1);
    padded.insert(padded.end(), constant.shape().begin(), constant.shape().end());
    Tensor permuted(constant.dtype(), kernels::layout::to_channels_last(padded));
    if (constant.dtype() == DataType::kString) return std::nullopt;
    kernels::layout::transpose_channels(constant.raw_data(), permuted.raw_data(), padded,
                                        dtype_size(constant.dtype()), false);
    return editor_.add_constant(value + "_nhwc", std::move(permuted));
  }

  bool convert_concat(int index) {
    model::Node& n = node(index);
    const int64_t axis = n.attributes.count("axis") ? n.attributes.at("axis").i : 1;
    if (axis != 1 && axis != -3) return false;
    if (!convert_elementwise(index)) return false;
    node(index).attributes["axis"] = int_attribute(3);
    return true;
  }

  bool convert_resize(int index) {
    model::Node& n = node(index);
    const bool crop = n.attributes.count("coordinate_transformation_mode") &&
                      n.attributes.at("coordinate_transformation_mode").s == "tf_crop_and_resize";
    if (!is_last(n.inputs[0]) || crop || n.attributes.count("axes")) return false;
    // Opset 10: (X, scales); 11+: (X, roi, scales, sizes).
    std::vector<size_t> per_axis =
        context_.model.opset_of("") >= 11 ? std::vector<size_t>{2, 3} : std::vector<size_t>{1};
    std::vector<std::string> inputs = n.inputs;
    for (size_t k : per_axis) {
      if (k >= inputs.size() || inputs[k].empty()) continue;
      const Tensor* constant = editor_.constant(inputs[k]);
      if (constant == nullptr || constant->rank() != 1 || constant->numel() == 0) {
        if (constant == nullptr && !is_empty_value(inputs[k])) return false;
        continue;
      }
      if (constant->numel() != 4) return false;
      inputs[k] = permuted_vector(inputs[k], *constant);
    }
    inputs[0] = last_.at(inputs[0]);
    node(index).inputs = std::move(inputs);
    rename_outputs(index);
    return true;
  }

  bool is_empty_value(const std::string& value) const {
    const model::ValueInfo* info = context_.static_info(value);
    return info != nullptr && shape_numel(info->static_shape()) == 0;
  }

  // A 4-entry per-axis vector (scales, sizes) in channels-last axis order.
  std::string permuted_vector(const std::string& value, const Tensor& constant) {
    Tensor permuted(constant.dtype(), constant.shape());
    const size_t bytes = dtype_size(constant.dtype());
    const auto* from = static_cast<const std::byte*>(constant.raw_data());
    auto* to = static_cast<std::byte*>(permuted.raw_data());
    for (size_t i = 0; i < 4; ++i) {
      std::copy_n(from + static_cast<size_t>(kToLast[i]) * bytes, bytes, to + i * bytes);
    }
    return editor_.add_constant(value + "_nhwc", std::move(permuted));
  }

  // A node that stays channels-first reads the channels-first names.
  void read_channels_first(int index) {
    for (const std::string& input : node(index).inputs) {
      if (converted_outputs_.count(input)) first_readers_.insert(input);
    }
  }

  void rename_outputs(int index) {
    model::Node& n = node(index);
    for (std::string& output : n.outputs) {
      const std::string last = editor_.fresh_name(output + "_nhwc");
      last_[output] = last;
      converted_outputs_.insert(output);
      output = last;
    }
  }

  // The channels-last name of `value`, adding one conversion when needed.
  std::string to_last(const std::string& value) {
    auto it = last_.find(value);
    if (it != last_.end()) return it->second;
    const std::string last = editor_.fresh_name(value + "_nhwc");
    model::Node transpose;
    transpose.name = editor_.fresh_name(value + "_to_nhwc");
    transpose.op_type = "Transpose";
    transpose.inputs = {value};
    transpose.outputs = {last};
    transpose.attributes["perm"] = ints_attribute(kToLast);
    editor_.add_node(std::move(transpose));
    last_[value] = last;
    stats_.record("reorders to channels-last", value);
    return last;
  }

  // Converted values still read channels-first (by other nodes, as graph
  // outputs or from subgraphs) get their original name back through one
  // conversion each.
  void add_channels_first_copies() {
    for (const std::string& value : converted_outputs_) {
      if (!first_readers_.count(value) && !editor_.is_graph_output(value) &&
          !read_by_subgraph(value)) {
        continue;
      }
      const Shape shape = *image_shape(value);
      model::Node copy;
      copy.name = editor_.fresh_name(value + "_to_nchw");
      copy.outputs = {value};
      if (shape[2] * shape[3] == 1) {  // the same bytes in both layouts
        copy.op_type = "Reshape";
        copy.inputs = {last_.at(value),
                       editor_.add_constant(value + "_nchw_shape",
                                            Tensor::from_vector<int64_t>(shape.to_vector(), {4}))};
        stats_.record("free reshapes to channels-first (H = W = 1)", value);
      } else {
        copy.op_type = "Transpose";
        copy.inputs = {last_.at(value)};
        copy.attributes["perm"] = ints_attribute(kToFirst);
        stats_.record("reorders to channels-first", value);
      }
      editor_.add_node(std::move(copy));
    }
  }

  // Subgraphs may read any outer value by name: with subgraphs in the
  // graph, every converted value keeps its channels-first copy.
  bool read_by_subgraph(const std::string&) const { return has_subgraphs_; }

  static bool any_subgraph(const model::Graph& graph) {
    for (const model::Node& n : graph.nodes) {
      for (const auto& [key, attribute] : n.attributes) {
        if (attribute.kind == model::Attribute::Kind::kGraph) return true;
      }
    }
    return false;
  }

  PassContext& context_;
  GraphEditor editor_;
  PassStats& stats_;
  bool has_subgraphs_;
  std::unordered_map<std::string, std::string> last_;  // value -> its channels-last name
  std::set<std::string> converted_outputs_;            // ordered: deterministic graphs
  std::unordered_set<std::string> first_readers_;      // converted values read channels-first
};

class ChannelsLastLayoutPass : public GraphPass {
 public:
  const char* name() const override { return "channels_last_layout"; }
  int level() const override { return 3; }
  void run(PassContext& context, PassStats& stats) override { LayoutRewrite(context, stats).run(); }
};

}  // namespace

std::unique_ptr<GraphPass> make_channels_last_layout_pass() {
  return std::make_unique<ChannelsLastLayoutPass>();
}

}  // namespace inferlab::optimizer
