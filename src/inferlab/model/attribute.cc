#include "inferlab/model/attribute.h"

namespace inferlab::model {

const char* attribute_kind_name(Attribute::Kind kind) {
  switch (kind) {
    case Attribute::Kind::kFloat: return "float";
    case Attribute::Kind::kInt: return "int";
    case Attribute::Kind::kString: return "string";
    case Attribute::Kind::kTensor: return "tensor";
    case Attribute::Kind::kGraph: return "graph";
    case Attribute::Kind::kFloats: return "floats";
    case Attribute::Kind::kInts: return "ints";
    case Attribute::Kind::kStrings: return "strings";
    case Attribute::Kind::kTensors: return "tensors";
  }
  return "unknown";
}

}  // namespace inferlab::model
