// `inferlab optimize MODEL`: runs the graph optimizer at a level and shows
// what it did — per pass the changes it made ("fused Conv+BatchNormalization
// +Relu x49", node names with --verbose), operator counts before -> after and
// node totals — and writes the optimized graph as an ONNX file that ONNX
// Runtime loads (-o). The log describes the level for InferLab's engine; the
// file is optimized again for ONNX Runtime, without the native-only passes
// (the channels-last layout, which would be written as Transposes).
// docs/optimizer.md describes the passes and the log.
#include <algorithm>
#include <iostream>
#include <memory>
#include <optional>
#include <set>

#include <fmt/format.h>
#include <fmt/ranges.h>

#include "inferlab/cli/cli_common.h"
#include "inferlab/kernels/registry.h"
#include "inferlab/model/onnx_import.h"
#include "inferlab/optimizer/onnx_export.h"
#include "inferlab/optimizer/optimizer.h"
#include "inferlab/runtime/memory_plan.h"
#include "inferlab/runtime/shape_inference.h"

namespace inferlab::cli {

namespace {

struct OptimizeFlags {
  std::string model_path;
  int level = 3;
  bool log = false;
  bool verbose = false;
  std::string output_path;
  std::vector<std::string> shapes;
  std::string json_target;
};

void print_pass_changes(const optimizer::OptimizationLog& log, bool verbose) {
  std::cout << "passes:\n";
  if (log.passes.empty()) std::cout << "  (nothing changed)\n";
  for (const optimizer::PassLogEntry& entry : log.passes) {
    std::cout << fmt::format("  {} (level {}):\n", entry.pass, entry.level);
    for (const auto& [kind, count] : entry.stats.changes) {
      std::cout << fmt::format("    {} x{}\n", kind, count);
      auto names = entry.stats.nodes.find(kind);
      if (!verbose || names == entry.stats.nodes.end()) continue;
      for (const std::string& name : names->second) std::cout << fmt::format("      {}\n", name);
    }
  }
}

// One row per operator present before or after, most frequent first.
void print_operator_table(const optimizer::OptimizationLog& log) {
  std::set<std::string> keys;
  for (const auto& [key, count] : log.op_counts_before) keys.insert(key);
  for (const auto& [key, count] : log.op_counts_after) keys.insert(key);
  auto count_of = [](const std::map<std::string, int64_t>& counts, const std::string& key) {
    auto it = counts.find(key);
    return it == counts.end() ? int64_t{0} : it->second;
  };
  std::vector<std::string> rows(keys.begin(), keys.end());
  std::stable_sort(rows.begin(), rows.end(), [&](const std::string& a, const std::string& b) {
    return std::max(count_of(log.op_counts_before, a), count_of(log.op_counts_after, a)) >
           std::max(count_of(log.op_counts_before, b), count_of(log.op_counts_after, b));
  });
  size_t width = 8;
  for (const std::string& row : rows) width = std::max(width, row.size());
  std::cout << fmt::format("operators:\n  {:<{}} {:>7}    {:>7}\n", "operator", width, "before",
                           "after");
  for (const std::string& row : rows) {
    const int64_t before = count_of(log.op_counts_before, row);
    const int64_t after = count_of(log.op_counts_after, row);
    std::cout << fmt::format("  {:<{}} {:>7} -> {:>7}{}\n", row, width, before, after,
                             before == after ? "" : " *");
  }
}

void print_log(const std::string& model_path, const optimizer::OptimizationLog& log, bool verbose) {
  std::cout << fmt::format("model: {}\noptimization level {} ({:.1f} ms)\n", model_path, log.level,
                           log.milliseconds);
  print_pass_changes(log, verbose);
  print_operator_table(log);
}

// What `-o` wrote: the graph optimized for ONNX Runtime.
struct WrittenFile {
  std::string path;
  int64_t nodes = 0;
  std::vector<std::string> skipped_passes;  // native-only passes left out of the file
};

nlohmann::json log_json(const std::string& model_path, const optimizer::OptimizationLog& log,
                        const std::optional<WrittenFile>& written) {
  nlohmann::json json;
  json["model"] = model_path;
  json["level"] = log.level;
  json["milliseconds"] = log.milliseconds;
  json["nodes_before"] = log.nodes_before;
  json["nodes_after"] = log.nodes_after;
  json["passes"] = nlohmann::json::array();
  for (const optimizer::PassLogEntry& entry : log.passes) {
    json["passes"].push_back({{"pass", entry.pass},
                              {"level", entry.level},
                              {"changes", entry.stats.changes},
                              {"nodes", entry.stats.nodes}});
  }
  json["operators"] = {{"before", log.op_counts_before}, {"after", log.op_counts_after}};
  json["output"] = written ? nlohmann::json(written->path) : nlohmann::json(nullptr);
  if (written) {
    json["output_nodes"] = written->nodes;
    json["output_skipped_passes"] = written->skipped_passes;
  }
  return json;
}

// The static memory plan of the optimized graph (runtime/memory_plan.h):
// intermediates placed in one arena, against allocating each on its own.
nlohmann::json memory_json(const model::Model& model, const std::map<std::string, Shape>& shapes) {
  runtime::ShapeInferenceOptions shape_options;
  shape_options.input_shapes = shapes;
  const runtime::ShapeInferenceResult inferred =
      runtime::infer_shapes(model, shape_options, kernels::OpRegistry::reference());
  const runtime::MemoryPlan plan = runtime::plan_memory(*model.graph, inferred, {});
  return {{"strategy", runtime::placement_strategy_name(plan.strategy)},
          {"arena_bytes", plan.arena_bytes},
          {"naive_bytes", plan.naive_bytes},
          {"tensors", plan.placements.size()},
          {"in_place", plan.in_place},
          {"views", plan.views},
          {"unresolved_values", inferred.unresolved.size()}};
}

void print_memory(const nlohmann::json& memory) {
  const double arena = memory["arena_bytes"].get<double>() / (1 << 20);
  const double naive = memory["naive_bytes"].get<double>() / (1 << 20);
  std::cout << fmt::format(
      "memory: planned arena {:.2f} MiB vs naive sum {:.2f} MiB ({:.1f}%), {} tensors, {} in "
      "place, {} views ({}){}\n",
      arena, naive, naive > 0 ? 100.0 * arena / naive : 0.0, memory["tensors"].get<int64_t>(),
      memory["in_place"].get<int64_t>(), memory["views"].get<int64_t>(),
      memory["strategy"].get<std::string>(),
      memory["unresolved_values"].get<int64_t>() > 0
          ? "; values whose shape is known only at run time are not planned (fix them with --shape)"
          : "");
}

// Optimizes a fresh import of the model for ONNX Runtime (the native-only
// passes skipped) and writes it.
WrittenFile write_for_onnxruntime(const OptimizeFlags& flags,
                                  const optimizer::OptimizeOptions& native_options) {
  optimizer::OptimizeOptions options = native_options;
  options.target = optimizer::OptimizeTarget::kOnnx;
  model::Model model = model::import_model_file(flags.model_path);
  const optimizer::OptimizationLog log =
      optimizer::optimize(model, options, kernels::OpRegistry::reference());
  const model::Model exported = optimizer::export_for_onnxruntime(model);
  optimizer::write_model_file(exported, flags.output_path);
  return {flags.output_path, static_cast<int64_t>(exported.graph->nodes.size()),
          log.skipped_passes};
}

void print_written(const WrittenFile& written) {
  std::cout << fmt::format("wrote {}: {} nodes, for ONNX Runtime", written.path, written.nodes);
  if (!written.skipped_passes.empty()) {
    std::cout << fmt::format(" (without the native-only {}: InferLab's internal layout)",
                             fmt::join(written.skipped_passes, ", "));
  }
  std::cout << "\n";
}

int run_optimize(const OptimizeFlags& flags) {
  optimizer::OptimizeOptions options;
  options.level = flags.level;
  options.input_shapes = parse_shape_flags(flags.shapes);
  model::Model model = model::import_model_file(flags.model_path);
  print_model_warnings(model);
  for (const auto& [name, shape] : options.input_shapes) {
    if (model.graph->find_value_info(name) == nullptr) {
      throw UsageError(
          fmt::format("--shape names '{}', which is not an input of {}", name, flags.model_path));
    }
  }
  const optimizer::OptimizationLog log =
      optimizer::optimize(model, options, kernels::OpRegistry::reference());
  std::optional<WrittenFile> written;
  if (!flags.output_path.empty()) written = write_for_onnxruntime(flags, options);
  const nlohmann::json memory = memory_json(model, options.input_shapes);
  const bool json_to_stdout = flags.json_target == "-";
  if (!json_to_stdout) {
    if (flags.log || flags.verbose) print_log(flags.model_path, log, flags.verbose);
    print_memory(memory);
    std::cout << fmt::format("nodes: {} -> {} (level {})\n", log.nodes_before, log.nodes_after,
                             log.level);
    if (written) print_written(*written);
  }
  if (!flags.json_target.empty()) {
    nlohmann::json json = log_json(flags.model_path, log, written);
    json["memory"] = memory;
    write_json(json, flags.json_target);
  }
  return 0;
}

}  // namespace

void add_optimize_command(CLI::App& root, std::vector<Command>& commands) {
  auto flags = std::make_shared<OptimizeFlags>();
  CLI::App* app = root.add_subcommand(
      "optimize", "Optimize a model's graph, show what changed, and write it as ONNX");
  app->add_option("model", flags->model_path, "ONNX model file")->required();
  app->add_option("--opt-level", flags->level,
                  "Optimization level: 0 none, 1 basic, 2 extended (fusions), 3 all (default 3)")
      ->check(CLI::Range(0, 3));
  app->add_flag("--log", flags->log,
                "Print what each pass changed and the operator counts before -> after");
  app->add_flag("--verbose", flags->verbose, "Like --log, and name the nodes behind every change");
  app->add_option("-o,--output", flags->output_path,
                  "Write the model optimized for ONNX Runtime to OUT.onnx (the level's passes "
                  "but the native-only channels-last layout)");
  app->add_option("--shape", flags->shapes,
                  "Fix an input's shape so shape subgraphs fold: NAME=DIMS (e.g. x=1,3,224,224)");
  app->add_option("--json", flags->json_target,
                  "Also write the optimization log as JSON to FILE ('-': stdout)");
  commands.push_back(Command{app, [flags] { return run_optimize(*flags); }});
}

}  // namespace inferlab::cli
