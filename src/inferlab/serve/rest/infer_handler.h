// POST /v2/models/M[/versions/V]/infer: decodes the body, checks it against
// the model, queues it on the model's scheduler and answers when it has
// run, timed out or been refused. A client that closes its connection
// takes its request out of the queue.
#pragma once

#include <atomic>

#include "inferlab/serve/http/http_server.h"
#include "inferlab/serve/manager/model_manager.h"
#include "inferlab/serve/protocol/infer_request.h"
#include "inferlab/serve/rest/route.h"

namespace inferlab::serve {

struct InferSettings {
  RequestLimits limits;
  // A full queue answers 503 (Triton's choice), or 429 with Retry-After.
  int queue_full_status = 503;
  int retry_after_seconds = 1;
};

// `draining`: the server is shutting down. A request that races the drain
// (its model retired between the server's check and the lookup) gets the
// same answer as one refused at the door.
void handle_infer(const ModelManager& models, const Route& route, HttpRequest request,
                  Responder respond, const InferSettings& settings,
                  const std::atomic<bool>& draining);

// 503 "the server is shutting down": every inference once a drain began.
HttpResponse shutting_down_response();

}  // namespace inferlab::serve
