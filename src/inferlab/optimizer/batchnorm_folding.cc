// batchnorm_folding (level 2): an inference-form BatchNormalization, or a
// constant per-output-channel Mul or Add, after a Conv, ConvTranspose or
// Gemm, folded into the producer's weights and bias (new
// initializers). Each is one per-channel affine map y = x * scale[c] +
// shift[c] applied to the producer's output channels, so one routine scales
// the weights for each producer's layout: Conv W [M, C/g, k...],
// ConvTranspose W [C, M/g, k...], Gemm B [K, N] (or [N, K] with transB).
#include <cmath>

#include "inferlab/optimizer/conv_fusion_pass_classes.h"

namespace inferlab::optimizer::conv_fusion {
namespace {

struct ChannelAffine {
  std::vector<double> scale;
  std::vector<double> shift;
};

enum class Producer { kConv, kConvTranspose, kGemm };

std::optional<Producer> producer_kind(const model::Node& node) {
  if (is_plain_conv(node)) return Producer::kConv;
  if (is_op(node, "", "ConvTranspose")) return Producer::kConvTranspose;
  if (is_op(node, "", "Gemm")) return Producer::kGemm;
  if (is_op(node, kInferLabDomain, "FusedGemm") && !has_activation(node)) return Producer::kGemm;
  return std::nullopt;
}

int64_t int_attr(const model::Node& node, const char* key, int64_t fallback) {
  auto it = node.attributes.find(key);
  return it == node.attributes.end() ? fallback : it->second.i;
}

float float_attr(const model::Node& node, const char* key, float fallback) {
  auto it = node.attributes.find(key);
  return it == node.attributes.end() ? fallback : it->second.f;
}

// The affine map of an inference-form BatchNormalization with constant
// parameters; nullopt for training outputs or training_mode.
std::optional<ChannelAffine> batchnorm_affine(GraphEditor& editor, const model::Node& bn) {
  for (size_t i = 1; i < bn.outputs.size(); ++i) {
    if (!bn.outputs[i].empty()) return std::nullopt;  // running mean/var outputs: training
  }
  if (bn.inputs.size() != 5 || int_attr(bn, "training_mode", 0) != 0) return std::nullopt;
  std::vector<std::vector<float>> params;
  for (size_t i = 1; i < 5; ++i) {
    std::optional<std::vector<float>> value = float_constant(editor, bn.inputs[i]);
    if (!value || (!params.empty() && value->size() != params[0].size())) return std::nullopt;
    params.push_back(std::move(*value));
  }
  const double epsilon = float_attr(bn, "epsilon", 1e-5f);
  ChannelAffine affine;
  for (size_t c = 0; c < params[0].size(); ++c) {
    const double scale = params[0][c] / std::sqrt(static_cast<double>(params[3][c]) + epsilon);
    affine.scale.push_back(scale);
    affine.shift.push_back(params[1][c] - params[2][c] * scale);
  }
  return affine;
}

// For a Mul/Add by constant `c` of an output of static shape `out`: the value
// per output channel when `c` varies at most along dim 1 and broadcasting
// leaves `out` unchanged; nullopt otherwise.
std::optional<std::vector<double>> per_channel(const Shape& out, const Tensor& c) {
  const Shape& shape = c.shape();
  if (out.size() < 2 || shape.size() > out.size() || c.dtype() != DataType::kFloat32) {
    return std::nullopt;
  }
  const size_t offset = out.size() - shape.size();
  bool varies = false;
  for (size_t d = 0; d < shape.size(); ++d) {
    if (shape[d] == 1) continue;
    if (offset + d != 1 || shape[d] != out[1]) return std::nullopt;
    varies = true;
  }
  std::vector<double> values;
  for (int64_t m = 0; m < out[1]; ++m) values.push_back(c.data<float>()[varies ? m : 0]);
  return values;
}

// Output channel of each weight element, or nullopt when the layout does
// not have `channels` output channels.
std::optional<std::vector<int64_t>> weight_channels(Producer kind, const model::Node& node,
                                                    const Tensor& w, int64_t channels) {
  const int64_t count = w.numel();
  std::vector<int64_t> channel(static_cast<size_t>(count));
  if (kind == Producer::kConv) {
    if (w.rank() < 1 || w.dim(0) != channels) return std::nullopt;
    for (int64_t i = 0; i < count; ++i) channel[i] = i / (count / channels);
  } else if (kind == Producer::kConvTranspose) {
    const int64_t group = int_attr(node, "group", 1);
    if (w.rank() < 2 || group < 1 || w.dim(0) % group != 0 || w.dim(1) * group != channels) {
      return std::nullopt;
    }
    const int64_t per_group = w.dim(1);
    const int64_t taps = count / (w.dim(0) * per_group);
    const int64_t in_per_group = w.dim(0) / group;
    for (int64_t i = 0; i < count; ++i) {
      const int64_t in_channel = i / (per_group * taps);
      channel[i] = (in_channel / in_per_group) * per_group + (i / taps) % per_group;
    }
  } else {
    const bool trans_b = int_attr(node, "transB", 0) != 0;
    if (w.rank() != 2 || w.dim(trans_b ? 0 : 1) != channels) return std::nullopt;
    for (int64_t i = 0; i < count; ++i) channel[i] = trans_b ? i / w.dim(1) : i % w.dim(1);
  }
  return channel;
}

// The producer's bias per output channel before folding (Gemm: beta * C),
// or nullopt when it is not a constant that broadcasts per channel.
std::optional<std::vector<double>> producer_bias(Producer kind, GraphEditor& editor,
                                                 const model::Node& node, int64_t channels) {
  const std::string name = input_or_empty(node, 2);
  std::vector<double> bias(static_cast<size_t>(channels), 0.0);
  if (name.empty()) return bias;
  std::optional<std::vector<float>> value = float_constant(editor, name);
  if (!value) return std::nullopt;
  const double beta = kind == Producer::kGemm ? float_attr(node, "beta", 1.0f) : 1.0;
  if (kind == Producer::kGemm) {
    const Shape& shape = editor.constant(name)->shape();
    if (shape.size() > 2 || (shape.size() == 2 && shape[0] != 1)) return std::nullopt;
  }
  if (value->size() != 1 && static_cast<int64_t>(value->size()) != channels) return std::nullopt;
  if (kind != Producer::kGemm && static_cast<int64_t>(value->size()) != channels) {
    return std::nullopt;
  }
  for (int64_t m = 0; m < channels; ++m) bias[m] = beta * (*value)[value->size() == 1 ? 0 : m];
  return bias;
}

// Builds the producer with `affine` folded in, writing `output`; nullopt
// when its weights or bias are not constants of the right layout.
std::optional<model::Node> folded_producer(GraphEditor& editor, const model::Node& producer,
                                           const ChannelAffine& affine, const std::string& output) {
  const std::optional<Producer> kind = producer_kind(producer);
  const Tensor* w = producer.inputs.size() >= 2 ? editor.constant(producer.inputs[1]) : nullptr;
  if (!kind || w == nullptr || w->dtype() != DataType::kFloat32) return std::nullopt;
  const int64_t channels = static_cast<int64_t>(affine.scale.size());
  const auto channel = weight_channels(*kind, producer, *w, channels);
  const auto bias = producer_bias(*kind, editor, producer, channels);
  if (!channel || !bias) return std::nullopt;
  Tensor weights(DataType::kFloat32, w->shape());
  for (int64_t i = 0; i < w->numel(); ++i) {
    weights.data<float>()[i] =
        static_cast<float>(w->data<float>()[i] * affine.scale[(*channel)[i]]);
  }
  Tensor new_bias(DataType::kFloat32, {channels});
  for (int64_t m = 0; m < channels; ++m) {
    new_bias.data<float>()[m] = static_cast<float>((*bias)[m] * affine.scale[m] + affine.shift[m]);
  }
  model::Node folded = producer;
  folded.inputs.resize(3);
  folded.inputs[1] = editor.add_constant(producer.inputs[1] + "_folded", std::move(weights));
  folded.inputs[2] = editor.add_constant(producer.name + "_bias_folded", std::move(new_bias));
  folded.outputs = {output};
  if (*kind == Producer::kGemm) folded.attributes["beta"].kind = model::Attribute::Kind::kFloat;
  if (*kind == Producer::kGemm) folded.attributes["beta"].f = 1.0f;
  if (*kind != Producer::kConvTranspose) {
    folded.op_type = *kind == Producer::kConv ? "FusedConv" : "FusedGemm";
    folded.domain = kInferLabDomain;
  }
  return folded;
}

class BatchNormFoldingPass : public GraphPass {
 public:
  explicit BatchNormFoldingPass(std::shared_ptr<FusionLabels> labels)
      : labels_(std::move(labels)) {}
  const char* name() const override { return "batchnorm_folding"; }
  int level() const override { return 2; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    rewrite_each_node(context, editor,
                      [&](int index) { return try_fold(context, editor, index, stats); });
  }

