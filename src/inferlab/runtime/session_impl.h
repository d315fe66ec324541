// Session::Impl: what a Session holds, for the files that implement Session
// (session.cc: load, bind, run; session_streams.cc: streams and sharing).
#pragma once

#include <atomic>
#include <memory>
#include <vector>

#include "inferlab/runtime/executor.h"
#include "inferlab/runtime/input_check.h"
#include "inferlab/runtime/run_plan_cache.h"
#include "inferlab/runtime/session.h"
#include "inferlab/runtime/shape_inference.h"
#include "inferlab/runtime/shape_specialization.h"
#include "inferlab/runtime/stream_pool.h"

namespace inferlab::runtime {

struct Session::Impl {
  SessionOptions options;
  model::Model model;
  std::vector<model::ValueInfo> inputs;
  std::vector<model::ValueInfo> outputs;
  ShapeInferenceResult shapes;
  optimizer::OptimizationLog optimization_log;
  PlanCacheStatus plan_cache;
  // The graph, constants and node caches this session shares with its
  // streams and with other sessions of the same file.
  std::shared_ptr<SharedModel> shared;
  std::unique_ptr<GraphExecutor> executor;
  std::unique_ptr<RunPlanCache> plans;
  double last_plan_build_ms = 0;
  int64_t plans_built = 0;
  const RunPlan* last_plan = nullptr;
  std::atomic<int64_t> executions{0};

  // Throughput mode: the other streams (sessions of their own, in latency
  // mode) and who computes now; this session is stream 0.
  std::vector<Session> other_streams;
  std::unique_ptr<StreamPool> pool;
  int threads_per_run = 0;  // options.threads, or the stream's share

  // Inputs with dynamic dims: the sessions specialized to the shapes run
  // with (shape_specialization.h), and the one bind() chose.
  std::unique_ptr<ShapeSpecializations> specializations;
  bool bound_specialized = false;
  uint64_t bound_specialization_id = 0;  // the one bound now (0: none)
  TensorMap bound_requested_outputs;

  // bind() state: the inputs (held so run() can use them), the caller's
  // output tensors by graph-output position (empty where not bound).
  bool bound = false;
  TensorMap bound_inputs;
  MatchedInputs bound_matched;
  std::vector<Tensor> placed_outputs;
  TensorMap bound_outputs;
};

}  // namespace inferlab::runtime
