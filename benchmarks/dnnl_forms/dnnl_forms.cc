// dnnl_forms: the oneDNN primitive forms behind the engine's kernel choices
// (docs/performance.md), each pair timed in interleaved rounds in one
// process, with the candidate / baseline ratio and its paired 95% bootstrap
// interval:
//   winograd   3x3 stride-1 convolutions: direct on channels-last tensors
//              against Winograd with the reorders the engine runs around it
//   fold       [1, 128, K] x [K, N] described as 3-D against the folded 2-D
//              product (what dnnl_matmul.cc asks for)
//   gelu       the folded product with oneDNN's gelu_erf or gelu_tanh
//              post-op against InferLab's vectorized GELU after it
//   dw_fusion  1x1 then depthwise 3x3 as two convolutions against one with
//              post_ops::append_dw
//   conv_gemm  a convolution on a small feature map (resnet50's layer3/4):
//              direct on channels-last tensors against a 2-D matmul of the
//              image's columns (im2col from channels-last: none for 1x1
//              stride 1) with the weights prepacked
//   layout     PaddleOCR's 96 -> 24-channel 3x3 convolution on channels-last
//              tensors against oneDNN's own layout and NCHW, with reorders
// Every tensor is written before timing (untouched memory would read as
// the zero page, always in cache).
//
//   dnnl_forms --threads 1 --rounds 10 --json forms.json
#include <omp.h>
#include <CLI/CLI.hpp>

#include <algorithm>
#include <chrono>
#include <fstream>
#include <functional>
#include <iostream>
#include <memory>
#include <string>
#include <vector>

#include <fmt/format.h>
#include <nlohmann/json.hpp>
#include <oneapi/dnnl/dnnl.hpp>

#include "inferlab/bench/statistics.h"
#include "inferlab/kernels/cpu/parallel.h"
#include "inferlab/kernels/fused/activation.h"

namespace inferlab::benchmarks {
namespace {

using tag = dnnl::memory::format_tag;
using dims = dnnl::memory::dims;
constexpr auto kF32 = dnnl::memory::data_type::f32;

// One way to compute something: `run` does it once.
struct Form {
  std::string label;
  std::function<void()> run;
};

struct Comparison {
  std::string group;
  std::string shape;
  Form baseline;
  Form candidate;
};

// Primitives and their memory, kept alive for the forms' closures.
class Workspace {
 public:
  Workspace() : engine_(dnnl::engine::kind::cpu, 0), stream_(engine_) {}
  const dnnl::engine& engine() const { return engine_; }

  // A memory of `desc`, filled with small values in [-0.5, 0.5).
  dnnl::memory memory(const dnnl::memory::desc& desc) {
    dnnl::memory m(desc, engine_);
    auto* data = static_cast<float*>(m.get_data_handle());
    const size_t count = desc.get_size() / sizeof(float);
    for (size_t i = 0; i < count; ++i)
      data[i] = static_cast<float>((i * 2654435761u) % 1000) / 1000 - 0.5f;
    return m;
  }

  // A closure executing `primitive` with `args`.
  std::function<void()> call(dnnl::primitive primitive,
                             std::unordered_map<int, dnnl::memory> args) {
    return [this, primitive, args] {
      primitive.execute(stream_, args);
      stream_.wait();
    };
  }

