// Node attributes as ONNX defines them. Kernels read them through
// kernels::NodeInfo; a graph-valued attribute (If/Loop bodies) is only ever
// executed by the runtime, so kernels see it as an opaque handle.
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inferlab/core/tensor.h"

namespace inferlab::model {

struct Graph;

struct Attribute {
  enum class Kind { kFloat, kInt, kString, kTensor, kGraph, kFloats, kInts, kStrings, kTensors };

  Kind kind = Kind::kInt;
  float f = 0.0f;
  int64_t i = 0;
  std::string s;
  Tensor t;
  std::shared_ptr<Graph> g;
  std::vector<float> floats;
  std::vector<int64_t> ints;
  std::vector<std::string> strings;
  std::vector<Tensor> tensors;
};

const char* attribute_kind_name(Attribute::Kind kind);

using AttributeMap = std::map<std::string, Attribute>;

}  // namespace inferlab::model
