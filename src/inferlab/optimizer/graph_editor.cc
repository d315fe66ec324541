// GraphEditor: producer/consumer indexes over model::Graph and the edits
// passes make through them. The one idea: indexes are kept exact after every
// edit (passes query them between edits), and node removal only marks, so
// indices stay valid until compact() rebuilds everything.
#include "inferlab/optimizer/graph_editor.h"

#include <algorithm>
#include <functional>
#include <queue>

#include "inferlab/core/error.h"

namespace inferlab::optimizer {

namespace {

const std::vector<int> kNoConsumers;

// Calls `visit` on every graph-valued attribute of `node` (If/Loop/Scan bodies).
void for_each_subgraph(const model::Node& node, const std::function<void(model::Graph&)>& visit) {
  for (const auto& [key, attribute] : node.attributes) {
    if (attribute.kind == model::Attribute::Kind::kGraph && attribute.g) visit(*attribute.g);
  }
}

// Names a subgraph (and the subgraphs nested in it) reads from enclosing scopes.
void collect_outer_reads(const model::Graph& graph, std::vector<std::string>& reads) {
  reads.insert(reads.end(), graph.outer_scope_inputs.begin(), graph.outer_scope_inputs.end());
}

// Every name a graph uses (values and nodes), nested subgraphs included.
void collect_names(const model::Graph& graph, std::unordered_set<std::string>& names) {
  for (const model::ValueInfo& info : graph.inputs) names.insert(info.name);
  for (const model::ValueInfo& info : graph.outputs) names.insert(info.name);
  for (const model::ValueInfo& info : graph.overridable_initializers) names.insert(info.name);
  for (const auto& [name, tensor] : graph.initializers) names.insert(name);
  for (const auto& [name, info] : graph.value_info) names.insert(name);
  for (const model::Node& node : graph.nodes) {
    names.insert(node.name);
    names.insert(node.inputs.begin(), node.inputs.end());
    names.insert(node.outputs.begin(), node.outputs.end());
    for_each_subgraph(node, [&](model::Graph& body) { collect_names(body, names); });
  }
}

// True when `graph` itself defines `name` (then it shadows the outer value).
bool defines_locally(const model::Graph& graph, const std::string& name) {
  if (graph.initializers.count(name)) return true;
  for (const model::ValueInfo& info : graph.inputs) {
    if (info.name == name) return true;
  }
  for (const model::Node& node : graph.nodes) {
    if (std::find(node.outputs.begin(), node.outputs.end(), name) != node.outputs.end()) {
      return true;
    }
  }
  return false;
}

// Renames reads of the outer value `from` inside a subgraph (recursively),
// leaving subgraphs that define their own `from` alone.
void rename_outer_reads(model::Graph& graph, const std::string& from, const std::string& to) {
  if (defines_locally(graph, from)) return;
  std::replace(graph.outer_scope_inputs.begin(), graph.outer_scope_inputs.end(), from, to);
  for (model::Node& node : graph.nodes) {
    std::replace(node.inputs.begin(), node.inputs.end(), from, to);
    for_each_subgraph(node, [&](model::Graph& body) { rename_outer_reads(body, from, to); });
  }
  for (model::ValueInfo& output : graph.outputs) {
    if (output.name == from) output.name = to;
  }
}

void erase_index(std::vector<int>& indices, int index) {
  indices.erase(std::remove(indices.begin(), indices.end(), index), indices.end());
}

void add_index(std::vector<int>& indices, int index) {
  if (std::find(indices.begin(), indices.end(), index) == indices.end()) indices.push_back(index);
}

}  // namespace

GraphEditor::GraphEditor(model::Graph& graph) : graph_(graph) { index(); }

void GraphEditor::index() {
  removed_.assign(graph_.nodes.size(), false);
  producer_.clear();
  consumers_.clear();
  graph_outputs_.clear();
  graph_inputs_.clear();
  overridable_.clear();
  subgraph_reads_.clear();
  used_names_.clear();
  for (const model::ValueInfo& output : graph_.outputs) graph_outputs_.insert(output.name);
  for (const model::ValueInfo& input : graph_.inputs) graph_inputs_.insert(input.name);
  for (const model::ValueInfo& info : graph_.overridable_initializers) {
    overridable_.insert(info.name);
  }
  collect_names(graph_, used_names_);
  for (size_t i = 0; i < graph_.nodes.size(); ++i) {
    const model::Node& node = graph_.nodes[i];
    const int index = static_cast<int>(i);
    for (const std::string& output : node.outputs) {
      if (!output.empty()) producer_[output] = index;
    }
    for (const std::string& input : node.inputs) {
      if (!input.empty()) add_index(consumers_[input], index);
    }
    std::vector<std::string> outer_reads;
    for_each_subgraph(node, [&](model::Graph& body) { collect_outer_reads(body, outer_reads); });
    subgraph_reads_.insert(outer_reads.begin(), outer_reads.end());
  }
}

int GraphEditor::producer(const std::string& value) const {
  auto it = producer_.find(value);
  return it == producer_.end() ? -1 : it->second;
}

const std::vector<int>& GraphEditor::consumers(const std::string& value) const {
  auto it = consumers_.find(value);
  return it == consumers_.end() ? kNoConsumers : it->second;
}

int GraphEditor::use_count(const std::string& value) const {
  int count = 0;
  for (int index : consumers(value)) {
    const std::vector<std::string>& inputs = graph_.nodes[static_cast<size_t>(index)].inputs;
    count += static_cast<int>(std::count(inputs.begin(), inputs.end(), value));
  }
  for (const model::ValueInfo& output : graph_.outputs) {
    if (output.name == value) ++count;
  }
  if (subgraph_reads_.count(value)) ++count;
  return count;
}

bool GraphEditor::is_graph_output(const std::string& value) const {
  return graph_outputs_.count(value) != 0;
}

bool GraphEditor::is_graph_input(const std::string& value) const {
  return graph_inputs_.count(value) != 0;
}

const Tensor* GraphEditor::constant(const std::string& value) const {
  if (value.empty() || overridable_.count(value) || graph_inputs_.count(value)) return nullptr;
  auto it = graph_.initializers.find(value);
  return it == graph_.initializers.end() ? nullptr : &it->second;
}

std::string GraphEditor::replace_all_uses(const std::string& from_ref, const std::string& to_ref) {
  // Copies: callers often pass names that live in the nodes this edits.
  const std::string from = from_ref;
  const std::string to = to_ref;
  if (from == to) return to;
  if (is_graph_output(from)) {
    const int to_producer = producer(to);
    if (to_producer < 0 || is_graph_output(to) || subgraph_reads_.count(to)) {
      fail(ErrorCode::kRuntime,
           "graph editor: graph output '{}' cannot take over '{}' (not produced by a node, or "
           "itself a graph output)",
           from, to);
    }
    // The old producer of `from` now writes a fresh, unused name (the caller removes it);
    // the producer of `to` writes `from`, and `to`'s readers read `from`.
    const int old_producer = producer(from);
    if (old_producer >= 0) {
      const std::string retired = fresh_name(from + "_replaced");
      std::vector<std::string>& outputs = graph_.nodes[static_cast<size_t>(old_producer)].outputs;
      std::replace(outputs.begin(), outputs.end(), from, retired);
      producer_[retired] = old_producer;
    }
    std::vector<std::string>& outputs = graph_.nodes[static_cast<size_t>(to_producer)].outputs;
    std::replace(outputs.begin(), outputs.end(), to, from);
    producer_.erase(to);
    producer_[from] = to_producer;
    const std::vector<int> readers = consumers(to);
    for (int index : readers) {
      std::vector<std::string>& inputs = graph_.nodes[static_cast<size_t>(index)].inputs;
      std::replace(inputs.begin(), inputs.end(), to, from);
      add_index(consumers_[from], index);
    }
    consumers_.erase(to);
    return from;
  }
  const std::vector<int> readers = consumers(from);
  for (int index : readers) {
    model::Node& node = graph_.nodes[static_cast<size_t>(index)];
    std::replace(node.inputs.begin(), node.inputs.end(), from, to);
    add_index(consumers_[to], index);
  }
  consumers_.erase(from);
  if (subgraph_reads_.count(from)) {
    for (model::Node& node : graph_.nodes) {
      for_each_subgraph(node, [&](model::Graph& body) { rename_outer_reads(body, from, to); });
    }
    subgraph_reads_.erase(from);
    subgraph_reads_.insert(to);
  }
  return to;
}

void GraphEditor::remove_node(int index) {
  if (index < 0 || static_cast<size_t>(index) >= graph_.nodes.size() || removed_[index]) return;
  const model::Node& node = graph_.nodes[static_cast<size_t>(index)];
  for (const std::string& output : node.outputs) {
    if (!output.empty() && use_count(output) > 0) {
      fail(ErrorCode::kRuntime, "graph editor: cannot remove node '{}': its output '{}' is used",
           node.name, output);
    }
  }
  removed_[static_cast<size_t>(index)] = true;
  for (const std::string& input : node.inputs) {
    auto it = consumers_.find(input);
    if (it != consumers_.end()) erase_index(it->second, index);
  }
  for (const std::string& output : node.outputs) {
    auto it = producer_.find(output);
    if (it != producer_.end() && it->second == index) producer_.erase(it);
  }
}

bool GraphEditor::is_removed(int index) const {
  return index >= 0 && static_cast<size_t>(index) < removed_.size() &&
         removed_[static_cast<size_t>(index)];
}

int GraphEditor::add_node(model::Node node) {
  const int index = static_cast<int>(graph_.nodes.size());
  if (node.name.empty()) node.name = fresh_name(node.op_type);
  used_names_.insert(node.name);
  for (const std::string& output : node.outputs) {
    if (output.empty()) continue;
    producer_[output] = index;
    used_names_.insert(output);
  }
  for (const std::string& input : node.inputs) {
    if (!input.empty()) add_index(consumers_[input], index);
  }
  std::vector<std::string> outer_reads;
  for_each_subgraph(node, [&](model::Graph& body) { collect_outer_reads(body, outer_reads); });
  subgraph_reads_.insert(outer_reads.begin(), outer_reads.end());
  graph_.nodes.push_back(std::move(node));
  removed_.push_back(false);
  return index;
}

std::string GraphEditor::fresh_name(const std::string& base) {
  std::string name = base;
  for (int suffix = 1; used_names_.count(name); ++suffix) {
    name = base + "_" + std::to_string(suffix);
  }
  used_names_.insert(name);
  return name;
}

std::string GraphEditor::add_constant(const std::string& base, Tensor value) {
  const std::string name = fresh_name(base);
  graph_.initializers[name] = std::move(value);
  return name;
}

void GraphEditor::remove_unused_initializers() {
  for (auto it = graph_.initializers.begin(); it != graph_.initializers.end();) {
    // Overridable initializers are part of the model's interface: kept.
    if (use_count(it->first) == 0 && !overridable_.count(it->first)) {
      it = graph_.initializers.erase(it);
    } else {
      ++it;
    }
  }
}

void GraphEditor::compact() {
  // Dependencies of each live node: producers of its inputs and of the values
  // its subgraphs read from this scope.
  const size_t count = graph_.nodes.size();
  std::vector<std::vector<size_t>> dependents(count);
  std::vector<int> pending(count, 0);
  for (size_t i = 0; i < count; ++i) {
    if (removed_[i]) continue;
    std::vector<std::string> reads = graph_.nodes[i].inputs;
    for_each_subgraph(graph_.nodes[i],
                      [&](model::Graph& body) { collect_outer_reads(body, reads); });
    std::unordered_set<int> producers;
    for (const std::string& value : reads) {
      const int from = value.empty() ? -1 : producer(value);
      if (from >= 0 && static_cast<size_t>(from) != i) producers.insert(from);
    }
    for (int from : producers) {
      dependents[static_cast<size_t>(from)].push_back(i);
      ++pending[i];
    }
  }
  // Kahn's algorithm, always taking the lowest ready index: stable.
  std::priority_queue<size_t, std::vector<size_t>, std::greater<>> ready;
  for (size_t i = 0; i < count; ++i) {
    if (!removed_[i] && pending[i] == 0) ready.push(i);
  }
  std::vector<model::Node> ordered;
  while (!ready.empty()) {
    const size_t next = ready.top();
    ready.pop();
    for (size_t dependent : dependents[next]) {
      if (--pending[dependent] == 0) ready.push(dependent);
    }
    ordered.push_back(std::move(graph_.nodes[next]));
  }
  const size_t live = static_cast<size_t>(std::count(removed_.begin(), removed_.end(), false));
  if (ordered.size() != live) {
    fail(ErrorCode::kRuntime, "graph editor: graph '{}' has a cycle after editing", graph_.name);
  }
  graph_.nodes = std::move(ordered);
  index();
}

}  // namespace inferlab::optimizer
