#include "inferlab/model/validate.h"

#include <functional>
#include <queue>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "inferlab/core/error.h"

namespace inferlab::model {
namespace {

constexpr int kGraphLevel = -1;  // defined by a graph input or initializer

using Scope = std::unordered_map<std::string, int>;  // value name -> producing node index

struct GraphChecker {
  const std::string& source;

  // `outer` holds the scopes of the enclosing graphs, innermost last.
  void check(Graph& graph, const std::string& label, std::vector<const Scope*>& outer);

 private:
  Scope define_values(const Graph& graph, const std::string& label) const;
  bool visible_outside(const std::string& name, const std::vector<const Scope*>& outer) const;
  std::vector<std::vector<int>> node_dependencies(Graph& graph, const Scope& scope,
                                                  const std::string& label,
                                                  std::vector<const Scope*>& outer);
  void sort(Graph& graph, const std::vector<std::vector<int>>& deps,
            const std::string& label) const;
};

Scope GraphChecker::define_values(const Graph& graph, const std::string& label) const {
  Scope scope;
  const auto define = [&](const std::string& name, int producer, const std::string& by) {
    if (name.empty()) return;
    auto [it, inserted] = scope.emplace(name, producer);
    if (!inserted) {
      const std::string first =
          it->second == kGraphLevel
              ? "a graph input or initializer"
              : "node '" + graph.nodes[static_cast<size_t>(it->second)].name + "'";
      fail(ErrorCode::kInvalidModel, "{}: {}: value '{}' is defined twice: by {} and by {}", source,
           label, name, first, by);
    }
  };
  for (const ValueInfo& input : graph.inputs) define(input.name, kGraphLevel, "a graph input");
  for (const ValueInfo& input : graph.overridable_initializers) {
    define(input.name, kGraphLevel, "an initializer listed as graph input");
  }
  for (const auto& [name, tensor] : graph.initializers) {
    if (scope.count(name) == 0) define(name, kGraphLevel, "an initializer");
  }
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    for (const std::string& output : graph.nodes[i].outputs) {
      define(output, static_cast<int>(i), "node '" + graph.nodes[i].name + "'");
    }
  }
  return scope;
}

bool GraphChecker::visible_outside(const std::string& name,
                                   const std::vector<const Scope*>& outer) const {
  for (const Scope* scope : outer) {
    if (scope->count(name)) return true;
  }
  return false;
}

// For each node, the indices of the nodes it reads from (inputs and the
// outer-scope values its subgraphs read).
std::vector<std::vector<int>> GraphChecker::node_dependencies(Graph& graph, const Scope& scope,
                                                              const std::string& label,
                                                              std::vector<const Scope*>& outer) {
  std::vector<std::vector<int>> deps(graph.nodes.size());
  std::unordered_set<std::string> outer_reads;
  for (size_t i = 0; i < graph.nodes.size(); ++i) {
    Node& node = graph.nodes[i];
    std::vector<std::string> reads = node.inputs;
    outer.push_back(&scope);
    for (auto& [attr_name, attr] : node.attributes) {
      if (attr.kind != Attribute::Kind::kGraph || !attr.g) continue;
      check(*attr.g, "subgraph '" + attr_name + "' of node '" + node.name + "'", outer);
      reads.insert(reads.end(), attr.g->outer_scope_inputs.begin(),
                   attr.g->outer_scope_inputs.end());
    }
    outer.pop_back();
    for (const std::string& name : reads) {
      if (name.empty()) continue;
      auto it = scope.find(name);
      if (it != scope.end()) {
        if (it->second != kGraphLevel) deps[i].push_back(it->second);
      } else if (visible_outside(name, outer)) {
        if (outer_reads.insert(name).second) graph.outer_scope_inputs.push_back(name);
      } else {
        fail(ErrorCode::kInvalidModel,
             "{}: {}: node '{}' ({}) reads '{}', which no node, graph input or initializer defines",
             source, label, node.name, node.op_type, name);
      }
    }
  }
  for (const ValueInfo& output : graph.outputs) {
    if (scope.count(output.name)) continue;
    if (!visible_outside(output.name, outer)) {
      fail(ErrorCode::kInvalidModel,
           "{}: {}: graph output '{}' is not produced by any node, graph input or initializer",
           source, label, output.name);
    }
    if (outer_reads.insert(output.name).second) graph.outer_scope_inputs.push_back(output.name);
  }
  return deps;
}

// Names a node on a cycle among the nodes Kahn's algorithm could not place.
const Node& node_on_cycle(const Graph& graph, const std::vector<std::vector<int>>& deps,
                          const std::vector<int>& missing_inputs) {
  size_t current = 0;
  while (missing_inputs[current] == 0) ++current;
  std::vector<bool> seen(graph.nodes.size(), false);
  while (!seen[current]) {
    seen[current] = true;
    for (int dep : deps[current]) {
      if (missing_inputs[static_cast<size_t>(dep)] > 0) {
        current = static_cast<size_t>(dep);
        break;
      }
    }
  }
  return graph.nodes[current];
}

void GraphChecker::sort(Graph& graph, const std::vector<std::vector<int>>& deps,
                        const std::string& label) const {
  const size_t count = graph.nodes.size();
  std::vector<int> missing_inputs(count, 0);
  std::vector<std::vector<int>> consumers(count);
  for (size_t i = 0; i < count; ++i) {
    for (int dep : deps[i]) {
      ++missing_inputs[i];
      consumers[static_cast<size_t>(dep)].push_back(static_cast<int>(i));
    }
  }
  std::priority_queue<int, std::vector<int>, std::greater<int>> ready;  // lowest file index first
  for (size_t i = 0; i < count; ++i) {
    if (missing_inputs[i] == 0) ready.push(static_cast<int>(i));
  }
  std::vector<Node> sorted;
  sorted.reserve(count);
  while (!ready.empty()) {
    const int index = ready.top();
    ready.pop();
    sorted.push_back(std::move(graph.nodes[static_cast<size_t>(index)]));
    for (int consumer : consumers[static_cast<size_t>(index)]) {
      if (--missing_inputs[static_cast<size_t>(consumer)] == 0) ready.push(consumer);
    }
  }
  if (sorted.size() != count) {
    const Node& node = node_on_cycle(graph, deps, missing_inputs);
    fail(ErrorCode::kInvalidModel, "{}: {}: the graph has a cycle through node '{}' ({})", source,
         label, node.name, node.op_type);
  }
  graph.nodes = std::move(sorted);
}

void GraphChecker::check(Graph& graph, const std::string& label, std::vector<const Scope*>& outer) {
  graph.outer_scope_inputs.clear();
  const Scope scope = define_values(graph, label);
  const auto deps = node_dependencies(graph, scope, label, outer);
  sort(graph, deps, label);
}

}  // namespace

void validate_and_sort(Graph& graph, const std::string& source) {
  GraphChecker checker{source};
  std::vector<const Scope*> outer;
  checker.check(graph, graph.name.empty() ? "main graph" : "graph '" + graph.name + "'", outer);
}

}  // namespace inferlab::model