 private:
  // The affine map of node `index` (BatchNormalization, or Mul/Add by a
  // per-channel constant of a Conv, ConvTranspose or Gemm output) and the
  // producer it folds into.
  std::optional<std::pair<ChannelAffine, int>> affine_of(PassContext& context, GraphEditor& editor,
                                                         const model::Node& node) {
    if (is_op(node, "", "BatchNormalization")) {
      const int producer = node.inputs.empty() ? -1 : editor.producer(node.inputs[0]);
      std::optional<ChannelAffine> affine = batchnorm_affine(editor, node);
      if (!affine || producer < 0) return std::nullopt;
      return std::make_pair(std::move(*affine), producer);
    }
    const bool mul = is_op(node, "", "Mul");
    if ((!mul && !is_op(node, "", "Add")) || node.inputs.size() != 2) return std::nullopt;
    for (size_t k = 0; k < 2; ++k) {
      const int producer = editor.producer(node.inputs[k]);
      const Tensor* c = editor.constant(node.inputs[1 - k]);
      if (producer < 0 || c == nullptr || !producer_kind(editor.graph().nodes[producer])) continue;
      const std::optional<Shape> out = static_shape(context, node.inputs[k]);
      if (!out || static_shape(context, node.outputs[0]) != out) continue;
      std::optional<std::vector<double>> values = per_channel(*out, *c);
      if (!values) continue;
      ChannelAffine affine;
      affine.scale = mul ? *values : std::vector<double>(values->size(), 1.0);
      affine.shift = mul ? std::vector<double>(values->size(), 0.0) : *values;
      return std::make_pair(std::move(affine), producer);
    }
    return std::nullopt;
  }

