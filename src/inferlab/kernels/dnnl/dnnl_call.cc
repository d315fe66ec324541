// oneDNN primitives run through prebuilt argument tables; see dnnl_call.h.
#include "inferlab/kernels/dnnl/dnnl_call.h"

#include <algorithm>
#include <string>

#include <fmt/format.h>

#include "inferlab/core/huge_pages.h"

namespace inferlab::kernels::dnnl_backend {
const dnnl::engine& cpu_engine() {
  static const dnnl::engine engine(dnnl::engine::kind::cpu, 0);
  return engine;
}

dnnl::memory::dims to_dims(const Shape& shape) {
  return dnnl::memory::dims(shape.begin(), shape.end());
}

dnnl::memory::format_tag plain_tag(size_t rank) {
  using tag = dnnl::memory::format_tag;
  static const tag kTags[] = {tag::undef, tag::a,     tag::ab,    tag::abc,
                              tag::abcd,  tag::abcde, tag::abcdef};
  if (rank == 0 || rank >= std::size(kTags)) {
    fail(ErrorCode::kUnsupported, "oneDNN: no plain layout for rank {}", rank);
  }
  return kTags[rank];
}

dnnl::memory::desc plain_desc(const Shape& shape) {
  return dnnl::memory::desc(to_dims(shape), dnnl::memory::data_type::f32, plain_tag(shape.size()));
}

bool limit_dnnl_isa(cpu::Isa max_isa) {
  dnnl::cpu_isa wanted = dnnl::cpu_isa::all;
  if (max_isa == cpu::Isa::kAvx2) wanted = dnnl::cpu_isa::avx2;
  if (max_isa == cpu::Isa::kPortable) wanted = dnnl::cpu_isa::sse41;
  if (wanted == dnnl::cpu_isa::all) return true;
  try {
    dnnl::set_max_cpu_isa(wanted);
  } catch (const dnnl::error&) {
    // Too late in this process; the check below says whether it holds anyway.
  }
  // oneDNN 2.6 may also accept a late call silently and keep its ISA.
  return dnnl::get_effective_cpu_isa() == wanted;
}

std::string onednn_version() {
  const dnnl_version_t* version = ::dnnl_version();
  return fmt::format("{}.{}.{}", version->major, version->minor, version->patch);
}

std::string dnnl_isa_name() {
  switch (dnnl::get_effective_cpu_isa()) {
    case dnnl::cpu_isa::sse41:
      return "sse41";
    case dnnl::cpu_isa::avx:
      return "avx";
    case dnnl::cpu_isa::avx2:
      return "avx2";
    case dnnl::cpu_isa::avx2_vnni:
      return "avx2_vnni";
    case dnnl::cpu_isa::avx512_core:
      return "avx512_core";
    case dnnl::cpu_isa::avx512_core_vnni:
      return "avx512_core_vnni";
    case dnnl::cpu_isa::avx512_core_bf16:
      return "avx512_core_bf16";
    case dnnl::cpu_isa::avx512_core_amx:
      return "avx512_core_amx";
    default:
      return "other";
  }
}

dnnl::memory::desc channels_last_desc(const Shape& logical) {
  using tag = dnnl::memory::format_tag;
  const size_t rank = logical.size();
  if (rank < 3 || rank > 5) {
    fail(ErrorCode::kUnsupported, "oneDNN: no channels-last layout for rank {}", rank);
  }
  const tag kTags[] = {tag::acb, tag::acdb, tag::acdeb};
  return dnnl::memory::desc(to_dims(logical), dnnl::memory::data_type::f32, kTags[rank - 3]);
}

DnnlCall::DnnlCall(dnnl::primitive primitive,
                   const std::vector<std::pair<int, dnnl::memory::desc>>& arguments)
    : primitive_(std::move(primitive)), stream_(cpu_engine()) {
  memories_.reserve(arguments.size());
  args_.reserve(arguments.size());
  for (const auto& [arg, desc] : arguments) {
    memories_.emplace_back(desc, cpu_engine(), static_cast<void*>(nullptr));
    args_.push_back(dnnl_exec_arg_t{arg, memories_.back().get()});
  }
}

void DnnlCall::bind(int arg, const void* data) const {
  for (const dnnl_exec_arg_t& entry : args_) {
    if (entry.arg != arg) continue;
    // oneDNN takes a non-const handle for inputs too; it does not write them.
    dnnl_memory_set_data_handle_v2(entry.memory, const_cast<void*>(data), nullptr);
    return;
  }
}

void DnnlCall::execute(const NodeInfo& node) const {
  const dnnl_status_t status = dnnl_primitive_execute(primitive_.get(), stream_.get(),
                                                      static_cast<int>(args_.size()), args_.data());
  if (status != dnnl_success) {
    node.fail(ErrorCode::kRuntime, "oneDNN primitive failed (status {})", static_cast<int>(status));
  }
}

AlignedBytes::AlignedBytes(size_t bytes) : size_(bytes) {
  constexpr size_t kAlignment = 64;
  const size_t rounded = (std::max<size_t>(bytes, 1) + kAlignment - 1) / kAlignment * kAlignment;
  void* memory = std::aligned_alloc(kAlignment, rounded);
  if (memory == nullptr) {
    fail(ErrorCode::kRuntime, "cannot allocate {} bytes for packed weights", bytes);
  }
  advise_huge_pages(memory, rounded);
  data_ =
      std::shared_ptr<const void>(memory, [](const void* p) { std::free(const_cast<void*>(p)); });
}

AlignedBytes::AlignedBytes(std::shared_ptr<const void> borrowed, size_t bytes)
    : data_(std::move(borrowed)), size_(bytes) {}

void reorder_into(const dnnl::memory::desc& from, const void* source, const dnnl::memory::desc& to,
                  void* target) {
  dnnl::memory source_memory(from, cpu_engine(), const_cast<void*>(source));
  dnnl::memory target_memory(to, cpu_engine(), target);
  dnnl::stream stream(cpu_engine());
  dnnl::reorder(source_memory, target_memory).execute(stream, source_memory, target_memory);
  stream.wait();
}

AlignedBytes reorder_to(const dnnl::memory::desc& from, const void* source,
                        const dnnl::memory::desc& to) {
  AlignedBytes packed(to.get_size());
  reorder_into(from, source, to, packed.data());
  return packed;
}

DnnlCall make_reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to) {
  if (from == to) return {};
  const dnnl::reorder::primitive_desc pd(cpu_engine(), from, cpu_engine(), to);
  return DnnlCall(dnnl::reorder(pd), {{DNNL_ARG_SRC, from}, {DNNL_ARG_DST, to}});
}

