// What the ONNX recurrent operators (GRU, LSTM) share: the direction and
// layout attributes, the activation functions with their alpha/beta, the
// shape rule for inputs and outputs, and the indexing of X, Y and the states
// in either layout. Each operator's cell equations live in its own file.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inferlab/core/shape.h"
#include "inferlab/core/tensor.h"
#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels::reference {

// One activation of the `activations` attribute, with its alpha/beta resolved.
class RnnActivation {
 public:
  enum class Kind {
    kRelu,
    kTanh,
    kSigmoid,
    kAffine,
    kLeakyRelu,
    kThresholdedRelu,
    kScaledTanh,
    kHardSigmoid,
    kElu,
    kSoftsign,
    kSoftplus,
  };

  RnnActivation(Kind kind, double alpha, double beta) : kind_(kind), alpha_(alpha), beta_(beta) {}
  double operator()(double x) const;

 private:
  Kind kind_;
  double alpha_;
  double beta_;
};

// The attributes every recurrent operator reads, validated once.
struct RnnAttributes {
  int64_t num_directions = 1;
  bool reverse_only = false;  // direction == "reverse"
  int64_t layout = 0;         // 0: [seq, batch, ...]; 1: [batch, seq, ...] (opset 14)
  std::optional<int64_t> hidden_size;
  std::optional<double> clip;
  // activations_per_direction entries for each direction, direction 0 first.
  std::vector<RnnActivation> activations;
};

// Reads direction, layout, hidden_size, clip and activations (with
// activation_alpha/beta); `default_activations` are the op's defaults for one
// direction, e.g. {"Sigmoid", "Tanh"} for GRU.
RnnAttributes read_rnn_attributes(const NodeInfo& node,
                                  const std::vector<std::string>& default_activations);

// The sizes of one run, derived from and checked against the input shapes.
struct RnnDims {
  int64_t seq_length = 0;
  int64_t batch = 0;
  int64_t input_size = 0;
  int64_t hidden_size = 0;
  int64_t num_directions = 1;
  int64_t layout = 0;
};

// The shapes of the inputs; absent optional inputs are std::nullopt.
// Indices follow ONNX: X, W, R, B, sequence_lens, initial_h, (LSTM) initial_c, P.
struct RnnInputShapes {
  Shape x, w, r;
  std::optional<Shape> bias, sequence_lens, initial_h, initial_c, peepholes;
};

// Validates every input shape against the attributes; `gate_count` is 3 for
// GRU and 4 for LSTM. Errors name the node and the input at fault.
RnnDims rnn_dims(const NodeInfo& node, const RnnAttributes& attributes, int64_t gate_count,
                 const RnnInputShapes& shapes);

// Output shapes: Y is [seq, dirs, batch, hidden] (layout 1: [batch, seq, dirs,
// hidden]); Y_h and Y_c are [dirs, batch, hidden] (layout 1: [batch, dirs, hidden]).
Shape rnn_y_shape(const RnnDims& dims);
Shape rnn_state_shape(const RnnDims& dims);

// Element offsets into X, Y and a state tensor, honouring the layout.
int64_t rnn_x_offset(const RnnDims& dims, int64_t step, int64_t batch_index);
int64_t rnn_y_offset(const RnnDims& dims, int64_t step, int64_t direction, int64_t batch_index);
int64_t rnn_state_offset(const RnnDims& dims, int64_t direction, int64_t batch_index);

// Per-batch sequence lengths: from sequence_lens when given (each checked to
// lie in [0, seq_length]), else seq_length for every batch entry.
std::vector<int64_t> rnn_sequence_lengths(const NodeInfo& node, const RnnDims& dims,
                                          const Tensor* sequence_lens);

// The shapes of the inputs present in a KernelContext / InferContext.
// `has_cell_inputs` says whether indices 6 and 7 (initial_c, P) exist (LSTM).
RnnInputShapes rnn_input_shapes(const KernelContext& ctx, bool has_cell_inputs);
RnnInputShapes rnn_input_shapes(const InferContext& ctx, bool has_cell_inputs);

// The shared shape rule: every requested output (Y, Y_h and, for LSTM, Y_c)
// gets X's element type and its shape.
void infer_rnn_outputs(InferContext& ctx, int64_t gate_count,
                       const std::vector<std::string>& default_activations);

// Checks that X is float or double and that W, R, B, the initial states and P
// share its element type; returns it.
DataType check_rnn_input_types(const KernelContext& ctx, bool has_cell_inputs);
DataType check_rnn_input_types(const InferContext& ctx, bool has_cell_inputs);

// A dot product of two contiguous vectors accumulated in double.
template <typename A, typename B>
double rnn_dot(const A* a, const B* b, int64_t n) {
  double sum = 0.0;
  for (int64_t k = 0; k < n; ++k) sum += static_cast<double>(a[k]) * static_cast<double>(b[k]);
  return sum;
}

// Output `index` zero-filled when the node requests it, else null.
template <typename T>
T* rnn_output(KernelContext& ctx, size_t index, const Shape& shape) {
  if (index >= ctx.num_outputs()) return nullptr;
  Tensor& tensor = ctx.output(index, dtype_of<T>(), shape);
  T* data = tensor.data<T>();
  for (int64_t i = 0; i < tensor.numel(); ++i) data[i] = T(0);
  return data;
}

// The initial state of one (direction, batch) pair from optional input
// `index` (initial_h or initial_c), zeros when absent.
template <typename T>
std::vector<double> rnn_initial_state(const KernelContext& ctx, size_t index, const RnnDims& dims,
                                      int64_t direction, int64_t batch_index) {
  std::vector<double> state(static_cast<size_t>(dims.hidden_size), 0.0);
  if (!ctx.has_input(index)) return state;
  const T* source = ctx.input(index).data<T>() + rnn_state_offset(dims, direction, batch_index);
  for (int64_t j = 0; j < dims.hidden_size; ++j) state[j] = static_cast<double>(source[j]);
  return state;
}

// Writes a state vector (when `destination` is not null).
template <typename T>
void rnn_store(const std::vector<double>& values, T* destination) {
  if (destination == nullptr) return;
  for (size_t j = 0; j < values.size(); ++j) destination[j] = static_cast<T>(values[j]);
}

// Applies `clip` (when set) to an activation's input, as ONNX specifies.
inline double rnn_clip(const std::optional<double>& clip, double x) {
  if (!clip) return x;
  return x < -*clip ? -*clip : (x > *clip ? *clip : x);
}

}  // namespace inferlab::kernels::reference
