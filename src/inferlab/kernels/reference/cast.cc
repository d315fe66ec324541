// Cast (target type from the `to` attribute) and CastLike (from input 1's
// type) between every pair of float, double, float16, bfloat16, the integer
// types, bool and string. Conversions that C++ leaves undefined are defined
// here: float -> integer saturates (NaN -> 0, beyond the range -> the nearest
// end); integer -> narrower integer wraps (two's complement); float ->
// bfloat16 truncates, as ONNX 1.12's reference does. Numbers become
// strings in their shortest round-trip form ("0.039187793"; NaN, INF, -INF),
// and strings parse as numbers the way strtod does ("NaN", "INF", "-INF",
// "1e-3"), an unparseable string being an error naming the node.
#include <cerrno>
#include <cmath>
#include <cstdlib>
#include <cstring>
#include <string>
#include <type_traits>

#include <fmt/format.h>

#include "inferlab/kernels/reference/element_types.h"
#include "inferlab/kernels/reference/elementwise_ops.h"

namespace inferlab::kernels::reference {
namespace {

// ONNX 1.12's reference Cast (and the conformance data made with it)
// truncates float to bfloat16 rather than rounding; NaN stays NaN.
BFloat16 truncate_to_bfloat16(float value) {
  if (std::isnan(value)) return BFloat16{0x7fc0};
  uint32_t bits = 0;
  std::memcpy(&bits, &value, sizeof bits);
  return BFloat16{static_cast<uint16_t>(bits >> 16)};
}

template <typename To, typename From>
To convert_number(From value) {
  if constexpr (is_half_v<From>) {
    return convert_number<To>(value.to_float());
  } else if constexpr (std::is_same_v<To, BFloat16>) {
    return truncate_to_bfloat16(static_cast<float>(value));
  } else if constexpr (is_half_v<To>) {
    return To::from_float(static_cast<float>(value));
  } else if constexpr (std::is_same_v<To, bool>) {
    return value != From{0};
  } else if constexpr (std::is_integral_v<To> && std::is_floating_point_v<From>) {
    return saturate_cast<To>(value);
  } else {
    return static_cast<To>(value);
  }
}

template <typename From>
std::string number_to_string(From value) {
  if constexpr (is_half_v<From>) {
    return number_to_string(value.to_float());
  } else if constexpr (std::is_floating_point_v<From>) {
    if (std::isnan(value)) return "NaN";
    if (std::isinf(value)) return value > 0 ? "INF" : "-INF";
    return fmt::format("{}", value);
  } else if constexpr (std::is_same_v<From, bool>) {
    return value ? "1" : "0";
  } else {
    return std::to_string(value);
  }
}

// Parses `text` fully as an integer of type I, or returns false.
template <typename I>
bool parse_integer(const std::string& text, I& result) {
  errno = 0;
  char* end = nullptr;
  if constexpr (std::is_signed_v<I>) {
    const long long value = std::strtoll(text.c_str(), &end, 10);
    if (errno != 0 || end == text.c_str() || *end != '\0') return false;
    result = static_cast<I>(value);
  } else {
    const unsigned long long value = std::strtoull(text.c_str(), &end, 10);
    if (errno != 0 || end == text.c_str() || *end != '\0' || text.find('-') != std::string::npos) {
      return false;
    }
    result = static_cast<I>(value);
  }
  return true;
}

template <typename To>
To string_to_number(const NodeInfo& node, const std::string& text) {
  if constexpr (std::is_integral_v<To> && !std::is_same_v<To, bool>) {
    To exact{};
    if (parse_integer(text, exact)) return exact;
  }
  char* end = nullptr;
  const double value = std::strtod(text.c_str(), &end);
  if (text.empty() || *end != '\0') {
    node.fail(ErrorCode::kInvalidArgument, "cannot convert string '{}' to a number", text);
  }
  return convert_number<To>(value);
}

template <typename To, typename From>
void convert_all(const NodeInfo& node, const From* in, To* out, int64_t count) {
  for (int64_t i = 0; i < count; ++i) {
    if constexpr (std::is_same_v<To, From>) {
      out[i] = in[i];
    } else if constexpr (std::is_same_v<From, std::string>) {
      out[i] = string_to_number<To>(node, in[i]);
    } else if constexpr (std::is_same_v<To, std::string>) {
      out[i] = number_to_string(in[i]);
    } else {
      out[i] = convert_number<To>(in[i]);
    }
  }
}

void cast_tensor(const NodeInfo& node, const Tensor& x, Tensor& y) {
  visit_any_dtype(x.dtype(), node.op_type(), [&](auto from_tag) {
    using From = typename decltype(from_tag)::type;
    visit_any_dtype(y.dtype(), node.op_type(), [&](auto to_tag) {
      using To = typename decltype(to_tag)::type;
      convert_all(node, x.data<From>(), y.data<To>(), x.numel());
    });
  });
}

DataType cast_target(const NodeInfo& node) {
  const int64_t to = node.attr_int("to");
  const bool known = to > 0 && to < 32 && is_known_dtype(static_cast<int32_t>(to)) &&
                     (kAllTypes & type_bit(static_cast<DataType>(to))) != 0;
  if (!known) {
    node.fail(ErrorCode::kInvalidModel, "attribute 'to' is {}, which is not a known element type",
              to);
  }
  return static_cast<DataType>(to);
}

void infer_cast(InferContext& ctx) {
  check_input_type(ctx.node(), 0, ctx.input(0).dtype, kAllTypes);
  ctx.set_output(0, cast_target(ctx.node()), ctx.input(0).shape);
}

void compute_cast(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  check_input_type(ctx.node(), 0, x.dtype(), kAllTypes);
  Tensor& y = ctx.output(0, cast_target(ctx.node()), x.shape());
  cast_tensor(ctx.node(), x, y);
}

void infer_cast_like(InferContext& ctx) {
  check_input_type(ctx.node(), 0, ctx.input(0).dtype, kAllTypes);
  check_input_type(ctx.node(), 1, ctx.input(1).dtype, kAllTypes);
  ctx.set_output(0, ctx.input(1).dtype, ctx.input(0).shape);
}

void compute_cast_like(KernelContext& ctx) {
  const Tensor& x = ctx.input(0);
  const DataType target = ctx.input(1).dtype();
  check_input_type(ctx.node(), 0, x.dtype(), kAllTypes);
  check_input_type(ctx.node(), 1, target, kAllTypes);
  Tensor& y = ctx.output(0, target, x.shape());
  cast_tensor(ctx.node(), x, y);
}

}  // namespace

OpKernel cast_kernel() { return OpKernel{"Cast", 7, 18, infer_cast, compute_cast}; }

OpKernel cast_like_kernel() {
  return OpKernel{"CastLike", 15, 18, infer_cast_like, compute_cast_like};
}

}  // namespace inferlab::kernels::reference
