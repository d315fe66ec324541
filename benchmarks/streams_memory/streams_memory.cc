// What throughput mode costs in memory: opens a model on the native backend
// with `streams=N`, warms every stream up with N callers at once, and prints
// resident memory after warm-up minus resident memory before the model was
// opened, with the weights' bytes and the packed copies beside it. One
// process per measurement, so nothing an earlier model freed is counted:
//   streams_memory MODEL --threads 2 --streams 1
//   streams_memory MODEL --threads 2 --streams 2
// A second instance of the same file (--instances 2) is measured the same way.
#include <unistd.h>

#include <iostream>
#include <thread>

#include <fmt/format.h>
#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "inferlab/backends/native_backend.h"
#include "inferlab/core/process_stats.h"
#include "inferlab/inputs/input_generator.h"
#include "inferlab/inputs/input_range.h"
#include "inferlab/inputs/input_shapes.h"

namespace {

using inferlab::backends::Model;
using inferlab::backends::TensorMap;

double resident_mib() { return inferlab::process_memory_kib(getpid(), "VmRSS") / 1024.0; }

// `callers` threads, `runs` requests each, all at once.
void warm_up(Model& model, const TensorMap& inputs, int callers, int runs) {
  std::vector<std::thread> threads;
  for (int c = 0; c < callers; ++c) {
    threads.emplace_back([&] {
      for (int r = 0; r < runs; ++r) model.run(inputs);
    });
  }
  for (std::thread& thread : threads) thread.join();
}

}  // namespace

int main(int argc, char** argv) {
  CLI::App app{"Resident memory of the native engine's streams and instances"};
  std::string model_path;
  int threads = 2;
  int streams = 1;
  int instances = 1;
  int runs = 5;
  app.add_option("model", model_path, "Model file or directory")->required();
  app.add_option("--threads", threads, "Threads, all streams together");
  app.add_option("--streams", streams, "Streams (1: latency mode)");
  app.add_option("--instances", instances, "Instances of the model opened on one backend");
  app.add_option("--runs", runs, "Warm-up requests per caller");
  CLI11_PARSE(app, argc, argv);
  try {
    auto backend = inferlab::backends::make_native_backend();
    const auto source = inferlab::backends::ModelSource::resolve(model_path);
    inferlab::backends::BackendOptions options;
    options.threads = threads;
    if (streams > 1) options.settings["streams"] = std::to_string(streams);
    const double before = resident_mib();
    std::vector<std::unique_ptr<Model>> models;
    for (int i = 0; i < instances; ++i) models.push_back(backend->open(source, options));
    const auto& declared = models[0]->inputs();
    const TensorMap inputs = inferlab::inputs::random_inputs(
        declared, inferlab::inputs::resolve_input_shapes(declared, {}),
        inferlab::inputs::input_ranges(declared, {}, source), 0);
    for (auto& model : models) warm_up(*model, inputs, streams, runs);
    const double after = resident_mib();
    const nlohmann::json configuration = models.back()->configuration();
    const nlohmann::json& weights = configuration.at("weights");
    const double weight_mib =
        (weights.at("resident_bytes").get<double>() + weights.at("released_bytes").get<double>()) /
        (1 << 20);
    std::cout << fmt::format(
        "{} streams={} threads={} instances={}: +{:.1f} MiB resident after warm-up "
        "(weights {:.1f} MiB; {} packed copies, {:.1f} MiB; arena {:.1f} MiB per stream)\n",
        model_path, streams, threads, instances, after - before, weight_mib,
        weights.at("packed_copies").get<int64_t>(),
        weights.at("packed_bytes").get<double>() / (1 << 20),
        configuration.at("run_plans").at("arena_bytes").get<double>() / (1 << 20));
    return 0;
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << "\n";
    return 1;
  }
}
