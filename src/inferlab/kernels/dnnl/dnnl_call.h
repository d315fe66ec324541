// One oneDNN primitive ready to run: created when a run plan is built, with
// its argument table prebuilt, so a run only swaps data pointers into the
// table and executes through oneDNN's C API. The C++ API's execute() takes an
// std::unordered_map of arguments, built per call; the C API takes a plain
// array, so a steady-state run allocates nothing.
#pragma once

#include <cstddef>
#include <cstdlib>
#include <memory>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "inferlab/core/tensor.h"
#include "inferlab/kernels/cpu/isa.h"
#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels::dnnl_backend {

// The CPU engine every InferLab primitive runs on. Created on first use and
// never changed afterwards (oneDNN engines are immutable and thread-safe).
const dnnl::engine& cpu_engine();

// Caps the instruction set oneDNN's JIT kernels may use at `max_isa`
// (AVX2 -> avx2, portable -> sse41, the lowest oneDNN generates). oneDNN
// takes this once per process, before its first primitive (the same as
// setting DNNL_MAX_CPU_ISA): returns false when it is too late, and then
// the earlier setting stays. AVX-512 leaves oneDNN's own choice.
bool limit_dnnl_isa(cpu::Isa max_isa);
// The ISA oneDNN's kernels run at in this process: "avx512_core", "avx2", ...
std::string dnnl_isa_name();
// The oneDNN library this process runs: "2.6.3".
std::string onednn_version();

// Shape <-> oneDNN dims.
dnnl::memory::dims to_dims(const Shape& shape);

// The plain (row-major) format tag of a tensor of `rank` dims: a, ab, abc, ...
dnnl::memory::format_tag plain_tag(size_t rank);
dnnl::memory::desc plain_desc(const Shape& shape);
// A channels-last tensor (memory [N, spatial..., C]) described by its
// channels-first dims `logical` = [N, C, spatial...]: acb, acdb or acdeb.
dnnl::memory::desc channels_last_desc(const Shape& logical);

class DnnlCall {
 public:
  DnnlCall() = default;
  // `primitive` is run on its own stream; `arguments` name every memory it
  // reads or writes (DNNL_ARG_SRC, ...), created here without data.
  DnnlCall(dnnl::primitive primitive,
           const std::vector<std::pair<int, dnnl::memory::desc>>& arguments);

  // Sets the data of argument `arg` (a DNNL_ARG_* value given at creation)
  // for the next execute(). Does not allocate.
  void bind(int arg, const void* data) const;
  // Runs the primitive; throws Error naming `node` if oneDNN fails.
  void execute(const NodeInfo& node) const;
  bool empty() const { return !primitive_; }

 private:
  dnnl::primitive primitive_;
  dnnl::stream stream_;
  std::vector<dnnl::memory> memories_;  // owners of the handles in args_
  std::vector<dnnl_exec_arg_t> args_;
};

// A 64-byte aligned block of bytes (weights prepacked into oneDNN's layout):
// its own, or borrowed from an owner kept alive with it (a mapped plan file,
// which primitives only read).
class AlignedBytes {
 public:
  explicit AlignedBytes(size_t bytes);
  AlignedBytes(std::shared_ptr<const void> borrowed, size_t bytes);
  void* data() { return const_cast<void*>(data_.get()); }
  const void* data() const { return data_.get(); }
  // The bytes, kept alive by the returned pointer.
  const std::shared_ptr<const void>& shared() const { return data_; }
  size_t size() const { return size_; }

 private:
  std::shared_ptr<const void> data_;
  size_t size_ = 0;
};

// Copies `source` (bytes described by `from`) into a new buffer laid out as
// `to`, through a oneDNN reorder: how weights are prepacked once at plan time.
AlignedBytes reorder_to(const dnnl::memory::desc& from, const void* source,
                        const dnnl::memory::desc& to);
// The same into `target`, which holds to.get_size() bytes.
void reorder_into(const dnnl::memory::desc& from, const void* source, const dnnl::memory::desc& to,
                  void* target);

// Runs a kernel's prepare step; a case oneDNN has no implementation for
// (it throws dnnl::error while creating the primitive) is declined, and the
// reference kernel computes it.
template <typename Prepare>
std::unique_ptr<KernelState> prepare_or_decline(Prepare&& prepare) {
  try {
    return prepare();
  } catch (const dnnl::error&) {
    return nullptr;
  }
}

// Whether any input or output of the node holds no elements. oneDNN 2.6
// divides by zero creating some primitives for them (a matmul with K or N
// of 0 raised SIGFPE), so empty tensors stay on the reference kernels.
bool has_empty_tensor(const PrepareContext& ctx);

// A reference kernel made oneDNN-backed: `prepare` (declined cases and
// oneDNN's own refusals give no state) builds a State for the plan, and
// compute runs `run` with it, or the reference compute without one.
template <typename State, typename Prepare, typename Run>
OpKernel on_dnnl(OpKernel kernel, Prepare prepare, Run run) {
  kernel.prepare = [prepare](PrepareContext& ctx) -> std::unique_ptr<KernelState> {
    if (has_empty_tensor(ctx)) return nullptr;
    return prepare_or_decline([&] { return prepare(ctx); });
  };
  kernel.compute = [reference = kernel.compute, run](KernelContext& ctx) {
    if (State* state = ctx.state<State>()) {
      run(*state, ctx);
    } else {
      reference(ctx);
    }
  };
  return kernel;
}

// A reorder between two layouts of one tensor; an empty call when they are
// the same layout.
DnnlCall make_reorder(const dnnl::memory::desc& from, const dnnl::memory::desc& to);

// `bytes` rounded up to 64 (each region of a node's scratch is aligned).
size_t align_scratch(size_t bytes);

// A primitive whose source and destination layouts differ from the user's
// tensors: the input is reordered into the node's scratch before the call
// and the result reordered out after it (either may be the identity).
class LayoutAdapter {
 public:
  LayoutAdapter() = default;
  // Scratch regions for the reordered copies start at `scratch_offset`
  // (after the primitive's scratchpad); end() is where they stop.
  LayoutAdapter(const dnnl::memory::desc& user_src, const dnnl::memory::desc& primitive_src,
                const dnnl::memory::desc& primitive_dst, const dnnl::memory::desc& user_dst,
                size_t scratch_offset);
  size_t end() const { return end_; }
  // The source the primitive reads: `x` itself, or its reordered copy.
  const void* source(const void* x, std::byte* scratch, const NodeInfo& node) const;
  // Where the primitive writes: `y` itself, or a scratch buffer that
  // finish() reorders into `y`.
  void* destination(void* y, std::byte* scratch) const;
  void finish(void* y, std::byte* scratch, const NodeInfo& node) const;

 private:
  DnnlCall src_reorder_;
  DnnlCall dst_reorder_;
  size_t src_offset_ = 0;
  size_t dst_offset_ = 0;
  size_t end_ = 0;
};

}  // namespace inferlab::kernels::dnnl_backend
