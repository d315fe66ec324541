// dead_node_elimination (level 1): removes nodes none of whose outputs is
// read (by a node, a subgraph or as a graph output), walking backwards so a
// whole dead chain goes in one run, then initializers nothing reads.
// ONNX operators have no side effects; nodes of domains InferLab does not
// know might, so they are kept.
#include <set>

#include "inferlab/optimizer/basic_passes.h"
#include "inferlab/optimizer/graph_editor.h"

namespace inferlab::optimizer {

namespace {

bool known_side_effect_free(const model::Node& node) {
  static const std::set<std::string> kDomains = {"", "ai.onnx", "ai.inferlab", "com.microsoft",
                                                 "ai.onnx.ml"};
  return kDomains.count(node.domain) != 0;
}

class DeadNodeElimination : public GraphPass {
 public:
  const char* name() const override { return "dead_node_elimination"; }
  int level() const override { return 1; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    const std::vector<model::Node>& nodes = context.graph().nodes;
    for (int index = static_cast<int>(nodes.size()) - 1; index >= 0; --index) {
      const model::Node& node = nodes[static_cast<size_t>(index)];
      if (!known_side_effect_free(node) || !all_outputs_unused(editor, node)) continue;
      stats.record("removed unused " + node.op_type, node.name);
      editor.remove_node(index);
    }
    std::vector<std::string> unused;
    for (const auto& [name, tensor] : context.graph().initializers) {
      if (editor.use_count(name) == 0 && editor.constant(name) != nullptr) unused.push_back(name);
    }
    editor.remove_unused_initializers();
    for (const std::string& name : unused) {
      if (context.graph().initializers.count(name) == 0) {
        stats.record("removed unused initializer", name);
      }
    }
    editor.compact();
  }

 private:
  static bool all_outputs_unused(const GraphEditor& editor, const model::Node& node) {
    for (const std::string& output : node.outputs) {
      if (!output.empty() && editor.use_count(output) > 0) return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> make_dead_node_elimination_pass() {
  return std::make_unique<DeadNodeElimination>();
}

}  // namespace inferlab::optimizer
