// Helpers shared by the convolution fusions (batchnorm_folding,
// activation_fusion, residual_add_fusion) and their export: recognizing an
// activation chain after a value, the attributes of fused nodes, and the one
// edit every fusion ends with — covered nodes replaced by one fused node
// that takes over the chain's final output.
#pragma once

#include <functional>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inferlab/model/graph.h"
#include "inferlab/optimizer/graph_editor.h"
#include "inferlab/optimizer/graph_pass.h"

namespace inferlab::optimizer::conv_fusion {

inline constexpr const char* kInferLabDomain = "ai.inferlab";

// What the fused nodes made by this family's passes cover, by fused node
// name: "Conv+BatchNormalization". Shared by the passes of one
// conv_fusion_passes() list so the log names the whole chain
// ("fused Conv+BatchNormalization+Relu").
using FusionLabels = std::map<std::string, std::string>;

// An activation reading one value: the nodes it covers (in order), the value
// it produces, and the fused operators' `activation`/`activation_params`.
struct ActivationMatch {
  std::string kind;  // "Relu", "Clip", "SiLU", ... (docs/fused-ops.md)
  std::vector<float> params;
  std::vector<int> nodes;
  std::string output;
  std::string label;  // "Relu", "Sigmoid+Mul"
};

// The activation applied to `value` when every read of `value` belongs to it
// (one node; or Sigmoid(value) and Mul(value, that) for SiLU) and its
// parameters are constants; nullopt otherwise.
std::optional<ActivationMatch> match_activation(const PassContext& context, GraphEditor& editor,
                                                const std::string& value);

// True when `value` has exactly one read and is no graph output.
// The loop every pass of this family runs: `try_rewrite(index)` at each live
// node; when any returned true, compacts the graph, drops initializers
// nothing reads and imports the ai.inferlab domain.
void rewrite_each_node(PassContext& context, GraphEditor& editor,
                       const std::function<bool(int)>& try_rewrite);

bool single_reader(GraphEditor& editor, const std::string& value);
// The live node reading `value` when it is the only read, else -1.
int only_reader(GraphEditor& editor, const std::string& value);
// Whether the static dtype of `value` is float32 or float64 (what the fused
// kernels compute).
bool is_float_value(const PassContext& context, const std::string& value);
// The static shape of `value`, or nullopt.
std::optional<Shape> static_shape(const PassContext& context, const std::string& value);

bool is_op(const model::Node& node, const char* domain, const char* op_type);
// A Conv or an ai.inferlab FusedConv without activation and residual.
bool is_plain_conv(const model::Node& node);
// True when an ai.inferlab fused node already applies an activation.
bool has_activation(const model::Node& node);
// Node input `index`, or "" when absent.
std::string input_or_empty(const model::Node& node, size_t index);

// The `fused_nodes` of a fused node, or just its name for an ONNX node.
std::vector<std::string> covered_names(const model::Node& node);
void set_strings(model::Node& node, const std::string& key, std::vector<std::string> values);
void set_activation(model::Node& node, const ActivationMatch& activation);
// "Conv", or the label the family recorded for a fused node.
std::string label_of(const FusionLabels& labels, const model::Node& node);

// Removes the nodes `covered` and adds `fused`, which must write the value
// `fused.outputs[0]` that one of them wrote (readers keep reading it).
// Returns the fused node's index.
int replace_nodes(GraphEditor& editor, const std::vector<int>& covered, model::Node fused);

// A float32 copy of a constant, or nullopt when it is not a float32 initializer.
std::optional<std::vector<float>> float_constant(GraphEditor& editor, const std::string& value);

}  // namespace inferlab::optimizer::conv_fusion
