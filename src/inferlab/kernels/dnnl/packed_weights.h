// Weights prepacked for oneDNN, per node: reordered once into the layout a
// primitive asked for (format_tag::any), shared by every plan of the session,
// saved into plan files and restored from them without a reorder.
#pragma once

#include <memory>
#include <vector>

#include <oneapi/dnnl/dnnl.hpp>

#include "inferlab/kernels/dnnl/dnnl_call.h"
#include "inferlab/kernels/kernel.h"

namespace inferlab::kernels::dnnl_backend {

// A node's constant inputs prepacked per layout oneDNN asked for (plans of
// different input shapes may ask for different ones); kept in the node's
// cache (PrepareContext::node_cache), so every plan of a session shares them.
// The first plain or blocked layout of each input also stands for the
// original, which the runtime may release: unpack() reorders it back to the
// plain layout (a permutation of the same floats, so bit for bit). A
// Winograd layout (transformed values) stands for nothing.
class PackedWeightsCache : public PackedConstants {
 public:
  PackedWeightsCache() = default;
  // Copies kept by a plan file (PackedConstants::copies of an earlier
  // session of the same build). Throws Error(kInvalidModel) when a layout
  // description is not one of this build's.
  explicit PackedWeightsCache(const std::vector<PackedCopy>& copies);

  // Input `input` (`value`, its bytes described by `user`) in layout
  // `wanted`, reordered on the first request: from `value`, or from a
  // layout that reorders back when `value` is a stand-in without data.
  std::shared_ptr<AlignedBytes> get(size_t input, const Tensor& value,
                                    const dnnl::memory::desc& user,
                                    const dnnl::memory::desc& wanted);
  Tensor unpack(size_t index) const override;
  bool holds(size_t index) const override;
  size_t packed_bytes() const override;
  int64_t packed_here() const override { return packed_here_; }
  std::vector<PackedCopy> copies() const override;
  size_t copy_count() const override;

 private:
  using Layout = std::pair<dnnl::memory::desc, std::shared_ptr<AlignedBytes>>;
  struct Packed {
    size_t input = 0;
    Shape shape;              // of the original (float32)
    dnnl::memory::desc user;  // the original's bytes, as first described
    std::vector<Layout> layouts;
  };
  Packed* find(size_t input);
  const Packed* find(size_t input) const;
  // The first layout of `packed` that reorders back to the original.
  static const Layout* reversible_layout(const Packed& packed);

  std::vector<Packed> inputs_;
  int64_t packed_here_ = 0;
};

// Constant float input `input` of the node (its bytes described by `user`)
// prepacked as `wanted`, from the node's cache (created on first use; a
// PackedConstants, so the runtime may release the original: a later call may
// get a stand-in without data, and packs from the copy it holds). Declares
// the input prepacked (PrepareContext::set_prepacked) when `wanted` reorders
// back to the original (not a Winograd layout, which keeps the original in
// place): the state must bind the returned copy and never read the input.
std::shared_ptr<AlignedBytes> packed_weights(PrepareContext& ctx, size_t input,
                                             const dnnl::memory::desc& user,
                                             const dnnl::memory::desc& wanted);

}  // namespace inferlab::kernels::dnnl_backend
