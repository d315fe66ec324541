// The contract between the engine and an operator. An operator is two
// functions: a shape rule (infer) that derives output types and shapes from
// input types and shapes (and input values where they are known, e.g. a
// Reshape's target shape), and a compute function. Both see tensors and
// attributes, never the graph. Both live in one file per operator,
// kernels/reference/<op>.cc, and are registered by one line in registry.cc.
#pragma once

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <limits>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "inferlab/core/error.h"
#include "inferlab/core/tensor.h"
#include "inferlab/model/attribute.h"

namespace inferlab::kernels {

// The node a kernel runs for: its identity (for error messages), the opset
// version of its domain, and typed attribute access. It keeps references to
// the name, op type and attributes (the graph's, which outlive every run):
// they must outlive it, so temporaries (a string literal) do not compile.
class NodeInfo {
 public:
  NodeInfo(const std::string& name, const std::string& op_type, int64_t opset,
           const model::AttributeMap& attributes)
      : name_(name), op_type_(op_type), opset_(opset), attributes_(attributes) {}
  // A temporary would dangle once the statement ends.
  NodeInfo(std::string&& name, const std::string& op_type, int64_t opset,
           const model::AttributeMap& attributes) = delete;
  NodeInfo(const std::string& name, std::string&& op_type, int64_t opset,
           const model::AttributeMap& attributes) = delete;
  NodeInfo(const std::string& name, const std::string& op_type, int64_t opset,
           model::AttributeMap&& attributes) = delete;

  const std::string& name() const { return name_; }
  const std::string& op_type() const { return op_type_; }
  int64_t opset() const { return opset_; }
  const model::AttributeMap& attributes() const { return attributes_; }
  // "Conv node 'conv1'" — the prefix every kernel error message starts with.
  std::string describe() const;

  bool has_attr(const std::string& key) const { return attributes_.count(key) != 0; }
  int64_t attr_int(const std::string& key, int64_t fallback) const;
  int64_t attr_int(const std::string& key) const;  // required
  float attr_float(const std::string& key, float fallback) const;
  std::string attr_string(const std::string& key, const std::string& fallback) const;
  // Integer lists come back as a Shape (a small vector: no heap allocation
  // for up to Shape::kInlineDims values), so kernels may read them per run.
  Shape attr_ints(const std::string& key, const Shape& fallback) const;
  Shape attr_ints(const std::string& key) const;  // required
  std::vector<float> attr_floats(const std::string& key, const std::vector<float>& fallback) const;
  std::vector<std::string> attr_strings(const std::string& key) const;
  const Tensor& attr_tensor(const std::string& key) const;     // required
  const model::Attribute& attr(const std::string& key) const;  // required, any kind

  // Throws Error(code) with describe() prepended: fail_node(ErrorCode::k..., "bad axis {}", a).
  template <typename... Args>
  [[noreturn]] void fail(ErrorCode code, fmt::format_string<Args...> format, Args&&... args) const {
    throw Error(code, describe() + ": " + fmt::format(format, std::forward<Args>(args)...));
  }

 private:
  const model::Attribute& require(const std::string& key, model::Attribute::Kind kind) const;

  const std::string& name_;
  const std::string& op_type_;
  int64_t opset_;
  const model::AttributeMap& attributes_;
};

// What the shape rule knows about one input.
struct ValueFacts {
  DataType dtype = DataType::kUndefined;
  Shape shape;
  // The input's contents when known before running (initializers, constants,
  // and values folded from them such as Shape outputs). Null otherwise. In a
  // prepare call, a constant the node's cache holds prepacked may be a
  // stand-in without data (see PrepareContext::set_prepacked).
  const Tensor* value = nullptr;
};

class InferContext {
 public:
  InferContext(const NodeInfo& node, std::vector<ValueFacts> inputs, size_t num_outputs)
      : node_(node), inputs_(std::move(inputs)), outputs_(num_outputs) {}

  const NodeInfo& node() const { return node_; }
  size_t num_inputs() const { return inputs_.size(); }
  // False for an omitted optional input (empty name) or one past the end.
  bool has_input(size_t index) const {
    return index < inputs_.size() && inputs_[index].dtype != DataType::kUndefined;
  }
  const ValueFacts& input(size_t index) const;
  // The input's value, or an error naming the node when it is not known
  // (for inputs that must be constant to derive the output shape).
  const Tensor& input_value(size_t index) const;

