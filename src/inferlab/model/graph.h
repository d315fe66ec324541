// The graph IR: what InferLab knows about a model after import. Values are
// referred to by name (ONNX's own scheme); an empty input name is an omitted
// optional input. Nodes are kept in topological order after import.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

#include "inferlab/core/tensor.h"
#include "inferlab/model/attribute.h"

namespace inferlab::model {

// One dimension: a known size, or a symbol ("batch") or nothing when unknown.
struct Dim {
  int64_t value = -1;
  std::string symbol;

  bool is_static() const { return value >= 0; }
  static Dim fixed(int64_t size) { return Dim{size, {}}; }
  static Dim symbolic(std::string name) { return Dim{-1, std::move(name)}; }
};

struct ValueInfo {
  std::string name;
  DataType dtype = DataType::kUndefined;
  bool has_shape = false;  // false: rank unknown
  std::vector<Dim> dims;

  bool is_static() const;
  // Concrete shape; only valid when is_static().
  Shape static_shape() const;
  // "float[batch, 3, 224, 224]"
  std::string to_string() const;
};

struct Node {
  std::string name;  // never empty after import (generated when the file has none)
  std::string op_type;
  std::string domain;  // "" for the default ONNX domain
  std::vector<std::string> inputs;
  std::vector<std::string> outputs;
  AttributeMap attributes;
};

struct Graph {
  std::string name;
  std::vector<ValueInfo> inputs;  // runtime inputs; initializers are not listed here
  std::vector<ValueInfo> outputs;
  std::vector<Node> nodes;  // topological order
  std::unordered_map<std::string, Tensor> initializers;
  // Initializers that the file also listed as graph inputs: callers may override them.
  std::vector<ValueInfo> overridable_initializers;
  // Type and shape of intermediate values, as far as known.
  std::unordered_map<std::string, ValueInfo> value_info;
  // Names a subgraph reads from enclosing graphs (empty for the main graph).
  std::vector<std::string> outer_scope_inputs;

  const ValueInfo* find_value_info(const std::string& value_name) const;
};

struct Model {
  std::string source;  // path, or "<memory>" for bytes
  int64_t ir_version = 0;
  std::map<std::string, int64_t> opsets;  // domain -> version ("" is ONNX)
  std::string producer_name;
  std::string producer_version;
  std::shared_ptr<Graph> graph;
  // Non-fatal findings of the import (e.g. "skipping the ONNX checker: ..."),
  // each prefixed with the source; the library never prints, callers do.
  std::vector<std::string> warnings;
  // Memory the graph's initializers borrow (a mapped plan file), kept alive
  // with the model; null when they own their memory.
  std::shared_ptr<const void> backing;

  int64_t default_opset() const;
  // The version of `domain` the model imports ("" and "ai.onnx" are the
  // default domain); 0 when it does not import it.
  int64_t opset_of(const std::string& domain) const;
};

// The version of `domain` in an opset map, as Model::opset_of.
int64_t domain_opset(const std::map<std::string, int64_t>& opsets, const std::string& domain);

}  // namespace inferlab::model
