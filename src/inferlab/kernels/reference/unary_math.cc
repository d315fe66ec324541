// Unary math operators (Abs, Ceil, Cos, Erf, Exp, Floor, Log, Neg, Not,
// Reciprocal, Relu, Round, Sigmoid, Sign, Sin, Sqrt, Tanh): one functor each,
// and one table saying which ONNX types each accepts from which opset.
#include <cmath>
#include <type_traits>
#include <vector>

#include "inferlab/kernels/reference/elementwise_ops.h"
#include "inferlab/kernels/reference/unary_kernel.h"

namespace inferlab::kernels::reference {
namespace {

template <typename C>
concept Floating = std::is_floating_point_v<C>;
template <typename C>
concept Number = std::is_arithmetic_v<C> && !std::is_same_v<C, bool>;
template <typename C>
concept Boolean = std::is_same_v<C, bool>;

struct Stateless {
  explicit Stateless(const NodeInfo&) {}
};

struct AbsOp : Stateless {
  using Stateless::Stateless;
  template <Number C>
  C operator()(C x) const {
    if constexpr (std::is_unsigned_v<C>) {
      return x;
    } else if constexpr (std::is_integral_v<C>) {
      return x < 0 ? wrapping_sub(C{0}, x) : x;
    } else {
      return std::fabs(x);
    }
  }
};

struct NegOp : Stateless {
  using Stateless::Stateless;
  template <Number C>
  C operator()(C x) const {
    if constexpr (std::is_integral_v<C>) {
      return wrapping_sub(C{0}, x);
    } else {
      return -x;
    }
  }
};

struct SignOp : Stateless {
  using Stateless::Stateless;
  template <Number C>
  C operator()(C x) const {
    if constexpr (std::is_floating_point_v<C>) {
      if (std::isnan(x)) return x;
    }
    if (x > C{0}) return C{1};
    if constexpr (std::is_signed_v<C>) {
      if (x < C{0}) return C{-1};
    }
    return C{0};
  }
};

struct ErfOp : Stateless {
  using Stateless::Stateless;
  template <Number C>
  C operator()(C x) const {
    return static_cast<C>(std::erf(static_cast<double>(x)));
  }
};

struct ReluOp : Stateless {
  using Stateless::Stateless;
  template <Number C>
  C operator()(C x) const {
    return x > C{0} ? x : C{0};
  }
};

struct NotOp : Stateless {
  using Stateless::Stateless;
  template <Boolean C>
  C operator()(C x) const {
    return !x;
  }
};

struct SigmoidOp : Stateless {
  using Stateless::Stateless;
  // Two forms so that exp never overflows for large |x|.
  template <Floating C>
  C operator()(C x) const {
    if (x >= 0) return C{1} / (C{1} + std::exp(-x));
    const C e = std::exp(x);
    return e / (C{1} + e);
  }
};

struct ReciprocalOp : Stateless {
  using Stateless::Stateless;
  template <Floating C>
  C operator()(C x) const {
    return C{1} / x;
  }
};

// A float function of the C library, named by a tag so each gets its own functor type.
enum class MathFn { kCeil, kFloor, kCos, kSin, kExp, kLog, kSqrt, kTanh, kRound };

template <MathFn kFn>
struct MathOp : Stateless {
  using Stateless::Stateless;
  template <Floating C>
  C operator()(C x) const {
    switch (kFn) {
      case MathFn::kCeil:
        return std::ceil(x);
      case MathFn::kFloor:
        return std::floor(x);
      case MathFn::kCos:
        return std::cos(x);
      case MathFn::kSin:
        return std::sin(x);
      case MathFn::kExp:
        return std::exp(x);
      case MathFn::kLog:
        return std::log(x);
      case MathFn::kSqrt:
        return std::sqrt(x);
      case MathFn::kTanh:
        return std::tanh(x);
      case MathFn::kRound:
        return std::nearbyint(x);  // halves to even (default rounding mode)
    }
    return x;
  }
};

TypeSet floats(int64_t) { return kFloatTypes; }
TypeSet numbers(int64_t) { return kNumericTypes; }
TypeSet signed_numbers(int64_t) { return kFloatTypes | kSignedIntTypes; }
TypeSet booleans(int64_t) { return kBoolType; }
TypeSet relu_types(int64_t opset) {
  return opset >= 14 ? kFloatTypes | kSignedIntTypes : kFloatTypes;
}

}  // namespace

std::vector<OpKernel> unary_math_kernels() {
  return {
      unary_kernel<AbsOp>("Abs", 7, numbers),
      unary_kernel<MathOp<MathFn::kCeil>>("Ceil", 7, floats),
      unary_kernel<MathOp<MathFn::kCos>>("Cos", 7, floats),
      unary_kernel<ErfOp>("Erf", 9, numbers),
      unary_kernel<MathOp<MathFn::kExp>>("Exp", 7, floats),
      unary_kernel<MathOp<MathFn::kFloor>>("Floor", 7, floats),
      unary_kernel<MathOp<MathFn::kLog>>("Log", 7, floats),
      unary_kernel<NegOp>("Neg", 7, signed_numbers),
      unary_kernel<NotOp>("Not", 7, booleans),
      unary_kernel<ReciprocalOp>("Reciprocal", 7, floats),
      unary_kernel<ReluOp>("Relu", 7, relu_types),
      unary_kernel<MathOp<MathFn::kRound>>("Round", 11, floats),
      unary_kernel<SigmoidOp>("Sigmoid", 7, floats),
      unary_kernel<SignOp>("Sign", 9, numbers),
      unary_kernel<MathOp<MathFn::kSin>>("Sin", 7, floats),
      unary_kernel<MathOp<MathFn::kSqrt>>("Sqrt", 7, floats),
      unary_kernel<MathOp<MathFn::kTanh>>("Tanh", 7, floats),
  };
}

}  // namespace inferlab::kernels::reference
