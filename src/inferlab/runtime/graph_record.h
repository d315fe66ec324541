// A graph as JSON plus a blob of tensor bytes: the structure half of a plan
// file (plan_file.h). Tensors are referenced by offset into the blob, so a
// reader can borrow them from a mapped file instead of copying. Subgraphs
// (If/Loop bodies) nest.
#pragma once

#include <cstdint>
#include <functional>
#include <memory>
#include <vector>

#include <nlohmann/json.hpp>

#include "inferlab/model/graph.h"

namespace inferlab::runtime {

// Writing: each non-string tensor's bytes (and any other block, such as
// prepacked weights) are appended to `pieces` and referenced by their
// 64-byte aligned offset in the blob that concatenates them.
struct BlobLayout {
  struct Piece {
    const void* data = nullptr;
    uint64_t bytes = 0;
  };
  std::vector<Piece> pieces;
  std::vector<uint64_t> offsets;
  uint64_t total_bytes = 0;

  uint64_t add(const void* data, uint64_t bytes);
  uint64_t add(const Tensor& tensor) { return add(tensor.raw_data(), tensor.nbytes()); }
};

// A tensor saved released (a weight whose readers hold packed copies) is
// written as its type and shape only, and read back as a stand-in
// (Tensor::shape_only).

nlohmann::json graph_to_record(const model::Graph& graph, BlobLayout& blob);

// Reading: tensor bytes are borrowed from `blob` (`blob_bytes` long), which
// the caller keeps alive as long as the graph. Throws Error(kInvalidModel)
// naming what is malformed.
std::shared_ptr<model::Graph> graph_from_record(const nlohmann::json& record, const char* blob,
                                                uint64_t blob_bytes);

}  // namespace inferlab::runtime
