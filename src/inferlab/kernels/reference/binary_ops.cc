// Two-input elementwise operators with numpy broadcasting: arithmetic (Add,
// Sub, Mul, Div, Mod), comparisons and logic. Integer arithmetic wraps on
// overflow; integer division or modulo by zero is an error naming the node
// (C++ leaves it undefined and ONNX does not define a result).
#include <cmath>
#include <type_traits>
#include <vector>

#include "inferlab/kernels/reference/binary_kernel.h"
#include "inferlab/kernels/reference/elementwise_ops.h"

namespace inferlab::kernels::reference {
namespace {

template <typename C>
concept Number = std::is_arithmetic_v<C> && !std::is_same_v<C, bool>;
template <typename C>
concept Boolean = std::is_same_v<C, bool>;

struct Arithmetic {
  static constexpr bool kBoolOutput = false;
  explicit Arithmetic(const NodeInfo& node) : node(&node) {}
  const NodeInfo* node;
};

struct AddOp : Arithmetic {
  using Arithmetic::Arithmetic;
  template <Number C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return wrapping_add(a, b);
    else
      return a + b;
  }
};

struct SubOp : Arithmetic {
  using Arithmetic::Arithmetic;
  template <Number C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return wrapping_sub(a, b);
    else
      return a - b;
  }
};

struct MulOp : Arithmetic {
  using Arithmetic::Arithmetic;
  template <Number C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>)
      return wrapping_mul(a, b);
    else
      return a * b;
  }
};

struct DivOp : Arithmetic {
  using Arithmetic::Arithmetic;
  template <Number C>
  C operator()(C a, C b) const {
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) node->fail(ErrorCode::kRuntime, "integer division by zero");
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return wrapping_sub(C{0}, a);  // lowest / -1 overflows
      }
    }
    return static_cast<C>(a / b);
  }
};

// fmod = 0: the result takes the divisor's sign (Python/numpy mod);
// fmod = 1: the dividend's sign (C fmod). ONNX asks for fmod = 1 on floats;
// fmod = 0 on floats computes numpy.mod instead of rejecting the model.
struct ModOp : Arithmetic {
  bool c_style;
  explicit ModOp(const NodeInfo& node) : Arithmetic(node), c_style(node.attr_int("fmod", 0) != 0) {
    const int64_t fmod = node.attr_int("fmod", 0);
    if (fmod != 0 && fmod != 1)
      node.fail(ErrorCode::kInvalidModel, "fmod must be 0 or 1, got {}", fmod);
  }
  template <Number C>
  C operator()(C a, C b) const {
    C r;
    if constexpr (std::is_integral_v<C>) {
      if (b == 0) node->fail(ErrorCode::kRuntime, "integer modulo by zero");
      if constexpr (std::is_signed_v<C>) {
        if (b == -1) return C{0};  // lowest % -1 overflows
      }
      r = static_cast<C>(a % b);
    } else {
      r = std::fmod(a, b);
    }
    if constexpr (std::is_signed_v<C>) {
      if (!c_style && r != 0 && ((r < 0) != (b < 0))) r = static_cast<C>(r + b);
    }
    return r;
  }
};

struct Comparison {
  static constexpr bool kBoolOutput = true;
  explicit Comparison(const NodeInfo&) {}
};

struct EqualOp : Comparison {
  using Comparison::Comparison;
  template <typename C>
  bool operator()(C a, C b) const {
    return a == b;
  }
};

struct GreaterOp : Comparison {
  using Comparison::Comparison;
  template <Number C>
  bool operator()(C a, C b) const {
    return a > b;
  }
};

struct GreaterOrEqualOp : Comparison {
  using Comparison::Comparison;
  template <Number C>
  bool operator()(C a, C b) const {
    return a >= b;
  }
};

struct LessOp : Comparison {
  using Comparison::Comparison;
  template <Number C>
  bool operator()(C a, C b) const {
    return a < b;
  }
};

struct LessOrEqualOp : Comparison {
  using Comparison::Comparison;
  template <Number C>
  bool operator()(C a, C b) const {
    return a <= b;
  }
};

struct AndOp : Comparison {
  using Comparison::Comparison;
  template <Boolean C>
  bool operator()(C a, C b) const {
    return a && b;
  }
};

struct OrOp : Comparison {
  using Comparison::Comparison;
  template <Boolean C>
  bool operator()(C a, C b) const {
    return a || b;
  }
};

struct XorOp : Comparison {
  using Comparison::Comparison;
  template <Boolean C>
  bool operator()(C a, C b) const {
    return a != b;
  }
};

TypeSet numbers(int64_t) { return kNumericTypes; }
TypeSet booleans(int64_t) { return kBoolType; }
TypeSet equal_types(int64_t opset) {
  const TypeSet opset7 = kBoolType | type_bit(DataType::kInt32) | type_bit(DataType::kInt64);
  return opset >= 11 ? kNumericTypes | kBoolType : opset7;
}

}  // namespace

std::vector<OpKernel> binary_kernels() {
  return {
      binary_kernel<AddOp>("Add", 7, numbers),
      binary_kernel<SubOp>("Sub", 7, numbers),
      binary_kernel<MulOp>("Mul", 7, numbers),
      binary_kernel<DivOp>("Div", 7, numbers),
      binary_kernel<ModOp>("Mod", 10, numbers),
      binary_kernel<EqualOp>("Equal", 7, equal_types),
      binary_kernel<GreaterOp>("Greater", 7, numbers),
      binary_kernel<GreaterOrEqualOp>("GreaterOrEqual", 12, numbers),
      binary_kernel<LessOp>("Less", 7, numbers),
      binary_kernel<LessOrEqualOp>("LessOrEqual", 12, numbers),
      binary_kernel<AndOp>("And", 7, booleans),
      binary_kernel<OrOp>("Or", 7, booleans),
      binary_kernel<XorOp>("Xor", 7, booleans),
  };
}

}  // namespace inferlab::kernels::reference
