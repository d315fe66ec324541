// Prepacked weights: once every node that reads an initializer (a weight) at
// run time holds a prepacked copy of its own in its node cache, the original
// is released, so a session holds its weights once, not twice. The slot keeps
// a stand-in (type and shape, no data); the Session drops its own references
// through the constant listener. Whenever something needs the original again
// (a run without a plan, or a plan whose kernel declined or reads the input
// itself), it is rebuilt bit for bit from a reader's copy
// (kernels::PackedConstants::unpack) before that run.
#include <fmt/format.h>

#include "inferlab/runtime/executor.h"
#include "inferlab/runtime/executor_internal.h"

namespace inferlab::runtime {
namespace {

kernels::PackedConstants* packed_constants(const std::shared_ptr<kernels::KernelState>& cache) {
  return dynamic_cast<kernels::PackedConstants*>(cache.get());
}

}  // namespace

void GraphExecutor::index_constant_readers() {
  constant_readers_.assign(values_.size(), {});
  released_.assign(values_.size(), false);
  is_initializer_.assign(values_.size(), false);
  for (const auto& [name, tensor] : graph_.initializers) {
    const int slot = slot_of_.at(name);
    is_initializer_[slot] = is_constant_[slot];  // not when a graph input shadows it
    // Saved released in a plan file: its readers' restored caches hold it.
    released_[slot] = is_initializer_[slot] && !tensor.has_data() && tensor.numel() > 0 &&
                      tensor.dtype() != DataType::kString;
  }
  for (const auto& node : nodes_) {
    for (size_t i = 0; i < node->input_slots.size(); ++i) {
      const int slot = node->input_slots[i];
      if (slot >= 0 && is_constant_[slot]) {
        constant_readers_[slot].push_back({node.get(), static_cast<int>(i)});
      }
    }
    for (const auto& [key, subgraph] : node->subgraphs) {
      for (int slot : subgraph.outer_slots) {
        if (is_constant_[slot]) constant_readers_[slot].push_back({node.get(), -1});
      }
    }
  }
}

void GraphExecutor::set_constant_listener(ConstantListener listener) {
  constant_listener_ = std::move(listener);
}

// After node `compiled` was prepared for a plan: which constant inputs that
// plan reads packed, the originals it needs back, the ones now releasable.
void GraphExecutor::settle_constants(CompiledNode& compiled, const kernels::PrepareContext& context,
                                     bool has_state) {
  const bool holds_copies = has_state && packed_constants(compiled.node_cache) != nullptr;
  if (compiled.reads_packed.empty())
    compiled.reads_packed.assign(compiled.input_slots.size(), true);
  for (size_t i = 0; i < compiled.input_slots.size(); ++i) {
    const int slot = compiled.input_slots[i];
    const bool packed = holds_copies && context.prepacked(i);
    // Rebuilt while every reader, this one included, still counts as holding a copy.
    if (slot >= 0 && released_[slot] && !packed) restore_constant(slot);
    compiled.reads_packed[i] = compiled.reads_packed[i] && packed;
  }
  for (int slot : compiled.input_slots) {
    if (slot >= 0 && releasable(slot)) release_constant(slot);
  }
}

bool GraphExecutor::releasable(int slot) const {
  // A Constant node's output shares its memory with the node's attribute.
  if (keep_constants_ || released_[slot] || !is_initializer_[slot]) return false;
  if (output_position_of_slot_[slot] >= 0) return false;  // handed to the caller
  const Tensor& value = values_[slot];
  if (!value.has_data() || value.dtype() == DataType::kString) return false;
  const std::vector<ConstantReader>& readers = constant_readers_[slot];
  if (readers.empty()) return false;
  for (const ConstantReader& reader : readers) {
    const std::vector<bool>& packed = reader.node->reads_packed;
    if (reader.input < 0 || packed.empty() || !packed[static_cast<size_t>(reader.input)]) {
      return false;
    }
  }
  return true;
}

void GraphExecutor::release_constant(int slot) {
  const Tensor& value = values_[slot];
  set_constant(slot, Tensor::shape_only(value.dtype(), value.shape()));
  released_[slot] = true;
}

Tensor GraphExecutor::rebuild_constant(int slot) const {
  for (const ConstantReader& reader : constant_readers_[slot]) {
    if (reader.input < 0) continue;
    const auto input = static_cast<size_t>(reader.input);
    const kernels::PackedConstants* cache = packed_constants(reader.node->node_cache);
    if (cache != nullptr && cache->holds(input)) return cache->unpack(input);
  }
  fail(ErrorCode::kRuntime, "{}: weight '{}' was released and no node can rebuild it",
       options_.source, slot_names_[slot]);
}

void GraphExecutor::restore_constant(int slot) {
  set_constant(slot, rebuild_constant(slot));
  released_[slot] = false;
}

std::vector<std::pair<std::string, Tensor>> GraphExecutor::rebuilt_constants() const {
  const std::lock_guard<std::mutex> lock(node_caches_->mutex);
  std::vector<std::pair<std::string, Tensor>> rebuilt;
  for (size_t slot = 0; slot < released_.size(); ++slot) {
    if (released_[slot]) {
      rebuilt.emplace_back(slot_names_[slot], rebuild_constant(static_cast<int>(slot)));
    }
  }
  return rebuilt;
}

void GraphExecutor::keep_constants() {
  keep_constants_ = true;
  for (size_t slot = 0; slot < released_.size(); ++slot) {
    if (released_[slot]) restore_constant(static_cast<int>(slot));
  }
}

void GraphExecutor::set_constant(int slot, Tensor value) {
  values_[slot] = std::move(value);
  // Rebuilt rather than patched: two constants may share memory.
  constant_data_.clear();
  for (size_t s = 0; s < values_.size(); ++s) {
    if (is_constant_[s] && values_[s].has_data()) constant_data_.insert(values_[s].raw_data());
  }
  if (constant_listener_) constant_listener_(slot_names_[slot], values_[slot]);
}

WeightMemory GraphExecutor::weight_memory() const {
  const std::lock_guard<std::mutex> lock(node_caches_->mutex);
  WeightMemory memory;
  memory.packed_here = packed_here_;
  for (size_t slot = 0; slot < values_.size(); ++slot) {
    if (!is_initializer_[slot] || values_[slot].empty()) continue;
    const auto bytes = static_cast<int64_t>(values_[slot].nbytes());
    if (released_[slot]) {
      ++memory.released_count;
      memory.released_bytes += bytes;
    } else {
      ++memory.resident_count;
      memory.resident_bytes += bytes;
    }
  }
  for (const auto& node : nodes_) {
    if (const kernels::PackedConstants* cache = packed_constants(node->node_cache)) {
      memory.packed_bytes += static_cast<int64_t>(cache->packed_bytes());
      memory.packed_copies += static_cast<int64_t>(cache->copy_count());
    }
  }
  return memory;
}

GraphExecutor::PackedCopies GraphExecutor::packed_copies() const {
  const std::lock_guard<std::mutex> lock(node_caches_->mutex);
  PackedCopies copies;
  for (size_t node = 0; node < nodes_.size(); ++node) {
    if (const kernels::PackedConstants* cache = packed_constants(nodes_[node]->node_cache)) {
      copies.emplace_back(node, cache->copies());
    }
  }
  return copies;
}

void GraphExecutor::restore_node_cache(size_t node, std::shared_ptr<kernels::KernelState> cache) {
  if (node >= nodes_.size()) {
    fail(ErrorCode::kInvalidModel, "{}: packed weights for node {}, the graph has {}",
         options_.source, node, nodes_.size());
  }
  const std::lock_guard<std::mutex> lock(node_caches_->mutex);
  nodes_[node]->node_cache = std::move(cache);
}

// Reorders the node caches have made so far (all their users together).
int64_t GraphExecutor::caches_packed_here() const {
  int64_t packed = 0;
  for (const auto& node : nodes_) {
    if (const kernels::PackedConstants* cache = packed_constants(node->node_cache))
      packed += cache->packed_here();
  }
  return packed;
}

std::map<std::string, int64_t> GraphExecutor::kernel_libraries() const {
  std::map<std::string, int64_t> libraries;
  for (const auto& node : nodes_) {
    if (!node->folded) ++libraries[node->kernel.library];
  }
  return libraries;
}

}  // namespace inferlab::runtime
