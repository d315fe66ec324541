// The list of every pass, in the order the pass manager runs them: the
// basic passes first (they expose constants and remove clutter the fusions
// would otherwise have to see through), then the extended fusions; and
// which passes only InferLab's own engine wants.
#include <cstring>

#include "inferlab/optimizer/basic_passes.h"
#include "inferlab/optimizer/conv_fusion_passes.h"
#include "inferlab/optimizer/layout_pass.h"
#include "inferlab/optimizer/optimizer.h"
#include "inferlab/optimizer/transformer_passes.h"

namespace inferlab::optimizer {

namespace {

void append(std::vector<std::unique_ptr<GraphPass>>& to,
            std::vector<std::unique_ptr<GraphPass>> passes) {
  for (std::unique_ptr<GraphPass>& pass : passes) to.push_back(std::move(pass));
}

}  // namespace

std::vector<std::unique_ptr<GraphPass>> basic_passes() {
  std::vector<std::unique_ptr<GraphPass>> passes;
  passes.push_back(make_constant_folding_pass());
  passes.push_back(make_noop_elimination_pass());
  passes.push_back(make_pad_folding_pass());
  passes.push_back(make_constant_sharing_pass());
  passes.push_back(make_common_subexpression_elimination_pass());
  passes.push_back(make_dead_node_elimination_pass());
  return passes;
}

std::vector<std::unique_ptr<GraphPass>> all_passes() {
  std::vector<std::unique_ptr<GraphPass>> passes;
  append(passes, basic_passes());
  // Last: the transformer fusions must see MatMul+Add before it becomes FusedMatMul.
  append(passes, transformer_passes());
  // Before the convolution fusions, so activation_fusion sees one HardSwish.
  passes.push_back(make_hardswish_fusion_pass());
  append(passes, conv_fusion_passes());
  return passes;
}

std::vector<std::unique_ptr<GraphPass>> finishing_passes() {
  std::vector<std::unique_ptr<GraphPass>> passes;
  passes.push_back(make_channels_last_layout_pass());
  return passes;
}

bool is_native_only(const GraphPass& pass) {
  // Channels-last activations are InferLab's internal layout: in an ONNX
  // file each converted node would sit between two Transposes.
  return std::strcmp(pass.name(), "channels_last_layout") == 0;
}

}  // namespace inferlab::optimizer
