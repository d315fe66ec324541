// The baseline of ort_overhead: ONNX Runtime used the plainest way a C++
// user writes it (one Ort::Session, inputs created once as Ort::Value,
// session.Run with names returning fresh outputs), with the options the
// backend is given: all graph optimizations, N intra-op threads, sequential.
#pragma once

#include <memory>
#include <string>
#include <vector>

#include "inferlab/core/tensor.h"

namespace inferlab::benchmarks {

class StandaloneOrt {
 public:
  // dlopens `library` (the same file the backend loads) and creates the session.
  StandaloneOrt(const std::string& library, const std::string& model_path, int threads);
  ~StandaloneOrt();

  // The model's inputs filled with fixed-seed data (symbolic dims as 1), to
  // give the backend the very same tensors.
  const std::vector<std::pair<std::string, Tensor>>& inputs() const;
  std::string version() const;
  // One session.Run; returns its wall time in ns.
  int64_t run_once();

 private:
  struct Impl;
  std::unique_ptr<Impl> impl_;
};

}  // namespace inferlab::benchmarks