  size_t num_outputs() const { return outputs_.size(); }
  void set_output(size_t index, DataType dtype, Shape shape);
  // Marks an output whose shape depends on input data (NonMaxSuppression,
  // TopK with a non-constant k, ...): it is known only after running.
  void set_output_dynamic(size_t index, DataType dtype);
  const std::vector<std::optional<std::pair<DataType, std::optional<Shape>>>>& outputs() const {
    return outputs_;
  }

 private:
  const NodeInfo& node_;
  std::vector<ValueFacts> inputs_;
  std::vector<std::optional<std::pair<DataType, std::optional<Shape>>>> outputs_;
};

// The declared type of one output of a graph-valued attribute.
struct SubgraphOutputType {
  DataType dtype = DataType::kUndefined;  // kUndefined: the graph does not say
  std::optional<Shape> shape;             // set only when every dim is static
};

// Runs a graph-valued attribute (If branches, Loop body). Implemented by the
// runtime; kernels never see the graph itself.
class SubgraphRunner {
 public:
  virtual ~SubgraphRunner() = default;
  virtual std::vector<Tensor> run_subgraph(const std::string& attribute_name,
                                           const std::vector<Tensor>& inputs) = 0;
  // The graph's declared outputs, in order, without running it: what a kernel
  // needs to produce correctly typed outputs when the graph never runs (a
  // Loop with zero iterations).
  virtual std::vector<SubgraphOutputType> subgraph_output_types(
      const std::string& attribute_name) const = 0;
};

// Working memory that outlives one call: a kernel's temporaries come from
// here, so after the first run a steady-state run allocates nothing. Owned by
// the runtime: one per run plan, shared by its nodes (they run one at a time),
// so its contents last for one kernel call only.
// How a ScratchBuffer block is given back: unmapped, or deleted.
struct ScratchRelease {
  size_t mapped_bytes = 0;  // 0: from new[]
  void operator()(std::byte* block) const;
};

class ScratchBuffer {
 public:
  // At least `bytes` bytes, 64-byte aligned; grows (reallocating) only when a
  // larger size is asked for. Contents are unspecified.
  void* reserve(size_t bytes);
  // reserve(bytes), then writes every byte of the block, so that the calls
  // that follow do not take its page faults.
  void prefault(size_t bytes);
  size_t capacity() const { return capacity_; }

 private:
  // Blocks of kMappedBytes or more are mapped directly rather than taken from
  // the heap: one outgrown goes back to the system instead of staying as a
  // hole the heap keeps (and pages never written cost nothing).
  static constexpr size_t kMappedBytes = size_t{1} << 20;
  std::unique_ptr<std::byte[], ScratchRelease> storage_;
  size_t capacity_ = 0;
};

// What a kernel decides once per run plan from the shapes the plan fixes
// (oneDNN primitives and their argument tables, the layout chosen for the
// weights): built by the kernel's prepare function when the plan is built,
// owned by the plan, and handed to every call through KernelContext::state()
// so a run only binds buffers and executes.
class KernelState {
 public:
  virtual ~KernelState() = default;
  // What computes the node when its state splits the work ("oneDNN
  // projection, reference heads"), so tests can tell which path ran; empty
  // when there is only one.
  virtual std::string implementation() const { return {}; }
};

// One packed copy of a constant input as a plan file keeps it. The layouts
// are the kernel library's own descriptions, opaque bytes valid for the
// build that wrote them (a plan's key names the build).
struct PackedCopy {
  size_t input = 0;
  Shape shape;                        // of the original (float32)
  std::string original_layout;        // how the original's bytes are described
  std::string layout;                 // the packed layout
  std::shared_ptr<const void> bytes;  // layout's bytes; may borrow from a mapped file
  size_t size = 0;
};

// A node cache that keeps some constant inputs of its node in a form of its
// own (weights prepacked for oneDNN), from which it can rebuild them bit for
// bit. When every node reading an initializer holds such a copy, the runtime
// releases the original and rebuilds it with unpack() if a run needs it again
// (GraphExecutor: a run without a plan, a plan whose kernel declined).
class PackedConstants : public KernelState {
 public:
  // The value of input `index` of the node, as it was when first packed.
  virtual Tensor unpack(size_t index) const = 0;
  // Whether a copy of input `index` is held (unpack() can rebuild it).
  virtual bool holds(size_t index) const = 0;
  // Bytes of every packed copy held.
  virtual size_t packed_bytes() const = 0;
  // Copies this cache packed itself (a reorder of the weights each), as
  // opposed to copies it was given ready-made from a plan file.
  virtual int64_t packed_here() const = 0;
  // Every copy held, for a plan file to keep (PackedCopy), in the order a
  // restore (kernels/dnnl/packed_weights.h) expects.
  virtual std::vector<PackedCopy> copies() const = 0;
  // How many copies() would return, without building them.
  virtual size_t copy_count() const = 0;
};

// What a prepare function sees: the node, every input's and output's type
// and shape as the plan fixes them, the values of constant inputs (weights,
// biases), and the node's cache, which outlives one plan (per node, per
// session): weights prepacked once are shared by the plans of every input
// shape there.
class PrepareContext {
 public:
  PrepareContext(const NodeInfo& node, std::vector<ValueFacts> inputs,
                 std::vector<ValueFacts> outputs, std::shared_ptr<KernelState>& node_cache)
      : node_(node),
        inputs_(std::move(inputs)),
        outputs_(std::move(outputs)),
        node_cache_(node_cache),
        prepacked_(inputs_.size(), false) {}

