// The plan file: an optimized model saved so that loading it again needs no
// ONNX parsing and no optimization, with weights borrowed from the mapped
// file instead of copied (docs/plan-format.md). Every load checks the magic,
// the format version, the sizes (truncation), checksums of the header and
// of the weights (corruption) and the key (a plan for another model, build
// or options is "foreign") — a file that fails any check is never trusted.
#pragma once

#include <cstdint>
#include <string>

#include <nlohmann/json.hpp>

#include "inferlab/kernels/kernel.h"
#include "inferlab/model/graph.h"

namespace inferlab::runtime {

constexpr uint32_t kPlanFormatVersion = 2;

// Prepacked weights a plan keeps, by node (its index in the graph's nodes):
// a cached load hands them to the nodes as they are, with no reorder.
using PackedNodes = std::vector<std::pair<size_t, std::vector<kernels::PackedCopy>>>;

// Writes `model` (already optimized) with `key` to `path` atomically (a
// temporary file renamed into place). Throws Error(kIo) naming the path.
// Weights the model holds as stand-ins (released) are written as their type
// and shape only: `packed` holds them.
void write_plan_file(const std::string& path, const nlohmann::json& key, const model::Model& model,
                     const PackedNodes& packed = {});

// Why a plan file was not used.
struct PlanRejection {
  std::string kind;    // "truncated", "corrupt", "stale", "foreign"
  std::string detail;  // "weights checksum 0x... != 0x... recorded"
};

// Reads the plan at `path` if it passes every check against `expected_key`.
// On success the model's initializers and the `packed` copies borrow from
// the mapping, which model.backing and each copy keep alive. On failure returns false and fills
// `rejection`; Error(kIo) only when the file cannot be opened or mapped at all.
bool read_plan_file(const std::string& path, const nlohmann::json& expected_key,
                    model::Model& model, PackedNodes& packed, PlanRejection& rejection);

}  // namespace inferlab::runtime
