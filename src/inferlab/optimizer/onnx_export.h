// Writing an optimized model as an ONNX file that ONNX Runtime loads
// (`inferlab optimize -o`): ai.inferlab fused nodes are lowered by their
// families (fused_lowering.h) to com.microsoft or default-domain operators,
// com.microsoft nodes are written as they are, and the opset imports list
// only the domains still used.
#pragma once

#include <string>

#include "inferlab/model/graph.h"

namespace inferlab::optimizer {

// A copy of `optimized` with no ai.inferlab node left. Throws Error
// (kUnsupported) naming the node when no family lowers it.
model::Model export_for_onnxruntime(const model::Model& optimized);

// The model as a serialized ModelProto (initializers as raw data).
std::string serialize_model(const model::Model& model);
// serialize_model() written to `path`; throws Error(kIo) naming the path.
void write_model_file(const model::Model& model, const std::string& path);

}  // namespace inferlab::optimizer
