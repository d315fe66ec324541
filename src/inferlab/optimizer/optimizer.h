// The graph optimizer: runs the passes of the requested level over a model
// until none changes anything, and returns the log the CLI prints
// (`inferlab optimize --log`). Level 0: nothing; 1 basic (folding,
// elimination, sharing); 2 extended (fusions onto ai.inferlab and
// com.microsoft operators, docs/fused-ops.md); 3 layout (channels-last
// activations for InferLab's own engine).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inferlab/core/shape.h"
#include "inferlab/kernels/registry.h"
#include "inferlab/model/graph.h"
#include "inferlab/optimizer/graph_pass.h"

namespace inferlab::optimizer {

// Who runs the optimized graph. kNative: InferLab's engine, which gets every
// pass of the level. kOnnx: another engine reading the graph written back as
// ONNX (`inferlab optimize -o`): passes whose result is InferLab's internal
// form only are skipped, because written out they are mere conversions the
// reader pays for (the channels-last layout would be ~127 Transposes in
// resnet50; ONNX Runtime chooses its own layout).
enum class OptimizeTarget { kNative, kOnnx };

struct OptimizeOptions {
  int level = 3;
  // Concrete shapes of inputs with symbolic dims (shape subgraphs fold only
  // once these are fixed).
  std::map<std::string, Shape> input_shapes;
  int64_t max_tensor_bytes = int64_t{4} << 30;
  OptimizeTarget target = OptimizeTarget::kNative;
};

struct PassLogEntry {
  std::string pass;
  int level = 0;
  PassStats stats;
};

struct OptimizationLog {
  int level = 0;
  std::vector<PassLogEntry> passes;                 // only passes that changed something, in order
  std::map<std::string, int64_t> op_counts_before;  // "Conv" / "ai.inferlab::FusedConv" -> n
  std::map<std::string, int64_t> op_counts_after;
  int64_t nodes_before = 0;
  int64_t nodes_after = 0;
  double milliseconds = 0;  // time spent optimizing
  // Passes of the level that the target skipped (native-only passes when
  // the target is kOnnx), in the order they would have run.
  std::vector<std::string> skipped_passes;
};

// Every pass, in the order they run; each knows its level.
std::vector<std::unique_ptr<GraphPass>> all_passes();
// Passes run once, in order, after the sweeps of all_passes() settle: the
// channels-last layout pass, which the fusions must never see.
std::vector<std::unique_ptr<GraphPass>> finishing_passes();
// Whether `pass` produces a form only InferLab's engine reads (the
// channels-last layout), so an export for another engine skips it.
bool is_native_only(const GraphPass& pass);

// Optimizes `model` in place. Adds the opset imports of the domains it
// introduces (ai.inferlab, com.microsoft). Throws Error naming the model and
// pass when a pass fails.
OptimizationLog optimize(model::Model& model, const OptimizeOptions& options,
                         const kernels::OpRegistry& registry);

// "Conv" for the default domain, "domain::OpType" otherwise.
std::string op_key(const model::Node& node);

}  // namespace inferlab::optimizer
