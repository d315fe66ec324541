// TensorProto `.pb` files, as in the ONNX test data: parsed by the ONNX
// library and converted with the importer's checked conversion.
#include "inferlab/model/tensor_file.h"

#include <climits>
#include <filesystem>
#include <fstream>

#include <onnx/onnx_pb.h>

#include "inferlab/core/error.h"
#include "inferlab/model/file_io.h"
#include "inferlab/model/onnx_convert.h"

namespace inferlab::model {

Tensor read_tensor_pb(const std::string& path, std::string* name_out, int64_t max_tensor_bytes) {
  const std::string bytes = read_whole_file(path, INT_MAX);
  if (bytes.empty()) fail(ErrorCode::kInvalidArgument, "{}: empty file, not a TensorProto", path);
  onnx::TensorProto proto;
  if (!proto.ParseFromString(bytes)) {
    fail(ErrorCode::kInvalidArgument, "{}: not a valid TensorProto file (truncated or corrupt)",
         path);
  }
  std::string dir = std::filesystem::path(path).parent_path().string();
  const ConvertContext ctx{path, dir.empty() ? "." : dir, max_tensor_bytes};
  Tensor tensor = tensor_from_proto(proto, ctx, "tensor '" + proto.name() + "'");
  if (name_out) *name_out = proto.name();
  return tensor;
}

void write_tensor_pb(const std::string& path, const Tensor& tensor, const std::string& name) {
  if (tensor.empty()) fail(ErrorCode::kInvalidArgument, "{}: cannot write an empty tensor", path);
  onnx::TensorProto proto;
  tensor_to_proto(tensor, name, &proto);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(ErrorCode::kIo, "{}: cannot open for writing", path);
  if (!proto.SerializeToOstream(&out)) fail(ErrorCode::kIo, "{}: write failed", path);
  out.close();
  if (!out) fail(ErrorCode::kIo, "{}: write failed", path);
}

}  // namespace inferlab::model
