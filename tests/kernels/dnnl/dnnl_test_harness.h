// The harness of the oneDNN kernel tests: one node run through the same
// calls a run plan makes — infer, prepare with the plan's shapes and the
// constant inputs' values, then compute with the state twice (a second call
// with the same state and scratch) — on the registry sessions use, or on
// the reference registry without a plan; and the check that a node cache's
// packed copy stands for the weights.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <cstdlib>
#include <memory>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

#include "inferlab/kernels/registry.h"
#include "test_util.h"

namespace inferlab::kernels::dnnl_testing {

using Inputs = std::vector<std::optional<Tensor>>;

struct Case {
  std::string domain;
  std::string op;
  model::AttributeMap attributes;
  Inputs inputs;
  std::vector<size_t> constants = {1, 2};  // inputs known at prepare (weights, bias)
};

// What sessions execute with on this CPU; INFERLAB_TEST_MAX_ISA (avx2,
// portable) lowers it for the ctest entries that run these tests at a
// lower ISA.
inline cpu::Isa fast_isa() {
  const char* limit = std::getenv("INFERLAB_TEST_MAX_ISA");
  const cpu::Isa max_isa = limit != nullptr ? cpu::parse_isa(limit) : cpu::Isa::kAvx512;
  return cpu::effective_isa(max_isa);
}
inline const OpRegistry& fast_registry() { return OpRegistry::for_isa(fast_isa()); }

struct Outcome {
  Tensor output;
  bool prepared = false;
  bool prepacked = false;      // input 1 declared prepacked (PrepareContext::set_prepacked)
  std::string implementation;  // KernelState::implementation of the prepared state
};

// `node_cache`: the node's cache to prepare with (a fresh one when null).
// `weights_released`: constant input 1 is a stand-in without data, as after
// the runtime released it, both for prepare and for compute.
inline Outcome run(const OpRegistry& registry, const Case& c, bool plan,
                   std::shared_ptr<KernelState>* node_cache = nullptr,
                   bool weights_released = false) {
  const int64_t opset = c.domain.empty() ? 17 : 1;
  const OpKernel* kernel = registry.find(c.domain, c.op, opset);
  if (kernel == nullptr) throw std::runtime_error("no kernel " + c.op);
  const std::string name = "node";
  const NodeInfo node(name, c.op, opset, c.attributes);
  std::vector<ValueFacts> facts;
  std::vector<const Tensor*> pointers;
  std::vector<Tensor> stand_ins(c.inputs.size());
  for (size_t i = 0; i < c.inputs.size(); ++i) {
    const auto& input = c.inputs[i];
    const bool constant = std::find(c.constants.begin(), c.constants.end(), i) != c.constants.end();
    const Tensor* given = input ? &*input : nullptr;
    if (input && constant && weights_released && i == 1) {
      stand_ins[i] = Tensor::shape_only(input->dtype(), input->shape());
      given = &stand_ins[i];
    }
    facts.push_back(input ? ValueFacts{input->dtype(), input->shape(), constant ? given : nullptr}
                          : ValueFacts{});
    pointers.push_back(given);
  }
  InferContext infer(node, facts, 1);
  kernel->infer(infer);
  const ValueFacts output_facts{infer.outputs()[0]->first, *infer.outputs()[0]->second, nullptr};
  Outcome outcome;
  std::shared_ptr<KernelState> own_cache;
  std::shared_ptr<KernelState>& cache = node_cache != nullptr ? *node_cache : own_cache;
  std::unique_ptr<KernelState> state;
  if (plan && kernel->prepare) {
    PrepareContext prepare(node, facts, {output_facts}, cache);
    state = kernel->prepare(prepare);
    outcome.prepacked = prepare.prepacked(1);
  }
  outcome.prepared = state != nullptr;
  if (state) outcome.implementation = state->implementation();
  std::vector<Tensor> outputs(1);
  ScratchBuffer scratch;
  KernelContext context(node, pointers, outputs);
  context.set_scratch(&scratch);
  context.set_state(state.get());
  for (int call = 0; call < 2; ++call) kernel->compute(context);
  EXPECT_EQ(output_facts.shape, outputs[0].shape()) << c.op;
  outcome.output = outputs[0];
  return outcome;
}

inline void expect_matches_reference(const Case& c, const std::string& label) {
  const Outcome fast = run(fast_registry(), c, true);
  const Outcome reference = run(OpRegistry::reference(), c, false);
  EXPECT_TRUE(fast.prepared) << label << ": oneDNN did not take it";
  EXPECT_LE(inferlab::testing::relative_error(fast.output, reference.output), 1e-5) << label;
}

inline bool is_winograd(const Outcome& outcome) {
  return outcome.implementation.find("wino") != std::string::npos;
}

// The node cache's copy of a packed weight unpacks to the weight bit for
// bit, and a later prepare that sees only a stand-in for the weight (the
// runtime released it) computes the same bits from that copy.
inline void expect_copy_stands_for_the_weights(const Case& c, const std::string& label) {
  std::shared_ptr<KernelState> cache;
  const Outcome first = run(fast_registry(), c, true, &cache);
  ASSERT_TRUE(first.prepared) << label;
  const auto* packed = dynamic_cast<const PackedConstants*>(cache.get());
  ASSERT_NE(packed, nullptr) << label;
  if (is_winograd(first)) {
    // Winograd weights are transformed values: the original stays in place.
    EXPECT_FALSE(first.prepacked) << label;
    EXPECT_FALSE(packed->holds(1)) << label;
    return;
  }
  EXPECT_TRUE(first.prepacked) << label;
  EXPECT_TRUE(packed->unpack(1).equals(*c.inputs[1])) << label;
  EXPECT_GE(packed->packed_bytes(), c.inputs[1]->nbytes()) << label;
  const Outcome released = run(fast_registry(), c, true, &cache, true);
  EXPECT_TRUE(released.prepared && released.prepacked) << label;
  EXPECT_TRUE(released.output.equals(first.output)) << label;
}
}  // namespace inferlab::kernels::dnnl_testing
