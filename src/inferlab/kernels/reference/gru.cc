// GRU reference kernel (ONNX opsets 7-18). Gates are stored in the order
// z (update), r (reset), h (hidden); each batch entry runs its own sequence
// length, so reverse directions start at that entry's last valid step.
#include <vector>

#include "inferlab/kernels/reference/rnn_common.h"
#include "inferlab/kernels/reference/rnn_ops.h"

namespace inferlab::kernels::reference {
namespace {

constexpr int64_t kGruGates = 3;

std::vector<std::string> gru_default_activations() { return {"Sigmoid", "Tanh"}; }

// One direction's weights and activations, plus scratch for one step.
template <typename T>
class GruCell {
 public:
  GruCell(const RnnDims& dims, const T* w, const T* r, const T* bias, const RnnActivation& f,
          const RnnActivation& g, std::optional<double> clip, bool linear_before_reset)
      : dims_(dims),
        w_(w),
        r_(r),
        bias_(bias),
        f_(f),
        g_(g),
        clip_(clip),
        linear_before_reset_(linear_before_reset),
        update_(dims.hidden_size),
        reset_(dims.hidden_size),
        reset_h_(dims.hidden_size),
        scratch_(dims.hidden_size) {}

  // Advances `h` by one step with input row `x`.
  void step(const T* x, std::vector<double>& h) {
    const int64_t hidden = dims_.hidden_size;
    for (int64_t j = 0; j < hidden; ++j) {
      update_[j] = f_(rnn_clip(clip_, gate_input(0, j, x, h.data())));
      reset_[j] = f_(rnn_clip(clip_, gate_input(1, j, x, h.data())));
    }
    if (linear_before_reset_) {
      // scratch = Rh h + Rbh, computed before the reset gate scales it.
      for (int64_t j = 0; j < hidden; ++j) {
        scratch_[j] = rnn_dot(r_row(2, j), h.data(), hidden) + bias_at(kGruGates + 2, j);
      }
      for (int64_t j = 0; j < hidden; ++j) scratch_[j] *= reset_[j];
    } else {
      for (int64_t k = 0; k < hidden; ++k) reset_h_[k] = reset_[k] * h[k];
      for (int64_t j = 0; j < hidden; ++j) {
        scratch_[j] = rnn_dot(r_row(2, j), reset_h_.data(), hidden) + bias_at(kGruGates + 2, j);
      }
    }
    for (int64_t j = 0; j < hidden; ++j) {
      const double input_part = rnn_dot(w_row(2, j), x, dims_.input_size) + bias_at(2, j);
      const double candidate = g_(rnn_clip(clip_, input_part + scratch_[j]));
      h[j] = (1.0 - update_[j]) * candidate + update_[j] * h[j];
    }
  }

 private:
  const T* w_row(int64_t gate, int64_t j) const {
    return w_ + (gate * dims_.hidden_size + j) * dims_.input_size;
  }
  const T* r_row(int64_t gate, int64_t j) const {
    return r_ + (gate * dims_.hidden_size + j) * dims_.hidden_size;
  }
  // Bias slot 0..2 are Wb[z,r,h], 3..5 are Rb[z,r,h].
  double bias_at(int64_t slot, int64_t j) const {
    return bias_ == nullptr ? 0.0 : static_cast<double>(bias_[slot * dims_.hidden_size + j]);
  }
  // Wx + Rh + Wb + Rb for the z or r gate.
  double gate_input(int64_t gate, int64_t j, const T* x, const double* h) const {
    return rnn_dot(w_row(gate, j), x, dims_.input_size) +
           rnn_dot(r_row(gate, j), h, dims_.hidden_size) + bias_at(gate, j) +
           bias_at(kGruGates + gate, j);
  }

  const RnnDims& dims_;
  const T* w_;
  const T* r_;
  const T* bias_;
  RnnActivation f_;
  RnnActivation g_;
  std::optional<double> clip_;
  bool linear_before_reset_;
  std::vector<double> update_;
  std::vector<double> reset_;
  std::vector<double> reset_h_;
  std::vector<double> scratch_;
};

template <typename T>
void run_gru(KernelContext& ctx, const RnnAttributes& attributes, const RnnDims& dims) {
  const NodeInfo& node = ctx.node();
  const bool linear_before_reset = node.attr_int("linear_before_reset", 0) != 0;
  const std::vector<int64_t> lengths =
      rnn_sequence_lengths(node, dims, ctx.has_input(4) ? &ctx.input(4) : nullptr);
  const T* x = ctx.input(0).data<T>();
  const int64_t weight_stride = kGruGates * dims.hidden_size;
  T* y = rnn_output<T>(ctx, 0, rnn_y_shape(dims));
  T* y_h = rnn_output<T>(ctx, 1, rnn_state_shape(dims));
  for (int64_t d = 0; d < dims.num_directions; ++d) {
    const T* bias = ctx.has_input(3) ? ctx.input(3).data<T>() + d * 2 * weight_stride : nullptr;
    GruCell<T> cell(dims, ctx.input(1).data<T>() + d * weight_stride * dims.input_size,
                    ctx.input(2).data<T>() + d * weight_stride * dims.hidden_size, bias,
                    attributes.activations[2 * d], attributes.activations[2 * d + 1],
                    attributes.clip, linear_before_reset);
    const bool reverse = attributes.reverse_only || d == 1;
    for (int64_t b = 0; b < dims.batch; ++b) {
      std::vector<double> h = rnn_initial_state<T>(ctx, 5, dims, d, b);
      for (int64_t s = 0; s < lengths[b]; ++s) {
        const int64_t t = reverse ? lengths[b] - 1 - s : s;
        cell.step(x + rnn_x_offset(dims, t, b), h);
        rnn_store(h, y == nullptr ? nullptr : y + rnn_y_offset(dims, t, d, b));
      }
      rnn_store(h, y_h == nullptr ? nullptr : y_h + rnn_state_offset(dims, d, b));
    }
  }
}

void infer_gru(InferContext& ctx) { infer_rnn_outputs(ctx, kGruGates, gru_default_activations()); }

void compute_gru(KernelContext& ctx) {
  const RnnAttributes attributes = read_rnn_attributes(ctx.node(), gru_default_activations());
  const RnnDims dims =
      rnn_dims(ctx.node(), attributes, kGruGates, rnn_input_shapes(ctx, /*has_cell_inputs=*/false));
  const DataType dtype = check_rnn_input_types(ctx, /*has_cell_inputs=*/false);
  visit_float_dtype(dtype, "GRU", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_gru<T>(ctx, attributes, dims);
  });
}

}  // namespace

OpKernel gru_kernel() { return OpKernel{"GRU", 7, 18, infer_gru, compute_gru}; }

}  // namespace inferlab::kernels::reference
