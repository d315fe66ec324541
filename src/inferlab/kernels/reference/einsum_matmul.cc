// Einsum as batched GEMM (see header). Every label of A and B is classified as
// batch (A, B and output), row (A and output), column (B and output) or summed
// (A and B only); A is permuted to [batch, row, summed], B to [batch, summed,
// column], each batch is one GEMM, and the [batch, row, column] result is
// permuted into the output's label order.
#include "inferlab/kernels/reference/einsum_matmul.h"

#include <algorithm>
#include <type_traits>

#include "inferlab/kernels/reference/gemm_f32.h"

namespace inferlab::kernels::reference {
namespace {

bool contains(const std::vector<int>& labels, int label) {
  return std::find(labels.begin(), labels.end(), label) != labels.end();
}

struct GemmForm {
  std::vector<int> batch, rows, cols, summed;
};

bool classify(const std::vector<int>& a, const std::vector<int>& b, const std::vector<int>& out,
              GemmForm& form) {
  for (int label : a) {
    if (std::count(a.begin(), a.end(), label) > 1) return false;  // diagonal
    const bool in_b = contains(b, label);
    const bool in_out = contains(out, label);
    if (in_b && in_out)
      form.batch.push_back(label);
    else if (in_out)
      form.rows.push_back(label);
    else if (in_b)
      form.summed.push_back(label);
    else
      return false;  // summed over A alone
  }
  for (int label : b) {
    if (std::count(b.begin(), b.end(), label) > 1) return false;
    if (contains(a, label)) continue;
    if (!contains(out, label)) return false;
    form.cols.push_back(label);
  }
  return true;
}

std::vector<int> concat(std::initializer_list<const std::vector<int>*> parts) {
  std::vector<int> all;
  for (const auto* part : parts) all.insert(all.end(), part->begin(), part->end());
  return all;
}

int64_t product(const std::vector<int>& labels, const std::vector<int64_t>& sizes) {
  int64_t n = 1;
  for (int label : labels) n *= sizes[label];
  return n;
}

// dst (contiguous, labels `to`) = src (contiguous, labels `from`), same label set.
template <typename T>
void permute(const T* src, const std::vector<int>& from, const std::vector<int>& to,
             const std::vector<int64_t>& sizes, T* dst) {
  std::vector<int64_t> src_stride(to.size());
  for (size_t d = 0; d < to.size(); ++d) {
    int64_t stride = 1;
    for (size_t s = from.size(); s-- > 0;) {
      if (from[s] == to[d]) break;
      stride *= sizes[from[s]];
    }
    src_stride[d] = stride;
  }
  const int64_t count = product(to, sizes);
  std::vector<int64_t> index(to.size(), 0);
  int64_t offset = 0;
  for (int64_t i = 0; i < count; ++i) {
    dst[i] = src[offset];
    for (size_t d = to.size(); d-- > 0;) {
      offset += src_stride[d];
      if (++index[d] < sizes[to[d]]) break;
      offset -= index[d] * src_stride[d];
      index[d] = 0;
    }
  }
}

// Returns `src` when already in order, else a permuted copy held in `storage`.
template <typename T>
const T* in_order(const T* src, const std::vector<int>& from, const std::vector<int>& to,
                  const std::vector<int64_t>& sizes, std::vector<T>& storage) {
  if (from == to) return src;
  storage.resize(static_cast<size_t>(product(to, sizes)));
  permute(src, from, to, sizes, storage.data());
  return storage.data();
}

template <typename T>
void run(const GemmForm& f, const std::vector<std::vector<int>>& labels,
         const std::vector<int>& out_labels, const std::vector<int64_t>& sizes,
         const std::vector<const Tensor*>& inputs, T* out) {
  const std::vector<int> a_order = concat({&f.batch, &f.rows, &f.summed});
  const std::vector<int> b_order = concat({&f.batch, &f.summed, &f.cols});
  const std::vector<int> y_order = concat({&f.batch, &f.rows, &f.cols});
  std::vector<T> a_storage, b_storage, y_storage;
  const T* a = in_order(inputs[0]->data<T>(), labels[0], a_order, sizes, a_storage);
  const T* b = in_order(inputs[1]->data<T>(), labels[1], b_order, sizes, b_storage);
  const bool direct = y_order == out_labels;
  if (!direct) y_storage.resize(static_cast<size_t>(product(y_order, sizes)));
  T* y = direct ? out : y_storage.data();
  const int64_t batch = product(f.batch, sizes);
  const int64_t m = product(f.rows, sizes);
  const int64_t n = product(f.cols, sizes);
  const int64_t k = product(f.summed, sizes);
  for (int64_t i = 0; i < batch; ++i) {
    gemm_blocked(GemmShape{m, n, k}, false, false, T(1), a + i * m * k, k, b + i * k * n, n, T(0),
                 y + i * m * n, n);
  }
  if (!direct) permute(y, y_order, out_labels, sizes, out);
}

}  // namespace

bool einsum_as_batched_gemm(const std::vector<std::vector<int>>& input_labels,
                            const std::vector<int>& output_labels,
                            const std::vector<int64_t>& sizes,
                            const std::vector<const Tensor*>& inputs, Tensor& output) {
  if (inputs.size() != 2) return false;
  const DataType dtype = inputs[0]->dtype();
  if (dtype != DataType::kFloat32 && dtype != DataType::kFloat64) return false;
  for (size_t i = 0; i < 2; ++i) {  // no broadcast dims
    for (size_t d = 0; d < input_labels[i].size(); ++d) {
      if (inputs[i]->shape()[d] != sizes[input_labels[i][d]]) return false;
    }
  }
  GemmForm form;
  if (!classify(input_labels[0], input_labels[1], output_labels, form)) return false;
  if (dtype == DataType::kFloat32) {
    run<float>(form, input_labels, output_labels, sizes, inputs, output.data<float>());
  } else {
    run<double>(form, input_labels, output_labels, sizes, inputs, output.data<double>());
  }
  return true;
}

}  // namespace inferlab::kernels::reference