  const NodeInfo& node() const { return node_; }
  size_t num_inputs() const { return inputs_.size(); }
  bool has_input(size_t index) const {
    return index < inputs_.size() && inputs_[index].dtype != DataType::kUndefined;
  }
  const ValueFacts& input(size_t index) const { return inputs_.at(index); }
  size_t num_outputs() const { return outputs_.size(); }
  const ValueFacts& output(size_t index) const { return outputs_.at(index); }
  std::shared_ptr<KernelState>& node_cache() { return node_cache_; }

  // Declares that the state being built reads its own copy of constant input
  // `index`, kept in node_cache() (a PackedConstants), never the input. Once
  // every reader of a constant says so, the runtime may release the original:
  // later prepare calls may then see a stand-in for it (type and shape, no
  // data; Tensor::has_data() is false) and take its values from the cache.
  // A declined prepare (no state) declares nothing.
  void set_prepacked(size_t index) { prepacked_.at(index) = true; }
  bool prepacked(size_t index) const { return index < prepacked_.size() && prepacked_[index]; }

  // Declares the scratch (KernelContext::scratch_bytes) each call of the
  // state being built will ask for, so the runtime can size the plan's
  // buffer and fault its pages in when the plan is built: otherwise the
  // first run grows it node by node, each growth a new mapping whose page
  // faults (huge pages, compaction) cost that run up to ~20 ms on resnet50.
  void expect_scratch(size_t bytes) { expected_scratch_ = std::max(expected_scratch_, bytes); }
  size_t expected_scratch() const { return expected_scratch_; }

 private:
  const NodeInfo& node_;
  std::vector<ValueFacts> inputs_;
  std::vector<ValueFacts> outputs_;
  std::shared_ptr<KernelState>& node_cache_;
  std::vector<bool> prepacked_;
  size_t expected_scratch_ = 0;
};

class KernelContext {
 public:
  // `max_output_bytes` caps every output this context allocates: a shape
  // computed from data (Expand, ConstantOfShape, Tile, ...) is refused before
  // any memory is taken, never after.
  KernelContext(const NodeInfo& node, std::vector<const Tensor*> inputs,
                std::vector<Tensor>& outputs, SubgraphRunner* subgraphs = nullptr,
                int64_t max_output_bytes = std::numeric_limits<int64_t>::max())
      : node_(node),
        inputs_(std::move(inputs)),
        outputs_(outputs),
        subgraphs_(subgraphs),
        max_output_bytes_(max_output_bytes) {}

  const NodeInfo& node() const { return node_; }
  size_t num_inputs() const { return delegated_ ? delegated_count_ : inputs_.size(); }
  bool has_input(size_t index) const {
    return index < num_inputs() && input_pointers()[index] != nullptr;
  }
  const Tensor& input(size_t index) const;

