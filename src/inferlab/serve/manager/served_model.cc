#include "inferlab/serve/manager/served_model.h"

#include <chrono>

#include <fmt/format.h>

#include "inferlab/serve/manager/config_completion.h"

namespace inferlab::serve {

namespace {

int64_t since_ns(Clock::time_point start) {
  return std::chrono::duration_cast<std::chrono::nanoseconds>(Clock::now() - start).count();
}

// Parameters "threads" (per instance), "opt_level", "inter_op_threads" and
// "plan_cache_dir" are BackendOptions; every other one is a backend
// setting (BackendOptions::settings), refused by the backend when unknown.
backends::BackendOptions options_from_parameters(const config::ModelConfig& config,
                                                 int& threads_per_instance,
                                                 const std::string& source) {
  backends::BackendOptions options;
  auto as_int = [&](const std::string& key, const std::string& value) {
    size_t used = 0;
    int parsed = -1;
    try {
      parsed = std::stoi(value, &used);
    } catch (const std::exception&) {
    }
    if (used != value.size() || parsed < 0) {
      fail(ErrorCode::kInvalidArgument, "{}: parameters: '{}' is '{}', not a count", source, key,
           value);
    }
    return parsed;
  };
  for (const auto& [key, parameter] : config.parameters()) {
    const std::string& value = parameter.string_value();
    if (key == "threads") {
      threads_per_instance = as_int(key, value);
    } else if (key == "opt_level") {
      options.opt_level = as_int(key, value);
    } else if (key == "inter_op_threads") {
      options.inter_op_threads = as_int(key, value);
    } else if (key == "plan_cache_dir") {
      options.plan_cache_dir = value;
    } else {
      options.settings[key] = value;
    }
  }
  return options;
}

}  // namespace

std::string default_backend_for(const backends::ModelSource& source) {
  if (!source.onnx_path.empty()) return "native";
  if (!source.torchscript_path.empty()) return "libtorch";
  return "python";
}

std::shared_ptr<ServedModel> ServedModel::load(backends::BackendRegistry& registry,
                                               const RepositoryModel& model,
                                               const ModelVersion& version,
                                               const LoadDefaults& defaults, ServerLog& log) {
  std::shared_ptr<ServedModel> served(new ServedModel());
  served->name_ = model.name;
  served->version_ = version.version;
  served->label_ = fmt::format("model '{}' version {}", model.name, version.version);
  served->defaults_ = defaults;
  served->log_ = &log;
  const std::string source_name =
      model.config.path.empty() ? model.dir.string() : model.config.path.string();
  try {
    served->source_ = backends::ModelSource::resolve(version.source.string());
    std::string backend_name = backend_of(model.config.config, source_name);
    if (backend_name.empty()) backend_name = default_backend_for(served->source_);
    served->backend_ = registry.get(backend_name);
    int threads = 0;
    const backends::BackendOptions options =
        options_from_parameters(model.config.config, threads, source_name);
    const QueueConfig queue =
        queue_config_of(model.config.config, defaults.max_queue_size, source_name);
    const int count = instance_count_of(model.config.config);
    served->instances_ =
        backends::InstanceSet::open(*served->backend_, served->source_, options, count, threads);
    served->shared_instances_ = served->instances_.distinct_models() == 1 && count > 1;
    const int threads_used = count * served->instances_.threads_per_instance();
    const int cores = static_cast<int>(std::max(1u, std::thread::hardware_concurrency()));
    if (threads_used > cores) {
      log.warning(fmt::format(
          "{}: {} instance(s) x {} thread(s) = {} threads on {} cores: they "
          "will compete for the cores",
          served->label_, count, served->instances_.threads_per_instance(), threads_used, cores));
    }
    const backends::Model& first = served->instances_.model(0);
    served->inputs_ = first.inputs();
    served->outputs_ = first.outputs();
    served->config_ = complete_model_config(
        model.config.config, {backend_name, served->inputs_, served->outputs_}, source_name);
    served->platform_ = backend_name;
    log.verbose(1, fmt::format("{}: {} on {}: {}", served->label_, served->source_.name,
                               backend_name, first.configuration().dump()));
    served->instance_mutexes_ = std::make_unique<std::mutex[]>(static_cast<size_t>(count));
    served->instance_down_.assign(static_cast<size_t>(count), 0);
    ServedModel* self = served.get();
    served->scheduler_ = std::make_unique<Scheduler>(
        served->label_, queue, count,
        [self](int instance, Job& job, JobResult& result) { self->run_job(instance, job, result); },
        defaults.inline_below);
  } catch (const Error& error) {
    fail(error.code(), "{}: {}", served->label_, error.what());
  }
  return served;
}

ServedModel::~ServedModel() {
  retire();
  if (scheduler_) scheduler_->join();
  std::vector<std::thread> restarts;
  {
    std::lock_guard lock(restart_mutex_);
    restarts.swap(restart_threads_);
  }
  for (std::thread& thread : restarts) thread.join();
}

const std::string& ServedModel::platform() const { return platform_; }

void ServedModel::retire() {
  {
    std::lock_guard lock(restart_mutex_);
    retired_ = true;
  }
  retired_wake_.notify_all();
  if (scheduler_) scheduler_->close();
}

void ServedModel::run_job(int instance, Job& job, JobResult& result) {
  std::lock_guard lock(instance_mutexes_[static_cast<size_t>(instance)]);
  if (instance_down_[static_cast<size_t>(instance)]) {
    fail(ErrorCode::kUnavailable, "{}: instance {} is restarting its worker", label_, instance);
  }
  backends::Model& model = instances_.model(instance);
  Clock::time_point start = Clock::now();
  try {
    if (shared_instances_) {
      backends::check_inputs(platform_, inputs_, job.inputs);
      result.timings.compute_input_ns = since_ns(start);
      start = Clock::now();
      result.outputs = model.run(job.inputs);
      result.timings.compute_infer_ns = since_ns(start);
      return;
    }
    model.bind(job.inputs);
    result.timings.compute_input_ns = since_ns(start);
    start = Clock::now();
    model.execute();
    result.timings.compute_infer_ns = since_ns(start);
    start = Clock::now();
    result.outputs = model.fetch();
    result.timings.compute_output_ns = since_ns(start);
  } catch (const Error& error) {
    if (error.code() == ErrorCode::kUnavailable && model.capabilities().out_of_process) {
      instance_down_[static_cast<size_t>(instance)] = 1;
      ++instances_down_;
      worker_died(instance, error);
      fail(ErrorCode::kUnavailable, "{}: {} (restarting the worker)", label_, error.what());
    }
    throw;
  }
}

void ServedModel::worker_died(int instance, const Error& error) {
  log_->error(fmt::format("{}: instance {}: {}; restarting it", label_, instance, error.what()));
  std::lock_guard lock(restart_mutex_);
  restart_threads_.emplace_back([this, instance] {
    std::chrono::milliseconds backoff = defaults_.restart_backoff_first;
    for (;;) {
      {
        std::unique_lock wait_lock(restart_mutex_);
        if (retired_wake_.wait_for(wait_lock, backoff, [this] { return retired_.load(); })) return;
      }
      try {
        std::unique_ptr<backends::Model> fresh = instances_.open_replacement(*backend_, source_);
        std::unique_ptr<backends::Model> old;
        {
          std::lock_guard instance_lock(instance_mutexes_[static_cast<size_t>(instance)]);
          old = instances_.replace(instance, std::move(fresh));
          instance_down_[static_cast<size_t>(instance)] = 0;
        }
        --instances_down_;
        log_->info(fmt::format("{}: instance {} is back", label_, instance));
        return;
      } catch (const Error& restart_error) {
        log_->error(fmt::format("{}: instance {}: restart failed: {}", label_, instance,
                                restart_error.what()));
      }
      backoff = std::min(backoff * 2, defaults_.restart_backoff_max);
    }
  });
}

}  // namespace inferlab::serve
