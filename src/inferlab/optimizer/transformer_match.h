// Pattern-matching helpers shared by the transformer fusions (layernorm,
// gelu, skip-layernorm, attention, transpose/reshape chains): questions about
// values (constant? single reader? static shape?), scalar constants within
// a tolerance, and the one edit every fusion ends with — a set of covered
// nodes replaced by new nodes, the last of which takes over the covered
// chain's final output.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "inferlab/model/graph.h"
#include "inferlab/optimizer/graph_editor.h"
#include "inferlab/optimizer/graph_pass.h"

namespace inferlab::optimizer::transformer {

// Reads of a pattern: one editor and the pass context.
struct Matcher {
  PassContext& context;
  GraphEditor& editor;

  const model::Node& node(int index) const {
    return editor.graph().nodes[static_cast<size_t>(index)];
  }
  // The live default-domain node producing `value` with op type `op`, or -1.
  int producer_of(const std::string& value, const char* op) const;
  // The only reader of `value` when it has exactly one read and is no graph
  // output, else -1; with `op`, also requires that reader's op type.
  int sole_consumer(const std::string& value, const char* op = nullptr) const;
  // `value` is read only by the nodes in `readers` (and is no graph output).
  bool read_only_by(const std::string& value, const std::vector<int>& readers) const;
  // Contents known before running (a non-overridable initializer or a
  // folded value), else null.
  const Tensor* constant(const std::string& value) const;
  // A one-element float constant's value.
  std::optional<double> scalar(const std::string& value) const;
  bool scalar_near(const std::string& value, double want, double tolerance = 1e-4) const;
  // The static shape of `value`, or nullopt.
  std::optional<Shape> shape(const std::string& value) const;
  // For a binary node reading `value`: its other input ("" if it reads it twice).
  static std::string other_input(const model::Node& node, const std::string& value);
};

bool is_op(const model::Node& node, const char* op);

// The opset of the default domain the model imports.
int64_t default_opset(const PassContext& context);
// Imports `domain` at version 1 when the model does not yet.
void import_domain(PassContext& context, const std::string& domain);

model::Attribute int_attribute(int64_t value);
model::Attribute float_attribute(float value);
model::Attribute ints_attribute(std::vector<int64_t> values);
model::Attribute strings_attribute(std::vector<std::string> values);

// A float constant of the given values reshaped to 1-D: for per-channel
// parameters that must be 1-D in com.microsoft operators. Null when `value`
// is not a float32 constant with exactly `channels` elements whose dims are
// all 1 except the last.
const Tensor* channel_vector(const Matcher& m, const std::string& value, int64_t channels);
std::string add_channel_vector(GraphEditor& editor, const std::string& base, const Tensor& t);

// Replaces the nodes `covered` (any order) with `replacement`, appended in
// order. The last replacement node's output 0 takes over `final_output`
// (the covered chain's result, which keeps its name). Every covered node's
// outputs must be read only by covered nodes, except `final_output`. Names
// replacement node `fused` after the first covered node and gives it the
// `fused_nodes` attribute. Returns that name.
std::string replace_nodes(GraphEditor& editor, std::vector<int> covered,
                          std::vector<model::Node> replacement, const std::string& final_output,
                          size_t fused = 0);

}  // namespace inferlab::optimizer::transformer
