// What a load is sent to: an inference server over HTTP (one keep-alive
// connection per sending thread), or model instances in this process with
// no network (`--in-process`), opened as the server opens them
// (backends::InstanceSet) so the two measure the same computation. And the
// inputs both send: from .npy files, or generated with the inputs module's
// seeded generator.
#pragma once

#include <chrono>
#include <map>
#include <memory>
#include <string>
#include <vector>

#include "inferlab/backends/instances.h"
#include "inferlab/loadgen/http_client.h"
#include "inferlab/loadgen/infer_body.h"
#include "inferlab/loadgen/load_loop.h"

namespace inferlab::loadgen {

// Sending thread i posts `request` on a connection of its own; a non-2xx
// reply is an error keyed by its status, a transport failure by its kind.
ChannelFactory http_channels(const Url& url, std::shared_ptr<const HttpRequestBytes> request,
                             std::chrono::milliseconds timeout);

// Sending thread i runs `inputs` on instance i % count, one request at a
// time per instance (threads sharing an instance take turns); an Error is
// keyed by its code's name ("runtime error", ...), anything else as
// "exception". `instances` must outlive the channels.
ChannelFactory model_channels(const backends::InstanceSet& instances,
                              std::shared_ptr<const backends::TensorMap> inputs);

// The tensors to send for `declared` inputs, in their order: every input
// from `inputs_dir` (samples_from_directory's layout; its first sample),
// else generated with `seed` at the shapes inputs::resolve_input_shape gives
// (`shapes` from --shape) and the ranges inputs::input_ranges gives
// (`source`: a model directory's ranges; null for a remote model).
NamedTensors load_inputs(const std::vector<model::ValueInfo>& declared,
                         const std::string& inputs_dir, const std::map<std::string, Shape>& shapes,
                         uint64_t seed, const backends::ModelSource* source);

// The batch: the first input's first dim when the model declares it
// dynamic; 1 when it is fixed (part of one sample), scalar or absent.
int64_t samples_per_request(const std::vector<model::ValueInfo>& declared,
                            const NamedTensors& inputs);

}  // namespace inferlab::loadgen
