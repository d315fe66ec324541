// Steady-state runs with the bind-then-run API make no heap allocation, on
// any thread: this binary replaces malloc and every operator new with
// counting versions (forwarding to glibc's __libc_* functions) and counts
// while a run is in flight. Its own binary: the hooks must not touch other
// tests. On failure it prints where the first counted allocation came from.
//
// One exception is counted apart: oneDNN 2.6 (Debian's) builds a
// std::unordered_map of the arguments inside every dnnl_primitive_execute()
// call, whatever the caller passes, so each primitive call allocates a few
// small blocks inside libdnnl. InferLab cannot avoid those; they are counted
// separately (an allocation with libdnnl on its stack), must be the same for
// every run (no growth), and everything else must be zero.
#include <dlfcn.h>
#include <execinfo.h>
#include <unistd.h>

#include <atomic>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <new>
#include <vector>

#include <gtest/gtest.h>

#include "inferlab/core/npy.h"
#include "inferlab/optimizer/onnx_export.h"
#include "inferlab/runtime/session.h"
#include "test_util.h"

extern "C" {
void* __libc_malloc(size_t size);
void* __libc_calloc(size_t count, size_t size);
void* __libc_realloc(void* pointer, size_t size);
void* __libc_memalign(size_t alignment, size_t size);
void __libc_free(void* pointer);
}

namespace {

std::atomic<bool> counting{false};
std::atomic<int64_t> allocations{0};
std::atomic<int64_t> onednn_allocations{0};
// Backtraces of the first allocations from distinct callers (one at a time).
constexpr int kMaxSites = 6;
constexpr int kMaxFrames = 32;
std::atomic<bool> capturing{false};
void* site_frames[kMaxSites][kMaxFrames];
int site_frame_counts[kMaxSites];
int sites = 0;

void capture_site() {
  void* frames[kMaxFrames];
  const int count = backtrace(frames, kMaxFrames);  // initialized before counting starts
  for (int s = 0; s < sites; ++s) {
    if (count > 3 && site_frame_counts[s] > 3 && site_frames[s][3] == frames[3]) return;
  }
  if (sites == kMaxSites) return;
  for (int f = 0; f < count; ++f) site_frames[sites][f] = frames[f];
  site_frame_counts[sites++] = count;
}

// True when libdnnl is on the stack of this allocation.
bool inside_onednn() {
  constexpr int kFrames = 24;
  void* frames[kFrames];
  const int count = backtrace(frames, kFrames);
  for (int f = 1; f < count; ++f) {
    Dl_info info;
    if (dladdr(frames[f], &info) != 0 && info.dli_fname != nullptr &&
        std::strstr(info.dli_fname, "libdnnl") != nullptr) {
      return true;
    }
  }
  return false;
}

void note_allocation() {
  if (!counting.load(std::memory_order_relaxed)) return;
  if (inside_onednn()) {
    onednn_allocations.fetch_add(1, std::memory_order_relaxed);
    return;
  }
  allocations.fetch_add(1, std::memory_order_relaxed);
  bool expected = false;
  if (capturing.compare_exchange_strong(expected, true)) {
    capture_site();
    capturing = false;
  }
}

void* checked(void* pointer) {
  if (pointer == nullptr) throw std::bad_alloc();
  return pointer;
}

}  // namespace

extern "C" {
void* malloc(size_t size) {
  note_allocation();
  return __libc_malloc(size);
}
void* calloc(size_t count, size_t size) {
  note_allocation();
  return __libc_calloc(count, size);
}
void* realloc(void* pointer, size_t size) {
  note_allocation();
  return __libc_realloc(pointer, size);
}
void* aligned_alloc(size_t alignment, size_t size) {
  note_allocation();
  return __libc_memalign(alignment, size);
}
void* memalign(size_t alignment, size_t size) {
  note_allocation();
  return __libc_memalign(alignment, size);
}
int posix_memalign(void** out, size_t alignment, size_t size) {
  note_allocation();
  void* pointer = __libc_memalign(alignment, size);
  if (pointer == nullptr) return ENOMEM;
  *out = pointer;
  return 0;
}
void free(void* pointer) { __libc_free(pointer); }
}

