// GraphEditor: the bookkeeping every pass needs over model::Graph — who
// produces and who consumes each value, which values are constants, and
// edits that keep the graph valid (rewire uses, remove nodes, add nodes and
// initializers with fresh names, restore topological order).
// Indices into graph.nodes stay valid until compact() (removal only marks).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>
#include <unordered_set>
#include <vector>

#include "inferlab/core/tensor.h"
#include "inferlab/model/graph.h"

namespace inferlab::optimizer {

class GraphEditor {
 public:
  explicit GraphEditor(model::Graph& graph);

  model::Graph& graph() { return graph_; }

  // Index of the node producing `value`, or -1 (graph input, initializer,
  // outer-scope value, or a removed producer).
  int producer(const std::string& value) const;
  // Indices of live nodes reading `value` (a node reading it twice appears once).
  const std::vector<int>& consumers(const std::string& value) const;
  // Number of reads: consumer nodes' inputs, graph outputs, and subgraphs
  // that read it from the enclosing scope.
  int use_count(const std::string& value) const;
  bool is_graph_output(const std::string& value) const;
  bool is_graph_input(const std::string& value) const;
  // An initializer that callers cannot override at run time; null otherwise.
  const Tensor* constant(const std::string& value) const;

  // Every read of `from` (node inputs, and graph outputs) now reads `to`.
  // When `from` is a graph output, the output keeps its name: the producer
  // of `to` is renamed to produce `from` instead (`to` must then have a
  // producer and no other reader); returns the name readers now use.
  std::string replace_all_uses(const std::string& from, const std::string& to);
  // Marks nodes removed; their outputs must be unused by then.
  void remove_node(int index);
  bool is_removed(int index) const;
  // Appends a node (call restore_topological_order() afterwards if it is
  // not already after its producers). Returns its index.
  int add_node(model::Node node);
  // A value or node name not used anywhere yet: "<base>", "<base>_1", ...
  std::string fresh_name(const std::string& base);
  // Adds a constant initializer with a fresh name derived from `base`.
  std::string add_constant(const std::string& base, Tensor value);
  // Drops initializers nothing reads any more.
  void remove_unused_initializers();
  // Drops removed nodes and re-sorts topologically (stable: keeps the
  // existing order wherever it is already valid). Indices change.
  void compact();

 private:
  void index();

  model::Graph& graph_;
  std::vector<bool> removed_;
  std::unordered_map<std::string, int> producer_;
  std::unordered_map<std::string, std::vector<int>> consumers_;
  std::unordered_set<std::string> graph_outputs_;
  std::unordered_set<std::string> graph_inputs_;
  std::unordered_set<std::string> overridable_;
  std::unordered_set<std::string> subgraph_reads_;
  std::unordered_set<std::string> used_names_;
};

}  // namespace inferlab::optimizer