  bool try_fold(PassContext& context, GraphEditor& editor, int index, PassStats& stats) {
    const model::Node node = editor.graph().nodes[static_cast<size_t>(index)];
    if (node.outputs.empty() || node.outputs[0].empty()) return false;
    auto found = affine_of(context, editor, node);
    if (!found || editor.is_removed(found->second)) return false;
    const model::Node producer = editor.graph().nodes[static_cast<size_t>(found->second)];
    if (!single_reader(editor, producer.outputs[0]) || producer.outputs.size() != 1) return false;
    std::optional<model::Node> folded =
        folded_producer(editor, producer, found->first, node.outputs[0]);
    if (!folded) return false;
    const std::string label = label_of(*labels_, producer) + "+" + node.op_type;
    if (folded->domain == kInferLabDomain) {
      std::vector<std::string> names = covered_names(producer);
      names.push_back(node.name);
      set_strings(*folded, "fused_nodes", std::move(names));
      (*labels_)[producer.name] = label;
    }
    replace_nodes(editor, {found->second, index}, std::move(*folded));
    stats.record("fused " + label, producer.name);
    return true;
  }

  std::shared_ptr<FusionLabels> labels_;
};

}  // namespace

std::unique_ptr<GraphPass> make_batchnorm_folding_pass(std::shared_ptr<FusionLabels> labels) {
  return std::make_unique<BatchNormFoldingPass>(std::move(labels));
}

}  // namespace inferlab::optimizer::conv_fusion
