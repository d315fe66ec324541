// Session, the parts that share: throughput mode's streams (every stream a
// Session of its own on stream 0's SharedModel) and the sessions of one model
// file that SessionOptions::shared_models lends between (shared_model.h).
#include <algorithm>
#include <atomic>
#include <exception>
#include <filesystem>
#include <mutex>
#include <thread>

#include <fmt/format.h>

#include "inferlab/runtime/compute_threads.h"
#include "inferlab/runtime/session_impl.h"

namespace inferlab::runtime {

Session Session::with_streams(const SessionOptions& options, const LoadStream& load) {
  if (options.mode == ExecutionMode::kLatency) return load(options);
  if (options.streams < 0) {
    fail(ErrorCode::kInvalidArgument, "streams must be >= 0, got {}", options.streams);
  }
  const int threads = resolve_threads(options.threads);
  // A stream is a session of its own (weights, plans): more streams than
  // threads would hold more copies without computing more at once.
  if (options.streams > threads) {
    fail(
        ErrorCode::kInvalidArgument,
        "streams must be at most threads ({}), got {}: each stream computes on a thread of its own",
        threads, options.streams);
  }
  const int streams = options.streams > 0 ? options.streams : threads;
  SessionOptions stream_options = options;
  stream_options.mode = ExecutionMode::kLatency;
  if (!stream_options.shared_models)
    stream_options.shared_models = std::make_shared<SharedModels>();
  stream_options.threads = std::max(1, threads / streams);
  Session first = load(stream_options);
  first.impl_->options = options;
  first.impl_->threads_per_run = stream_options.threads;
  for (int stream = 1; stream < streams; ++stream) {
    // Streams share stream 0's model, and (through the registry) the
    // sessions they specialize to input shapes.
    first.impl_->other_streams.push_back(from_shared(first.impl_->shared, stream_options));
  }
  // Planned now rather than at each stream's first request: every stream
  // then reads the packed weights and none keeps the originals alive.
  first.plan_static_inputs();
  for (Session& stream : first.impl_->other_streams) stream.plan_static_inputs();
  first.impl_->pool = std::make_unique<StreamPool>(streams);
  return first;
}

Session Session::from_shared(const std::shared_ptr<SharedModel>& shared,
                             const SessionOptions& options) {
  return from_model(shared->graph_copy(), options, true, shared);
}

namespace {

// What makes two loads of a file the same optimized model; empty when the
// file cannot be identified (it is then not shared).
std::string shared_model_key(const std::string& path, const SessionOptions& options) {
  std::error_code error;
  const std::filesystem::path canonical = std::filesystem::canonical(path, error);
  if (error) return {};
  const auto size = std::filesystem::file_size(canonical, error);
  if (error) return {};
  const auto modified = std::filesystem::last_write_time(canonical, error);
  if (error) return {};
  std::string key = fmt::format(
      "{}|{}|{}|opt{}|{}|{}|", canonical.string(), size, modified.time_since_epoch().count(),
      options.opt_level, kernels::cpu::isa_name(kernels::cpu::effective_isa(options.max_isa)),
      options.max_tensor_bytes);
  for (const auto& [name, shape] : options.input_shapes)
    key += fmt::format("{}={};", name, shape_to_string(shape));
  key += "|";
  for (const std::string& name : options.extra_outputs) key += name + ";";
  return key;
}

}  // namespace

// Another live session of the same file and graph-shaping options lends its
// model (SessionOptions::shared_models); else `make` loads it, and it is lent.
Session Session::shared_or_new(const std::string& path, const SessionOptions& options,
                               const std::function<Session()>& make) {
  const std::string key = options.shared_models ? shared_model_key(path, options) : std::string();
  if (key.empty()) return make();
  const std::shared_ptr<std::mutex> loading = options.shared_models->loading_lock(key);
  const std::lock_guard<std::mutex> lock(*loading);
  if (std::shared_ptr<SharedModel> shared = options.shared_models->find(key)) {
    Session session = from_shared(shared, options);
    session.impl_->plan_cache.outcome = "shared";
    session.impl_->plan_cache.detail = "graph and packed weights of a session already open";
    return session;
  }
  Session session = make();
  options.shared_models->remember(key, session.impl_->shared);
  return session;
}

Session Session::load_shared(const std::string& path, const SessionOptions& options) {
  return shared_or_new(path, options, [&] { return load_one(path, options); });
}

Session Session::load(const std::string& path, const SessionOptions& options) {
  return with_streams(options, [&](const SessionOptions& o) { return load_shared(path, o); });
}

TensorMap Session::run(const TensorMap& inputs) {
  if (!impl_->pool) return run_on_this_stream(inputs);
  const StreamLease lease(*impl_->pool);
  if (lease.stream() == 0) return run_on_this_stream(inputs);
  return impl_->other_streams[static_cast<size_t>(lease.stream() - 1)].run(inputs);
}

std::vector<TensorMap> Session::run_many(const std::vector<TensorMap>& requests) {
  std::vector<TensorMap> results(requests.size());
  if (!impl_->pool) {
    for (size_t i = 0; i < requests.size(); ++i) results[i] = run(requests[i]);
    return results;
  }
  std::atomic<size_t> next{0};
  std::exception_ptr failure;
  std::mutex failure_mutex;
  const auto work = [&] {
    for (size_t i = next++; i < requests.size(); i = next++) {
      try {
        results[i] = run(requests[i]);
      } catch (...) {
        const std::lock_guard<std::mutex> lock(failure_mutex);
        if (!failure) failure = std::current_exception();
      }
    }
  };
  std::vector<std::thread> workers;
  const size_t count = std::min(requests.size(), static_cast<size_t>(streams()));
  for (size_t w = 0; w < count; ++w) workers.emplace_back(work);
  for (std::thread& worker : workers) worker.join();
  if (failure) std::rethrow_exception(failure);
  return results;
}

int Session::streams() const { return 1 + static_cast<int>(impl_->other_streams.size()); }
int Session::threads_per_stream() const { return resolve_threads(impl_->threads_per_run); }

}  // namespace inferlab::runtime
