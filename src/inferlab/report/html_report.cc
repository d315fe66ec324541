// HTML file report (html_report.h). The page: a CSP that allows inline
// script and style only, an error recorder installed first, the tables,
// one canvas per chart, the chart specs as JSON, the library, then a small
// loop that draws each spec with try/catch and counts what it drew.
#include "inferlab/report/html_report.h"

#include <filesystem>
#include <fstream>
#include <sstream>

#include <fmt/format.h>

#include "inferlab/core/error.h"
#include "inferlab/report/html_charts.h"
#include "inferlab/report/report_common.h"

namespace inferlab::report {

using nlohmann::json;

std::string html_escape(const std::string& text) {
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    switch (c) {
      case '&':
        out += "&amp;";
        break;
      case '<':
        out += "&lt;";
        break;
      case '>':
        out += "&gt;";
        break;
      case '"':
        out += "&quot;";
        break;
      case '\'':
        out += "&#39;";
        break;
      default:
        out += c;
    }
  }
  return out;
}

std::string script_safe_json(const json& value) {
  const std::string text = value.dump(-1, ' ', false, json::error_handler_t::replace);
  std::string out;
  out.reserve(text.size());
  for (char c : text) {
    // These characters occur only inside JSON strings, where \u escapes mean the same.
    if (c == '<')
      out += "\\u003c";
    else if (c == '>')
      out += "\\u003e";
    else if (c == '&')
      out += "\\u0026";
    else
      out += c;
  }
  return out;
}

std::string find_chart_library(const std::string& cache_dir) {
  const std::filesystem::path path = std::filesystem::path(cache_dir) / "npm" / "node_modules" /
                                     "chart.js" / "dist" / "chart.umd.js";
  std::error_code ignored;
  if (!std::filesystem::is_regular_file(path, ignored)) {
    fail(ErrorCode::kIo,
         "chart library {} not found: the HTML report inlines chart.js pinned in "
         "tools/npm/package.json, which tools/install.sh installs into the cache",
         path.string());
  }
  return path.string();
}

std::string read_chart_library(const std::string& cache_dir) {
  const std::string path = find_chart_library(cache_dir);
  std::ifstream file(path, std::ios::binary);
  std::ostringstream text;
  text << file.rdbuf();
  if (!file.good() && !file.eof()) fail(ErrorCode::kIo, "cannot read chart library {}", path);
  return text.str();
}

