// `inferlab inspect MODEL`: what a model is (inputs, outputs, opsets,
// operators, parameters, FLOPs) and what InferLab cannot run in it. Works on
// models with unsupported operators: it lists them instead of failing.
#include <algorithm>
#include <iostream>
#include <memory>

#include <fmt/format.h>

#include "inferlab/cli/cli_common.h"
#include "inferlab/model/graph_dump.h"
#include "inferlab/model/onnx_import.h"
#include "inferlab/runtime/memory_plan.h"
#include "inferlab/runtime/model_summary.h"
#include "inferlab/runtime/op_support.h"

namespace inferlab::cli {

namespace {

struct InspectFlags {
  std::string model_path;
  std::vector<std::string> shapes;
  std::string json_target;
  bool dump = false;
  bool verbose = false;
  bool memory = false;
};

std::string opsets_text(const model::Model& model) {
  std::string text;
  for (const auto& [domain, version] : model.opsets) {
    text += fmt::format("{}{} {}", text.empty() ? "" : ", ", domain.empty() ? "ai.onnx" : domain,
                        version);
  }
  return text;
}

std::vector<std::pair<std::string, int64_t>> sorted_counts(const runtime::ModelSummary& summary) {
  std::vector<std::pair<std::string, int64_t>> counts(summary.operator_counts.begin(),
                                                      summary.operator_counts.end());
  std::stable_sort(counts.begin(), counts.end(),
                   [](const auto& a, const auto& b) { return a.second > b.second; });
  return counts;
}

nlohmann::json summary_json(const model::Model& model, const runtime::ModelSummary& summary) {
  nlohmann::json json;
  json["model"] = model.source;
  json["ir_version"] = model.ir_version;
  json["producer"] = {{"name", model.producer_name}, {"version", model.producer_version}};
  json["opsets"] = nlohmann::json::object();
  for (const auto& [domain, version] : model.opsets) {
    json["opsets"][domain.empty() ? "ai.onnx" : domain] = version;
  }
  for (const char* key : {"inputs", "outputs"}) json[key] = nlohmann::json::array();
  for (const model::ValueInfo& input : summary.inputs)
    json["inputs"].push_back(value_info_json(input));
  for (size_t i = 0; i < summary.outputs.size(); ++i) {
    nlohmann::json output = value_info_json(summary.outputs[i]);
    output["inferred_shape"] = dims_json(summary.inferred_outputs[i]);
    json["outputs"].push_back(std::move(output));
  }
  json["parameters"] = {{"count", summary.parameter_count}, {"bytes", summary.parameter_bytes}};
  json["flops"] = summary.flops;
  json["flops_unknown_nodes"] = summary.flops_unknown_nodes;
  json["nodes"] = summary.node_count;
  json["operators"] = summary.operator_counts;
  json["unsupported"] = nlohmann::json::array();
  for (const runtime::UnsupportedOp& op : summary.unsupported) {
    json["unsupported"].push_back({{"domain", op.domain.empty() ? "ai.onnx" : op.domain},
                                   {"op_type", op.op_type},
                                   {"opset", op.opset},
                                   {"nodes", op.nodes}});
  }
  if (!summary.shape_error.empty()) json["shape_error"] = summary.shape_error;
  return json;
}

void print_values(const model::Model& model, const runtime::ModelSummary& summary) {
  std::cout << "values (inferred):\n";
  for (const model::Node& node : model.graph->nodes) {
    for (const std::string& output : node.outputs) {
      auto it = summary.shapes.values.find(output);
      if (output.empty() || it == summary.shapes.values.end()) continue;
      const bool resolved = summary.shapes.unresolved.count(output) == 0;
      std::cout << fmt::format("  {}: {}{}\n", output, it->second.to_string(),
                               resolved ? "" : " (known at run time)");
    }
  }
}

void print_summary(const model::Model& model, const runtime::ModelSummary& summary, bool verbose) {
  std::cout << fmt::format("model: {}\n", model.source);
  std::string producer = model.producer_name.empty() ? "(none)" : model.producer_name;
  if (!model.producer_version.empty()) producer += " " + model.producer_version;
  std::cout << fmt::format("  IR version {}, producer {}, opsets: {}\n", model.ir_version, producer,
                           opsets_text(model));
  std::cout << "inputs:\n";
  for (const model::ValueInfo& input : summary.inputs) {
    std::cout << fmt::format("  {}: {}\n", input.name, input.to_string());
  }
  std::cout << "outputs:\n";
  for (size_t i = 0; i < summary.outputs.size(); ++i) {
    const std::string declared = summary.outputs[i].to_string();
    const std::string inferred = summary.inferred_outputs[i].to_string();
    std::cout << fmt::format("  {}: {}{}\n", summary.outputs[i].name, declared,
                             inferred == declared ? "" : " (inferred " + inferred + ")");
  }
  std::cout << fmt::format("parameters: {} ({}, {})\n", summary.parameter_count,
                           human_count(static_cast<double>(summary.parameter_count)),
                           human_bytes(summary.parameter_bytes));
  std::cout << fmt::format("FLOPs: {} ({})", summary.flops,
                           human_count(static_cast<double>(summary.flops)));
  if (!summary.flops_unknown_nodes.empty()) {
    std::cout << fmt::format("; unknown for {} node(s) with unresolved shapes",
                             summary.flops_unknown_nodes.size());
  }
  std::cout << "\n";
  std::cout << fmt::format("operators: {} nodes, {} types\n", summary.node_count,
                           summary.operator_counts.size());
  for (const auto& [op_type, count] : sorted_counts(summary)) {
    std::cout << fmt::format("  {:<24} {}\n", op_type, count);
  }
  if (summary.unsupported.empty()) {
    std::cout << "unsupported operators: none\n";
  } else {
    std::cout << fmt::format("unsupported operators: {}\n", summary.unsupported.size());
    for (const runtime::UnsupportedOp& op : summary.unsupported) {
      std::cout << "  " << runtime::describe_unsupported_op(op) << "\n";
    }
  }
  if (!summary.shape_error.empty()) {
    std::cout << fmt::format("shape inference stopped: {}\n", summary.shape_error);
  }
  if (verbose) print_values(model, summary);
}

std::string mib(int64_t bytes) { return fmt::format("{:.1f} MiB", bytes / 1048576.0); }

// The static memory plan for the inferred shapes, with both placement
// strategies; the first is the engine's default.
nlohmann::json memory_json(const model::Model& model, const runtime::ModelSummary& summary) {
  nlohmann::json json = nlohmann::json::array();
  for (auto strategy :
       {runtime::PlacementStrategy::kGreedyBySize, runtime::PlacementStrategy::kBestFit}) {
    runtime::MemoryPlanOptions options;
    options.strategy = strategy;
    const runtime::MemoryPlan plan = runtime::plan_memory(*model.graph, summary.shapes, options);
    json.push_back({{"strategy", runtime::placement_strategy_name(strategy)},
                    {"default", strategy == runtime::MemoryPlanOptions{}.strategy},
                    {"arena_bytes", plan.arena_bytes},
                    {"naive_bytes", plan.naive_bytes},
                    {"tensors", plan.placements.size()},
                    {"in_place", plan.in_place},
                    {"views", plan.views}});
  }
  return json;
}

void print_memory(const nlohmann::json& plans, size_t unresolved) {
  std::cout << "memory plan (intermediate tensors in one arena):\n";
  for (const nlohmann::json& plan : plans) {
    const auto arena = plan["arena_bytes"].get<int64_t>();
    const auto naive = plan["naive_bytes"].get<int64_t>();
    std::cout << fmt::format(
        "  {:<15} arena {:>10} vs naive sum {:>10} ({:.1f}%), {} tensors, {} in place, {} "
        "views{}\n",
        plan["strategy"].get<std::string>(), mib(arena), mib(naive),
        naive > 0 ? 100.0 * arena / naive : 0.0, plan["tensors"].get<int64_t>(),
        plan["in_place"].get<int64_t>(), plan["views"].get<int64_t>(),
        plan["default"].get<bool>() ? "  (chosen)" : "");
  }
  if (unresolved > 0) {
    std::cout << fmt::format("  {} values without a static shape are allocated at run time\n",
                             unresolved);
  }
}

int run_inspect(const InspectFlags& flags) {
  runtime::SummaryOptions options;
  options.input_shapes = parse_shape_flags(flags.shapes);
  const model::Model model = model::import_model_file(flags.model_path);
  print_model_warnings(model);
  const runtime::ModelSummary summary = runtime::summarize_model(model, options);
  const bool json_to_stdout = flags.json_target == "-";
  if (!json_to_stdout) print_summary(model, summary, flags.verbose);
  if (flags.dump && !json_to_stdout) std::cout << model::dump_graph(model);
  nlohmann::json json = summary_json(model, summary);
  if (flags.memory) {
    json["memory"] = memory_json(model, summary);
    if (!json_to_stdout) print_memory(json["memory"], summary.shapes.unresolved.size());
  }
  if (!flags.json_target.empty()) write_json(json, flags.json_target);
  return 0;
}

}  // namespace

void add_inspect_command(CLI::App& root, std::vector<Command>& commands) {
  auto flags = std::make_shared<InspectFlags>();
  CLI::App* app = root.add_subcommand(
      "inspect",
      "Show a model's inputs, outputs, operators, parameters, FLOPs and unsupported ops");
  app->add_option("model", flags->model_path, "ONNX model file")->required();
  app->add_option("--shape", flags->shapes,
                  "Fix an input's shape for shape inference: NAME=DIMS (e.g. x=1,3,224,224)");
  app->add_option("--json", flags->json_target,
                  "Also write the summary as JSON to FILE ('-': stdout)");
  app->add_flag("--dump", flags->dump, "Print the graph, one line per node");
  app->add_flag("--verbose", flags->verbose, "Print the inferred type and shape of every value");
  app->add_flag("--memory", flags->memory,
                "Print the static memory plan: arena bytes against the naive sum of all "
                "intermediates, for each placement strategy");
  commands.push_back(Command{app, [flags] { return run_inspect(*flags); }});
}

}  // namespace inferlab::cli
