// The operator registry: op type -> OpKernel. Built explicitly (no static
// registration), so what is supported is one readable list in registry.cc.
#pragma once

#include <map>
#include <string>
#include <vector>

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

  // The registry of InferLab's reference kernels (built once, immutable).
  static const OpRegistry& reference();
  // The reference kernels with the fast ones over them (oneDNN-backed
  // kernels used in planned runs); what sessions execute with.
  static const OpRegistry& fast();

 private:
  std::map<std::string, OpKernel> kernels_;
};

}  // namespace inferlab::kernels
