// Lining up two engines' profiles of one model (see profile.h): per
// operator type by name, and per node through the ONNX nodes of the model
// file each engine's node covers. Nodes of the two engines that cover a
// common ONNX node are joined (transitively), so a fused node of one engine
// lines up with the several nodes of the other that it replaced.
#include <algorithm>
#include <numeric>
#include <unordered_set>

#include "inferlab/profile/profile.h"

namespace inferlab::profile {

namespace {

class DisjointSets {
 public:
  explicit DisjointSets(size_t size) : parent_(size) {
    std::iota(parent_.begin(), parent_.end(), size_t{0});
  }
  size_t find(size_t x) {
    while (parent_[x] != x) x = parent_[x] = parent_[parent_[x]];
    return x;
  }
  void join(size_t a, size_t b) { parent_[find(a)] = find(b); }

 private:
  std::vector<size_t> parent_;
};

constexpr size_t kShortestContainedName = 3;

// The ONNX nodes (indexes into onnx_names) a node of an engine covers.
std::vector<size_t> covered(const NodeStats& node,
                            const std::unordered_map<std::string, size_t>& index_of,
                            const std::vector<std::string>& onnx_names) {
  std::vector<size_t> result;
  for (const std::string& name : node.covers) {
    if (auto it = index_of.find(name); it != index_of.end()) result.push_back(it->second);
  }
  if (!result.empty()) return result;
  if (auto it = index_of.find(node.name); it != index_of.end()) return {it->second};
  size_t best = onnx_names.size();
  for (size_t i = 0; i < onnx_names.size(); ++i) {
    const std::string& name = onnx_names[i];
    if (name.size() < kShortestContainedName || node.name.find(name) == std::string::npos) continue;
    if (best == onnx_names.size() || name.size() > onnx_names[best].size()) best = i;
  }
  if (best != onnx_names.size()) result.push_back(best);
  return result;
}

std::vector<CrossOpRow> op_type_rows(const BackendProfile& first, const BackendProfile& second) {
  std::vector<CrossOpRow> rows;
  std::unordered_map<std::string, size_t> row_of;
  auto add = [&](const BackendProfile& profile, bool is_first) {
    for (const OpTypeStats& type : profile.op_types) {
      const std::string op_type = base_op_type(type.op_type);
      auto [it, inserted] = row_of.emplace(op_type, rows.size());
      if (inserted) rows.push_back(CrossOpRow{op_type});
      const double per_run = type.total_ms / std::max(1, profile.runs);
      (is_first ? rows[it->second].first_ms : rows[it->second].second_ms) += per_run;
    }
  };
  add(first, true);
  add(second, false);
  std::stable_sort(rows.begin(), rows.end(), [](const CrossOpRow& a, const CrossOpRow& b) {
    return a.first_ms + a.second_ms > b.first_ms + b.second_ms;
  });
  return rows;
}

}  // namespace

std::string base_op_type(const std::string& op_type) {
  const std::string prefix = "Fused";
  return op_type.rfind(prefix, 0) == 0 ? op_type.substr(prefix.size()) : op_type;
}

CrossEngine compare_engines(const BackendProfile& first, const BackendProfile& second,
                            const std::vector<std::string>& onnx_names) {
  CrossEngine cross;
  cross.first = first.backend;
  cross.second = second.backend;
  cross.op_types = op_type_rows(first, second);

  std::unordered_map<std::string, size_t> index_of;
  for (size_t i = 0; i < onnx_names.size(); ++i) index_of.emplace(onnx_names[i], i);
  const size_t first_count = first.nodes.size();
  const size_t node_count = first_count + second.nodes.size();
  DisjointSets sets(node_count + onnx_names.size());
  std::vector<bool> has_cover(node_count + onnx_names.size(), false);
  for (size_t n = 0; n < node_count; ++n) {
    const NodeStats& node = n < first_count ? first.nodes[n] : second.nodes[n - first_count];
    for (size_t onnx : covered(node, index_of, onnx_names)) {
      sets.join(n, node_count + onnx);
      has_cover[node_count + onnx] = true;
    }
  }
  // Component root -> row; a row needs nodes of both engines.
  std::unordered_map<size_t, CrossNodeRow> rows;
  std::unordered_map<size_t, int> sides;  // bit 1: first engine, bit 2: second
  for (size_t n = 0; n < node_count; ++n) sides[sets.find(n)] |= n < first_count ? 1 : 2;
  double first_matched_ms = 0, second_matched_ms = 0;
  for (size_t n = 0; n < node_count; ++n) {
    const size_t root = sets.find(n);
    const bool is_first = n < first_count;
    const NodeStats& node = is_first ? first.nodes[n] : second.nodes[n - first_count];
    if (sides[root] != 3) {
      ++(is_first ? cross.first_unmatched : cross.second_unmatched);
      continue;
    }
    CrossNodeRow& row = rows[root];
    const double per_run = node.total_ms / std::max(1, is_first ? first.runs : second.runs);
    (is_first ? row.first_nodes : row.second_nodes).push_back(node.name);
    (is_first ? row.first_ms : row.second_ms) += per_run;
    (is_first ? first_matched_ms : second_matched_ms) += per_run;
  }
  for (size_t onnx = 0; onnx < onnx_names.size(); ++onnx) {
    if (!has_cover[node_count + onnx]) continue;
    auto it = rows.find(sets.find(node_count + onnx));
    if (it != rows.end()) it->second.onnx_nodes.push_back(onnx_names[onnx]);
  }
  for (auto& [root, row] : rows) cross.nodes.push_back(std::move(row));
  std::sort(cross.nodes.begin(), cross.nodes.end(),
            [](const CrossNodeRow& a, const CrossNodeRow& b) {
              if (a.first_ms + a.second_ms != b.first_ms + b.second_ms)
                return a.first_ms + a.second_ms > b.first_ms + b.second_ms;
              return a.onnx_nodes < b.onnx_nodes;
            });
  if (first.kernel_mean_ms > 0) cross.first_matched_share = first_matched_ms / first.kernel_mean_ms;
  if (second.kernel_mean_ms > 0)
    cross.second_matched_share = second_matched_ms / second.kernel_mean_ms;
  return cross;
}

}  // namespace inferlab::profile