void* operator new(size_t size) {
  note_allocation();
  return checked(__libc_malloc(size == 0 ? 1 : size));
}
void* operator new[](size_t size) {
  note_allocation();
  return checked(__libc_malloc(size == 0 ? 1 : size));
}
void* operator new(size_t size, const std::nothrow_t&) noexcept {
  note_allocation();
  return __libc_malloc(size == 0 ? 1 : size);
}
void* operator new[](size_t size, const std::nothrow_t&) noexcept {
  note_allocation();
  return __libc_malloc(size == 0 ? 1 : size);
}
void* operator new(size_t size, std::align_val_t alignment) {
  note_allocation();
  return checked(__libc_memalign(static_cast<size_t>(alignment), size == 0 ? 1 : size));
}
void* operator new[](size_t size, std::align_val_t alignment) {
  note_allocation();
  return checked(__libc_memalign(static_cast<size_t>(alignment), size == 0 ? 1 : size));
}
void* operator new(size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  note_allocation();
  return __libc_memalign(static_cast<size_t>(alignment), size == 0 ? 1 : size);
}
void* operator new[](size_t size, std::align_val_t alignment, const std::nothrow_t&) noexcept {
  note_allocation();
  return __libc_memalign(static_cast<size_t>(alignment), size == 0 ? 1 : size);
}
void operator delete(void* pointer) noexcept { __libc_free(pointer); }
void operator delete[](void* pointer) noexcept { __libc_free(pointer); }
void operator delete(void* pointer, size_t) noexcept { __libc_free(pointer); }
void operator delete[](void* pointer, size_t) noexcept { __libc_free(pointer); }
void operator delete(void* pointer, std::align_val_t) noexcept { __libc_free(pointer); }
void operator delete[](void* pointer, std::align_val_t) noexcept { __libc_free(pointer); }
void operator delete(void* pointer, size_t, std::align_val_t) noexcept { __libc_free(pointer); }
void operator delete[](void* pointer, size_t, std::align_val_t) noexcept { __libc_free(pointer); }
void operator delete(void* pointer, const std::nothrow_t&) noexcept { __libc_free(pointer); }
void operator delete[](void* pointer, const std::nothrow_t&) noexcept { __libc_free(pointer); }

