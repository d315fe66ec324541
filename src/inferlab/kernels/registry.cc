#include "inferlab/kernels/registry.h"

#include "inferlab/kernels/cpu/fast_kernels.h"
#include "inferlab/kernels/dnnl/dnnl_kernels.h"
#include "inferlab/kernels/fused/conv_fusion_kernels.h"
#include "inferlab/kernels/fused/transformer_kernels.h"
#include "inferlab/kernels/layout/channels_last.h"
#include "inferlab/kernels/reference/control_flow_ops.h"
#include "inferlab/kernels/reference/elementwise_ops.h"
#include "inferlab/kernels/reference/nn_ops.h"
#include "inferlab/kernels/reference/rnn_ops.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels {

namespace {

std::string kernel_key(const std::string& domain, const std::string& op_type) {
  return domain.empty() || domain == "ai.onnx" ? op_type : domain + "::" + op_type;
}

}  // namespace

void OpRegistry::add(OpKernel kernel) {
  std::string key = kernel_key(kernel.domain, kernel.op_type);
  kernels_[key] = std::move(kernel);
}

const OpKernel* OpRegistry::find(const std::string& domain, const std::string& op_type,
                                 int64_t opset) const {
  auto it = kernels_.find(kernel_key(domain, op_type));
  if (it == kernels_.end()) return nullptr;
  if (opset < it->second.min_opset || opset > it->second.max_opset) return nullptr;
  return &it->second;
}

const OpKernel* OpRegistry::find_any(const std::string& domain, const std::string& op_type) const {
  auto it = kernels_.find(kernel_key(domain, op_type));
  return it == kernels_.end() ? nullptr : &it->second;
}

std::vector<std::string> OpRegistry::op_types() const {
  std::vector<std::string> names;
  for (const auto& [name, kernel] : kernels_) names.push_back(name);
  return names;
}

const OpRegistry& OpRegistry::reference() {
  static const OpRegistry registry = [] {
    OpRegistry built;
    reference::register_elementwise_ops(built);
    reference::register_nn_ops(built);
    reference::register_rnn_ops(built);
    reference::register_tensor_ops(built);
    reference::register_control_flow_ops(built);
    fused::register_conv_fusion_kernels(built);
    fused::register_transformer_kernels(built);
    layout::register_channels_last_kernels(built);
    return built;
  }();
  return registry;
}

const OpRegistry& OpRegistry::for_isa(cpu::Isa isa) {
  // One lazily built registry per ISA; static locals make the first build thread-safe.
  auto build = [](cpu::Isa chosen) {
    OpRegistry built = reference();
    OpRegistry on_dnnl;
    dnnl_backend::add_dnnl_kernels(on_dnnl, chosen);
    for (auto& [key, kernel] : on_dnnl.kernels_) {
      kernel.library = "oneDNN";
      built.add(std::move(kernel));
    }
    cpu::add_fast_kernels(built, chosen);
    return built;
  };
  switch (isa) {
    case cpu::Isa::kAvx512: {
      static const OpRegistry registry = build(cpu::Isa::kAvx512);
      return registry;
    }
    case cpu::Isa::kAvx2: {
      static const OpRegistry registry = build(cpu::Isa::kAvx2);
      return registry;
    }
    case cpu::Isa::kPortable:
      break;
  }
  static const OpRegistry registry = build(cpu::Isa::kPortable);
  return registry;
}

}  // namespace inferlab::kernels
