// pad_folding (level 1): a Pad that adds zeros around the spatial dims and
// feeds only one Conv (data input), AveragePool or MaxPool is folded into
// that node's own `pads` attribute. Exactness decides where it fires:
//  - Conv: always (Conv pads with zeros too), auto_pad NOTSET only;
//  - AveragePool: only with count_include_pad=1 (padded zeros are then
//    counted in the average, exactly as explicit zeros are) and ceil_mode=0;
//  - MaxPool: only when the Pad's input comes from a Relu (values >= 0, so
//    a zero never beats a real value), with one output (no Indices),
//    ceil_mode=0 and the merged pads smaller than the kernel (every window
//    keeps a real element).
// Never: a non-zero pad value, a mode other than "constant", negative pads,
// pads on the batch or channel dims, an `axes` input, or a Pad output that
// is read elsewhere or is a graph output.
#include "inferlab/optimizer/basic_passes.h"
#include "inferlab/optimizer/graph_editor.h"
#include "inferlab/optimizer/pass_util.h"

namespace inferlab::optimizer {

namespace {

std::string string_attribute(const model::Node& node, const std::string& key,
                             const std::string& fallback) {
  auto it = node.attributes.find(key);
  return it == node.attributes.end() ? fallback : it->second.s;
}

int64_t int_attribute(const model::Node& node, const std::string& key, int64_t fallback) {
  auto it = node.attributes.find(key);
  return it == node.attributes.end() ? fallback : it->second.i;
}

bool is_default_domain(const model::Node& node) {
  return node.domain.empty() || node.domain == "ai.onnx";
}

// The Pad's pads ([x1_begin, x2_begin, ..., x1_end, ...]) when it pads with
// constant zeros; empty otherwise.
std::vector<int64_t> zero_pads(const GraphEditor& editor, const model::Node& pad) {
  if (string_attribute(pad, "mode", "constant") != "constant") return {};
  if (pad.inputs.size() > 3 && !pad.inputs[3].empty()) return {};  // axes
  auto pads_attribute = pad.attributes.find("pads");
  if (pads_attribute != pad.attributes.end()) {  // Pad-2
    auto value = pad.attributes.find("value");
    if (value != pad.attributes.end() && value->second.f != 0.0f) return {};
    return pads_attribute->second.ints;
  }
  if (pad.inputs.size() < 2 || pad.inputs[1].empty()) return {};
  const Tensor* pads = editor.constant(pad.inputs[1]);
  if (pads == nullptr) return {};
  if (pad.inputs.size() > 2 && !pad.inputs[2].empty()) {
    const Tensor* fill = editor.constant(pad.inputs[2]);
    if (fill == nullptr || fill->numel() != 1 || fill->element_as_double(0) != 0.0) return {};
  }
  return pads->to_int64_vector();
}

class PadFolding : public GraphPass {
 public:
  const char* name() const override { return "pad_folding"; }
  int level() const override { return 1; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    const size_t count = context.graph().nodes.size();
    for (size_t i = 0; i < count; ++i) {
      const model::Node& pad = context.graph().nodes[i];
      if (pad.op_type != "Pad" || !is_default_domain(pad) || pad.outputs.size() != 1) continue;
      const std::string& padded = pad.outputs[0];
      if (editor.is_graph_output(padded) || editor.use_count(padded) != 1) continue;
      const int target = editor.consumers(padded).front();
      model::Node& consumer = context.graph().nodes[static_cast<size_t>(target)];
      if (consumer.inputs.empty() || consumer.inputs[0] != padded) continue;
      std::vector<int64_t> merged;
      if (!merge_pads(editor, pad, consumer, merged)) continue;
      consumer.attributes["pads"].kind = model::Attribute::Kind::kInts;
      consumer.attributes["pads"].ints = merged;
      const std::string pad_name = pad.name;
      const std::string kind = "folded Pad into " + consumer.op_type;
      bypass_node(editor, static_cast<int>(i), padded, pad.inputs[0]);
      stats.record(kind, pad_name);
    }
    if (stats.changed()) editor.compact();
  }

 private:
  // The consumer's new spatial pads, when folding is exact (see the file comment).
  static bool merge_pads(GraphEditor& editor, const model::Node& pad, const model::Node& consumer,
                         std::vector<int64_t>& merged) {
    if (!is_default_domain(consumer) || !folds_into(editor, pad, consumer)) return false;
    const std::vector<int64_t> pads = zero_pads(editor, pad);
    const size_t rank = pads.size() / 2;
    if (rank < 3 || pads.size() != 2 * rank) return false;
    const size_t spatial = rank - 2;
    for (size_t axis = 0; axis < rank; ++axis) {
      if (pads[axis] < 0 || pads[rank + axis] < 0) return false;
      if (axis < 2 && (pads[axis] != 0 || pads[rank + axis] != 0)) return false;
    }
    auto existing = consumer.attributes.find("pads");
    merged.assign(2 * spatial, 0);
    if (existing != consumer.attributes.end()) {
      if (existing->second.ints.size() != 2 * spatial) return false;
      merged = existing->second.ints;
    }
    for (size_t axis = 0; axis < spatial; ++axis) {
      merged[axis] += pads[2 + axis];
      merged[spatial + axis] += pads[rank + 2 + axis];
    }
    if (consumer.op_type == "MaxPool") return pads_below_kernel(consumer, merged);
    return true;
  }

  static bool folds_into(GraphEditor& editor, const model::Node& pad, const model::Node& consumer) {
    const std::string auto_pad = string_attribute(consumer, "auto_pad", "NOTSET");
    if (auto_pad != "NOTSET") return false;
    if (consumer.op_type == "Conv") return true;
    if (int_attribute(consumer, "ceil_mode", 0) != 0) return false;
    if (consumer.op_type == "AveragePool") {
      return int_attribute(consumer, "count_include_pad", 0) == 1;
    }
    if (consumer.op_type == "MaxPool") {
      if (consumer.outputs.size() > 1 && !consumer.outputs[1].empty()) return false;
      const int source = editor.producer(pad.inputs[0]);
      return source >= 0 && editor.graph().nodes[static_cast<size_t>(source)].op_type == "Relu";
    }
    return false;
  }

  static bool pads_below_kernel(const model::Node& pool, const std::vector<int64_t>& pads) {
    auto kernel = pool.attributes.find("kernel_shape");
    if (kernel == pool.attributes.end()) return false;
    const std::vector<int64_t>& sizes = kernel->second.ints;
    const size_t spatial = pads.size() / 2;
    if (sizes.size() != spatial) return false;
    for (size_t axis = 0; axis < spatial; ++axis) {
      if (pads[axis] >= sizes[axis] || pads[spatial + axis] >= sizes[axis]) return false;
    }
    return true;
  }
};

}  // namespace

std::unique_ptr<GraphPass> make_pad_folding_pass() { return std::make_unique<PadFolding>(); }

}  // namespace inferlab::optimizer
