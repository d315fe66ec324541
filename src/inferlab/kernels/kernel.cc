#include "inferlab/kernels/kernel.h"

#include <sys/mman.h>

#include <algorithm>
#include <cstring>
#include <new>

#include "inferlab/core/huge_pages.h"

namespace inferlab::kernels {

using model::Attribute;

std::string NodeInfo::describe() const { return fmt::format("{} node '{}'", op_type_, name_); }

const Attribute& NodeInfo::attr(const std::string& key) const {
  auto it = attributes_.find(key);
  if (it == attributes_.end())
    fail(ErrorCode::kInvalidModel, "required attribute '{}' is missing", key);
  return it->second;
}

const Attribute& NodeInfo::require(const std::string& key, Attribute::Kind kind) const {
  const Attribute& found = attr(key);
  if (found.kind != kind) {
    fail(ErrorCode::kInvalidModel, "attribute '{}' is {}, expected {}", key,
         model::attribute_kind_name(found.kind), model::attribute_kind_name(kind));
  }
  return found;
}

int64_t NodeInfo::attr_int(const std::string& key, int64_t fallback) const {
  return has_attr(key) ? require(key, Attribute::Kind::kInt).i : fallback;
}

int64_t NodeInfo::attr_int(const std::string& key) const {
  return require(key, Attribute::Kind::kInt).i;
}

float NodeInfo::attr_float(const std::string& key, float fallback) const {
  return has_attr(key) ? require(key, Attribute::Kind::kFloat).f : fallback;
}

std::string NodeInfo::attr_string(const std::string& key, const std::string& fallback) const {
  return has_attr(key) ? require(key, Attribute::Kind::kString).s : fallback;
}

Shape NodeInfo::attr_ints(const std::string& key, const Shape& fallback) const {
  if (!has_attr(key)) return fallback;
  const std::vector<int64_t>& values = require(key, Attribute::Kind::kInts).ints;
  return Shape(values.begin(), values.end());
}

Shape NodeInfo::attr_ints(const std::string& key) const {
  const std::vector<int64_t>& values = require(key, Attribute::Kind::kInts).ints;
  return Shape(values.begin(), values.end());
}

std::vector<float> NodeInfo::attr_floats(const std::string& key,
                                         const std::vector<float>& fallback) const {
  return has_attr(key) ? require(key, Attribute::Kind::kFloats).floats : fallback;
}

std::vector<std::string> NodeInfo::attr_strings(const std::string& key) const {
  return require(key, Attribute::Kind::kStrings).strings;
}

const Tensor& NodeInfo::attr_tensor(const std::string& key) const {
  return require(key, Attribute::Kind::kTensor).t;
}

const ValueFacts& InferContext::input(size_t index) const {
  if (!has_input(index)) node_.fail(ErrorCode::kInvalidModel, "input {} is missing", index);
  return inputs_[index];
}

const Tensor& InferContext::input_value(size_t index) const {
  const ValueFacts& facts = input(index);
  if (facts.value == nullptr) {
    node_.fail(ErrorCode::kUnsupported,
               "input {} must be known before running to derive the output shape", index);
  }
  return *facts.value;
}

void InferContext::set_output(size_t index, DataType dtype, Shape shape) {
  if (index >= outputs_.size()) return;  // optional output not requested by the graph
  outputs_[index] = std::make_pair(dtype, std::optional<Shape>(std::move(shape)));
}

void InferContext::set_output_dynamic(size_t index, DataType dtype) {
  if (index >= outputs_.size()) return;
  outputs_[index] = std::make_pair(dtype, std::optional<Shape>());
}

const Tensor& KernelContext::input(size_t index) const {
  if (!has_input(index)) node_.fail(ErrorCode::kInvalidModel, "input {} is missing", index);
  return *input_pointers()[index];
}

KernelContext::KernelContext(const NodeInfo& node, const Tensor* const* inputs, size_t input_count,
                             std::vector<Tensor>& outputs, SubgraphRunner* subgraphs,
                             int64_t max_output_bytes, ScratchBuffer* scratch)
    : node_(node),
      outputs_(outputs),
      subgraphs_(subgraphs),
      max_output_bytes_(max_output_bytes),
      scratch_(scratch),
      delegated_(true),
      delegated_inputs_(inputs),
      delegated_count_(input_count) {}

KernelContext KernelContext::delegate(size_t input_count) {
  if (scratch_ == nullptr) {
    own_scratch_ = std::make_unique<ScratchBuffer>();
    scratch_ = own_scratch_.get();
  }
  return KernelContext(node_, input_pointers(), std::min(input_count, num_inputs()), outputs_,
                       subgraphs_, max_output_bytes_, scratch_);
}

Tensor& KernelContext::written_output(size_t index) {
  if (index >= outputs_.size()) outputs_.resize(index + 1);
  return outputs_[index];
}

Tensor& KernelContext::output(size_t index, DataType dtype, const Shape& shape) {
  if (index >= outputs_.size()) outputs_.resize(index + 1);
  Tensor& slot = outputs_[index];
  // The runtime clears slots that must not be written through, so a matching
  // tensor here is one it placed on purpose (a planned or caller-bound buffer).
  if (slot.empty() || slot.dtype() != dtype || slot.shape() != shape) {
    const std::string what = fmt::format("output {} {}", index, shape_to_string(shape));
    const int64_t bytes =
        checked_mul(shape_numel(shape), static_cast<int64_t>(dtype_size(dtype)), what);
    if (bytes > max_output_bytes_) {
      node_.fail(ErrorCode::kLimitExceeded, "{} would be {} bytes, over the limit of {} bytes",
                 what, bytes, max_output_bytes_);
    }
    slot = Tensor(dtype, shape);
  }
  return slot;
}

void KernelContext::set_output(size_t index, Tensor tensor) {
  if (index >= outputs_.size()) outputs_.resize(index + 1);
  outputs_[index] = std::move(tensor);
}

void ScratchRelease::operator()(std::byte* block) const {
  if (mapped_bytes != 0) {
    munmap(block, mapped_bytes);
  } else {
    delete[] block;
  }
}

void* ScratchBuffer::reserve(size_t bytes) {
  constexpr size_t kAlignment = 64;
  if (bytes > capacity_) {
    // The old block goes first; the new one is not cleared (its pages cost
    // resident memory only as they are written).
    storage_.reset();
    capacity_ = 0;
    const size_t total = bytes + kAlignment;
    if (total >= kMappedBytes) {
      void* block =
          mmap(nullptr, total, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
      if (block == MAP_FAILED) throw std::bad_alloc();
      advise_huge_pages(block, total);
      storage_ = {static_cast<std::byte*>(block), ScratchRelease{total}};
    } else {
      storage_ = {new std::byte[total], ScratchRelease{0}};
    }
    capacity_ = bytes;
  }
  void* base = storage_.get();
  size_t space = capacity_ + kAlignment;
  return std::align(kAlignment, bytes, base, space);
}

void ScratchBuffer::prefault(size_t bytes) {
  if (bytes == 0) return;
  reserve(bytes);
  std::memset(storage_.get(), 0, capacity_);
}

void* KernelContext::scratch_bytes(size_t bytes) {
  if (scratch_ == nullptr) {
    own_scratch_ = std::make_unique<ScratchBuffer>();
    scratch_ = own_scratch_.get();
  }
  return scratch_->reserve(bytes);
}

SubgraphRunner& KernelContext::subgraphs() const {
  if (subgraphs_ == nullptr) node_.fail(ErrorCode::kRuntime, "no subgraph runner is available");
  return *subgraphs_;
}

}  // namespace inferlab::kernels
