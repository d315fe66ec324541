// Terminal tables of `inferlab profile` (see profile_table.h).
#include "inferlab/cli/profile_table.h"

#include <algorithm>

#include <fmt/format.h>

#include "inferlab/cli/cli_common.h"
#include "inferlab/runtime/compute_threads.h"

namespace inferlab::cli {

namespace {

constexpr size_t kNameWidth = 44;

// Long names keep their end, which says the most ("/layer4/.../conv3/Conv").
std::string fit(const std::string& name, size_t width = kNameWidth) {
  if (name.size() <= width) return name;
  return "..." + name.substr(name.size() - (width - 3));
}

std::string percent(double share) { return fmt::format("{:.1f}%", 100.0 * share); }

std::string cost_cell(bool known, double amount) { return known ? human_count(amount) : "?"; }

std::string ratio_cell(double numerator, double denominator) {
  return numerator > 0 && denominator > 0 ? fmt::format("{:.2f}x", numerator / denominator) : "-";
}

void print_summary(const profile::BackendProfile& p, std::ostream& out) {
  out << fmt::format("{}: {} profiled runs\n", p.backend, p.runs);
  out << fmt::format(
      "  profiled run P50 {:.3f} ms; kernels P50 {:.3f} ms; outside kernels {:.3f} ms "
      "({}) per run\n",
      p.wall_p50_ms, p.kernel_p50_ms, p.outside_mean_ms, percent(p.outside_share));
  if (!p.baseline_ms.empty()) {
    out << fmt::format(
        "  unprofiled run P50 {:.3f} ms; kernels / unprofiled run {} (paired); profiling overhead "
        "{:+.1f}% "
        "[{:+.1f}%, {:+.1f}%]\n",
        p.baseline_p50_ms, percent(p.kernel_to_baseline), 100 * p.overhead, 100 * p.overhead_low,
        100 * p.overhead_high);
  }
  out << fmt::format("  per run: {}FLOP, {}B moved; {:.2f} GFLOP/s, {:.2f} GB/s over kernel time",
                     human_count(p.flops_per_run), human_count(p.bytes_per_run), p.gflops_per_s,
                     p.gb_per_s);
  if (p.peak_share > 0) out << fmt::format(" ({} of peak)", percent(p.peak_share));
  out << "\n";
}

void print_top_nodes(const profile::BackendProfile& p, int top, std::ostream& out) {
  const size_t shown = std::min(p.nodes.size(), static_cast<size_t>(std::max(0, top)));
  out << fmt::format("\n  top {} nodes\n", shown);
  out << fmt::format("  {:<{}} {:<20} {:>5} {:>10} {:>9} {:>6} {:>8} {:>8} {:>8} {:>7}\n", "node",
                     kNameWidth, "op type", "calls", "total ms", "mean ms", "share", "FLOP",
                     "bytes", "GFLOP/s", "GB/s");
  for (size_t i = 0; i < shown; ++i) {
    const profile::NodeStats& n = p.nodes[i];
    out << fmt::format(
        "  {:<{}} {:<20} {:>5} {:>10.3f} {:>9.4f} {:>6} {:>8} {:>8} {:>8.2f} {:>7.2f}", fit(n.name),
        kNameWidth, fit(n.op_type, 20), n.calls, n.total_ms, n.mean_ms, percent(n.share),
        cost_cell(n.cost_known, n.flops), cost_cell(n.cost_known, n.bytes), n.gflops_per_s,
        n.gb_per_s);
    if (!n.bound.empty()) out << fmt::format("  {} {}", n.bound, percent(n.peak_share));
    out << "\n";
    if (n.covers.size() > 1) out << fmt::format("    covers {}\n", fmt::join(n.covers, ", "));
  }
  const double outside_total = p.outside_mean_ms * p.runs;
  out << fmt::format("  {:<{}} {:<20} {:>5} {:>10.3f} {:>9} {:>6}\n", "(outside kernels)",
                     kNameWidth, "", "", outside_total, "", percent(p.outside_share));
}

void print_op_types(const profile::BackendProfile& p, std::ostream& out) {
  out << "\n  by operator type\n";
  out << fmt::format("  {:<24} {:>5} {:>6} {:>10} {:>6} {:>10} {:>10} {:>8} {:>7}\n", "op type",
                     "nodes", "calls", "ms/run", "share", "FLOP/run", "bytes/run", "GFLOP/s",
                     "GB/s");
  for (const profile::OpTypeStats& t : p.op_types) {
    out << fmt::format("  {:<24} {:>5} {:>6} {:>10.3f} {:>6} {:>10} {:>10} {:>8.2f} {:>7.2f}\n",
                       fit(t.op_type, 24), t.nodes, t.calls, t.total_ms / std::max(1, p.runs),
                       percent(t.share), human_count(t.flops), human_count(t.bytes), t.gflops_per_s,
                       t.gb_per_s);
  }
  out << fmt::format("  {:<24} {:>5} {:>6} {:>10.3f} {:>6}\n", "(outside kernels)", "", "",
                     p.outside_mean_ms, percent(p.outside_share));
}

void print_cross(const profile::CrossEngine& c, int top, std::ostream& out) {
  out << fmt::format("\n{} vs {}, per operator type (ms per run)\n", c.first, c.second);
  out << fmt::format("  {:<24} {:>12} {:>12} {:>8}\n", "op type", c.first, c.second, "ratio");
  for (const profile::CrossOpRow& row : c.op_types) {
    out << fmt::format("  {:<24} {:>12.3f} {:>12.3f} {:>8}\n", fit(row.op_type, 24), row.first_ms,
                       row.second_ms, ratio_cell(row.first_ms, row.second_ms));
  }
  const size_t shown = std::min(c.nodes.size(), static_cast<size_t>(std::max(0, top)));
  out << fmt::format("\n{} vs {}, per node (ONNX nodes of the file; top {}, ms per run)\n", c.first,
                     c.second, shown);
  out << fmt::format("  {:<{}} {:>12} {:>12} {:>8}\n", "ONNX nodes", kNameWidth, c.first, c.second,
                     "ratio");
  for (size_t i = 0; i < shown; ++i) {
    const profile::CrossNodeRow& row = c.nodes[i];
    std::string label = row.onnx_nodes.empty() ? "?" : row.onnx_nodes.front();
    if (row.onnx_nodes.size() > 1) label += fmt::format(" (+{})", row.onnx_nodes.size() - 1);
    out << fmt::format("  {:<{}} {:>12.3f} {:>12.3f} {:>8}\n", fit(label), kNameWidth, row.first_ms,
                       row.second_ms, ratio_cell(row.first_ms, row.second_ms));
  }
  out << fmt::format(
      "  lined up: {} of {}'s kernel time ({} nodes unmatched), {} of {}'s ({} unmatched)\n",
      percent(c.first_matched_share), c.first, c.first_unmatched, percent(c.second_matched_share),
      c.second, c.second_unmatched);
}

}  // namespace

void print_profile_tables(const profile::ProfileResult& result, std::ostream& out) {
  const profile::ProfileOptions& options = result.options;
  out << fmt::format(
      "profile of {}: threads {}, opt level {}, {} runs after {} warm-up\n", options.model_path,
      runtime::threads_label(options.threads, runtime::resolve_threads(options.threads)),
      options.opt_level, options.runs, options.warmup);
  if (options.peak) out << fmt::format("machine peak: {}\n", options.peak->source);
  for (const profile::BackendProfile& p : result.backends) {
    out << "\n";
    print_summary(p, out);
    print_top_nodes(p, options.top, out);
    print_op_types(p, out);
  }
  if (result.cross) print_cross(*result.cross, options.top, out);
}

}  // namespace inferlab::cli
