#!/usr/bin/python3
"""Writes the serving measurements' and fault test's model: one Add of two
float32 vectors (z = x + y, N elements, default 1,000), opset 13, checked by
onnx.checker. Its work is tiny, so what a request costs is the server's own
overhead.

  tools/serve/make_add_model.py --repository DIR [--name add] [--elements 1000]
      writes DIR/<name>/1/model.onnx
  tools/serve/make_add_model.py --output add.onnx
"""

import argparse
import os

import onnx
from onnx import TensorProto, helper


def add_model(elements):
    inputs = [helper.make_tensor_value_info(name, TensorProto.FLOAT, [elements]) for name in "xy"]
    output = helper.make_tensor_value_info("z", TensorProto.FLOAT, [elements])
    graph = helper.make_graph([helper.make_node("Add", ["x", "y"], ["z"])], "add", inputs, [output])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 13)],
                              producer_name="inferlab tools/serve/make_add_model.py")
    onnx.checker.check_model(model)
    return model


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repository", help="write REPOSITORY/NAME/1/model.onnx")
    parser.add_argument("--name", default="add")
    parser.add_argument("--output", help="write this file instead")
    parser.add_argument("--elements", type=int, default=1000)
    args = parser.parse_args()
    if bool(args.repository) == bool(args.output):
        parser.error("give exactly one of --repository and --output")
    path = args.output or os.path.join(args.repository, args.name, "1", "model.onnx")
    os.makedirs(os.path.dirname(os.path.abspath(path)), exist_ok=True)
    onnx.save(add_model(args.elements), path)


if __name__ == "__main__":
    main()
