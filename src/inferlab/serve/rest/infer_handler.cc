#include "inferlab/serve/rest/infer_handler.h"

#include <charconv>

#include "inferlab/serve/protocol/infer_response.h"
#include "inferlab/serve/rest/responses.h"

namespace inferlab::serve {

namespace {

constexpr std::string_view kHeaderLength = "Inference-Header-Content-Length";

std::optional<size_t> header_length_of(const HttpRequest& request) {
  const std::string value = request.header(kHeaderLength);
  if (value.empty()) return std::nullopt;
  size_t length = 0;
  const auto [end, error] = std::from_chars(value.data(), value.data() + value.size(), length);
  if (error != std::errc() || end != value.data() + value.size()) {
    fail(ErrorCode::kInvalidArgument, "header {} is '{}', not a byte count", kHeaderLength, value);
  }
  return length;
}

// What the answer needs once the job has run: which outputs, in what form.
struct AnswerPlan {
  std::string model;
  std::string version;
  std::string id;
  std::vector<std::pair<std::string, bool>> outputs;  // name, as binary data
};

AnswerPlan plan_answer(const InferRequest& request, const ServedModel& served) {
  AnswerPlan plan{served.name(), std::to_string(served.version()), request.id, {}};
  if (request.outputs.empty()) {
    for (const model::ValueInfo& info : served.outputs()) {
      plan.outputs.emplace_back(info.name, wants_binary(request, info.name));
    }
    return plan;
  }
  for (const RequestedOutput& output : request.outputs) {
    const auto& known = served.outputs();
    if (std::none_of(known.begin(), known.end(),
                     [&](const model::ValueInfo& info) { return info.name == output.name; })) {
      fail(ErrorCode::kInvalidArgument, "model '{}' has no output '{}'", served.name(),
           output.name);
    }
    plan.outputs.emplace_back(output.name, wants_binary(request, output.name));
  }
  return plan;
}

HttpResponse answer(const AnswerPlan& plan, JobResult& result) {
  if (result.error) return error_response(*result.error);
  std::vector<ResponseOutput> outputs;
  for (const auto& [name, binary] : plan.outputs) {
    auto found = result.outputs.find(name);
    if (found == result.outputs.end()) {
      fail(ErrorCode::kRuntime, "model '{}': the engine returned no output '{}'", plan.model, name);
    }
    outputs.push_back({name, std::move(found->second), binary});
  }
  EncodedResponse encoded = encode_infer_response(plan.model, plan.version, plan.id, outputs);
  HttpResponse response{200, "application/json", {}, std::move(encoded.body)};
  if (encoded.header_length) {
    response.content_type = "application/octet-stream";
    response.headers.emplace_back(std::string(kHeaderLength),
                                  std::to_string(*encoded.header_length));
  }
  return response;
}

int64_t batch_size_of(const InferRequest& request, const ServedModel& served) {
  if (served.config().max_batch_size() <= 0 || request.inputs.empty()) return 1;
  const Tensor& first = request.inputs.begin()->second;
  return first.shape().empty() ? 1 : first.shape()[0];
}

HttpResponse queue_full(const ServedModel& served, const InferSettings& settings) {
  HttpResponse response =
      error_response(settings.queue_full_status,
                     fmt::format("model '{}' version {}: the queue is full ({} requests waiting)",
                                 served.name(), served.version(), served.scheduler().queued()));
  if (settings.queue_full_status == 429) {
    response.headers.emplace_back("Retry-After", std::to_string(settings.retry_after_seconds));
  }
  return response;
}

}  // namespace

HttpResponse shutting_down_response() {
  return error_response(503, "the server is shutting down: no new inferences");
}

void handle_infer(const ModelManager& models, const Route& route, HttpRequest request,
                  Responder respond, const InferSettings& settings,
                  const std::atomic<bool>& draining) {
  try {
    const std::optional<size_t> header_length = header_length_of(request);
    InferRequest decoded =
        decode_infer_request(request.body, header_length, settings.limits, request.body_owner);
    // The tensors hold the data (or the body, as views) now.
    request.body = {};
    request.body_owner.reset();
    models.with_version(
        route.model, route.version, [&](const std::shared_ptr<ServedModel>& served) {
          backends::check_inputs(served->platform(), served->inputs(), decoded.inputs);
          auto plan = std::make_shared<AnswerPlan>(plan_answer(decoded, *served));
          auto job = std::make_unique<Job>();
          job->batch_size = batch_size_of(decoded, *served);
          job->inputs = std::move(decoded.inputs);
          job->priority = decoded.priority.value_or(0);
          job->timeout_us = decoded.timeout_us;
          job->complete = [respond, plan](JobResult result) {
            try {
              respond(answer(*plan, result));
            } catch (const Error& error) {
              respond(error_response(error));
            }
          };
          if (served->scheduler().run_inline(job)) return;
          uint64_t ticket = 0;
          switch (served->scheduler().submit(job, ticket)) {
            case Scheduler::Submit::kAccepted: {
              std::weak_ptr<ServedModel> weak = served;
              respond.on_cancel([weak, ticket] {
                if (auto alive = weak.lock()) alive->scheduler().cancel(ticket);
              });
              return;
            }
            case Scheduler::Submit::kQueueFull:
              return respond(queue_full(*served, settings));
            case Scheduler::Submit::kClosed:
              fail(ErrorCode::kUnavailable, "model '{}' version {} is being unloaded",
                   served->name(), served->version());
          }
        });
  } catch (const Error& error) {
    const bool retired =
        error.code() == ErrorCode::kNotFound || error.code() == ErrorCode::kUnavailable;
    respond(retired && draining.load() ? shutting_down_response() : error_response(error));
  }
}

}  // namespace inferlab::serve
