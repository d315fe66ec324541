// Markdown file report (markdown_report.h).
#include "inferlab/report/markdown_report.h"

#include <fmt/format.h>

#include "inferlab/report/report_common.h"

namespace inferlab::report {

using nlohmann::json;

std::string markdown_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '\\':
      case '`':
      case '*':
      case '_':
      case '[':
      case ']':
      case '<':
      case '>':
      case '|':
      case '&':
      case '#':
        out += '\\';
        out += c;
        break;
      case '\r':
        break;
      case '\n':
        out += ' ';
        break;
      default:
        out += c;
    }
  }
  return out;
}

namespace {

// A fenced code block whose fence is longer than any backtick run inside.
std::string code_block(const std::string& text) {
  size_t longest = 0, run = 0;
  for (char c : text) {
    run = c == '`' ? run + 1 : 0;
    longest = std::max(longest, run);
  }
  const std::string fence(std::max<size_t>(3, longest + 1), '`');
  return fence + "\n" + text + "\n" + fence + "\n";
}

void append_environment(std::string& out, const json& result) {
  out += "## Environment\n\n";
  auto item = [&out](const std::string& label, const std::string& value) {
    if (!value.empty()) out += fmt::format("- {}: {}\n", label, markdown_escape(value));
  };
  item("Model",
       string_at(result, {"model", "name"}) + " (" + string_at(result, {"model", "path"}) + ")");
  item("Model SHA-256", string_at(result, {"model", "sha256"}));
  const json* machine = find(result, {"environment", "machine"});
  if (machine != nullptr) {
    item("CPU", string_at(*machine, {"cpu_model"}));
    item("Cores", fmt::format("{} usable of {} logical", string_at(*machine, {"usable_cores"}),
                              string_at(*machine, {"logical_cores"})));
    item("Memory MiB", string_at(*machine, {"memory_mib"}));
    item("Kernel", string_at(*machine, {"kernel"}));
    item("Compiler", string_at(*machine, {"compiler"}));
    item("InferLab", string_at(*machine, {"inferlab_version"}) + " (" +
                         string_at(*machine, {"inferlab_commit"}) + ")");
  }
  if (const json* backends = find(result, {"environment", "backends"});
      backends != nullptr && backends->is_object()) {
    for (auto it = backends->begin(); it != backends->end(); ++it) {
      std::string text = string_at(it.value(), {"version"});
      if (const json* configuration = find(it.value(), {"configuration"});
          configuration != nullptr && !configuration->empty()) {
        text += " " + configuration->dump();
      }
      item("Backend " + it.key(), text);
    }
  }
  if (const json* settings = find(result, {"settings"});
      settings != nullptr && settings->is_object()) {
    std::string text;
    for (auto it = settings->begin(); it != settings->end(); ++it) {
      if (!text.empty()) text += ", ";
      text += it.key() + "=" +
              (it.value().is_string() ? it.value().get<std::string>() : it.value().dump());
    }
    item("Settings", text);
  }
  out += "\n";
}

void append_table(std::string& out, const SummaryTable& table) {
  auto append_cells = [&out](const std::vector<std::string>& cells) {
    out += "|";
    for (const std::string& cell : cells) out += " " + markdown_escape(cell) + " |";
    out += "\n";
  };
  append_cells(table.headers);
  out += "|";
  for (size_t i = 0; i < table.headers.size(); ++i) out += i == 0 ? " --- |" : " ---: |";
  out += "\n";
  for (const auto& row : table.rows) append_cells(row);
  out += "\n";
}

void append_point(std::string& out, const json& entry, size_t index, size_t count,
                  const std::string& reference) {
  out += fmt::format("## Point {} of {}: {}\n\n", index + 1, count,
                     markdown_escape(point_label(entry)));
  append_table(out, summary_table(entry, reference));
  bool any_warning = false;
  for (const json* backend : backends_of(entry)) {
    const BackendFigures figures = backend_figures(*backend);
    if (figures.noise_warning.empty()) continue;
    if (!any_warning) out += "Noise warnings:\n\n";
    any_warning = true;
    out += fmt::format("- **{}**: {}\n", markdown_escape(figures.name),
                       markdown_escape(figures.noise_warning));
  }
  if (any_warning) out += "\n";
}

}  // namespace

std::string markdown_report(const json& result) {
  check_result_schema(result);
  const std::string reference = reference_name(result);
  std::string out = fmt::format("# InferLab bench: {}\n\n",
                                markdown_escape(string_at(result, {"model", "name"})));
  const std::string created = string_at(result, {"created"});
  if (!created.empty()) out += fmt::format("Created {}.\n\n", markdown_escape(created));
  out += "Command:\n\n" + code_block(string_at(result, {"command"})) + "\n";
  if (!reference.empty()) {
    out += fmt::format(
        "Ratios and accuracy are against the reference backend **{}**; a ratio's verdict is "
        "called only when its 95% interval excludes 1. Latency is the engine's own execution "
        "time per call; headline = median of round medians.\n\n",
        markdown_escape(reference));
  }
  append_environment(out, result);
  const json& points = result.at("points");
  for (size_t i = 0; i < points.size(); ++i)
    append_point(out, points[i], i, points.size(), reference);
  return out;
}

}  // namespace inferlab::report
