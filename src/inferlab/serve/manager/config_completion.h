// A served model's config, completed from the opened model as Triton's
// auto-complete does: inputs, outputs, instance group, version policy and
// backend filled in where the config leaves them out; what the config does
// give is checked against the model, and an error names the file and the
// field. Also the scheduler's queue settings read from the config.
#pragma once

#include <string>
#include <vector>

#include "inferlab/model/graph.h"
#include "inferlab/serve/repository/model_config.pb.h"
#include "inferlab/serve/scheduler/request_queue.h"

namespace inferlab::serve {

struct ModelFacts {
  std::string backend;  // InferLab's backend name
  std::vector<model::ValueInfo> inputs;
  std::vector<model::ValueInfo> outputs;
};

// `source` names the config file (or the model folder when it has none).
config::ModelConfig complete_model_config(config::ModelConfig given, const ModelFacts& model,
                                          const std::string& source);

// The queue of a model: its priority levels and policies. A level whose
// max_queue_size is 0 (Triton: unbounded) gets `default_max_queue_size`: the
// server always bounds its queues. Without a dynamic_batching section,
// requests may set their own timeout (Triton's allow_timeout_override).
// Dynamic batching itself (preferred_batch_size, max_queue_delay_microseconds)
// is refused as unsupported, naming the field.
QueueConfig queue_config_of(const config::ModelConfig& config, size_t default_max_queue_size,
                            const std::string& source);

// Total instances of the instance groups (1 when there are none).
int instance_count_of(const config::ModelConfig& config);

config::DataType config_data_type(DataType dtype);

}  // namespace inferlab::serve
