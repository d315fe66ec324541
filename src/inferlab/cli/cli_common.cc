// Shared CLI helpers; see cli_common.h.
#include "inferlab/cli/cli_common.h"

#include <fstream>
#include <iostream>

#include <fmt/format.h>

#include "inferlab/core/error.h"

namespace inferlab::cli {

std::pair<std::string, std::string> split_name_value(const std::string& flag,
                                                     const std::string& text) {
  const size_t equals = text.find('=');
  if (equals == std::string::npos || equals == 0 || equals + 1 == text.size()) {
    throw UsageError(fmt::format("{} '{}': expected NAME=VALUE", flag, text));
  }
  return {text.substr(0, equals), text.substr(equals + 1)};
}

std::map<std::string, std::string> parse_name_values(const std::string& flag,
                                                     const std::vector<std::string>& texts) {
  std::map<std::string, std::string> values;
  for (const std::string& text : texts) {
    auto [name, value] = split_name_value(flag, text);
    if (!values.emplace(name, value).second) {
      throw UsageError(fmt::format("{} is given twice for '{}'", flag, name));
    }
  }
  return values;
}

std::map<std::string, Shape> parse_shape_flags(const std::vector<std::string>& texts) {
  std::map<std::string, Shape> shapes;
  for (const auto& [name, dims] : parse_name_values("--shape", texts)) {
    try {
      shapes[name] = parse_shape(dims, fmt::format("--shape {}", name));
    } catch (const Error& error) {
      throw UsageError(error.what());
    }
  }
  return shapes;
}

std::string command_line(int argc, char** argv) {
  std::string line;
  for (int i = 0; i < argc; ++i) line += (i ? " " : "") + std::string(argv[i]);
  return line;
}

void write_json(const nlohmann::json& json, const std::string& target) {
  const std::string text = json.dump(2) + "\n";
  if (target == "-") {
    std::cout << text << std::flush;
    return;
  }
  std::ofstream out(target, std::ios::binary);
  out << text;
  if (!out) fail(ErrorCode::kIo, "cannot write JSON to '{}'", target);
}

nlohmann::json dims_json(const model::ValueInfo& info) {
  if (!info.has_shape) return nullptr;
  nlohmann::json dims = nlohmann::json::array();
  for (const model::Dim& dim : info.dims) {
    if (dim.is_static())
      dims.push_back(dim.value);
    else if (!dim.symbol.empty())
      dims.push_back(dim.symbol);
    else
      dims.push_back(nullptr);
  }
  return dims;
}

nlohmann::json value_info_json(const model::ValueInfo& info) {
  return {{"name", info.name},
          {"dtype", std::string(dtype_name(info.dtype))},
          {"shape", dims_json(info)}};
}

std::string human_bytes(int64_t bytes) {
  const char* units[] = {"B", "KiB", "MiB", "GiB", "TiB"};
  double value = static_cast<double>(bytes);
  size_t unit = 0;
  while (value >= 1024.0 && unit + 1 < std::size(units)) {
    value /= 1024.0;
    ++unit;
  }
  return unit == 0 ? fmt::format("{} B", bytes) : fmt::format("{:.2f} {}", value, units[unit]);
}

std::string human_count(double count) {
  const char* units[] = {"", " K", " M", " G", " T", " P"};
  size_t unit = 0;
  while (count >= 1000.0 && unit + 1 < std::size(units)) {
    count /= 1000.0;
    ++unit;
  }
  return unit == 0 ? fmt::format("{:.0f}", count) : fmt::format("{:.2f}{}", count, units[unit]);
}

void print_model_warnings(const model::Model& model) {
  for (const std::string& warning : model.warnings) fmt::print(stderr, "warning: {}\n", warning);
}

}  // namespace inferlab::cli
