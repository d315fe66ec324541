// The pass manager: runs the passes of the requested level, in all_passes()
// order, sweep after sweep until a whole sweep changes nothing (capped), and
// records what each pass changed. Shapes are re-inferred after every pass
// that changed the graph, so the next pass sees fresh facts. A graph meant
// for another engine (OptimizeTarget::kOnnx) skips the native-only passes.
#include "inferlab/optimizer/optimizer.h"

#include <algorithm>

#include <fmt/format.h>

#include "inferlab/core/stopwatch.h"
#include "inferlab/optimizer/layout_pass.h"
#include "inferlab/runtime/shape_inference.h"

namespace inferlab::optimizer {

namespace {

// A graph that still changes after this many sweeps is left as it is then.
constexpr int kMaxSweeps = 8;

std::map<std::string, int64_t> count_ops(const model::Graph& graph) {
  std::map<std::string, int64_t> counts;
  for (const model::Node& node : graph.nodes) ++counts[op_key(node)];
  return counts;
}

runtime::ShapeInferenceResult infer(const model::Model& model, const OptimizeOptions& options,
                                    const kernels::OpRegistry& registry) {
  runtime::ShapeInferenceOptions shape_options;
  shape_options.input_shapes = options.input_shapes;
  shape_options.max_tensor_bytes = options.max_tensor_bytes;
  return runtime::infer_shapes(model, shape_options, registry);
}

// Adds `stats` to the log entry of `pass`, creating it at the end when the
// pass has not changed anything before (so entries keep first-change order).
void merge_into_log(OptimizationLog& log, const GraphPass& pass, const PassStats& stats) {
  auto entry = std::find_if(log.passes.begin(), log.passes.end(),
                            [&](const PassLogEntry& e) { return e.pass == pass.name(); });
  if (entry == log.passes.end()) {
    log.passes.push_back(PassLogEntry{pass.name(), pass.level(), {}});
    entry = log.passes.end() - 1;
  }
  for (const auto& [kind, count] : stats.changes) entry->stats.changes[kind] += count;
  for (const auto& [kind, names] : stats.nodes) {
    std::vector<std::string>& all = entry->stats.nodes[kind];
    all.insert(all.end(), names.begin(), names.end());
  }
}

// Runs one pass; returns whether it changed the graph.
bool run_pass(GraphPass& pass, model::Model& model, const OptimizeOptions& options,
              const kernels::OpRegistry& registry, runtime::ShapeInferenceResult& shapes,
              OptimizationLog& log) {
  PassContext context{model, registry, shapes, options.max_tensor_bytes};
  PassStats stats;
  try {
    pass.run(context, stats);
  } catch (const Error& error) {
    throw Error(error.code(), fmt::format("{}: optimizer pass '{}': {}", model.source, pass.name(),
                                          error.what()));
  } catch (const std::exception& error) {
    throw Error(ErrorCode::kRuntime, fmt::format("{}: optimizer pass '{}': {}", model.source,
                                                 pass.name(), error.what()));
  }
  if (!stats.changed()) return false;
  merge_into_log(log, pass, stats);
  shapes = infer(model, options, registry);
  return true;
}

// Whether `pass` runs at these options' level for their target; a pass of
// the level that the target skips is recorded once in the log.
bool selected(const GraphPass& pass, const OptimizeOptions& options, OptimizationLog& log) {
  if (pass.level() > options.level) return false;
  if (options.target == OptimizeTarget::kNative || !is_native_only(pass)) return true;
  std::vector<std::string>& skipped = log.skipped_passes;
  if (std::find(skipped.begin(), skipped.end(), pass.name()) == skipped.end())
    skipped.push_back(pass.name());
  return false;
}

}  // namespace

std::string op_key(const model::Node& node) {
  if (node.domain.empty() || node.domain == "ai.onnx") return node.op_type;
  return node.domain + "::" + node.op_type;
}

OptimizationLog optimize(model::Model& model, const OptimizeOptions& options,
                         const kernels::OpRegistry& registry) {
  if (!model.graph) fail(ErrorCode::kInvalidModel, "{}: the model has no graph", model.source);
  if (options.level < 0 || options.level > 3) {
    fail(ErrorCode::kInvalidArgument, "{}: optimization level must be 0..3, got {}", model.source,
         options.level);
  }
  const SteadyTime start = steady_now();
  OptimizationLog log;
  log.level = options.level;
  log.op_counts_before = count_ops(*model.graph);
  log.nodes_before = static_cast<int64_t>(model.graph->nodes.size());
  if (options.level > 0) {
    std::vector<std::unique_ptr<GraphPass>> passes = all_passes();
    runtime::ShapeInferenceResult shapes = infer(model, options, registry);
    for (int sweep = 0; sweep < kMaxSweeps; ++sweep) {
      bool changed = false;
      for (const std::unique_ptr<GraphPass>& pass : passes) {
        if (!selected(*pass, options, log)) continue;
        changed = run_pass(*pass, model, options, registry, shapes, log) || changed;
      }
      if (!changed) break;
    }
    for (const std::unique_ptr<GraphPass>& pass : finishing_passes()) {
      if (selected(*pass, options, log)) run_pass(*pass, model, options, registry, shapes, log);
    }
  }
  log.op_counts_after = count_ops(*model.graph);
  log.nodes_after = static_cast<int64_t>(model.graph->nodes.size());
  log.milliseconds = milliseconds_since(start);
  return log;
}

}  // namespace inferlab::optimizer
