// naming_node: runs a shape check from core/shape.h (normalize_axis,
// broadcast_shapes, checked_mul) and puts the node's description in front of
// the message when it fails. The description is built only then: a kernel
// makes these checks on every run, and a run must not allocate.
#pragma once

#include <utility>

#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels::reference {

template <typename Check>
auto naming_node(const NodeInfo& node, Check&& check) -> decltype(check()) {
  try {
    return std::forward<Check>(check)();
  } catch (const Error& error) {
    node.fail(error.code(), "{}", error.what());
  }
}

}  // namespace inferlab::kernels::reference
