// run_profile: opens the model on each backend twice (node timing on, and
// off for the baseline), runs them interleaved round by round (profiled,
// unprofiled, next backend...), and aggregates (see profile.h).
#include "inferlab/profile/profile.h"

#include <chrono>
#include <memory>
#include <thread>

#include "inferlab/backends/model_source.h"
#include "inferlab/core/error.h"
#include "inferlab/inputs/input_generator.h"
#include "inferlab/inputs/input_shapes.h"
#include "inferlab/kernels/registry.h"
#include "inferlab/model/onnx_import.h"
#include "inferlab/runtime/session.h"
#include "inferlab/runtime/shape_inference.h"

namespace inferlab::profile {

namespace {

using CostMap = std::unordered_map<std::string, NodeCost>;

// The model file as written: its nodes (in order), their costs, and the
// producer of each node's first input (-1: none), to follow fused chains.
struct FileGraph {
  std::vector<std::string> names;
  std::vector<std::string> op_types;
  std::vector<int> first_input_producer;
  CostMap costs;
  std::map<std::string, Shape> input_shapes;
};

FileGraph read_file_graph(const std::string& onnx_path, const ProfileOptions& options) {
  const model::Model model = model::import_model_file(onnx_path);
  FileGraph file;
  file.input_shapes = inputs::resolve_input_shapes(model.graph->inputs, options.input_shapes);
  runtime::ShapeInferenceOptions shape_options;
  shape_options.input_shapes = file.input_shapes;
  const runtime::ShapeInferenceResult shapes =
      runtime::infer_shapes(model, shape_options, kernels::OpRegistry::reference());
  file.costs = graph_costs(*model.graph, shapes.values);
  std::unordered_map<std::string, int> producer_of;
  for (const model::Node& node : model.graph->nodes) {
    const int index = static_cast<int>(file.names.size());
    file.names.push_back(node.name);
    file.op_types.push_back(node.op_type);
    auto producer = node.inputs.empty() ? producer_of.end() : producer_of.find(node.inputs[0]);
    file.first_input_producer.push_back(producer == producer_of.end() ? -1 : producer->second);
    for (const std::string& output : node.outputs) producer_of[output] = index;
  }
  return file;
}

// The native engine runs its optimized graph: load it as the backend does
// and read each node's cost and the file nodes it covers (`fused_nodes`).
NodeFactsMap native_facts(const std::string& onnx_path, const ProfileOptions& options,
                          const FileGraph& file) {
  runtime::SessionOptions session_options;
  session_options.threads = options.threads;
  session_options.opt_level = options.opt_level;
  session_options.max_isa = kernels::cpu::parse_isa(options.max_isa);
  session_options.input_shapes = file.input_shapes;
  const runtime::Session session = runtime::Session::load(onnx_path, session_options);
  NodeFactsMap facts;
  for (const model::Node& node : session.model().graph->nodes) {
    NodeFacts& fact = facts[node.name];
    fact.cost = node_cost(node, session.value_infos());
    if (auto it = node.attributes.find("fused_nodes"); it != node.attributes.end()) {
      fact.covers = it->second.strings;
    } else if (file.costs.count(node.name) != 0) {
      fact.covers = {node.name};
    }
  }
  return facts;
}

// The file node an engine's node is named after: the same name, else the
// longest file node name its name contains (engines decorate fused names,
// e.g. ORT's "<value>_nchwc"); -1 when none.
int named_file_node(const std::string& engine_name, const FileGraph& file) {
  int best = -1;
  for (size_t i = 0; i < file.names.size(); ++i) {
    const std::string& name = file.names[i];
    if (name == engine_name) return static_cast<int>(i);
    if (name.size() >= 3 && engine_name.find(name) != std::string::npos &&
        (best < 0 || name.size() > file.names[best].size()))
      best = static_cast<int>(i);
  }
  return best;
}

constexpr int kLongestFusedChain = 4;

// Another engine: its node names are known only from its events. A node
// named after a file node of another type (a Conv named after the Clip it
// absorbed) covers the chain from the producer of that type to it, and
// costs what that producer costs.
NodeFactsMap engine_facts(const std::vector<RunRecord>& runs, const FileGraph& file) {
  NodeFactsMap facts;
  for (const RunRecord& run : runs) {
    for (const backends::NodeEvent& event : run.events) {
      if (facts.count(event.node_name) != 0) continue;
      NodeFacts& fact = facts[event.node_name];
      const int named = named_file_node(event.node_name, file);
      if (named < 0) continue;
      std::vector<int> chain = {named};
      const std::string op_type = base_op_type(event.op_type);
      while (base_op_type(file.op_types[chain.back()]) != op_type &&
             file.first_input_producer[chain.back()] >= 0 &&
             static_cast<int>(chain.size()) < kLongestFusedChain) {
        chain.push_back(file.first_input_producer[chain.back()]);
      }
      if (base_op_type(file.op_types[chain.back()]) != op_type) chain = {named};
      for (auto it = chain.rbegin(); it != chain.rend(); ++it)
        fact.covers.push_back(file.names[*it]);
      fact.cost = file.costs.at(file.names[chain.back()]);
    }
  }
  return facts;
}

struct EngineRun {
  std::string name;
  bool native = false;
  std::unique_ptr<backends::Model> profiled;
  std::unique_ptr<backends::Model> baseline;
  std::vector<RunRecord> records;
  std::vector<double> baseline_ms;
};

void open_engine(EngineRun& engine, backends::BackendRegistry& registry,
                 const backends::ModelSource& source, const ProfileOptions& options,
                 const FileGraph& file) {
  std::shared_ptr<backends::Backend> backend = registry.get(engine.name);
  engine.native = registry.engine_of(engine.name) == "native";
  backends::BackendOptions backend_options;
  backend_options.threads = options.threads;
  backend_options.opt_level = options.opt_level;
  backend_options.max_isa = options.max_isa;
  backend_options.input_shapes = file.input_shapes;
  if (options.baseline) engine.baseline = backend->open(source, backend_options);
  backend_options.node_timing = true;
  engine.profiled = backend->open(source, backend_options);
  if (!engine.profiled->capabilities().node_timing) {
    fail(ErrorCode::kUnsupported, "profile: backend {} cannot time nodes", engine.name);
  }
}

void warm_up(EngineRun& engine, const backends::TensorMap& inputs, int runs) {
  engine.profiled->bind(inputs);
  if (engine.baseline) engine.baseline->bind(inputs);
  for (int i = 0; i < runs; ++i) {
    engine.profiled->execute();
    if (engine.baseline) engine.baseline->execute();
  }
}

void run_round(EngineRun& engine) {
  RunRecord record;
  record.wall_ns = engine.profiled->execute();
  record.events = engine.profiled->node_events();
  engine.records.push_back(std::move(record));
  if (engine.baseline) {
    engine.baseline_ms.push_back(static_cast<double>(engine.baseline->execute()) / 1e6);
  }
}

void check_options(const ProfileOptions& options) {
  if (options.backends.empty() || options.backends.size() > 2) {
    fail(ErrorCode::kInvalidArgument, "profile: give one or two backends, got {}",
         options.backends.size());
  }
  if (options.backends.size() == 2 && options.backends[0] == options.backends[1]) {
    fail(ErrorCode::kInvalidArgument, "profile: backend {} is named twice", options.backends[0]);
  }
  if (options.runs < 1) fail(ErrorCode::kInvalidArgument, "profile: runs must be at least 1");
  if (options.warmup < 0) fail(ErrorCode::kInvalidArgument, "profile: warmup must be >= 0");
  if (!(options.settle_ms >= 0.0)) {
    fail(ErrorCode::kInvalidArgument, "profile: settle_ms must be >= 0, got {}", options.settle_ms);
  }
}

// Before an engine's turn when two alternate (ProfileOptions::settle_ms).
void settle(const ProfileOptions& options, size_t engines) {
  if (engines < 2 || options.settle_ms <= 0.0) return;
  std::this_thread::sleep_for(std::chrono::duration<double, std::milli>(options.settle_ms));
}

}  // namespace

ProfileResult run_profile(const ProfileOptions& options, backends::BackendRegistry& registry,
                          const ProgressCallback& progress) {
  check_options(options);
  auto report = [&](const std::string& status) {
    if (progress) progress(status);
  };
  const backends::ModelSource source = backends::ModelSource::resolve(options.model_path);
  const std::string& onnx_path = source.require_onnx("profile");
  report("reading " + onnx_path);
  const FileGraph file = read_file_graph(onnx_path, options);
  std::vector<EngineRun> engines(options.backends.size());
  for (size_t i = 0; i < engines.size(); ++i) {
    engines[i].name = options.backends[i];
    report("opening " + engines[i].name);
    open_engine(engines[i], registry, source, options, file);
  }
  // The inputs `run` and `bench` feed for the same seed (inputs/).
  const std::vector<model::ValueInfo>& declared = engines.front().profiled->inputs();
  const backends::TensorMap fed = inputs::random_inputs(
      declared, file.input_shapes, inputs::input_ranges(declared, options.input_ranges, source),
      options.seed);
  for (EngineRun& engine : engines) {
    report("warm-up " + engine.name);
    settle(options, engines.size());
    warm_up(engine, fed, options.warmup);
  }
  for (int run = 0; run < options.runs; ++run) {
    report("run " + std::to_string(run + 1) + "/" + std::to_string(options.runs));
    for (EngineRun& engine : engines) {
      settle(options, engines.size());
      run_round(engine);
    }
  }
  ProfileResult result;
  result.options = options;
  result.input_shapes = file.input_shapes;
  for (EngineRun& engine : engines) {
    const NodeFactsMap facts =
        engine.native ? native_facts(onnx_path, options, file) : engine_facts(engine.records, file);
    BackendProfile profile =
        aggregate_runs(engine.name, std::move(engine.records), facts, options.peak);
    profile.configuration = engine.profiled->configuration();
    if (options.baseline) add_baseline(profile, std::move(engine.baseline_ms), options.seed);
    result.backends.push_back(std::move(profile));
  }
  if (result.backends.size() == 2) {
    result.cross = compare_engines(result.backends[0], result.backends[1], file.names);
  }
  return result;
}

}  // namespace inferlab::profile