 private:
  dnnl::engine engine_;
  dnnl::stream stream_;
};

std::function<void()> sequence(std::vector<std::function<void()>> steps) {
  return [steps] {
    for (const auto& step : steps) step();
  };
}

dnnl::memory::desc desc(const dims& shape, tag format) { return {shape, kF32, format}; }

// A 3x3 stride-1 pad-1 convolution with relu of a channels-last image by
// `algorithm` (direct or Winograd), with the activations in `layout`: nhwc,
// or another (any: oneDNN's choice) with the reorders from and to
// channels-last the engine would run around it.
Form conv3x3(Workspace& w, int64_t in, int64_t out, int64_t size, dnnl::algorithm algorithm,
             tag layout) {
  const dims x{1, in, size, size};
  const dims y{1, out, size, size};
  dnnl::post_ops ops;
  ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  const dnnl::convolution_forward::primitive_desc pd({dnnl::prop_kind::forward_inference,
                                                      algorithm,
                                                      desc(x, layout),
                                                      desc({out, in, 3, 3}, tag::any),
                                                      desc({out}, tag::x),
                                                      desc(y, layout),
                                                      {1, 1},
                                                      {1, 1},
                                                      {1, 1}},
                                                     attr, w.engine());
  dnnl::memory src = w.memory(pd.src_desc());
  dnnl::memory dst = w.memory(pd.dst_desc());
  auto conv =
      w.call(dnnl::convolution_forward(pd), {{DNNL_ARG_SRC, src},
                                             {DNNL_ARG_WEIGHTS, w.memory(pd.weights_desc())},
                                             {DNNL_ARG_BIAS, w.memory(pd.bias_desc())},
                                             {DNNL_ARG_DST, dst}});
  const bool winograd = algorithm == dnnl::algorithm::convolution_winograd;
  const std::string label = fmt::format("{} {}{}", winograd ? "winograd" : "direct",
                                        pd.impl_info_str(), layout == tag::nchw ? " nchw" : "");
  if (layout == tag::nhwc) return {label, conv};
  dnnl::memory user_x = w.memory(desc(x, tag::nhwc));
  dnnl::memory user_y = w.memory(desc(y, tag::nhwc));
  auto in_reorder =
      w.call(dnnl::reorder(user_x, src), {{DNNL_ARG_FROM, user_x}, {DNNL_ARG_TO, src}});
  auto out_reorder =
      w.call(dnnl::reorder(dst, user_y), {{DNNL_ARG_FROM, dst}, {DNNL_ARG_TO, user_y}});
  return {label + " + reorders", sequence({in_reorder, conv, out_reorder})};
}

// [rows, k] x [k, n] + bias with prepacked B, as 3-D ([1, rows, k]) or 2-D,
// then `activation` (a GELU or none): as oneDNN's post-op or, with
// `post_op` false, as InferLab's vectorized kernel over the product.
Form matmul(Workspace& w, int64_t rows, int64_t k, int64_t n, bool three_d,
            kernels::fused::ActivationKind activation, bool post_op) {
  using kernels::fused::ActivationKind;
  const auto shape = [&](int64_t r, int64_t c) { return three_d ? dims{1, r, c} : dims{r, c}; };
  const tag plain = three_d ? tag::abc : tag::ab;
  const bool gelu = activation != ActivationKind::kNone;
  dnnl::post_ops ops;
  if (gelu && post_op) {
    ops.append_eltwise(1.0f,
                       activation == ActivationKind::kGelu ? dnnl::algorithm::eltwise_gelu_erf
                                                           : dnnl::algorithm::eltwise_gelu_tanh,
                       0.0f, 0.0f);
  }
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  const dnnl::matmul::primitive_desc pd({desc(shape(rows, k), plain), desc(shape(k, n), tag::any),
                                         desc(shape(1, n), plain), desc(shape(rows, n), plain)},
                                        attr, w.engine());
  dnnl::memory dst = w.memory(pd.dst_desc());
  auto product = w.call(dnnl::matmul(pd), {{DNNL_ARG_SRC, w.memory(pd.src_desc())},
                                           {DNNL_ARG_WEIGHTS, w.memory(pd.weights_desc())},
                                           {DNNL_ARG_BIAS, w.memory(pd.bias_desc())},
                                           {DNNL_ARG_DST, dst}});
  std::string label = fmt::format("{}-D {}", three_d ? 3 : 2, pd.impl_info_str());
  if (!gelu) return {label, product};
  const std::string name = kernels::fused::activation_name(activation);
  if (post_op) return {label + " + " + name + " post-op", product};
  const int64_t count = rows * n;
  auto* data = static_cast<float*>(dst.get_data_handle());
  const kernels::fused::Activation after_product{activation, {0.0f, 0.0f}};
  auto after = [data, count, after_product] {
    kernels::cpu::parallel_ranges(count, 1, 16, [&](int64_t begin, int64_t end) {
      kernels::fused::apply_activation(after_product, data + begin, end - begin);
    });
  };
  return {label + " + InferLab " + name, sequence({product, after})};
}

// 1x1 (in -> mid channels, relu6) then depthwise 3x3 (`stride`, relu6) on
// channels-last tensors: two convolutions, or one with append_dw.
Form pointwise_depthwise(Workspace& w, int64_t in, int64_t mid, int64_t size, int64_t stride,
                         bool fused) {
  const int64_t out_size = (size + 2 - 3) / stride + 1;
  const auto relu6 = [](dnnl::post_ops& ops) {
    ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_clip, 0.0f, 6.0f);
  };
  dnnl::post_ops pointwise_ops;
  relu6(pointwise_ops);
  if (fused) {
    pointwise_ops.append_dw(kF32, kF32, kF32, 3, stride, 1, 0, {});
    relu6(pointwise_ops);
  }
  dnnl::primitive_attr pointwise_attr;
  pointwise_attr.set_post_ops(pointwise_ops);
  const dims mid_shape{1, mid, size, size};
  const dnnl::convolution_forward::primitive_desc pw({dnnl::prop_kind::forward_inference,
                                                      dnnl::algorithm::convolution_direct,
                                                      desc({1, in, size, size}, tag::nhwc),
                                                      desc({mid, in, 1, 1}, tag::any),
                                                      desc({mid}, tag::x),
                                                      desc(mid_shape, tag::nhwc),
                                                      {1, 1},
                                                      {0, 0},
                                                      {0, 0}},
                                                     pointwise_attr, w.engine());
  std::unordered_map<int, dnnl::memory> pw_args = {
      {DNNL_ARG_SRC, w.memory(pw.src_desc())},
      {DNNL_ARG_WEIGHTS, w.memory(pw.weights_desc())},
      {DNNL_ARG_BIAS, w.memory(pw.bias_desc())},
      {DNNL_ARG_DST,
       w.memory(fused ? desc({1, mid, out_size, out_size}, tag::nhwc) : pw.dst_desc())},
      {DNNL_ARG_SCRATCHPAD, w.memory(pw.scratchpad_desc())}};
  if (fused) {
    for (int arg : {DNNL_ARG_WEIGHTS, DNNL_ARG_BIAS}) {
      const int dw_arg = DNNL_ARG_ATTR_POST_OP_DW | arg;
      pw_args[dw_arg] = w.memory(pw.query_md(dnnl::query::exec_arg_md, dw_arg));
    }
    return {fmt::format("fused {}", pw.impl_info_str()),
            w.call(dnnl::convolution_forward(pw), pw_args)};
  }
  dnnl::post_ops dw_ops;
  relu6(dw_ops);
  dnnl::primitive_attr dw_attr;
  dw_attr.set_post_ops(dw_ops);
  const dnnl::convolution_forward::primitive_desc dw({dnnl::prop_kind::forward_inference,
                                                      dnnl::algorithm::convolution_direct,
                                                      desc(mid_shape, tag::nhwc),
                                                      desc({mid, 1, 1, 3, 3}, tag::any),
                                                      desc({mid}, tag::x),
                                                      desc({1, mid, out_size, out_size}, tag::nhwc),
                                                      {stride, stride},
                                                      {1, 1},
                                                      {1, 1}},
                                                     dw_attr, w.engine());
  auto first = w.call(dnnl::convolution_forward(pw), pw_args);
  auto second =
      w.call(dnnl::convolution_forward(dw), {{DNNL_ARG_SRC, pw_args.at(DNNL_ARG_DST)},
                                             {DNNL_ARG_WEIGHTS, w.memory(dw.weights_desc())},
                                             {DNNL_ARG_BIAS, w.memory(dw.bias_desc())},
                                             {DNNL_ARG_DST, w.memory(dw.dst_desc())}});
  return {fmt::format("separate {} + {}", pw.impl_info_str(), dw.impl_info_str()),
          sequence({first, second})};
}

// A k x k convolution (pad k / 2, `stride`, relu) of a [1, in, size, size]
// channels-last image: oneDNN's direct convolution, or (`gemm`) im2col into
// [pixels, k * k * in] rows plus one 2-D matmul with prepacked weights.
Form conv_or_gemm(Workspace& w, int64_t in, int64_t out, int64_t size, int64_t k, int64_t stride,
                  bool gemm) {
  const int64_t pad = k / 2;
  const int64_t out_size = (size + 2 * pad - k) / stride + 1;
  dnnl::post_ops ops;
  ops.append_eltwise(1.0f, dnnl::algorithm::eltwise_relu, 0.0f, 0.0f);
  dnnl::primitive_attr attr;
  attr.set_post_ops(ops);
  if (!gemm) {
    const dnnl::convolution_forward::primitive_desc pd(
        {dnnl::prop_kind::forward_inference,
         dnnl::algorithm::convolution_direct,
         desc({1, in, size, size}, tag::nhwc),
         desc({out, in, k, k}, tag::any),
         desc({out}, tag::x),
         desc({1, out, out_size, out_size}, tag::nhwc),
         {stride, stride},
         {pad, pad},
         {pad, pad}},
        attr, w.engine());
    return {fmt::format("direct {}", pd.impl_info_str()),
            w.call(dnnl::convolution_forward(pd), {{DNNL_ARG_SRC, w.memory(pd.src_desc())},
                                                   {DNNL_ARG_WEIGHTS, w.memory(pd.weights_desc())},
                                                   {DNNL_ARG_BIAS, w.memory(pd.bias_desc())},
                                                   {DNNL_ARG_DST, w.memory(pd.dst_desc())}})};
  }
  const int64_t pixels = out_size * out_size;
  const int64_t depth = k * k * in;
  const dnnl::matmul::primitive_desc pd(
      {desc({pixels, depth}, tag::ab), desc({depth, out}, tag::any), desc({1, out}, tag::ab),
       desc({pixels, out}, tag::ab)},
      attr, w.engine());
  dnnl::memory columns = w.memory(pd.src_desc());
  auto product = w.call(dnnl::matmul(pd), {{DNNL_ARG_SRC, columns},
                                           {DNNL_ARG_WEIGHTS, w.memory(pd.weights_desc())},
                                           {DNNL_ARG_BIAS, w.memory(pd.bias_desc())},
                                           {DNNL_ARG_DST, w.memory(pd.dst_desc())}});
  const std::string label = fmt::format("matmul {}", pd.impl_info_str());
  if (k == 1 && stride == 1) return {label, product};
  dnnl::memory image = w.memory(desc({1, in, size, size}, tag::nhwc));
  const auto* x = static_cast<const float*>(image.get_data_handle());
  auto* col = static_cast<float*>(columns.get_data_handle());
  auto im2col = [=] {
    for (int64_t oy = 0; oy < out_size; ++oy) {
      for (int64_t ox = 0; ox < out_size; ++ox) {
        float* row = col + (oy * out_size + ox) * depth;
        for (int64_t ky = 0; ky < k; ++ky) {
          for (int64_t kx = 0; kx < k; ++kx, row += in) {
            const int64_t iy = oy * stride + ky - pad, ix = ox * stride + kx - pad;
            if (iy < 0 || ix < 0 || iy >= size || ix >= size) {
              std::fill_n(row, in, 0.0f);
            } else {
              std::copy_n(x + (iy * size + ix) * in, in, row);
            }
          }
        }
      }
    }
  };
  return {"im2col + " + label, sequence({im2col, product})};
}

std::vector<Comparison> comparisons(Workspace& w) {
  std::vector<Comparison> all;
  const int64_t conv_shapes[][3] = {
      {64, 64, 56}, {128, 128, 28}, {256, 256, 14}, {512, 512, 7}, {96, 24, 160}};
  for (const auto& [in, out, size] : conv_shapes) {
    all.push_back({"winograd", fmt::format("{}->{} channels, {}x{}", in, out, size, size),
                   conv3x3(w, in, out, size, dnnl::algorithm::convolution_direct, tag::nhwc),
                   conv3x3(w, in, out, size, dnnl::algorithm::convolution_winograd, tag::any)});
  }
  using kernels::fused::ActivationKind;
  for (const auto& [k, n] : std::vector<std::pair<int64_t, int64_t>>{{768, 3072}, {3072, 768}}) {
    all.push_back({"fold", fmt::format("[1,128,{}] x [{},{}]", k, k, n),
                   matmul(w, 128, k, n, true, ActivationKind::kNone, false),
                   matmul(w, 128, k, n, false, ActivationKind::kNone, false)});
  }
  for (const ActivationKind gelu : {ActivationKind::kGelu, ActivationKind::kGeluTanh}) {
    all.push_back({"gelu", "[128,768] x [768,3072]", matmul(w, 128, 768, 3072, false, gelu, true),
                   matmul(w, 128, 768, 3072, false, gelu, false)});
  }
  const int64_t dw_shapes[][4] = {
      {24, 144, 56, 1}, {24, 144, 56, 2}, {32, 192, 28, 1}, {16, 96, 112, 2}, {96, 576, 14, 1}};
  for (const auto& [in, mid, size, stride] : dw_shapes) {
    all.push_back(
        {"dw_fusion",
         fmt::format("{}->{} channels, {}x{}, depthwise stride {}", in, mid, size, size, stride),
         pointwise_depthwise(w, in, mid, size, stride, false),
         pointwise_depthwise(w, in, mid, size, stride, true)});
  }
  const int64_t gemm_shapes[][5] = {{512, 512, 7, 3, 1},  {2048, 512, 7, 1, 1},
                                    {512, 2048, 7, 1, 1}, {1024, 2048, 14, 1, 2},
                                    {256, 256, 14, 3, 1}, {1024, 256, 14, 1, 1}};
  for (const auto& [in, out, size, k, stride] : gemm_shapes) {
    all.push_back({"conv_gemm",
                   fmt::format("{}x{} {}->{}, {}x{}, stride {}", k, k, in, out, size, size, stride),
                   conv_or_gemm(w, in, out, size, k, stride, false),
                   conv_or_gemm(w, in, out, size, k, stride, true)});
  }
  for (const tag layout : {tag::any, tag::nchw}) {
    const auto direct = dnnl::algorithm::convolution_direct;
    all.push_back({"layout", "3x3 96->24, 160x160", conv3x3(w, 96, 24, 160, direct, tag::nhwc),
                   conv3x3(w, 96, 24, 160, direct, layout)});
  }
  return all;
}

// Median milliseconds of one round: at least 10 calls and 50 ms.
double round_median_ms(const Form& form) {
  std::vector<double> times;
  double total = 0;
  while (times.size() < 10 || total < 50.0) {
    const auto start = std::chrono::steady_clock::now();
    form.run();
    const double ms =
        std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - start).count();
    times.push_back(ms);
    total += ms;
  }
  return bench::median(times);
}

