// External-data tensors: the bytes live in a separate file named by the
// tensor's `location`, which must resolve (after symlinks) inside the model's
// directory; `offset` and `length` are checked against the file.
#pragma once

#include <cstdint>
#include <string>

#include <onnx/onnx_pb.h>

#include "inferlab/model/onnx_convert.h"

namespace inferlab::model {

// Reads exactly `bytes` bytes of `proto`'s external data into `destination`.
// Throws naming ctx.source, `what` and the data file on every fault.
void read_external_data(const onnx::TensorProto& proto, const ConvertContext& ctx,
                        const std::string& what, void* destination, int64_t bytes);

}  // namespace inferlab::model
