// Attribute parsing, shape rule and indexing shared by GRU and LSTM.
#include "inferlab/kernels/reference/rnn_common.h"

#include <algorithm>
#include <cctype>
#include <cmath>

namespace inferlab::kernels::reference {
namespace {

using Kind = RnnActivation::Kind;

constexpr const char* kRnnInputNames[] = {"X",         "W",         "R", "B", "sequence_lens",
                                          "initial_h", "initial_c", "P"};

struct ActivationSpec {
  const char* lowercase_name;
  Kind kind;
  bool uses_alpha;
  bool uses_beta;
  double default_alpha;  // the corresponding ONNX operator's default
  double default_beta;
};

constexpr ActivationSpec kActivationSpecs[] = {
    {"relu", Kind::kRelu, false, false, 0.0, 0.0},
    {"tanh", Kind::kTanh, false, false, 0.0, 0.0},
    {"sigmoid", Kind::kSigmoid, false, false, 0.0, 0.0},
    {"affine", Kind::kAffine, true, true, 1.0, 0.0},
    {"leakyrelu", Kind::kLeakyRelu, true, false, 0.01, 0.0},
    {"thresholdedrelu", Kind::kThresholdedRelu, true, false, 1.0, 0.0},
    {"scaledtanh", Kind::kScaledTanh, true, true, 1.0, 1.0},
    {"hardsigmoid", Kind::kHardSigmoid, true, true, 0.2, 0.5},
    {"elu", Kind::kElu, true, false, 1.0, 0.0},
    {"softsign", Kind::kSoftsign, false, false, 0.0, 0.0},
    {"softplus", Kind::kSoftplus, false, false, 0.0, 0.0},
};

std::string to_lower(std::string text) {
  std::transform(text.begin(), text.end(), text.begin(),
                 [](unsigned char c) { return static_cast<char>(std::tolower(c)); });
  return text;
}

const ActivationSpec& find_activation(const NodeInfo& node, const std::string& name) {
  const std::string lowered = to_lower(name);
  for (const ActivationSpec& spec : kActivationSpecs) {
    if (lowered == spec.lowercase_name) return spec;
  }
  node.fail(ErrorCode::kUnsupported, "activation '{}' is not supported", name);
}

// Builds the activation list; alpha and beta values are consumed in order by
// the activations that take them, the rest use the operator defaults.
std::vector<RnnActivation> read_activations(const NodeInfo& node, int64_t num_directions,
                                            const std::vector<std::string>& defaults) {
  std::vector<std::string> names =
      node.has_attr("activations") ? node.attr_strings("activations") : defaults;
  const size_t per_direction = defaults.size();
  const size_t wanted = per_direction * static_cast<size_t>(num_directions);
  const bool replicate = names.size() == per_direction && wanted != per_direction;
  if (names.size() != wanted && !replicate) {
    node.fail(ErrorCode::kInvalidModel, "attribute 'activations' has {} entries, expected {}",
              names.size(), wanted);
  }
  const std::vector<float> alphas = node.attr_floats("activation_alpha", {});
  const std::vector<float> betas = node.attr_floats("activation_beta", {});
  size_t next_alpha = 0;
  size_t next_beta = 0;
  std::vector<RnnActivation> activations;
  for (const std::string& name : names) {
    const ActivationSpec& spec = find_activation(node, name);
    double alpha = spec.default_alpha;
    double beta = spec.default_beta;
    if (spec.uses_alpha && next_alpha < alphas.size()) alpha = alphas[next_alpha++];
    if (spec.uses_beta && next_beta < betas.size()) beta = betas[next_beta++];
    activations.emplace_back(spec.kind, alpha, beta);
  }
  if (replicate) {
    for (size_t i = 0; i < per_direction; ++i) activations.push_back(activations[i]);
  }
  return activations;
}

void check_shape(const NodeInfo& node, const char* input_name, const Shape& actual,
                 const Shape& expected) {
  if (actual != expected) {
    node.fail(ErrorCode::kInvalidArgument, "input {} has shape {}, expected {}", input_name,
              shape_to_string(actual), shape_to_string(expected));
  }
}

void check_rank3(const NodeInfo& node, const char* input_name, const Shape& shape) {
  if (shape.size() != 3) {
    node.fail(ErrorCode::kInvalidArgument, "input {} must have rank 3, got shape {}", input_name,
              shape_to_string(shape));
  }
}

// Checks the optional inputs once the sizes are known.
void check_optional_shapes(const NodeInfo& node, const RnnDims& dims, int64_t gate_count,
                           const RnnInputShapes& shapes) {
  const int64_t dirs = dims.num_directions;
  if (shapes.bias) check_shape(node, "B", *shapes.bias, {dirs, 2 * gate_count * dims.hidden_size});
  if (shapes.sequence_lens) check_shape(node, "sequence_lens", *shapes.sequence_lens, {dims.batch});
  const Shape state = rnn_state_shape(dims);
  if (shapes.initial_h) check_shape(node, "initial_h", *shapes.initial_h, state);
  if (shapes.initial_c) check_shape(node, "initial_c", *shapes.initial_c, state);
  if (shapes.peepholes) check_shape(node, "P", *shapes.peepholes, {dirs, 3 * dims.hidden_size});
}

template <typename Context>
RnnInputShapes collect_input_shapes(const Context& ctx, bool has_cell_inputs) {
  auto shape_of = [&](size_t index) -> std::optional<Shape> {
    if (!ctx.has_input(index)) return std::nullopt;
    if constexpr (std::is_same_v<Context, KernelContext>) {
      return ctx.input(index).shape();
    } else {
      return ctx.input(index).shape;
    }
  };
  for (size_t index = 0; index < 3; ++index) {
    if (!ctx.has_input(index)) {
      ctx.node().fail(ErrorCode::kInvalidModel, "required input {} (X, W, R) is missing", index);
    }
  }
  RnnInputShapes shapes;
  shapes.x = *shape_of(0);
  shapes.w = *shape_of(1);
  shapes.r = *shape_of(2);
  shapes.bias = shape_of(3);
  shapes.sequence_lens = shape_of(4);
  shapes.initial_h = shape_of(5);
  if (has_cell_inputs) {
    shapes.initial_c = shape_of(6);
    shapes.peepholes = shape_of(7);
  }
  return shapes;
}

template <typename Context>
DataType dtype_of_input(const Context& ctx, size_t index) {
  if constexpr (std::is_same_v<Context, KernelContext>) {
    return ctx.input(index).dtype();
  } else {
    return ctx.input(index).dtype;
  }
}

// X decides the element type (float or double); every other float input must match it.
template <typename Context>
DataType check_input_types(const Context& ctx, bool has_cell_inputs) {
  const NodeInfo& node = ctx.node();
  const DataType dtype = dtype_of_input(ctx, 0);
  if (dtype != DataType::kFloat32 && dtype != DataType::kFloat64) {
    node.fail(ErrorCode::kUnsupported, "input X has element type {}, expected float or double",
              dtype_name(dtype));
  }
  const size_t input_count = has_cell_inputs ? 8 : 6;
  for (size_t index = 1; index < input_count; ++index) {
    if (index == 4 || !ctx.has_input(index)) continue;  // sequence_lens is an integer input
    const DataType actual = dtype_of_input(ctx, index);
    if (actual != dtype) {
      node.fail(ErrorCode::kInvalidArgument, "input {} has element type {}, expected {} like X",
                kRnnInputNames[index], dtype_name(actual), dtype_name(dtype));
    }
  }
  return dtype;
}

}  // namespace

double RnnActivation::operator()(double x) const {
  switch (kind_) {
    case Kind::kRelu:
      return x > 0.0 ? x : 0.0;
    case Kind::kTanh:
      return std::tanh(x);
    case Kind::kSigmoid:
      return x >= 0.0 ? 1.0 / (1.0 + std::exp(-x)) : std::exp(x) / (1.0 + std::exp(x));
    case Kind::kAffine:
      return alpha_ * x + beta_;
    case Kind::kLeakyRelu:
      return x >= 0.0 ? x : alpha_ * x;
    case Kind::kThresholdedRelu:
      return x > alpha_ ? x : 0.0;
    case Kind::kScaledTanh:
      return alpha_ * std::tanh(beta_ * x);
    case Kind::kHardSigmoid:
      return std::max(0.0, std::min(1.0, alpha_ * x + beta_));
    case Kind::kElu:
      return x >= 0.0 ? x : alpha_ * (std::exp(x) - 1.0);
    case Kind::kSoftsign:
      return x / (1.0 + std::fabs(x));
    case Kind::kSoftplus:
      return x > 0.0 ? x + std::log1p(std::exp(-x)) : std::log1p(std::exp(x));
  }
  return x;
}

RnnAttributes read_rnn_attributes(const NodeInfo& node,
                                  const std::vector<std::string>& default_activations) {
  RnnAttributes attributes;
  const std::string direction = node.attr_string("direction", "forward");
  if (direction == "bidirectional") {
    attributes.num_directions = 2;
  } else if (direction == "reverse") {
    attributes.reverse_only = true;
  } else if (direction != "forward") {
    node.fail(ErrorCode::kInvalidModel,
              "attribute 'direction' is '{}', expected forward, reverse or bidirectional",
              direction);
  }
  attributes.layout = node.attr_int("layout", 0);
  if (attributes.layout != 0 && attributes.layout != 1) {
    node.fail(ErrorCode::kInvalidModel, "attribute 'layout' is {}, expected 0 or 1",
              attributes.layout);
  }
  if (node.has_attr("hidden_size")) {
    attributes.hidden_size = node.attr_int("hidden_size");
    if (*attributes.hidden_size <= 0) {
      node.fail(ErrorCode::kInvalidModel, "attribute 'hidden_size' is {}, expected > 0",
                *attributes.hidden_size);
    }
  }
  if (node.has_attr("clip")) {
    attributes.clip = node.attr_float("clip", 0.0f);
    if (!(*attributes.clip > 0.0)) {
      node.fail(ErrorCode::kInvalidModel, "attribute 'clip' is {}, expected > 0", *attributes.clip);
    }
  }
  attributes.activations = read_activations(node, attributes.num_directions, default_activations);
  return attributes;
}

RnnDims rnn_dims(const NodeInfo& node, const RnnAttributes& attributes, int64_t gate_count,
                 const RnnInputShapes& shapes) {
  check_rank3(node, "X", shapes.x);
  check_rank3(node, "W", shapes.w);
  check_rank3(node, "R", shapes.r);
  RnnDims dims;
  dims.layout = attributes.layout;
  dims.num_directions = attributes.num_directions;
  dims.seq_length = shapes.x[attributes.layout == 0 ? 0 : 1];
  dims.batch = shapes.x[attributes.layout == 0 ? 1 : 0];
  dims.input_size = shapes.x[2];
  dims.hidden_size = attributes.hidden_size.value_or(shapes.r[2]);
  if (shapes.w[1] != gate_count * dims.hidden_size) {
    node.fail(ErrorCode::kInvalidArgument,
              "input W has shape {}: dimension 1 must be {} x hidden_size = {} (hidden_size {})",
              shape_to_string(shapes.w), gate_count, gate_count * dims.hidden_size,
              dims.hidden_size);
  }
  check_shape(node, "W", shapes.w,
              {dims.num_directions, gate_count * dims.hidden_size, dims.input_size});
  check_shape(node, "R", shapes.r,
              {dims.num_directions, gate_count * dims.hidden_size, dims.hidden_size});
  check_optional_shapes(node, dims, gate_count, shapes);
  return dims;
}

Shape rnn_y_shape(const RnnDims& dims) {
  if (dims.layout == 0) return {dims.seq_length, dims.num_directions, dims.batch, dims.hidden_size};
  return {dims.batch, dims.seq_length, dims.num_directions, dims.hidden_size};
}

Shape rnn_state_shape(const RnnDims& dims) {
  if (dims.layout == 0) return {dims.num_directions, dims.batch, dims.hidden_size};
  return {dims.batch, dims.num_directions, dims.hidden_size};
}

int64_t rnn_x_offset(const RnnDims& dims, int64_t step, int64_t batch_index) {
  const int64_t row =
      dims.layout == 0 ? step * dims.batch + batch_index : batch_index * dims.seq_length + step;
  return row * dims.input_size;
}

int64_t rnn_y_offset(const RnnDims& dims, int64_t step, int64_t direction, int64_t batch_index) {
  const int64_t row =
      dims.layout == 0 ? (step * dims.num_directions + direction) * dims.batch + batch_index
                       : (batch_index * dims.seq_length + step) * dims.num_directions + direction;
  return row * dims.hidden_size;
}

int64_t rnn_state_offset(const RnnDims& dims, int64_t direction, int64_t batch_index) {
  const int64_t row = dims.layout == 0 ? direction * dims.batch + batch_index
                                       : batch_index * dims.num_directions + direction;
  return row * dims.hidden_size;
}

std::vector<int64_t> rnn_sequence_lengths(const NodeInfo& node, const RnnDims& dims,
                                          const Tensor* sequence_lens) {
  if (sequence_lens == nullptr) return std::vector<int64_t>(dims.batch, dims.seq_length);
  if (!is_integer_dtype(sequence_lens->dtype())) {
    node.fail(ErrorCode::kInvalidArgument, "input sequence_lens must be int32, got {}",
              dtype_name(sequence_lens->dtype()));
  }
  std::vector<int64_t> lengths = sequence_lens->to_int64_vector();
  for (size_t b = 0; b < lengths.size(); ++b) {
    if (lengths[b] < 0 || lengths[b] > dims.seq_length) {
      node.fail(ErrorCode::kOutOfRange,
                "sequence_lens[{}] = {} is outside [0, {}] (the sequence length of X)", b,
                lengths[b], dims.seq_length);
    }
  }
  return lengths;
}

RnnInputShapes rnn_input_shapes(const KernelContext& ctx, bool has_cell_inputs) {
  return collect_input_shapes(ctx, has_cell_inputs);
}

RnnInputShapes rnn_input_shapes(const InferContext& ctx, bool has_cell_inputs) {
  return collect_input_shapes(ctx, has_cell_inputs);
}

void infer_rnn_outputs(InferContext& ctx, int64_t gate_count,
                       const std::vector<std::string>& default_activations) {
  const NodeInfo& node = ctx.node();
  const RnnAttributes attributes = read_rnn_attributes(node, default_activations);
  const bool has_cell = gate_count == 4;
  const RnnDims dims = rnn_dims(node, attributes, gate_count, rnn_input_shapes(ctx, has_cell));
  const DataType dtype = check_rnn_input_types(ctx, has_cell);
  ctx.set_output(0, dtype, rnn_y_shape(dims));
  ctx.set_output(1, dtype, rnn_state_shape(dims));
  if (has_cell) ctx.set_output(2, dtype, rnn_state_shape(dims));
}

DataType check_rnn_input_types(const KernelContext& ctx, bool has_cell_inputs) {
  return check_input_types(ctx, has_cell_inputs);
}

DataType check_rnn_input_types(const InferContext& ctx, bool has_cell_inputs) {
  return check_input_types(ctx, has_cell_inputs);
}

}  // namespace inferlab::kernels::reference
