// Helpers for the CLI tests: run `inferlab ...`, locate ONNX test models, and
// make fixture models with Debian's python3 + onnx at test time.
#pragma once

#include <gtest/gtest.h>

#include <string>

#include "test_util.h"

namespace inferlab::testing {

inline const std::string kNodeData = "/usr/share/libonnx-testdata/data/node";

inline std::string node_model(const std::string& name) {
  return kNodeData + "/" + name + "/model.onnx";
}

inline CommandResult run_cli(const std::string& arguments) {
  return run_command(cli_path() + " " + arguments);
}

// Runs a python3 script (given as text) that may use onnx; fails the test if it does.
inline void run_python(const std::string& dir, const std::string& script) {
  const std::string path = dir + "/make_model.py";
  write_file(path, script);
  const CommandResult result = run_command("/usr/bin/python3 " + path);
  ASSERT_EQ(result.exit_code, 0) << result.stderr_text;
}

// A model whose nodes include operators InferLab has no kernel for: the
// default-domain Foo (twice, unknown to ONNX too), com.microsoft's FusedConv
// and custom.domain's Bar.
inline std::string make_unsupported_op_model(const std::string& dir) {
  const std::string path = dir + "/unsupported.onnx";
  run_python(dir, R"(
from onnx import helper, TensorProto
nodes = [helper.make_node('Foo', ['x'], ['a'], name='foo1'),
         helper.make_node('Relu', ['a'], ['b'], name='relu'),
         helper.make_node('Foo', ['b'], ['c'], name='foo2'),
         helper.make_node('FusedConv', ['c'], ['d'], name='fused1', domain='com.microsoft'),
         helper.make_node('Bar', ['d'], ['y'], name='bar1', domain='custom.domain')]
graph = helper.make_graph(nodes, 'g',
    [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['batch', 3])],
    [helper.make_tensor_value_info('y', TensorProto.FLOAT, ['batch', 3])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13),
    helper.make_opsetid('com.microsoft', 1), helper.make_opsetid('custom.domain', 2)])
open(')" + path + R"(', 'wb').write(model.SerializeToString())
)");
  return path;
}

// y = Relu(x) with x float[batch, 3, height, width].
inline std::string make_symbolic_image_model(const std::string& dir) {
  const std::string path = dir + "/image.onnx";
  run_python(dir, R"(
from onnx import helper, TensorProto
graph = helper.make_graph([helper.make_node('Relu', ['x'], ['y'], name='relu')], 'g',
    [helper.make_tensor_value_info('x', TensorProto.FLOAT, ['batch', 3, 'height', 'width'])],
    [helper.make_tensor_value_info('y', TensorProto.FLOAT, ['batch', 3, 'height', 'width'])])
model = helper.make_model(graph, opset_imports=[helper.make_opsetid('', 13)])
open(')" + path + R"(', 'wb').write(model.SerializeToString())
)");
  return path;
}

inline bool contains(const std::string& text, const std::string& part) {
  return text.find(part) != std::string::npos;
}

}  // namespace inferlab::testing
