// BatchNormalization, opsets 7..15. Inference: y = scale * (x - mean) /
// sqrt(var + epsilon) + bias with per-channel statistics (or per-element ones
// when opset 7/8's spatial = 0). Opset 14+ training_mode = 1 normalizes with
// the batch's own statistics and outputs the updated running mean and var:
// running = input * momentum + batch * (1 - momentum).
#include <cmath>
#include <vector>

#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::reference {
namespace {

bool training_mode(const NodeInfo& node) {
  return node.opset() >= 14 && node.attr_int("training_mode", 0) != 0;
}

// Elements each statistic covers: C per-channel, or C * D1 * ... per-element.
int64_t statistics_size(const NodeInfo& node, const Shape& x) {
  if (x.size() < 2) {
    node.fail(ErrorCode::kInvalidArgument, "input X must have rank >= 2 (N x C x ...), got {}",
              shape_to_string(x));
  }
  const bool spatial = node.opset() >= 9 || node.attr_int("spatial", 1) != 0;
  if (spatial) return x[1];
  return shape_numel(Shape(x.begin() + 1, x.end()));
}

void check_parameters(const NodeInfo& node, const Shape& x, const std::vector<Shape>& params) {
  static const char* const kNames[] = {"scale", "B", "input_mean", "input_var"};
  const int64_t expected = statistics_size(node, x);
  for (size_t i = 0; i < params.size(); ++i) {
    if (shape_numel(params[i]) != expected) {
      node.fail(ErrorCode::kInvalidArgument, "{} has shape {} but X {} needs {} values", kNames[i],
                shape_to_string(params[i]), shape_to_string(x), expected);
    }
  }
}

std::vector<double> as_doubles(const Tensor& t) {
  std::vector<double> values(static_cast<size_t>(t.numel()));
  for (int64_t i = 0; i < t.numel(); ++i) values[i] = t.element_as_double(i);
  return values;
}

template <typename T>
void fill_from_doubles(Tensor& out, const std::vector<double>& values) {
  T* dst = out.data<T>();
  for (size_t i = 0; i < values.size(); ++i) dst[i] = static_cast<T>(values[i]);
}

struct Statistics {
  std::vector<double> mean;
  std::vector<double> var;
};

// Batch mean and population variance per channel over N and the spatial dims.
template <typename T>
Statistics batch_statistics(const T* x, int64_t batch, int64_t channels, int64_t inner) {
  Statistics s{std::vector<double>(channels, 0.0), std::vector<double>(channels, 0.0)};
  const double count = static_cast<double>(batch * inner);
  for (int64_t c = 0; c < channels; ++c) {
    double sum = 0;
    for (int64_t n = 0; n < batch; ++n) {
      const T* src = x + (n * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) sum += src[i];
    }
    const double mean = count > 0 ? sum / count : 0.0;
    double squares = 0;
    for (int64_t n = 0; n < batch; ++n) {
      const T* src = x + (n * channels + c) * inner;
      for (int64_t i = 0; i < inner; ++i) squares += (src[i] - mean) * (src[i] - mean);
    }
    s.mean[c] = mean;
    s.var[c] = count > 0 ? squares / count : 0.0;
  }
  return s;
}

template <typename T>
void normalize(const T* x, int64_t batch, int64_t groups, int64_t inner, const Statistics& stats,
               const std::vector<double>& scale, const std::vector<double>& bias, double epsilon,
               T* y) {
  for (int64_t g = 0; g < groups; ++g) {
    const double factor = scale[g] / std::sqrt(stats.var[g] + epsilon);
    const double shift = bias[g] - stats.mean[g] * factor;
    for (int64_t n = 0; n < batch; ++n) {
      const T* src = x + (n * groups + g) * inner;
      T* dst = y + (n * groups + g) * inner;
      for (int64_t i = 0; i < inner; ++i) dst[i] = static_cast<T>(src[i] * factor + shift);
    }
  }
}

void infer_batch_normalization(InferContext& ctx) {
  const Shape& x = ctx.input(0).shape;
  check_parameters(
      ctx.node(), x,
      {ctx.input(1).shape, ctx.input(2).shape, ctx.input(3).shape, ctx.input(4).shape});
  ctx.set_output(0, ctx.input(0).dtype, x);
  if (training_mode(ctx.node())) {
    ctx.set_output(1, ctx.input(3).dtype, ctx.input(3).shape);
    ctx.set_output(2, ctx.input(4).dtype, ctx.input(4).shape);
  } else if (ctx.num_outputs() > 1) {
    ctx.node().fail(ErrorCode::kUnsupported,
                    "the training outputs (mean, var, saved statistics) are only produced with "
                    "training_mode = 1 (opset 14+)");
  }
}

void compute_batch_normalization(KernelContext& ctx) {
  const NodeInfo& node = ctx.node();
  const Tensor& x = ctx.input(0);
  check_parameters(
      node, x.shape(),
      {ctx.input(1).shape(), ctx.input(2).shape(), ctx.input(3).shape(), ctx.input(4).shape()});
  const bool training = training_mode(node);
  if (!training && ctx.num_outputs() > 1) {
    node.fail(ErrorCode::kUnsupported,
              "the training outputs are only produced with training_mode = 1");
  }
  const double epsilon = node.attr_float("epsilon", 1e-5f);
  const double momentum = node.attr_float("momentum", 0.9f);
  const int64_t groups = statistics_size(node, x.shape());
  const int64_t batch = x.dim(0);
  const int64_t inner = groups > 0 && batch > 0 ? x.numel() / (batch * groups) : 0;
  const std::vector<double> scale = as_doubles(ctx.input(1));
  const std::vector<double> bias = as_doubles(ctx.input(2));
  Statistics running{as_doubles(ctx.input(3)), as_doubles(ctx.input(4))};
  Tensor& y = ctx.output(0, x.dtype(), x.shape());
  visit_float_dtype(x.dtype(), node.op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if (!training) {
      normalize<T>(x.data<T>(), batch, groups, inner, running, scale, bias, epsilon, y.data<T>());
      return;
    }
    const Statistics current = batch_statistics<T>(x.data<T>(), batch, groups, inner);
    normalize<T>(x.data<T>(), batch, groups, inner, current, scale, bias, epsilon, y.data<T>());
    for (int64_t g = 0; g < groups; ++g) {
      running.mean[g] = running.mean[g] * momentum + current.mean[g] * (1 - momentum);
      running.var[g] = running.var[g] * momentum + current.var[g] * (1 - momentum);
    }
  });
  if (!training) return;
  const std::vector<double>* updated[] = {&running.mean, &running.var};
  for (size_t i = 1; i < ctx.num_outputs() && i < 3; ++i) {
    const Tensor& source = ctx.input(2 + i);
    Tensor& out = ctx.output(i, source.dtype(), source.shape());
    visit_float_dtype(source.dtype(), node.op_type(), [&](auto tag) {
      fill_from_doubles<typename decltype(tag)::type>(out, *updated[i - 1]);
    });
  }
}

}  // namespace

OpKernel batch_normalization_kernel() {
  return OpKernel{"BatchNormalization", 7, 18, infer_batch_normalization,
                  compute_batch_normalization};
}

}  // namespace inferlab::kernels::reference
