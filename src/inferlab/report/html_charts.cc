// Chart.js configurations for the HTML report (html_charts.h). Colours are
// fixed per backend so one backend looks the same in every chart.
#include "inferlab/report/html_charts.h"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>
#include <vector>

#include <fmt/format.h>

#include "inferlab/report/report_common.h"

namespace inferlab::report {

using nlohmann::json;

namespace {

constexpr const char* kPalette[] = {"#1f77b4", "#d62728", "#2ca02c", "#ff7f0e",
                                    "#9467bd", "#8c564b", "#e377c2", "#17becf"};

class Colours {
 public:
  std::string of(const std::string& name) {
    auto [it, added] = index_.emplace(name, index_.size());
    return kPalette[it->second % std::size(kPalette)];
  }

 private:
  std::map<std::string, size_t> index_;
};

json axis(const std::string& title, bool logarithmic) {
  json scale = {{"title", {{"display", true}, {"text", title}}}};
  scale["type"] = logarithmic ? "logarithmic" : "linear";
  return scale;
}

json chart_config(const std::string& type, json data, json x_scale, json y_scale) {
  return {{"type", type},
          {"data", std::move(data)},
          {"options",
           {{"animation", false},
            {"responsive", true},
            {"maintainAspectRatio", false},
            {"scales", {{"x", std::move(x_scale)}, {"y", std::move(y_scale)}}}}}};
}

// A frequency polygon of one backend's pooled latencies: (bin centre, % of
// iterations), closed at zero on both ends. Bins are geometric on a log axis.
json latency_polygon(std::vector<double> latencies, bool logarithmic) {
  std::sort(latencies.begin(), latencies.end());
  const double low = latencies.front(), high = latencies.back();
  const size_t bins = std::clamp<size_t>(static_cast<size_t>(std::sqrt(latencies.size())), 5, 40);
  auto to_axis = [&](double v) { return logarithmic ? std::log(v) : v; };
  auto from_axis = [&](double v) { return logarithmic ? std::exp(v) : v; };
  const double a = to_axis(low), width = (to_axis(high) - a) / bins;
  std::vector<size_t> counts(bins, 0);
  for (double v : latencies) {
    size_t bin = width > 0 ? static_cast<size_t>((to_axis(v) - a) / width) : 0;
    counts[std::min(bin, bins - 1)]++;
  }
  json points = json::array();
  points.push_back({{"x", low}, {"y", 0}});
  for (size_t i = 0; i < bins; ++i) {
    const double share = 100.0 * static_cast<double>(counts[i]) / latencies.size();
    points.push_back({{"x", from_axis(a + (i + 0.5) * width)}, {"y", share}});
  }
  points.push_back({{"x", high}, {"y", 0}});
  return points;
}

json distribution_chart(const json& entry, size_t index, Colours& colours) {
  json datasets = json::array();
  std::vector<std::vector<double>> samples;
  std::vector<std::string> names;
  double low = std::numeric_limits<double>::infinity(), high = 0;
  for (const json* backend : backends_of(entry)) {
    std::vector<double> latencies = pooled_latencies(*backend);
    latencies.erase(std::remove_if(latencies.begin(), latencies.end(),
                                   [](double v) { return !std::isfinite(v) || v <= 0; }),
                    latencies.end());
    if (string_at(*backend, {"status"}) != "ok" || latencies.empty()) continue;
    for (double v : latencies) low = std::min(low, v), high = std::max(high, v);
    samples.push_back(std::move(latencies));
    names.push_back(string_at(*backend, {"name"}));
  }
  if (samples.empty()) return nullptr;
  const bool logarithmic = high / low > 10;
  for (size_t i = 0; i < samples.size(); ++i) {
    const std::string colour = colours.of(names[i]);
    datasets.push_back({{"label", names[i]},
                        {"data", latency_polygon(samples[i], logarithmic)},
                        {"borderColor", colour},
                        {"backgroundColor", colour + "33"},
                        {"fill", true},
                        {"pointRadius", 0},
                        {"borderWidth", 1.5}});
  }
  json y = axis("% of iterations", false);
  y["beginAtZero"] = true;
  return {
      {"title", fmt::format("Latency distribution, point {}: {}", index + 1, point_label(entry))},
      {"note",
       "Every counted iteration of every round, pooled; x axis logarithmic when "
       "backends differ more than tenfold."},
      {"config",
       chart_config("line", {{"datasets", datasets}}, axis("latency ms", logarithmic), y)}};
}

// Points grouped into curves: one curve per backend (and per value of the
// other swept variables, under --cross), x = the swept variable's values.
json sweep_chart(const json& result, const std::string& variable, bool throughput,
                 Colours& colours) {
  std::vector<std::string> labels;
  std::map<std::string, std::map<std::string, double>> curves;  // curve -> label -> y
  std::vector<std::string> curve_order;
  std::map<std::string, std::string> curve_backend;
  const json* swept_list = find(result, {"settings", "swept"});
  const json swept = swept_list != nullptr && swept_list->is_array() ? *swept_list : json::array();
  for (const json& entry : result.at("points")) {
    const json* value = find(entry, {"point", variable.c_str()});
    if (value == nullptr) continue;
    const std::string label = point_value_text(*value);
    if (std::find(labels.begin(), labels.end(), label) == labels.end()) labels.push_back(label);
    std::string others;
    for (const json& other : swept) {
      if (!other.is_string() || other == variable) continue;
      const json* v = find(entry, {"point", other.get<std::string>().c_str()});
      if (v != nullptr)
        others += fmt::format(" {}={}", other.get<std::string>(), point_value_text(*v));
    }
    for (const json* backend : backends_of(entry)) {
      const BackendFigures f = backend_figures(*backend);
      const std::optional<double> y = throughput ? f.samples_per_s : f.headline_ms;
      if (!f.ok() || !y) continue;
      const std::string curve = f.name + others;
      if (curves.find(curve) == curves.end()) curve_order.push_back(curve);
      curves[curve][label] = *y;
      curve_backend[curve] = f.name;
    }
  }
  if (curves.empty()) return nullptr;
  json datasets = json::array();
  double low = std::numeric_limits<double>::infinity(), high = 0;
  for (const std::string& curve : curve_order) {
    json data = json::array();
    for (const std::string& label : labels) {
      auto it = curves[curve].find(label);
      if (it == curves[curve].end()) {
        data.push_back(nullptr);
        continue;
      }
      data.push_back(it->second);
      if (it->second > 0) low = std::min(low, it->second), high = std::max(high, it->second);
    }
    const std::string colour = colours.of(curve_backend[curve]);
    datasets.push_back({{"label", curve},
                        {"data", data},
                        {"borderColor", colour},
                        {"backgroundColor", colour},
                        {"spanGaps", true},
                        {"pointRadius", 4}});
  }
  const bool logarithmic = high > 0 && high / low > 20;
  const std::string what = throughput ? "Throughput samples/s" : "Headline latency ms";
  json x = {{"type", "category"}, {"title", {{"display", true}, {"text", variable}}}};
  return {{"title", fmt::format("{} against {}", what, variable)},
          {"note", throughput ? "Samples per second over the counted iterations."
                              : "Median of the round medians; intervals are in the tables."},
          {"config", chart_config("line", {{"labels", labels}, {"datasets", datasets}}, x,
                                  axis(what, logarithmic))}};
}

json accuracy_chart(const json& result, Colours& colours) {
  std::vector<std::string> order;
  std::map<std::string, json> points, styles;
  double smallest_positive = std::numeric_limits<double>::infinity();
  for (const json& entry : result.at("points")) {
    for (const json* backend : backends_of(entry)) {
      const BackendFigures f = backend_figures(*backend);
      if (!f.ok() || !f.headline_ms || !f.accuracy_error) continue;
      if (points.find(f.name) == points.end()) order.push_back(f.name);
      points[f.name].push_back({{"x", *f.headline_ms}, {"y", *f.accuracy_error}});
      const bool failed = f.accuracy_passed.has_value() && !*f.accuracy_passed;
      styles[f.name].push_back(failed ? "crossRot" : "circle");
      if (*f.accuracy_error > 0) smallest_positive = std::min(smallest_positive, *f.accuracy_error);
    }
  }
  if (order.empty()) return nullptr;
  // Exact matches (error 0) cannot sit on a log axis: draw them at a floor.
  const double floor = std::isfinite(smallest_positive) ? smallest_positive / 10 : 1e-9;
  json datasets = json::array();
  for (const std::string& name : order) {
    for (json& point : points[name]) point["y"] = std::max(point["y"].get<double>(), floor);
    const std::string colour = colours.of(name);
    datasets.push_back({{"label", name},
                        {"data", points[name]},
                        {"pointStyle", styles[name]},
                        {"pointRadius", 7},
                        {"borderColor", colour},
                        {"backgroundColor", colour + "99"}});
  }
  const std::string reference = reference_name(result);
  return {{"title", fmt::format("Accuracy error against {} beside headline latency",
                                reference.empty() ? "the reference" : reference)},
          {"note", fmt::format("One mark per backend and point; error = max|a-b| / max(1, "
                               "max|ref|), worst output; a cross failed its tolerance; an exact "
                               "match is drawn at {:.1e}.",
                               floor)},
          {"config",
           chart_config("scatter", {{"datasets", datasets}}, axis("headline latency ms", false),
                        axis("accuracy error (log)", true))}};
}

}  // namespace

json chart_specs(const json& result) {
  Colours colours;
  json specs = json::array();
  auto add = [&specs](json spec) {
    if (spec.is_null()) return;
    spec["canvas"] = fmt::format("chart-{}", specs.size());
    specs.push_back(std::move(spec));
  };
  const json& points = result.at("points");
  for (size_t i = 0; i < points.size(); ++i) add(distribution_chart(points[i], i, colours));
  const json* swept = find(result, {"settings", "swept"});
  if (swept != nullptr && swept->is_array()) {
    for (const json& variable : *swept) {
      if (!variable.is_string()) continue;
      add(sweep_chart(result, variable.get<std::string>(), false, colours));
      add(sweep_chart(result, variable.get<std::string>(), true, colours));
    }
  }
  add(accuracy_chart(result, colours));
  return specs;
}

}  // namespace inferlab::report
