// The operator registry: op type -> OpKernel. Built explicitly (no static
// registration), so what is supported is one readable list in registry.cc.
#pragma once

#include <map>
#include <string>
#include <vector>

#include "inferlab/kernels/cpu/isa.h"
#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels {

class OpRegistry {
 public:
  void add(OpKernel kernel);
  // Null when the op type is unknown in `domain` or `opset` (the version of
  // that domain the model imports) is outside its range. "" and "ai.onnx"
  // are the same domain.
  const OpKernel* find(const std::string& domain, const std::string& op_type, int64_t opset) const;
  // Default-domain op types, then "domain::OpType" for the others.
  std::vector<std::string> op_types() const;
  // The kernel registered for `op_type` in `domain`, whatever its opset range.
  const OpKernel* find_any(const std::string& domain, const std::string& op_type) const;

  // The registry of InferLab's reference kernels (built once, immutable).
  static const OpRegistry& reference();
  // reference() with the oneDNN-backed kernels (used in planned runs) and
  // the vectorized kernels of kernels/cpu/ for `isa` in place of the
  // reference ones they replace (built once per ISA, immutable). `isa` must
  // be one the CPU runs: pass cpu::effective_isa(max_isa).
  static const OpRegistry& for_isa(cpu::Isa isa);

 private:
  std::map<std::string, OpKernel> kernels_;
};

}  // namespace inferlab::kernels
