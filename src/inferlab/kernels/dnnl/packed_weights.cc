// Prepacked oneDNN weights; see packed_weights.h.
#include "inferlab/kernels/dnnl/packed_weights.h"

#include <cstring>
#include <string>

namespace inferlab::kernels::dnnl_backend {
namespace {

// A memory descriptor as opaque bytes: oneDNN's C descriptor is a plain
// struct, so its bytes describe it fully within one build of the library.
std::string desc_bytes(const dnnl::memory::desc& desc) {
  return std::string(reinterpret_cast<const char*>(&desc.data), sizeof(desc.data));
}

dnnl::memory::desc desc_from(const std::string& bytes, size_t input) {
  if (bytes.size() != sizeof(dnnl_memory_desc_t)) {
    fail(ErrorCode::kInvalidModel,
         "packed weights of input {}: a layout of {} bytes, this oneDNN's are {}", input,
         bytes.size(), sizeof(dnnl_memory_desc_t));
  }
  dnnl::memory::desc desc;
  std::memcpy(&desc.data, bytes.data(), sizeof(desc.data));
  return desc;
}

// A plain or blocked layout permutes the original's floats, and reorders
// back; oneDNN's Winograd layout holds transformed values and does not.
bool reversible(const dnnl::memory::desc& layout) {
  return layout.data.format_kind == dnnl_blocked;
}

}  // namespace

PackedWeightsCache::PackedWeightsCache(const std::vector<PackedCopy>& copies) {
  for (const PackedCopy& copy : copies) {
    const dnnl::memory::desc layout = desc_from(copy.layout, copy.input);
    if (layout.get_size() != copy.size || copy.bytes == nullptr) {
      fail(ErrorCode::kInvalidModel, "packed weights of input {}: {} bytes for a layout of {}",
           copy.input, copy.size, layout.get_size());
    }
    Packed* packed = find(copy.input);
    if (packed == nullptr) {
      const dnnl::memory::desc original = desc_from(copy.original_layout, copy.input);
      if (original.get_size() != static_cast<size_t>(shape_numel(copy.shape)) * sizeof(float)) {
        fail(ErrorCode::kInvalidModel,
             "packed weights of input {}: the original's layout holds {} bytes, shape {} needs {}",
             copy.input, original.get_size(), shape_to_string(copy.shape),
             shape_numel(copy.shape) * 4);
      }
      inputs_.push_back(Packed{copy.input, copy.shape, original, {}});
      packed = &inputs_.back();
    }
    packed->layouts.emplace_back(layout, std::make_shared<AlignedBytes>(copy.bytes, copy.size));
  }
}

PackedWeightsCache::Packed* PackedWeightsCache::find(size_t input) {
  for (Packed& packed : inputs_) {
    if (packed.input == input) return &packed;
  }
  return nullptr;
}

const PackedWeightsCache::Packed* PackedWeightsCache::find(size_t input) const {
  for (const Packed& packed : inputs_) {
    if (packed.input == input) return &packed;
  }
  return nullptr;
}

std::shared_ptr<AlignedBytes> PackedWeightsCache::get(size_t input, const Tensor& value,
                                                      const dnnl::memory::desc& user,
                                                      const dnnl::memory::desc& wanted) {
  Packed* packed = find(input);
  if (packed == nullptr) {
    if (!value.has_data()) {
      fail(ErrorCode::kRuntime, "oneDNN: input {} has no data and no packed copy", input);
    }
    inputs_.push_back(Packed{input, value.shape(), user, {}});
    packed = &inputs_.back();
  }
  for (const auto& [desc, bytes] : packed->layouts) {
    if (desc == wanted) return bytes;
  }
  // A released original is rebuilt for the length of this reorder: `user`
  // may describe its bytes with other dims than the first layout has.
  const Tensor original = value.has_data() ? value : unpack(input);
  packed->layouts.emplace_back(
      wanted, std::make_shared<AlignedBytes>(reorder_to(user, original.raw_data(), wanted)));
  ++packed_here_;
  return packed->layouts.back().second;
}

const PackedWeightsCache::Layout* PackedWeightsCache::reversible_layout(const Packed& packed) {
  for (const Layout& layout : packed.layouts) {
    if (reversible(layout.first)) return &layout;
  }
  return nullptr;
}

Tensor PackedWeightsCache::unpack(size_t index) const {
  const Packed* packed = find(index);
  const Layout* layout = packed != nullptr ? reversible_layout(*packed) : nullptr;
  if (layout == nullptr) {
    fail(ErrorCode::kRuntime, "oneDNN: input {} has no packed copy that reorders back", index);
  }
  Tensor original = Tensor::uninitialized(DataType::kFloat32, packed->shape);
  reorder_into(layout->first, layout->second->data(), packed->user, original.raw_data());
  return original;
}

bool PackedWeightsCache::holds(size_t index) const {
  const Packed* packed = find(index);
  return packed != nullptr && reversible_layout(*packed) != nullptr;
}

size_t PackedWeightsCache::packed_bytes() const {
  size_t total = 0;
  for (const Packed& packed : inputs_) {
    for (const auto& layout : packed.layouts) total += layout.second->size();
  }
  return total;
}

std::vector<PackedCopy> PackedWeightsCache::copies() const {
  std::vector<PackedCopy> copies;
  for (const Packed& packed : inputs_) {
    for (const auto& [desc, bytes] : packed.layouts) {
      copies.push_back(PackedCopy{packed.input, packed.shape, desc_bytes(packed.user),
                                  desc_bytes(desc), bytes->shared(), bytes->size()});
    }
  }
  return copies;
}

size_t PackedWeightsCache::copy_count() const {
  size_t count = 0;
  for (const Packed& packed : inputs_) count += packed.layouts.size();
  return count;
}

std::shared_ptr<AlignedBytes> packed_weights(PrepareContext& ctx, size_t input,
                                             const dnnl::memory::desc& user,
                                             const dnnl::memory::desc& wanted) {
  const ValueFacts& facts = ctx.input(input);
  if (facts.value == nullptr || facts.dtype != DataType::kFloat32) {
    ctx.node().fail(ErrorCode::kRuntime, "input {} is not a constant float tensor", input);
  }
  std::shared_ptr<KernelState>& cache = ctx.node_cache();
  if (!cache) cache = std::make_shared<PackedWeightsCache>();
  auto* weights = dynamic_cast<PackedWeightsCache*>(cache.get());
  if (weights == nullptr) ctx.node().fail(ErrorCode::kRuntime, "node cache holds another kind");
  std::shared_ptr<AlignedBytes> packed = weights->get(input, *facts.value, user, wanted);
  if (reversible(wanted)) ctx.set_prepacked(input);
  return packed;
}

}  // namespace inferlab::kernels::dnnl_backend
