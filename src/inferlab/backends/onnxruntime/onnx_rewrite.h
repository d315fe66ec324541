// What the plugin needs from the ONNX file itself, read with the ONNX
// protobuf: the symbol names of the inputs' dims (to turn
// BackendOptions::input_shapes into ORT free-dimension overrides before the
// session exists) and the model rewritten to return intermediate values
// (ORT returns graph outputs only, so extra outputs become graph outputs).
#pragma once

#include <cstdint>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inferlab/core/shape.h"

namespace onnx {
class ModelProto;
}

namespace inferlab::backends::ort {

class OnnxFile {
 public:
  // Throws Error(kIo) when unreadable, Error(kInvalidModel) when not ONNX.
  explicit OnnxFile(const std::string& path);
  ~OnnxFile();
  OnnxFile(const OnnxFile&) = delete;
  OnnxFile& operator=(const OnnxFile&) = delete;

  // Checks `input_shapes` against the graph inputs (names, ranks, static
  // dims) and returns symbol -> size for the symbolic dims they fix; throws
  // Error(kInvalidArgument) naming the input or dim at fault.
  std::map<std::string, int64_t> free_dimension_sizes(
      const std::map<std::string, Shape>& input_shapes) const;

  // Adds `value_names` to the graph outputs (typed from value_info, the
  // inputs, initializers or ONNX shape inference) and returns the serialized
  // model; `added` counts the outputs appended (names already outputs are
  // not). Throws Error(kInvalidArgument) naming a value the main graph lacks.
  std::string with_extra_outputs(const std::vector<std::string>& value_names, size_t* added);

 private:
  std::string path_;
  std::unique_ptr<onnx::ModelProto> model_;
};

}  // namespace inferlab::backends::ort