nlohmann::json measure(const Comparison& c, int rounds) {
  for (int warm = 0; warm < 3; ++warm) {
    c.baseline.run();
    c.candidate.run();
  }
  std::vector<double> baseline;
  std::vector<double> candidate;
  for (int round = 0; round < rounds; ++round) {
    // Alternate which side goes first, so neither always runs on a warmer cache.
    if (round % 2 == 0) baseline.push_back(round_median_ms(c.baseline));
    candidate.push_back(round_median_ms(c.candidate));
    if (round % 2 != 0) baseline.push_back(round_median_ms(c.baseline));
  }
  const double ratio = bench::median(candidate) / bench::median(baseline);
  const bench::Interval interval =
      bench::bootstrap_ratio_interval(candidate, baseline, {10000, 0.95, 0});
  fmt::print("{:<10} {:<44} {:>9.4f} {:>9.4f}  {:.3f} [{:.3f}, {:.3f}]\n    {} | {}\n", c.group,
             c.shape, bench::median(baseline), bench::median(candidate), ratio, interval.low,
             interval.high, c.baseline.label, c.candidate.label);
  return {{"group", c.group},
          {"shape", c.shape},
          {"baseline", {{"form", c.baseline.label}, {"median_ms", bench::median(baseline)}}},
          {"candidate", {{"form", c.candidate.label}, {"median_ms", bench::median(candidate)}}},
          {"ratio", {{"value", ratio}, {"interval", {interval.low, interval.high}}}}};
}

