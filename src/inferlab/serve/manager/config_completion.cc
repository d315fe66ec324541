#include "inferlab/serve/manager/config_completion.h"

#include <algorithm>

#include "inferlab/core/error.h"

namespace inferlab::serve {

config::DataType config_data_type(DataType dtype) {
  switch (dtype) {
    case DataType::kBool:
      return config::TYPE_BOOL;
    case DataType::kUint8:
      return config::TYPE_UINT8;
    case DataType::kUint16:
      return config::TYPE_UINT16;
    case DataType::kUint32:
      return config::TYPE_UINT32;
    case DataType::kUint64:
      return config::TYPE_UINT64;
    case DataType::kInt8:
      return config::TYPE_INT8;
    case DataType::kInt16:
      return config::TYPE_INT16;
    case DataType::kInt32:
      return config::TYPE_INT32;
    case DataType::kInt64:
      return config::TYPE_INT64;
    case DataType::kFloat16:
      return config::TYPE_FP16;
    case DataType::kFloat32:
      return config::TYPE_FP32;
    case DataType::kFloat64:
      return config::TYPE_FP64;
    case DataType::kBFloat16:
      return config::TYPE_BF16;
    case DataType::kString:
      return config::TYPE_STRING;
    case DataType::kUndefined:
      break;
  }
  return config::TYPE_INVALID;
}

namespace {

// The model's dims as the config writes them: -1 for any size, and without
// the batch dimension when the model batches (max_batch_size > 0).
std::vector<int64_t> config_dims(const model::ValueInfo& info, int32_t max_batch_size,
                                 const std::string& source) {
  std::vector<int64_t> dims;
  for (const model::Dim& dim : info.dims) dims.push_back(dim.is_static() ? dim.value : -1);
  if (max_batch_size > 0) {
    if (dims.empty() || (dims[0] != -1 && dims[0] < max_batch_size)) {
      fail(ErrorCode::kInvalidArgument,
           "{}: max_batch_size is {}, but the model's '{}' is {}: batching needs a first "
           "dimension of any size",
           source, max_batch_size, info.name, info.to_string());
    }
    dims.erase(dims.begin());
  }
  return dims;
}

template <typename ConfigTensor>
void check_against_model(const ConfigTensor& given, const model::ValueInfo& info,
                         const std::vector<int64_t>& model_dims, const std::string& field,
                         const std::string& source) {
  if (given.data_type() != config_data_type(info.dtype)) {
    fail(ErrorCode::kInvalidArgument, "{}: {} '{}': data_type {} but the model has {}", source,
         field, given.name(), config::DataType_Name(given.data_type()),
         config::DataType_Name(config_data_type(info.dtype)));
  }
  if (given.dims_size() == 0) return;  // dims left for the model to fill
  bool compatible = static_cast<size_t>(given.dims_size()) == model_dims.size();
  for (size_t i = 0; compatible && i < model_dims.size(); ++i) {
    const int64_t want = given.dims(static_cast<int>(i));
    compatible = want == -1 || model_dims[i] == -1 || want == model_dims[i];
  }
  if (!compatible) {
    fail(ErrorCode::kInvalidArgument, "{}: {} '{}': dims do not match the model's {}", source,
         field, given.name(), info.to_string());
  }
}

// Completes the config's inputs (or outputs) from the model's.
template <typename ConfigTensors>
void complete_tensors(ConfigTensors& tensors, const std::vector<model::ValueInfo>& model_tensors,
                      int32_t max_batch_size, const std::string& field, const std::string& source) {
  for (const auto& given : tensors) {
    auto found =
        std::find_if(model_tensors.begin(), model_tensors.end(),
                     [&](const model::ValueInfo& info) { return info.name == given.name(); });
    if (found == model_tensors.end()) {
      fail(ErrorCode::kInvalidArgument, "{}: {} '{}' is not one of the model's", source, field,
           given.name());
    }
  }
  for (const model::ValueInfo& info : model_tensors) {
    const std::vector<int64_t> dims = config_dims(info, max_batch_size, source);
    auto found = std::find_if(tensors.begin(), tensors.end(),
                              [&](const auto& given) { return given.name() == info.name; });
    if (found != tensors.end()) {
      check_against_model(*found, info, dims, field, source);
      if (found->dims_size() == 0) *found->mutable_dims() = {dims.begin(), dims.end()};
      continue;
    }
    auto* added = tensors.Add();
    added->set_name(info.name);
    added->set_data_type(config_data_type(info.dtype));
    *added->mutable_dims() = {dims.begin(), dims.end()};
  }
}

}  // namespace

config::ModelConfig complete_model_config(config::ModelConfig given, const ModelFacts& model,
                                          const std::string& source) {
  given.set_backend(model.backend);
  given.clear_platform();
  complete_tensors(*given.mutable_input(), model.inputs, given.max_batch_size(), "input", source);
  complete_tensors(*given.mutable_output(), model.outputs, given.max_batch_size(), "output",
                   source);
  if (given.instance_group_size() == 0) given.add_instance_group()->set_count(1);
  for (int i = 0; i < given.instance_group_size(); ++i) {
    config::ModelInstanceGroup* group = given.mutable_instance_group(i);
    if (group->name().empty()) group->set_name(given.name() + "_" + std::to_string(i));
    if (group->count() == 0) group->set_count(1);
    group->set_kind(config::ModelInstanceGroup::KIND_CPU);
  }
  if (!given.has_version_policy())
    given.mutable_version_policy()->mutable_latest()->set_num_versions(1);
  return given;
}

int instance_count_of(const config::ModelConfig& config) {
  int count = 0;
  for (const config::ModelInstanceGroup& group : config.instance_group()) {
    count += std::max(group.count(), 1);
  }
  return std::max(count, 1);
}

namespace {

QueuePolicy queue_policy_of(const config::ModelQueuePolicy& policy, size_t default_max) {
  QueuePolicy result;
  result.max_queue_size = policy.max_queue_size() > 0 ? policy.max_queue_size() : default_max;
  result.default_timeout_us = static_cast<int64_t>(policy.default_timeout_microseconds());
  result.allow_timeout_override = policy.allow_timeout_override();
  result.delay_on_timeout = policy.timeout_action() == config::ModelQueuePolicy::DELAY;
  return result;
}

}  // namespace

QueueConfig queue_config_of(const config::ModelConfig& config, size_t default_max_queue_size,
                            const std::string& source) {
  QueueConfig queue;
  queue.levels.assign(1, QueuePolicy{default_max_queue_size, 0, true, false});
  if (!config.has_dynamic_batching()) return queue;
  const config::ModelDynamicBatching& batching = config.dynamic_batching();
  if (batching.preferred_batch_size_size() > 0 || batching.max_queue_delay_microseconds() > 0 ||
      batching.preserve_ordering()) {
    fail(ErrorCode::kUnsupported,
         "{}: dynamic_batching: preferred_batch_size, max_queue_delay_microseconds and "
         "preserve_ordering need the dynamic batcher, which InferLab's server does not have yet "
         "(its queue policy fields are supported: docs/serve.md)",
         source);
  }
  const size_t levels = std::max<uint64_t>(batching.priority_levels(), 1);
  const QueuePolicy fallback =
      queue_policy_of(batching.default_queue_policy(), default_max_queue_size);
  queue.levels.assign(levels, fallback);
  for (const auto& [level, policy] : batching.priority_queue_policy()) {
    queue.levels.at(level - 1) = queue_policy_of(policy, default_max_queue_size);
  }
  queue.default_level =
      batching.default_priority_level() > 0 ? batching.default_priority_level() - 1 : 0;
  return queue;
}

}  // namespace inferlab::serve
