// constant_sharing (level 1): initializers with the same dtype, shape and
// bytes are one constant; readers of the duplicates read the first by name
// (deterministic), and the duplicates are dropped. Overridable initializers
// (callers may replace them), graph outputs and string tensors are left alone.
#include <algorithm>
#include <functional>
#include <string_view>

#include "inferlab/optimizer/basic_passes.h"
#include "inferlab/optimizer/graph_editor.h"

namespace inferlab::optimizer {

namespace {

// Only tensors that agree on dtype and shape are hashed and compared.
std::string type_key(const Tensor& tensor) {
  std::string key = std::to_string(static_cast<int>(tensor.dtype()));
  for (int64_t dim : tensor.shape()) key += "," + std::to_string(dim);
  return key;
}

size_t content_hash(const Tensor& tensor) {
  return std::hash<std::string_view>()(
      std::string_view(static_cast<const char*>(tensor.raw_data()), tensor.nbytes()));
}

class ConstantSharing : public GraphPass {
 public:
  const char* name() const override { return "constant_sharing"; }
  int level() const override { return 1; }

  void run(PassContext& context, PassStats& stats) override {
    GraphEditor editor(context.graph());
    std::map<std::string, std::vector<std::string>> by_type;
    for (const auto& [name, tensor] : context.graph().initializers) {
      if (editor.constant(name) == nullptr || editor.is_graph_output(name)) continue;
      if (tensor.dtype() == DataType::kString || editor.use_count(name) == 0) continue;
      by_type[type_key(tensor)].push_back(name);
    }
    for (auto& [key, names] : by_type) {
      if (names.size() < 2) continue;
      std::sort(names.begin(), names.end());
      share_group(editor, names, stats);
    }
  }

 private:
  static void share_group(GraphEditor& editor, const std::vector<std::string>& names,
                          PassStats& stats) {
    auto& initializers = editor.graph().initializers;
    std::map<size_t, std::vector<std::string>> kept_by_hash;
    for (const std::string& name : names) {
      const Tensor& tensor = initializers.at(name);
      std::vector<std::string>& kept = kept_by_hash[content_hash(tensor)];
      auto same = std::find_if(kept.begin(), kept.end(), [&](const std::string& other) {
        return initializers.at(other).equals(tensor);
      });
      if (same == kept.end()) {
        kept.push_back(name);
        continue;
      }
      editor.replace_all_uses(name, *same);
      initializers.erase(name);
      stats.record("shared constant", name);
    }
  }
};

}  // namespace

std::unique_ptr<GraphPass> make_constant_sharing_pass() {
  return std::make_unique<ConstantSharing>();
}

}  // namespace inferlab::optimizer
