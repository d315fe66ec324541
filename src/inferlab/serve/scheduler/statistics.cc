#include "inferlab/serve/scheduler/statistics.h"

namespace inferlab::serve {

namespace {

nlohmann::json duration_json(const StatDuration& duration) {
  return {{"count", duration.count}, {"ns", duration.ns}};
}

}  // namespace

nlohmann::json inference_stats_json(const InferenceStatistics& statistics) {
  return {
      {"success", duration_json(statistics.success)},
      {"fail", duration_json(statistics.fail)},
      {"queue", duration_json(statistics.queue)},
      {"compute_input", duration_json(statistics.compute_input)},
      {"compute_infer", duration_json(statistics.compute_infer)},
      {"compute_output", duration_json(statistics.compute_output)},
      // InferLab has no response cache: always zero, present for clients that read them.
      {"cache_hit", duration_json({})},
      {"cache_miss", duration_json({})},
  };
}

}  // namespace inferlab::serve