namespace inferlab {
namespace {

using runtime::Session;
using runtime::TensorMap;

std::string model_base(const std::string& name) { return testing::cache_dir() + "/models/" + name; }

struct Counted {
  int64_t inferlab = 0;                 // everything not inside libdnnl, all runs
  std::vector<int64_t> onednn_per_run;  // inside libdnnl, per run
};

// Allocations counted during `runs` bound runs of `session`.
Counted count_allocations(Session& session, int runs) {
  Counted counted;
  counted.onednn_per_run.reserve(runs);
  allocations = 0;
  sites = 0;
  for (int i = 0; i < runs; ++i) {
    onednn_allocations = 0;
    counting = true;
    session.run();
    counting = false;
    counted.onednn_per_run.push_back(onednn_allocations.load());
  }
  counted.inferlab = allocations.load();
  return counted;
}

void print_allocation_sites() {
  for (int s = 0; s < sites; ++s) {
    std::fprintf(stderr, "counted allocation site %d:\n", s + 1);
    backtrace_symbols_fd(site_frames[s], site_frame_counts[s], STDERR_FILENO);
  }
}

void expect_steady_state_without_allocation(const std::string& name) {
  const std::string base = model_base(name);
  if (!std::filesystem::exists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is missing";
  Session session = Session::load(base + ".onnx");
  ASSERT_EQ(session.inputs().size(), 1u);
  ASSERT_EQ(session.outputs().size(), 1u);
  const Tensor input = read_npy(base + ".input.npy");
  const Tensor expected = read_npy(base + ".output.npy");
  const model::ValueInfo& output_info = session.outputs()[0];
  Tensor output(output_info.dtype, output_info.static_shape());
  session.bind({{session.inputs()[0].name, input}}, {{output_info.name, output}});
  void* warm_up[4];
  backtrace(warm_up, 4);  // loads the unwinder now, not inside the counted window
  session.run();          // the first run builds the plan and grows scratch buffers
  const Counted counted = count_allocations(session, 3);
  if (counted.inferlab != 0) print_allocation_sites();
  EXPECT_EQ(counted.inferlab, 0) << name << ": heap allocations during runs 2..4";
  std::fprintf(stderr, "%s: oneDNN's own allocations per run (its argument maps): %lld\n",
               name.c_str(), static_cast<long long>(counted.onednn_per_run[0]));
  EXPECT_EQ(counted.onednn_per_run[1], counted.onednn_per_run[0]) << "oneDNN's grew";
  EXPECT_EQ(counted.onednn_per_run[2], counted.onednn_per_run[0]) << "oneDNN's grew";
  EXPECT_EQ(session.bound_outputs().at(output_info.name).raw_data(), output.raw_data());
  EXPECT_LE(testing::relative_error(output, expected), 1e-4) << name;
}

// bind() builds the plan, kernels' scratch included and faulted in, so the
// first run of a binding costs what later ones do (issue 19: resnet50's first
// run grew the scratch node by node, new mappings taking their page faults
// inside the run, and cost up to 1.7 steady runs).
TEST(ZeroAllocation, Resnet50FirstRunAfterBindGrowsNothing) {
  const std::string base = model_base("resnet50_op17");
  if (!std::filesystem::exists(base + ".onnx")) GTEST_SKIP() << base << ".onnx is missing";
  Session session = Session::load(base + ".onnx");
  const Tensor input = read_npy(base + ".input.npy");
  const model::ValueInfo& output_info = session.outputs()[0];
  Tensor output(output_info.dtype, output_info.static_shape());
  session.bind({{session.inputs()[0].name, input}}, {{output_info.name, output}});
  const size_t scratch_at_bind = session.last_scratch_bytes();
  EXPECT_GT(scratch_at_bind, 0u) << "oneDNN's convolutions declare scratch";
  void* warm_up[4];
  backtrace(warm_up, 4);
  const Counted counted = count_allocations(session, 1);
  // One allocation is expected: bound_outputs()'s entry for the one output,
  // which the first run creates and later runs reuse.
  if (counted.inferlab > 1) print_allocation_sites();
  EXPECT_LE(counted.inferlab, 1) << "heap allocations during the first run after bind";
  EXPECT_EQ(session.last_scratch_bytes(), scratch_at_bind) << "the first run grew the scratch";
  EXPECT_EQ(session.plans_built(), 1);
  EXPECT_LE(testing::relative_error(output, read_npy(base + ".output.npy")), 1e-4);
}

TEST(ZeroAllocation, Resnet50SteadyStateRunsAllocateNothing) {
  expect_steady_state_without_allocation("resnet50_op17");
}

TEST(ZeroAllocation, EncoderSteadyStateRunsAllocateNothing) {
  expect_steady_state_without_allocation("encoder_op17");
}

model::Node make_node(const std::string& op, std::vector<std::string> inputs, std::string output,
                      model::AttributeMap attributes = {}) {
  return model::Node{output + "_node",     op, "", std::move(inputs), {std::move(output)},
                     std::move(attributes)};
}

model::Attribute ints_attribute(std::vector<int64_t> values) {
  model::Attribute a;
  a.kind = model::Attribute::Kind::kInts;
  a.ints = std::move(values);
  return a;
}

// An opset-11 decoder block as PaddleOCR's detector writes it: Conv, then
// HardSwish spelled x * Clip(x + 3, 0, 6) / 6 (fused into the Conv at
// load), then a stride-2 ConvTranspose with output_padding (on oneDNN).
std::string conv_hardswish_deconv_model() {
  model::Model m;
  m.ir_version = 8;
  m.opsets[""] = 11;
  m.source = "<conv_hardswish_deconv>";
  m.graph = std::make_shared<model::Graph>();
  model::Graph& g = *m.graph;
  g.name = "conv_hardswish_deconv";
  model::ValueInfo x{"x", DataType::kFloat32, true, {}};
  for (int64_t d : {1, 4, 12, 12}) x.dims.push_back(model::Dim::fixed(d));
  g.inputs.push_back(x);
  model::ValueInfo y{"y", DataType::kFloat32, true, {}};
  for (int64_t d : {1, 3, 24, 24}) y.dims.push_back(model::Dim::fixed(d));
  g.outputs.push_back(y);
  g.initializers["w"] = testing::random_float_tensor({6, 4, 3, 3}, 1);
  g.initializers["b"] = testing::random_float_tensor({6}, 2);
  g.initializers["wt"] = testing::random_float_tensor({6, 3, 3, 3}, 3);
  g.initializers["bt"] = testing::random_float_tensor({3}, 4);
  for (auto [name, value] : {std::pair{"three", 3.0f}, {"zero", 0.0f}, {"six", 6.0f}}) {
    g.initializers[name] = Tensor::scalar<float>(value);
  }
  g.nodes.push_back(
      make_node("Conv", {"x", "w", "b"}, "c", {{"pads", ints_attribute({1, 1, 1, 1})}}));
  g.nodes.push_back(make_node("Add", {"c", "three"}, "shifted"));
  g.nodes.push_back(make_node("Clip", {"shifted", "zero", "six"}, "gate"));
  g.nodes.push_back(make_node("Mul", {"c", "gate"}, "product"));
  g.nodes.push_back(make_node("Div", {"product", "six"}, "h"));
  g.nodes.push_back(make_node("ConvTranspose", {"h", "wt", "bt"}, "y",
                              {{"strides", ints_attribute({2, 2})},
                               {"pads", ints_attribute({1, 1, 1, 1})},
                               {"output_padding", ints_attribute({1, 1})}}));
  return optimizer::serialize_model(m);
}

TEST(ZeroAllocation, ConvHardSwishAndConvTransposeRunsAllocateNothing) {
  const std::string bytes = conv_hardswish_deconv_model();
  Session session = Session::load_bytes(bytes.data(), bytes.size());
  const Tensor input = testing::random_float_tensor({1, 4, 12, 12}, 5, -4, 4);
  const TensorMap expected = session.run({{"x", input}});
  Tensor output(DataType::kFloat32, Shape{1, 3, 24, 24});
  session.bind({{"x", input}}, {{"y", output}});
  void* warm_up[4];
  backtrace(warm_up, 4);
  session.run();
  const Counted counted = count_allocations(session, 3);
  if (counted.inferlab != 0) print_allocation_sites();
  EXPECT_EQ(counted.inferlab, 0) << "heap allocations during runs 2..4";
  EXPECT_EQ(counted.onednn_per_run[1], counted.onednn_per_run[0]) << "oneDNN's grew";
  EXPECT_EQ(counted.onednn_per_run[2], counted.onednn_per_run[0]) << "oneDNN's grew";
  EXPECT_EQ(testing::relative_error(output, expected.at("y")), 0.0);
  const auto& ops = session.optimization_log().op_counts_after;
  EXPECT_EQ(ops.count("ai.inferlab::FusedConv"), 1u);
  EXPECT_EQ(ops.count("ConvTranspose"), 1u);
  // The layout pass's conversion from the channels-last Conv to the
  // channels-first ConvTranspose (a Transpose on a oneDNN reorder).
  EXPECT_EQ(ops.count("Transpose"), 1u);
  EXPECT_EQ(ops.size(), 3u);
}

TEST(ZeroAllocation, HooksCountAllocations) {
  void* warm_up[4];
  backtrace(warm_up, 4);  // the unwinder allocates when first loaded
  allocations = 0;
  counting = true;
  void* pointer = std::malloc(16);
  auto* object = new int(3);
  counting = false;
  std::free(pointer);
  delete object;
  EXPECT_EQ(allocations.load(), 2);
}

}  // namespace
}  // namespace inferlab
