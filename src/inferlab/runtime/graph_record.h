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

// Writing: each non-string tensor is appended to `tensors` and referenced by
// its 64-byte aligned offset in the blob that concatenates them.
struct BlobLayout {
  std::vector<const Tensor*> tensors;
  std::vector<uint64_t> offsets;
  uint64_t total_bytes = 0;

  uint64_t add(const Tensor& tensor);
};

nlohmann::json graph_to_record(const model::Graph& graph, BlobLayout& blob);

// Reading: tensor bytes are borrowed from `blob` (`blob_bytes` long), which
// the caller keeps alive as long as the graph. Throws Error(kInvalidModel)
// naming what is malformed.
std::shared_ptr<model::Graph> graph_from_record(const nlohmann::json& record, const char* blob,
                                                uint64_t blob_bytes);

}  // namespace inferlab::runtime
