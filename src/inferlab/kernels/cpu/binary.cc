// Fast float32 Add, Sub, Mul and Div for the layouts models use: equal
// shapes, and one operand broadcast along a contiguous run of the other's
// axes ([N, C, H, W] op [C, 1, 1], [B, S, H] op [H], a scalar). Any other
// broadcast (both operands expanded, [B, 1, S] op [B, S, 1]) and other types
// go to the reference kernel.
#include "inferlab/kernels/cpu/fast_kernels.h"
#include "inferlab/kernels/cpu/parallel.h"

namespace inferlab::kernels::cpu {
namespace {

// [outer, mid, inner] view of `full` with `part` indexed by mid.
struct BroadcastView {
  int64_t outer = 1;
  int64_t mid = 1;
  int64_t inner = 1;
};

// True when `part` broadcasts to `full` without growing it and its non-1
// dims are one contiguous run of full's axes.
bool trailing_broadcast(const Shape& full, const Shape& part, BroadcastView& view) {
  if (part.size() > full.size()) return false;
  const size_t offset = full.size() - part.size();
  size_t first = full.size();
  size_t last = 0;  // one past the last non-1 dim of part
  for (size_t i = 0; i < part.size(); ++i) {
    const size_t axis = offset + i;
    if (part[i] == 1) continue;
    if (part[i] != full[axis]) return false;
    if (first == full.size())
      first = axis;
    else if (last != axis)
      return false;  // a 1 between two real dims: not contiguous
    last = axis + 1;
  }
  if (first == full.size()) {  // a scalar in effect
    view.inner = shape_numel(full);
    return true;
  }
  for (size_t d = 0; d < full.size(); ++d) {
    (d < first ? view.outer : d < last ? view.mid : view.inner) *= full[d];
  }
  return true;
}

// The broadcast split over the team: by outer rows ([1, H, W, C] op [C]),
// or, with one outer row, by the broadcast axis ([1, C, H, W] op [C, 1, 1]),
// or by elements for a scalar.
void broadcast(const KernelTable& table, BinaryKind kind, const float* full, const float* part,
               float* y, const BroadcastView& view, bool part_first) {
  const int64_t row = view.mid * view.inner;
  if (view.outer > 1) {
    parallel_ranges(view.outer, row, 1, [&](int64_t begin, int64_t end) {
      table.binary_broadcast_f32(kind, full + begin * row, part, y + begin * row, end - begin,
                                 view.mid, view.inner, part_first);
    });
    return;
  }
  if (view.mid > 1) {
    parallel_ranges(view.mid, view.inner, 1, [&](int64_t begin, int64_t end) {
      table.binary_broadcast_f32(kind, full + begin * view.inner, part + begin,
                                 y + begin * view.inner, 1, end - begin, view.inner, part_first);
    });
    return;
  }
  // A scalar: split the elements.
  parallel_ranges(view.inner, 1, 16, [&](int64_t begin, int64_t end) {
    table.binary_broadcast_f32(kind, full + begin, part, y + begin, 1, 1, end - begin, part_first);
  });
}

bool run_binary(KernelContext& ctx, const KernelTable& table, BinaryKind kind) {
  const Tensor& a = ctx.input(0);
  const Tensor& b = ctx.input(1);
  if (a.dtype() != DataType::kFloat32 || b.dtype() != DataType::kFloat32) return false;
  if (a.shape() == b.shape()) {
    Tensor& y = ctx.output(0, a.dtype(), a.shape());
    const float* pa = a.data<float>();
    const float* pb = b.data<float>();
    float* py = y.data<float>();
    parallel_ranges(a.numel(), 1, 16, [&](int64_t begin, int64_t end) {
      table.binary_f32(kind, pa + begin, pb + begin, py + begin, end - begin);
    });
    return true;
  }
  BroadcastView view;
  const bool a_full = trailing_broadcast(a.shape(), b.shape(), view);
  if (!a_full && !trailing_broadcast(b.shape(), a.shape(), view)) return false;
  const Tensor& full = a_full ? a : b;
  const Tensor& part = a_full ? b : a;
  Tensor& y = ctx.output(0, a.dtype(), full.shape());
  broadcast(table, kind, full.data<float>(), part.data<float>(), y.data<float>(), view, !a_full);
  return true;
}

}  // namespace

void add_binary_kernels(OpRegistry& registry, const KernelTable& table) {
  const std::pair<const char*, BinaryKind> ops[] = {{"Add", BinaryKind::kAdd},
                                                    {"Sub", BinaryKind::kSub},
                                                    {"Mul", BinaryKind::kMul},
                                                    {"Div", BinaryKind::kDiv}};
  for (const auto& [name, kind] : ops) {
    replace_compute(registry, "", name, [&table, kind = kind](KernelContext& ctx) {
      return run_binary(ctx, table, kind);
    });
  }
}

}  // namespace inferlab::kernels::cpu
