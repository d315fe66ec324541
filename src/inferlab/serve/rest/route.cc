#include "inferlab/serve/rest/route.h"

#include <charconv>
#include <vector>

#include "inferlab/core/error.h"
#include "inferlab/serve/repository/repository.h"

namespace inferlab::serve {

namespace {

int hex_value(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

std::string percent_decode(std::string_view text) {
  std::string decoded;
  for (size_t i = 0; i < text.size(); ++i) {
    if (text[i] != '%') {
      decoded.push_back(text[i]);
      continue;
    }
    const int high = i + 1 < text.size() ? hex_value(text[i + 1]) : -1;
    const int low = i + 2 < text.size() ? hex_value(text[i + 2]) : -1;
    if (high < 0 || low < 0) {
      fail(ErrorCode::kInvalidArgument, "malformed percent-encoding in '{}'", text);
    }
    decoded.push_back(static_cast<char>(high * 16 + low));
    i += 2;
  }
  return decoded;
}

std::vector<std::string_view> split_path(std::string_view path) {
  std::vector<std::string_view> parts;
  size_t start = 0;
  while (start <= path.size()) {
    const size_t slash = path.find('/', start);
    const size_t end = slash == std::string_view::npos ? path.size() : slash;
    if (end > start) parts.push_back(path.substr(start, end - start));
    if (slash == std::string_view::npos) break;
    start = slash + 1;
  }
  return parts;
}

std::string model_name(std::string_view part) {
  std::string name = percent_decode(part);
  check_model_name(name);
  return name;
}

int64_t version_number(std::string_view part) {
  int64_t version = 0;
  const auto [end, error] = std::from_chars(part.data(), part.data() + part.size(), version);
  if (error != std::errc() || end != part.data() + part.size() || version < 1) {
    fail(ErrorCode::kInvalidArgument, "model version '{}' is not a number from 1",
         percent_decode(part));
  }
  return version;
}

// After /v2/models/M[/versions/V]: the action, if any.
Route model_route(const std::vector<std::string_view>& parts) {
  Route route;
  route.model = model_name(parts[2]);
  size_t next = 3;
  if (parts.size() >= 5 && parts[3] == "versions") {
    route.version = version_number(parts[4]);
    next = 5;
  }
  if (parts.size() == next) {
    route.kind = RouteKind::kModelMetadata;
  } else if (parts.size() == next + 1) {
    const std::string_view action = parts[next];
    if (action == "ready") route.kind = RouteKind::kModelReady;
    if (action == "config") route.kind = RouteKind::kModelConfig;
    if (action == "stats") route.kind = RouteKind::kModelStats;
    if (action == "infer") route.kind = RouteKind::kInfer;
  }
  return route;
}

}  // namespace

Route parse_route(std::string_view target) {
  const std::string_view path = target.substr(0, target.find('?'));
  const std::vector<std::string_view> parts = split_path(path);
  Route route;
  if (parts.empty() || parts[0] != "v2") return route;
  if (parts.size() == 1) return {RouteKind::kServerMetadata, "", 0};
  if (parts.size() == 3 && parts[1] == "health") {
    if (parts[2] == "live") route.kind = RouteKind::kHealthLive;
    if (parts[2] == "ready") route.kind = RouteKind::kHealthReady;
    return route;
  }
  if (parts[1] == "models") {
    if (parts.size() == 3 && parts[2] == "stats") return {RouteKind::kModelStats, "", 0};
    if (parts.size() >= 3) return model_route(parts);
    return route;
  }
  if (parts[1] == "repository") {
    if (parts.size() == 3 && parts[2] == "index") return {RouteKind::kRepositoryIndex, "", 0};
    if (parts.size() == 5 && parts[2] == "models") {
      if (parts[4] == "load") return {RouteKind::kRepositoryLoad, model_name(parts[3]), 0};
      if (parts[4] == "unload") return {RouteKind::kRepositoryUnload, model_name(parts[3]), 0};
    }
  }
  return route;
}

const char* route_method(RouteKind kind) {
  switch (kind) {
    case RouteKind::kInfer:
    case RouteKind::kRepositoryIndex:
    case RouteKind::kRepositoryLoad:
    case RouteKind::kRepositoryUnload:
      return "POST";
    default:
      return "GET";
  }
}

}  // namespace inferlab::serve
