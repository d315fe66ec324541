// NonMaxSuppression (opset 10/11): per batch and class, greedily keep the
// highest-scoring boxes whose IoU with every kept box is at most the
// threshold. The number of selected boxes depends on the data, so the
// output shape is dynamic.
#include "inferlab/kernels/reference/tensor_op_util.h"
#include "inferlab/kernels/reference/tensor_ops.h"

namespace inferlab::kernels::reference {
namespace {

struct Box {
  float y1, x1, y2, x2;
  float area() const { return (y2 - y1) * (x2 - x1); }
};

Box read_box(const float* coords, bool center_point) {
  if (center_point) {  // [x_center, y_center, width, height]
    const float x = coords[0], y = coords[1], w = coords[2] / 2, h = coords[3] / 2;
    return {y - h, x - w, y + h, x + w};
  }
  // [y1, x1, y2, x2], corners in either order.
  return {std::min(coords[0], coords[2]), std::min(coords[1], coords[3]),
          std::max(coords[0], coords[2]), std::max(coords[1], coords[3])};
}

bool overlaps_too_much(const Box& a, const Box& b, float iou_threshold) {
  const float area_a = a.area(), area_b = b.area();
  if (area_a <= 0 || area_b <= 0) return false;
  const float h = std::max(0.0f, std::min(a.y2, b.y2) - std::max(a.y1, b.y1));
  const float w = std::max(0.0f, std::min(a.x2, b.x2) - std::max(a.x1, b.x1));
  const float intersection = h * w;
  const float union_area = area_a + area_b - intersection;
  if (intersection <= 0 || union_area <= 0) return false;
  return intersection / union_area > iou_threshold;
}

float optional_float(const KernelContext& ctx, size_t index, float fallback) {
  if (!ctx.has_input(index) || ctx.input(index).numel() == 0) return fallback;
  return static_cast<float>(ctx.input(index).element_as_double(0));
}

// Selected box indices of one (batch, class), best first.
std::vector<int64_t> select_boxes(const std::vector<Box>& boxes, const float* scores,
                                  int64_t max_boxes, float iou_threshold,
                                  const float* score_threshold) {
  std::vector<int64_t> candidates;
  for (size_t i = 0; i < boxes.size(); ++i) {
    const float score = scores[i];
    if (std::isnan(score)) continue;
    if (score_threshold == nullptr || score > *score_threshold) {
      candidates.push_back(static_cast<int64_t>(i));
    }
  }
  std::stable_sort(candidates.begin(), candidates.end(),
                   [&](int64_t a, int64_t b) { return scores[a] > scores[b]; });
  std::vector<int64_t> selected;
  for (int64_t candidate : candidates) {
    if (static_cast<int64_t>(selected.size()) >= max_boxes) break;
    bool keep = true;
    for (int64_t kept : selected) {
      if (overlaps_too_much(boxes[static_cast<size_t>(candidate)], boxes[static_cast<size_t>(kept)],
                            iou_threshold)) {
        keep = false;
        break;
      }
    }
    if (keep) selected.push_back(candidate);
  }
  return selected;
}

void nms_compute(KernelContext& ctx) {
  const NodeInfo& node = ctx.node();
  const Tensor& boxes = ctx.input(0);
  const Tensor& scores = ctx.input(1);
  if (boxes.dtype() != DataType::kFloat32 || scores.dtype() != DataType::kFloat32) {
    node.fail(ErrorCode::kUnsupported, "boxes and scores must be float");
  }
  const Shape &bs = boxes.shape(), &ss = scores.shape();
  if (bs.size() != 3 || bs[2] != 4 || ss.size() != 3 || ss[0] != bs[0] || ss[2] != bs[1]) {
    node.fail(ErrorCode::kInvalidArgument,
              "boxes {} must be [batch, boxes, 4] and scores {} [batch, classes, boxes]",
              shape_to_string(bs), shape_to_string(ss));
  }
  int64_t max_boxes = 0;
  if (ctx.has_input(2) && ctx.input(2).numel() > 0) {
    max_boxes = int64_values(node, ctx.input(2), "max_output_boxes_per_class")[0];
  }
  const float iou_threshold = optional_float(ctx, 3, 0.0f);
  const bool has_score_threshold = ctx.has_input(4) && ctx.input(4).numel() > 0;
  const float score_threshold = optional_float(ctx, 4, 0.0f);
  const bool center_point = node.attr_int("center_point_box", 0) != 0;
  const int64_t batches = bs[0], num_boxes = bs[1], classes = ss[1];
  std::vector<int64_t> triples;
  for (int64_t b = 0; b < batches && max_boxes > 0; ++b) {
    std::vector<Box> batch_boxes;
    for (int64_t i = 0; i < num_boxes; ++i) {
      batch_boxes.push_back(read_box(boxes.data<float>() + (b * num_boxes + i) * 4, center_point));
    }
    for (int64_t c = 0; c < classes; ++c) {
      const float* class_scores = scores.data<float>() + (b * classes + c) * num_boxes;
      const auto selected = select_boxes(batch_boxes, class_scores, max_boxes, iou_threshold,
                                         has_score_threshold ? &score_threshold : nullptr);
      for (int64_t index : selected) triples.insert(triples.end(), {b, c, index});
    }
  }
  const auto count = static_cast<int64_t>(triples.size() / 3);
  Tensor& out = ctx.output(0, DataType::kInt64, {count, 3});
  std::copy(triples.begin(), triples.end(), out.data<int64_t>());
}

}  // namespace

OpKernel non_max_suppression_kernel() {
  OpKernel kernel;
  kernel.op_type = "NonMaxSuppression";
  kernel.min_opset = 10;
  kernel.infer = [](InferContext& ctx) { ctx.set_output_dynamic(0, DataType::kInt64); };
  kernel.compute = nms_compute;
  return kernel;
}

}  // namespace inferlab::kernels::reference