LayoutAdapter::LayoutAdapter(const dnnl::memory::desc& user_src,
                             const dnnl::memory::desc& primitive_src,
                             const dnnl::memory::desc& primitive_dst,
                             const dnnl::memory::desc& user_dst, size_t scratch_offset)
    : src_reorder_(make_reorder(user_src, primitive_src)),
      dst_reorder_(make_reorder(primitive_dst, user_dst)) {
  size_t offset = scratch_offset;
  if (!src_reorder_.empty()) {
    src_offset_ = offset;
    offset += align_scratch(primitive_src.get_size());
  }
  if (!dst_reorder_.empty()) {
    dst_offset_ = offset;
    offset += align_scratch(primitive_dst.get_size());
  }
  end_ = offset;
}

const void* LayoutAdapter::source(const void* x, std::byte* scratch, const NodeInfo& node) const {
  if (src_reorder_.empty()) return x;
  src_reorder_.bind(DNNL_ARG_SRC, x);
  src_reorder_.bind(DNNL_ARG_DST, scratch + src_offset_);
  src_reorder_.execute(node);
  return scratch + src_offset_;
}

void* LayoutAdapter::destination(void* y, std::byte* scratch) const {
  return dst_reorder_.empty() ? y : scratch + dst_offset_;
}

void LayoutAdapter::finish(void* y, std::byte* scratch, const NodeInfo& node) const {
  if (dst_reorder_.empty()) return;
  dst_reorder_.bind(DNNL_ARG_SRC, scratch + dst_offset_);
  dst_reorder_.bind(DNNL_ARG_DST, y);
  dst_reorder_.execute(node);
}

size_t align_scratch(size_t bytes) {
  constexpr size_t kAlignment = 64;
  return (bytes + kAlignment - 1) / kAlignment * kAlignment;
}

bool has_empty_tensor(const PrepareContext& ctx) {
  for (size_t i = 0; i < ctx.num_inputs(); ++i) {
    if (ctx.has_input(i) && shape_numel(ctx.input(i).shape) == 0) return true;
  }
  for (size_t i = 0; i < ctx.num_outputs(); ++i) {
    if (shape_numel(ctx.output(i).shape) == 0) return true;
  }
  return false;
}

}  // namespace inferlab::kernels::dnnl_backend
