// Loop: runs its body while the trip count M (optional) and the condition
// (optional) allow. Body inputs: (iteration number, condition, carried...);
// body outputs: (condition, carried..., scan...). The node's outputs are the
// final carried values, then each scan output's per-iteration values stacked
// along a new leading axis (with zero iterations: empty, of the body's
// declared type).
#include <cstring>
#include <limits>

#include "inferlab/kernels/reference/control_flow_ops.h"

namespace inferlab::kernels::reference {

namespace {

bool read_flag(const NodeInfo& node, const Tensor& flag, const char* what) {
  if (flag.numel() != 1) {
    node.fail(ErrorCode::kInvalidArgument, "{} must hold one element, got shape {}", what,
              shape_to_string(flag.shape()));
  }
  if (flag.dtype() == DataType::kBool) return flag.data<bool>()[0];
  return flag.element_as_double(0) != 0.0;
}

int64_t read_trip_count(const NodeInfo& node, const Tensor& count) {
  if (count.numel() != 1 || !is_integer_dtype(count.dtype())) {
    node.fail(ErrorCode::kInvalidArgument, "trip count M must be one integer, got {} {}",
              dtype_name(count.dtype()), shape_to_string(count.shape()));
  }
  return count.to_int64_vector()[0];
}

// Stacks equally shaped tensors along a new axis 0.
Tensor stack_iterations(const NodeInfo& node, const std::vector<Tensor>& parts, size_t index) {
  const Tensor& first = parts.front();
  Shape shape = first.shape();
  shape.insert(shape.begin(), static_cast<int64_t>(parts.size()));
  Tensor stacked(first.dtype(), shape);
  const size_t part_bytes = first.nbytes();
  for (size_t i = 0; i < parts.size(); ++i) {
    if (parts[i].dtype() != first.dtype() || parts[i].shape() != first.shape()) {
      node.fail(ErrorCode::kInvalidArgument,
                "scan output {} is {} {} in iteration {} but {} {} in iteration 0", index,
                dtype_name(parts[i].dtype()), shape_to_string(parts[i].shape()), i,
                dtype_name(first.dtype()), shape_to_string(first.shape()));
    }
    if (first.dtype() == DataType::kString) {
      const auto* in = parts[i].data<std::string>();
      auto* out = stacked.data<std::string>() + i * static_cast<size_t>(first.numel());
      for (int64_t j = 0; j < first.numel(); ++j) out[j] = in[j];
    } else if (part_bytes > 0) {
      std::memcpy(static_cast<char*>(stacked.raw_data()) + i * part_bytes, parts[i].raw_data(),
                  part_bytes);
    }
  }
  return stacked;
}

// A scan output of a loop that never ran: no values, but the body's declared
// type, and shape [0, per-iteration dims] when those dims are static.
Tensor empty_scan_output(const SubgraphOutputType& declared) {
  const DataType dtype =
      declared.dtype == DataType::kUndefined ? DataType::kFloat32 : declared.dtype;
  Shape shape = declared.shape.value_or(Shape{});
  shape.insert(shape.begin(), 0);
  return Tensor(dtype, shape);
}

void infer_loop(InferContext& ctx) {
  // Carried outputs keep their initial type; their shapes (and the scan
  // outputs) are only known once the body has run.
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    const bool carried = ctx.has_input(i + 2);
    ctx.set_output_dynamic(i, carried ? ctx.input(i + 2).dtype : DataType::kUndefined);
  }
}

void compute_loop(KernelContext& ctx) {
  const NodeInfo& node = ctx.node();
  if (!ctx.has_input(0) && !ctx.has_input(1)) {
    node.fail(ErrorCode::kInvalidModel, "has neither a trip count nor a condition: it never ends");
  }
  const int64_t trip_count =
      ctx.has_input(0) ? read_trip_count(node, ctx.input(0)) : std::numeric_limits<int64_t>::max();
  bool condition = ctx.has_input(1) ? read_flag(node, ctx.input(1), "condition") : true;
  const size_t carried_count = ctx.num_inputs() > 2 ? ctx.num_inputs() - 2 : 0;
  std::vector<Tensor> carried;
  for (size_t i = 0; i < carried_count; ++i) carried.push_back(ctx.input(i + 2));

  std::vector<std::vector<Tensor>> scans;
  for (int64_t iteration = 0; iteration < trip_count && condition; ++iteration) {
    std::vector<Tensor> body_inputs = {Tensor::scalar<int64_t>(iteration),
                                       Tensor::scalar<bool>(condition)};
    body_inputs.insert(body_inputs.end(), carried.begin(), carried.end());
    std::vector<Tensor> body_outputs = ctx.subgraphs().run_subgraph("body", body_inputs);
    if (body_outputs.size() < 1 + carried_count) {
      node.fail(ErrorCode::kInvalidModel, "body produced {} outputs, expected at least {}",
                body_outputs.size(), 1 + carried_count);
    }
    condition = read_flag(node, body_outputs[0], "body condition output");
    for (size_t i = 0; i < carried_count; ++i) carried[i] = std::move(body_outputs[1 + i]);
    scans.resize(body_outputs.size() - 1 - carried_count);
    for (size_t k = 0; k < scans.size(); ++k) {
      scans[k].push_back(std::move(body_outputs[1 + carried_count + k]));
    }
  }
  for (size_t i = 0; i < carried_count && i < ctx.num_outputs(); ++i) ctx.set_output(i, carried[i]);
  std::vector<SubgraphOutputType> body_types;
  if (ctx.num_outputs() > carried_count + scans.size()) {
    body_types = ctx.subgraphs().subgraph_output_types("body");
  }
  for (size_t i = carried_count; i < ctx.num_outputs(); ++i) {
    const size_t k = i - carried_count;
    if (k < scans.size()) {
      ctx.set_output(i, stack_iterations(node, scans[k], k));
      continue;
    }
    // The body never ran: its declared output type stands in for the values
    // (float stands in when the body declares no type).
    const size_t body_index = 1 + carried_count + k;
    ctx.set_output(i, empty_scan_output(body_index < body_types.size() ? body_types[body_index]
                                                                       : SubgraphOutputType{}));
  }
}

}  // namespace

OpKernel loop_kernel() { return OpKernel{"Loop", 7, 18, infer_loop, compute_loop}; }

}  // namespace inferlab::kernels::reference