namespace {

// A script's text must not close its element early or open an HTML comment
// state; both rewrites keep the JavaScript's meaning (in strings, regular
// expressions and comments alike).
std::string inline_script(const std::string& js) {
  std::string out;
  out.reserve(js.size());
  for (size_t i = 0; i < js.size(); ++i) {
    if (js.compare(i, 2, "</") == 0 && i + 8 <= js.size()) {
      std::string tag = js.substr(i + 2, 6);
      for (char& c : tag) c = static_cast<char>(std::tolower(static_cast<unsigned char>(c)));
      if (tag == "script") {
        out += "<\\/";
        ++i;
        continue;
      }
    }
    if (js.compare(i, 4, "<!--") == 0) {
      out += "<\\!--";
      i += 3;
      continue;
    }
    out += js[i];
  }
  return out;
}

constexpr const char* kStyle = R"(
body{font:14px/1.4 system-ui,sans-serif;margin:1.5em;color:#222}
h1{font-size:1.5em}h2{font-size:1.2em;margin-top:1.6em}
table{border-collapse:collapse;margin:.5em 0}td,th{border:1px solid #ccc;padding:3px 6px}
th{background:#f2f2f2}td{text-align:right}td:first-child{text-align:left;font-weight:600}
td.status{text-align:left;color:#b00}td.fail{color:#c00;font-weight:700}
pre{background:#f6f6f6;padding:.5em;white-space:pre-wrap}.note{color:#555;font-size:.9em}
.chart{position:relative;height:340px;max-width:960px;margin-bottom:.5em}
.warn{color:#a60}dl{display:grid;grid-template-columns:max-content auto;gap:2px 12px}
dt{font-weight:600}dd{margin:0;overflow-wrap:anywhere}
)";

// Installed before anything else runs: counts uncaught errors and blocked fetches.
constexpr const char* kRecorder = R"(
(function(){var b=document.body;
function add(k){b.dataset[k]=String((+b.dataset[k]||0)+1);}
window.addEventListener('error',function(e){add('scriptErrors');b.dataset.lastScriptError=String(e.message);});
document.addEventListener('securitypolicyviolation',function(e){add('blockedRequests');b.dataset.lastBlocked=String(e.blockedURI);});
})();
)";

constexpr const char* kDrawCharts = R"(
(function(){var b=document.body,drawn=0,longest=0;
function failed(where,e){b.dataset.scriptErrors=String((+b.dataset.scriptErrors||0)+1);b.dataset.lastScriptError=where+': '+(e&&e.message?e.message:String(e));}
var specs=[];
try{specs=JSON.parse(document.getElementById('inferlab-charts').textContent);}catch(e){failed('chart data',e);}
if(typeof Chart==='undefined'){if(specs.length)failed('charts','the inlined chart library did not load');specs=[];}
function logTick(v){var e=Math.floor(Math.log10(v)+1e-9),m=Math.round(v/Math.pow(10,e)*10)/10;
return e>=-2&&e<=3?String(+v.toPrecision(2)):m+'e'+e;}
function readableLogAxes(config){var scales=(config.options||{}).scales||{};
Object.keys(scales).forEach(function(k){var s=scales[k];if(s.type==='logarithmic'){
s.ticks=s.ticks||{};s.ticks.callback=logTick;}});}
specs.forEach(function(spec){try{
readableLogAxes(spec.config);
var chart=new Chart(document.getElementById(spec.canvas),spec.config);
Object.keys(chart.scales).forEach(function(k){chart.scales[k].ticks.forEach(function(t){
longest=Math.max(longest,String(t.label).length);});});
var area=chart.chartArea;if(area&&area.right>area.left&&area.bottom>area.top){drawn++;}
else{failed(spec.canvas,'no drawing area');}
}catch(e){failed(spec.canvas,e);}});
b.dataset.chartsRendered=String(drawn);b.dataset.longestTickLabel=String(longest);})();
)";

void append_table(std::string& out, const SummaryTable& table) {
  constexpr size_t kAccuracyColumn = 10;
  out += "<table><thead><tr>";
  for (const std::string& header : table.headers) out += "<th>" + html_escape(header) + "</th>";
  out += "</tr></thead><tbody>\n";
  for (size_t r = 0; r < table.rows.size(); ++r) {
    const auto& row = table.rows[r];
    out += "<tr><td>" + html_escape(row[0]) + "</td>";
    if (!table.row_ok[r]) {
      out += fmt::format("<td class=\"status\" colspan=\"{}\">{}</td></tr>\n", row.size() - 1,
                         html_escape(row[1]));
      continue;
    }
    for (size_t c = 1; c < row.size(); ++c) {
      const bool fail_cell = c == kAccuracyColumn && table.row_accuracy_failed[r];
      out += (fail_cell ? "<td class=\"fail\">" : "<td>") + html_escape(row[c]) + "</td>";
    }
    out += "</tr>\n";
  }
  out += "</tbody></table>\n";
}

void append_environment(std::string& out, const json& result) {
  out += "<h2>Environment</h2><dl>\n";
  auto item = [&out](const std::string& label, const std::string& value) {
    if (!value.empty())
      out += "<dt>" + html_escape(label) + "</dt><dd>" + html_escape(value) + "</dd>\n";
  };
  item("Model",
       string_at(result, {"model", "name"}) + " (" + string_at(result, {"model", "path"}) + ")");
  item("Model SHA-256", string_at(result, {"model", "sha256"}));
  item("Created", string_at(result, {"created"}));
  if (const json* machine = find(result, {"environment", "machine"}); machine != nullptr) {
    item("CPU", string_at(*machine, {"cpu_model"}));
    item("Cores", string_at(*machine, {"usable_cores"}) + " usable of " +
                      string_at(*machine, {"logical_cores"}) + " logical");
    item("Memory MiB", string_at(*machine, {"memory_mib"}));
    item("Kernel", string_at(*machine, {"kernel"}));
    item("Compiler", string_at(*machine, {"compiler"}));
    item("InferLab", string_at(*machine, {"inferlab_version"}) + " (" +
                         string_at(*machine, {"inferlab_commit"}) + ")");
  }
  if (const json* backends = find(result, {"environment", "backends"});
      backends != nullptr && backends->is_object()) {
    for (auto it = backends->begin(); it != backends->end(); ++it) {
      const json* configuration = find(it.value(), {"configuration"});
      item("Backend " + it.key(),
           string_at(it.value(), {"version"}) +
               (configuration != nullptr && !configuration->empty()
                    ? " " + configuration->dump(-1, ' ', false, json::error_handler_t::replace)
                    : ""));
    }
  }
  if (const json* settings = find(result, {"settings"}); settings != nullptr) {
    item("Settings", settings->dump(-1, ' ', false, json::error_handler_t::replace));
  }
  out += "</dl>\n";
}

void append_points(std::string& out, const json& result) {
  const std::string reference = reference_name(result);
  const json& points = result.at("points");
  for (size_t i = 0; i < points.size(); ++i) {
    out += fmt::format("<h2>Point {} of {}: {}</h2>\n", i + 1, points.size(),
                       html_escape(point_label(points[i])));
    append_table(out, summary_table(points[i], reference));
    for (const json* backend : backends_of(points[i])) {
      const BackendFigures f = backend_figures(*backend);
      if (f.noise_warning.empty()) continue;
      out += "<p class=\"warn\">Noise warning, " + html_escape(f.name) + ": " +
             html_escape(f.noise_warning) + "</p>\n";
    }
  }
}

}  // namespace

std::string html_report(const json& result, const std::string& chart_library_js) {
  check_result_schema(result);
  if (chart_library_js.empty()) {
    fail(ErrorCode::kInvalidArgument, "html report: the chart library text is empty");
  }
  const json specs = chart_specs(result);
  const std::string title = "InferLab bench: " + string_at(result, {"model", "name"});
  std::string out =
      "<!DOCTYPE html>\n<html lang=\"en\"><head><meta charset=\"utf-8\">\n"
      "<meta http-equiv=\"Content-Security-Policy\" content=\"default-src 'none'; "
      "script-src 'unsafe-inline'; style-src 'unsafe-inline'; img-src data:; "
      "base-uri 'none'; form-action 'none'\">\n"
      "<title>" +
      html_escape(title) + "</title>\n<style>" + kStyle + "</style></head>\n";
  out += fmt::format(
      "<body data-charts-expected=\"{}\" data-charts-rendered=\"0\" data-script-errors=\"0\" "
      "data-blocked-requests=\"0\">\n<script>{}</script>\n",
      specs.size(), kRecorder);
  out += "<h1>" + html_escape(title) + "</h1>\n<p>Command:</p><pre>" +
         html_escape(string_at(result, {"command"})) + "</pre>\n";
  const std::string reference = reference_name(result);
  if (!reference.empty()) {
    out += "<p class=\"note\">Ratios and accuracy are against the reference backend <b>" +
           html_escape(reference) +
           "</b>; a verdict is called only when the ratio's 95% interval excludes 1. Headline = "
           "median of the round medians.</p>\n";
  }
  append_points(out, result);
  out += "<h2>Charts</h2>\n";
  for (const json& spec : specs) {
    out += "<h3>" + html_escape(spec.value("title", "")) + "</h3><p class=\"note\">" +
           html_escape(spec.value("note", "")) + "</p>\n<div class=\"chart\"><canvas id=\"" +
           html_escape(spec.value("canvas", "")) + "\"></canvas></div>\n";
  }
  append_environment(out, result);
  out += "<script id=\"inferlab-charts\" type=\"application/json\">" + script_safe_json(specs) +
         "</script>\n<script>" + inline_script(chart_library_js) + "</script>\n<script>" +
         kDrawCharts + "</script>\n</body></html>\n";
  return out;
}

}  // namespace inferlab::report
