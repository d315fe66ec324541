// LSTM reference kernel (ONNX opsets 7-18). Gates are stored in the order
// i (input), o (output), f (forget), c (cell); peepholes P in the order
// i, o, f. With input_forget the forget gate is coupled: f = 1 - i.
#include <vector>

#include "inferlab/kernels/reference/rnn_common.h"
#include "inferlab/kernels/reference/rnn_ops.h"

namespace inferlab::kernels::reference {
namespace {

constexpr int64_t kLstmGates = 4;
enum LstmGate : int64_t { kInputGate = 0, kOutputGate = 1, kForgetGate = 2, kCellGate = 3 };

std::vector<std::string> lstm_default_activations() { return {"Sigmoid", "Tanh", "Tanh"}; }

struct LstmActivations {
  RnnActivation f;  // gates
  RnnActivation g;  // cell candidate
  RnnActivation h;  // cell output
};

// One direction's weights and activations, plus scratch for one step.
template <typename T>
class LstmCell {
 public:
  LstmCell(const RnnDims& dims, const T* w, const T* r, const T* bias, const T* peepholes,
           const LstmActivations& activations, std::optional<double> clip, bool input_forget)
      : dims_(dims),
        w_(w),
        r_(r),
        bias_(bias),
        peepholes_(peepholes),
        act_(activations),
        clip_(clip),
        input_forget_(input_forget),
        gates_(static_cast<size_t>(kLstmGates * dims.hidden_size)) {}

  // Advances the hidden state `h` and cell state `c` by one step with input row `x`.
  void step(const T* x, std::vector<double>& h, std::vector<double>& c) {
    const int64_t hidden = dims_.hidden_size;
    for (int64_t gate = 0; gate < kLstmGates; ++gate) {
      for (int64_t j = 0; j < hidden; ++j) gates_[gate * hidden + j] = gate_input(gate, j, x, h);
    }
    for (int64_t j = 0; j < hidden; ++j) {
      const double c_prev = c[j];
      const double input = activate(act_.f, kInputGate, j, peephole(0, j) * c_prev);
      const double forget =
          input_forget_ ? 1.0 - input : activate(act_.f, kForgetGate, j, peephole(2, j) * c_prev);
      const double candidate = activate(act_.g, kCellGate, j, 0.0);
      c[j] = forget * c_prev + input * candidate;
      const double output = activate(act_.f, kOutputGate, j, peephole(1, j) * c[j]);
      h[j] = output * act_.h(rnn_clip(clip_, c[j]));
    }
  }

 private:
  const T* w_row(int64_t gate, int64_t j) const {
    return w_ + (gate * dims_.hidden_size + j) * dims_.input_size;
  }
  const T* r_row(int64_t gate, int64_t j) const {
    return r_ + (gate * dims_.hidden_size + j) * dims_.hidden_size;
  }
  // Bias slots 0..3 are Wb[i,o,f,c], 4..7 are Rb[i,o,f,c].
  double bias_at(int64_t slot, int64_t j) const {
    return bias_ == nullptr ? 0.0 : static_cast<double>(bias_[slot * dims_.hidden_size + j]);
  }
  // Peephole slots 0..2 are P[i,o,f].
  double peephole(int64_t slot, int64_t j) const {
    return peepholes_ == nullptr ? 0.0
                                 : static_cast<double>(peepholes_[slot * dims_.hidden_size + j]);
  }
  double gate_input(int64_t gate, int64_t j, const T* x, const std::vector<double>& h) const {
    return rnn_dot(w_row(gate, j), x, dims_.input_size) +
           rnn_dot(r_row(gate, j), h.data(), dims_.hidden_size) + bias_at(gate, j) +
           bias_at(kLstmGates + gate, j);
  }
  double activate(const RnnActivation& activation, int64_t gate, int64_t j, double extra) const {
    return activation(rnn_clip(clip_, gates_[gate * dims_.hidden_size + j] + extra));
  }

  const RnnDims& dims_;
  const T* w_;
  const T* r_;
  const T* bias_;
  const T* peepholes_;
  LstmActivations act_;
  std::optional<double> clip_;
  bool input_forget_;
  std::vector<double> gates_;
};

template <typename T>
LstmCell<T> make_cell(const KernelContext& ctx, const RnnAttributes& attributes,
                      const RnnDims& dims, int64_t direction) {
  const int64_t gate_rows = kLstmGates * dims.hidden_size;
  const T* bias = ctx.has_input(3) ? ctx.input(3).data<T>() + direction * 2 * gate_rows : nullptr;
  const T* peepholes =
      ctx.has_input(7) ? ctx.input(7).data<T>() + direction * 3 * dims.hidden_size : nullptr;
  const RnnActivation* act = &attributes.activations[3 * direction];
  return LstmCell<T>(dims, ctx.input(1).data<T>() + direction * gate_rows * dims.input_size,
                     ctx.input(2).data<T>() + direction * gate_rows * dims.hidden_size, bias,
                     peepholes, LstmActivations{act[0], act[1], act[2]}, attributes.clip,
                     ctx.node().attr_int("input_forget", 0) != 0);
}

template <typename T>
void run_lstm(KernelContext& ctx, const RnnAttributes& attributes, const RnnDims& dims) {
  const std::vector<int64_t> lengths =
      rnn_sequence_lengths(ctx.node(), dims, ctx.has_input(4) ? &ctx.input(4) : nullptr);
  const T* x = ctx.input(0).data<T>();
  T* y = rnn_output<T>(ctx, 0, rnn_y_shape(dims));
  T* y_h = rnn_output<T>(ctx, 1, rnn_state_shape(dims));
  T* y_c = rnn_output<T>(ctx, 2, rnn_state_shape(dims));
  for (int64_t d = 0; d < dims.num_directions; ++d) {
    LstmCell<T> cell = make_cell<T>(ctx, attributes, dims, d);
    const bool reverse = attributes.reverse_only || d == 1;
    for (int64_t b = 0; b < dims.batch; ++b) {
      std::vector<double> h = rnn_initial_state<T>(ctx, 5, dims, d, b);
      std::vector<double> c = rnn_initial_state<T>(ctx, 6, dims, d, b);
      for (int64_t s = 0; s < lengths[b]; ++s) {
        const int64_t t = reverse ? lengths[b] - 1 - s : s;
        cell.step(x + rnn_x_offset(dims, t, b), h, c);
        rnn_store(h, y == nullptr ? nullptr : y + rnn_y_offset(dims, t, d, b));
      }
      const int64_t state_offset = rnn_state_offset(dims, d, b);
      rnn_store(h, y_h == nullptr ? nullptr : y_h + state_offset);
      rnn_store(c, y_c == nullptr ? nullptr : y_c + state_offset);
    }
  }
}

void infer_lstm(InferContext& ctx) {
  infer_rnn_outputs(ctx, kLstmGates, lstm_default_activations());
}

void compute_lstm(KernelContext& ctx) {
  const RnnAttributes attributes = read_rnn_attributes(ctx.node(), lstm_default_activations());
  const RnnDims dims =
      rnn_dims(ctx.node(), attributes, kLstmGates, rnn_input_shapes(ctx, /*has_cell_inputs=*/true));
  const DataType dtype = check_rnn_input_types(ctx, /*has_cell_inputs=*/true);
  visit_float_dtype(dtype, "LSTM", [&](auto tag) {
    using T = typename decltype(tag)::type;
    run_lstm<T>(ctx, attributes, dims);
  });
}

}  // namespace

OpKernel lstm_kernel() { return OpKernel{"LSTM", 7, 18, infer_lstm, compute_lstm}; }

}  // namespace inferlab::kernels::reference