int run(int argc, char** argv) {
  CLI::App app{"Time the oneDNN primitive forms behind InferLab's kernel choices, side by side"};
  int threads = 1;
  int rounds = 10;
  std::string json_path;
  std::vector<std::string> groups;
  app.add_option("--threads", threads, "OpenMP threads (default 1)")->check(CLI::PositiveNumber);
  app.add_option("--rounds", rounds, "Interleaved rounds per pair (default 10)")
      ->check(CLI::PositiveNumber);
  app.add_option("--json", json_path, "Also write the results as JSON to FILE");
  app.add_option("--only", groups,
                 "Only these groups: winograd, fold, gelu, dw_fusion, conv_gemm (default all)")
      ->check(CLI::IsMember({"winograd", "fold", "gelu", "dw_fusion", "conv_gemm", "layout"}));
  CLI11_PARSE(app, argc, argv);
  omp_set_num_threads(threads);

  Workspace workspace;
  const std::vector<Comparison> all = comparisons(workspace);
  fmt::print("threads {}, {} rounds per pair; ratio = candidate / baseline median ms [95%]\n",
             threads, rounds);
  fmt::print("{:<10} {:<44} {:>9} {:>9}  {}\n", "group", "shape", "baseline", "candidate", "ratio");
  nlohmann::json results = nlohmann::json::array();
  for (const Comparison& c : all) {
    if (groups.empty() || std::find(groups.begin(), groups.end(), c.group) != groups.end()) {
      results.push_back(measure(c, rounds));
    }
  }
  if (!json_path.empty()) {
    std::ofstream out(json_path);
    out << nlohmann::json{{"threads", threads}, {"rounds", rounds}, {"comparisons", results}}.dump(
               2)
        << "\n";
    if (!out) {
      std::cerr << "dnnl_forms: cannot write " << json_path << "\n";
      return 1;
    }
  }
  return 0;
}

}  // namespace
}  // namespace inferlab::benchmarks

int main(int argc, char** argv) {
  try {
    return inferlab::benchmarks::run(argc, argv);
  } catch (const std::exception& e) {
    std::cerr << "dnnl_forms: " << e.what() << "\n";
    return 1;
  }
}
