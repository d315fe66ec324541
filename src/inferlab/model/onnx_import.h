// Reads an ONNX model (file or bytes) into the graph IR through the ONNX
// library: parse, checker, initializers, external data, subgraphs, then
// InferLab's own validation and topological sort. Every error names the
// model source and the fault.
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

#include "inferlab/model/graph.h"

namespace inferlab::model {

struct ImportOptions {
  // Largest tensor (initializer, constant or external-data blob) accepted, in
  // bytes; a hostile file cannot make InferLab allocate more than this per tensor.
  int64_t max_tensor_bytes = int64_t{4} << 30;
  // Run the ONNX checker (skipped with a warning for IR versions, opsets or
  // operators it does not know).
  bool run_checker = true;
};

// `path` is also the anchor for external-data files: they must resolve inside
// its directory.
Model import_model_file(const std::string& path, const ImportOptions& options = {});
// `base_dir` anchors external data; empty means the model may not use any.
Model import_model_bytes(const void* data, size_t size, const ImportOptions& options = {},
                         const std::string& base_dir = {}, const std::string& source = "<memory>");

}  // namespace inferlab::model
