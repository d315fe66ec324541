// Writing an optimized graph back as ONNX that ONNX Runtime's CPU provider
// loads (`inferlab optimize -o`): each family of fused operators knows how to
// express its nodes either as an ONNX Runtime com.microsoft operator that
// computes exactly the same thing, or decomposed into default-domain
// operators. The export driver (onnx_export.cc) offers every ai.inferlab
// node to each family in turn.
#pragma once

#include "inferlab/optimizer/graph_editor.h"

namespace inferlab::optimizer {

// Each returns false when the node at `index` is not of its family. When it
// is, it replaces that node (remove_node + add_node, fresh names for any new
// values and constants) so that no ai.inferlab node remains for it, and
// returns true. The driver calls compact() at the end.

// The layout pass's channels-last FusedConv and Nhwc* pooling
// (layout_lowering.cc); must be offered a node before the conv family.
bool lower_layout_family(GraphEditor& editor, int index);
// FusedConv, FusedGemm, FusedMatMul and HardSwish (conv_fusion_lowering.cc).
bool lower_conv_family(GraphEditor& editor, int index);
// LayerNormalization below opset 17, MultiHeadAttention and the other
// transformer fusions of ai.inferlab (transformer_lowering.cc).
bool lower_transformer_family(GraphEditor& editor, int index);

}  // namespace inferlab::optimizer