  size_t num_outputs() const { return outputs_.size(); }
  // Returns output `index` with the given type and shape. Reuses the tensor
  // already there when it matches (the runtime may pre-place outputs),
  // otherwise allocates. Contents are unspecified: write every element.
  Tensor& output(size_t index, DataType dtype, const Shape& shape);
  // Sets an output to an existing tensor (e.g. Identity sharing its input).
  void set_output(size_t index, Tensor tensor);
  SubgraphRunner& subgraphs() const;

  // Working memory for this call (see ScratchBuffer); valid until the kernel
  // returns. `count` elements of T, 64-byte aligned.
  template <typename T>
  T* scratch(size_t count) {
    return static_cast<T*>(scratch_bytes(count * sizeof(T)));
  }
  void* scratch_bytes(size_t bytes);
  // The runtime attaches the node's persistent buffer; without one, scratch
  // comes from a buffer owned by this context.
  void set_scratch(ScratchBuffer* buffer) { scratch_ = buffer; }

  // A context for running another operator's kernel as part of this node
  // (a fused kernel delegating to the reference kernel of the operator it
  // extends): this node's first `input_count` inputs, this node's outputs
  // and scratch. Allocates nothing when the runtime attached a scratch buffer.
  KernelContext delegate(size_t input_count);
  // Output `index` as the last kernel left it (empty if never written).
  Tensor& written_output(size_t index);

  // The state the kernel's prepare function built for this plan, or null
  // (no plan, no prepare function, or prepare declined). A delegated context
  // has none. T must be the type prepare created.
  template <typename T>
  T* state() const {
    return static_cast<T*>(state_);
  }
  void set_state(KernelState* state) { state_ = state; }

 private:
  KernelContext(const NodeInfo& node, const Tensor* const* inputs, size_t input_count,
                std::vector<Tensor>& outputs, SubgraphRunner* subgraphs, int64_t max_output_bytes,
                ScratchBuffer* scratch);
  const Tensor* const* input_pointers() const {
    return delegated_ ? delegated_inputs_ : inputs_.data();
  }

  const NodeInfo& node_;
  std::vector<const Tensor*> inputs_;
  std::vector<Tensor>& outputs_;
  SubgraphRunner* subgraphs_;
  int64_t max_output_bytes_;
  ScratchBuffer* scratch_ = nullptr;
  std::unique_ptr<ScratchBuffer> own_scratch_;
  KernelState* state_ = nullptr;
  // A delegated context borrows its parent's input pointers.
  bool delegated_ = false;
  const Tensor* const* delegated_inputs_ = nullptr;
  size_t delegated_count_ = 0;
};

using InferFunction = std::function<void(InferContext&)>;
using ComputeFunction = std::function<void(KernelContext&)>;
// Null: nothing to prepare for these shapes or types (compute then runs
// without state, as it must in unplanned runs anyway).
using PrepareFunction = std::function<std::unique_ptr<KernelState>(PrepareContext&)>;

// One operator's implementation. `min_opset`..`max_opset` is the range of
// default-domain opset versions it implements (every change in between is
// handled inside the functions, keyed on NodeInfo::opset()).
struct OpKernel {
  OpKernel() = default;
  // `domain` last and optional: most kernels are of the default domain.
  OpKernel(std::string op_type_, int64_t min_opset_, int64_t max_opset_, InferFunction infer_,
           ComputeFunction compute_, std::string domain_ = {})
      : op_type(std::move(op_type_)),
        min_opset(min_opset_),
        max_opset(max_opset_),
        infer(std::move(infer_)),
        compute(std::move(compute_)),
        domain(std::move(domain_)) {}

  std::string op_type;
  int64_t min_opset = 7;
  int64_t max_opset = 18;
  InferFunction infer;
  ComputeFunction compute;
  // "" for the default ONNX domain; "com.microsoft" for ONNX Runtime's
  // contrib operators; "ai.inferlab" for InferLab's own fused operators
  // (docs/fused-ops.md). Opset bounds apply to the kernel's own domain.
  std::string domain;
  // The library that computes it, as reports name it: "reference" (the
  // plain kernels of kernels/reference/), "oneDNN" (kernels/dnnl/, whose glue
  // also hands some shapes to InferLab's panel and narrow kernels) or
  // "InferLab" (the vectorized kernels of kernels/cpu/).
  std::string library = "reference";
  // Optional: called when a run plan is built (see KernelState). Compute
  // must also work without the state it builds.
  PrepareFunction prepare;
};

}  // namespace inferlab::kernels
