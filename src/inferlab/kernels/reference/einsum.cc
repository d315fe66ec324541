// Einsum (opset 12): a general equation parser (explicit or implicit output,
// '...' broadcasting, repeated labels for diagonals, summed labels) and a
// general index loop over every label. Two-operand equations that are a
// batched matrix product (every label either batch, row, column or summed,
// no diagonals or broadcasting) are permuted into GEMM form and run on the
// shared blocked GEMM instead.
#include <algorithm>
#include <string>
#include <type_traits>
#include <vector>

#include "inferlab/kernels/reference/einsum_matmul.h"
#include "inferlab/kernels/reference/nn_ops.h"

namespace inferlab::kernels::reference {
namespace {

constexpr int kLetterLabels = 52;  // 'A'..'Z' then 'a'..'z' (ASCII order); '...' dims follow

struct EinsumSpec {
  std::vector<std::vector<int>> inputs;  // one label per operand dim
  std::vector<int> output;
  std::vector<int64_t> sizes;  // per label; -1 when unused
};

int letter_label(const NodeInfo& node, char c) {
  if (c >= 'A' && c <= 'Z') return c - 'A';
  if (c >= 'a' && c <= 'z') return 26 + (c - 'a');
  node.fail(ErrorCode::kInvalidModel, "equation has invalid character '{}'", c);
}

char label_name(int label) {
  return label < 26              ? static_cast<char>('A' + label)
         : label < kLetterLabels ? static_cast<char>('a' + label - 26)
                                 : '.';
}

// Splits a term into letter labels; `ellipsis_at` is where '...' was (or -1).
std::vector<int> parse_term(const NodeInfo& node, const std::string& term, int& ellipsis_at) {
  std::vector<int> labels;
  ellipsis_at = -1;
  for (size_t i = 0; i < term.size(); ++i) {
    if (term[i] == '.') {
      if (ellipsis_at >= 0 || term.compare(i, 3, "...") != 0) {
        node.fail(ErrorCode::kInvalidModel, "term '{}' has a malformed ellipsis", term);
      }
      ellipsis_at = static_cast<int>(labels.size());
      i += 2;
      continue;
    }
    labels.push_back(letter_label(node, term[i]));
  }
  return labels;
}

std::vector<std::string> split_terms(const std::string& text) {
  std::vector<std::string> terms(1);
  for (char c : text) {
    if (c == ',') {
      terms.emplace_back();
    } else {
      terms.back() += c;
    }
  }
  return terms;
}

void set_size(const NodeInfo& node, EinsumSpec& spec, int label, int64_t size) {
  if (static_cast<size_t>(label) >= spec.sizes.size()) spec.sizes.resize(label + 1, -1);
  int64_t& known = spec.sizes[label];
  if (known == -1 || known == size) {
    known = size;
  } else if (label >= kLetterLabels && (known == 1 || size == 1)) {
    known = std::max(known, size);  // '...' dims broadcast
  } else {
    node.fail(ErrorCode::kInvalidArgument, "label '{}' has sizes {} and {} in different places",
              label_name(label), known, size);
  }
}

std::vector<int> implicit_output(const EinsumSpec& spec, int ellipsis_rank) {
  std::vector<int> counts(kLetterLabels, 0);
  for (const auto& labels : spec.inputs) {
    for (int label : labels) {
      if (label < kLetterLabels) ++counts[label];
    }
  }
  std::vector<int> output;
  for (int e = 0; e < ellipsis_rank; ++e) output.push_back(kLetterLabels + e);
  for (int label = 0; label < kLetterLabels; ++label) {
    if (counts[label] == 1) output.push_back(label);
  }
  return output;
}

EinsumSpec parse_einsum(const NodeInfo& node, const std::vector<Shape>& shapes) {
  std::string equation;
  for (char c : node.attr_string("equation", "")) {
    if (c != ' ') equation += c;
  }
  const size_t arrow = equation.find("->");
  const std::vector<std::string> terms = split_terms(equation.substr(0, arrow));
  if (terms.size() != shapes.size()) {
    node.fail(ErrorCode::kInvalidModel,
              "equation '{}' has {} operand terms but the node has {} inputs", equation,
              terms.size(), shapes.size());
  }
  EinsumSpec spec;
  spec.sizes.assign(kLetterLabels, -1);
  std::vector<int> ellipsis_at(terms.size());
  int ellipsis_rank = 0;
  for (size_t i = 0; i < terms.size(); ++i) {
    spec.inputs.push_back(parse_term(node, terms[i], ellipsis_at[i]));
    const int64_t extra =
        static_cast<int64_t>(shapes[i].size()) - static_cast<int64_t>(spec.inputs[i].size());
    if (extra < 0 || (extra > 0 && ellipsis_at[i] < 0)) {
      node.fail(ErrorCode::kInvalidArgument, "term '{}' does not match input {} of shape {}",
                terms[i], i, shape_to_string(shapes[i]));
    }
    ellipsis_rank = std::max(ellipsis_rank, static_cast<int>(extra));
  }
  for (size_t i = 0; i < terms.size(); ++i) {
    const int extra = static_cast<int>(shapes[i].size() - spec.inputs[i].size());
    std::vector<int> dots;
    for (int e = 0; e < extra; ++e) dots.push_back(kLetterLabels + ellipsis_rank - extra + e);
    if (ellipsis_at[i] >= 0) {
      spec.inputs[i].insert(spec.inputs[i].begin() + ellipsis_at[i], dots.begin(), dots.end());
    }
    for (size_t d = 0; d < shapes[i].size(); ++d)
      set_size(node, spec, spec.inputs[i][d], shapes[i][d]);
  }
  if (arrow == std::string::npos) {
    spec.output = implicit_output(spec, ellipsis_rank);
    return spec;
  }
  int output_ellipsis = -1;
  spec.output = parse_term(node, equation.substr(arrow + 2), output_ellipsis);
  if (output_ellipsis >= 0) {
    std::vector<int> dots;
    for (int e = 0; e < ellipsis_rank; ++e) dots.push_back(kLetterLabels + e);
    spec.output.insert(spec.output.begin() + output_ellipsis, dots.begin(), dots.end());
  }
  for (size_t i = 0; i < spec.output.size(); ++i) {
    const int label = spec.output[i];
    if (label < kLetterLabels && spec.sizes[label] == -1) {
      node.fail(ErrorCode::kInvalidModel, "output label '{}' does not appear in any input",
                label_name(label));
    }
    if (std::count(spec.output.begin(), spec.output.end(), label) > 1) {
      node.fail(ErrorCode::kInvalidModel, "output label '{}' appears twice", label_name(label));
    }
  }
  return spec;
}

Shape output_shape(const EinsumSpec& spec) {
  Shape shape;
  for (int label : spec.output) shape.push_back(spec.sizes[label]);
  return shape;
}

// Element stride of `label` in an operand (summed over repeated labels, 0 for
// broadcast size-1 dims).
std::vector<int64_t> label_strides(const EinsumSpec& spec, const std::vector<int>& labels,
                                   const Shape& shape) {
  std::vector<int64_t> strides(spec.sizes.size(), 0);
  const std::vector<int64_t> dense = shape_strides(shape);
  for (size_t d = 0; d < labels.size(); ++d) {
    if (shape[d] != 1 || spec.sizes[labels[d]] == 1) strides[labels[d]] += dense[d];
  }
  return strides;
}

// The general loop: the output labels, then every other label, as one odometer.
template <typename T>
void einsum_loop(const EinsumSpec& spec, const std::vector<const Tensor*>& inputs, T* out) {
  std::vector<int> order = spec.output;
  for (size_t label = 0; label < spec.sizes.size(); ++label) {
    if (spec.sizes[label] >= 0 &&
        std::find(order.begin(), order.end(), static_cast<int>(label)) == order.end()) {
      order.push_back(static_cast<int>(label));
    }
  }
  std::vector<std::vector<int64_t>> strides;
  for (size_t i = 0; i < inputs.size(); ++i) {
    strides.push_back(label_strides(spec, spec.inputs[i], inputs[i]->shape()));
  }
  // Integers wrap modulo 2^64 (never signed overflow), then narrow.
  using Acc = std::conditional_t<std::is_floating_point_v<T>, double, uint64_t>;
  const int64_t out_count = shape_numel(output_shape(spec));
  int64_t inner_count = 1;
  for (size_t i = spec.output.size(); i < order.size(); ++i) inner_count *= spec.sizes[order[i]];
  std::vector<int64_t> index(order.size(), 0);
  for (int64_t o = 0; o < out_count; ++o) {
    Acc sum = 0;
    for (int64_t r = 0; r < inner_count; ++r) {
      Acc product = 1;
      for (size_t i = 0; i < inputs.size(); ++i) {
        int64_t offset = 0;
        for (size_t l = 0; l < order.size(); ++l) offset += index[l] * strides[i][order[l]];
        product *= static_cast<Acc>(inputs[i]->data<T>()[offset]);
      }
      sum += product;
      for (size_t l = order.size(); l-- > 0;) {
        if (++index[l] < spec.sizes[order[l]]) break;
        index[l] = 0;
      }
    }
    out[o] = static_cast<T>(sum);
  }
}

std::vector<Shape> input_shapes(const InferContext& ctx) {
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) shapes.push_back(ctx.input(i).shape);
  return shapes;
}

void infer_einsum(InferContext& ctx) {
  const EinsumSpec spec = parse_einsum(ctx.node(), input_shapes(ctx));
  ctx.set_output(0, ctx.input(0).dtype, output_shape(spec));
}

void compute_einsum(KernelContext& ctx) {
  std::vector<const Tensor*> inputs;
  std::vector<Shape> shapes;
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    inputs.push_back(&ctx.input(i));
    shapes.push_back(ctx.input(i).shape());
    if (inputs[i]->dtype() != inputs[0]->dtype()) {
      ctx.node().fail(ErrorCode::kInvalidArgument, "input {} is {} but input 0 is {}", i,
                      dtype_name(inputs[i]->dtype()), dtype_name(inputs[0]->dtype()));
    }
  }
  if (inputs.empty()) ctx.node().fail(ErrorCode::kInvalidModel, "needs at least one input");
  const EinsumSpec spec = parse_einsum(ctx.node(), shapes);
  const DataType dtype = inputs[0]->dtype();
  Tensor& out = ctx.output(0, dtype, output_shape(spec));
  if (einsum_as_batched_gemm(spec.inputs, spec.output, spec.sizes, inputs, out)) return;
  visit_dtype(dtype, ctx.node().op_type(), [&](auto tag) {
    using T = typename decltype(tag)::type;
    if constexpr (std::is_same_v<T, bool>) {
      ctx.node().fail(ErrorCode::kUnsupported, "element type bool is not supported");
    } else {
      einsum_loop<T>(spec, inputs, out.data<T>());
    }
  });
}

}  // namespace

OpKernel einsum_kernel() { return OpKernel{"Einsum", 12, 18, infer_einsum, compute_einsum}; }

}  // namespace inferlab::kernels::reference
