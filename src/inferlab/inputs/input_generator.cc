// Seeded random inputs; see input_generator.h for the seed rule.
#include "inferlab/inputs/input_generator.h"

#include <limits>
#include <random>
#include <type_traits>
#include <utility>

#include "inferlab/core/error.h"

namespace inferlab::inputs {

namespace {

// Rounding can push a value out of a narrow range (float16); after this many
// draws in a row outside it, the range holds no value of the dtype.
constexpr int kMaxDraws = 1000;

uint64_t fnv1a64(const std::string& text) {
  uint64_t hash = 0xcbf29ce484222325ull;
  for (unsigned char c : text) {
    hash ^= c;
    hash *= 0x100000001b3ull;
  }
  return hash;
}

// Uniform in [0, span); span 0 means 2^64. Words below 2^64 mod span are
// drawn again, so every value is equally likely.
uint64_t uniform_below(std::mt19937_64& generator, uint64_t span) {
  if (span == 0) return generator();
  const uint64_t threshold = (0 - span) % span;
  for (;;) {
    const uint64_t word = generator();
    if (word >= threshold) return word % span;
  }
}

template <typename T>
T to_element(double value) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
    return T::from_float(static_cast<float>(value));
  else
    return static_cast<T>(value);
}

template <typename T>
double from_element(T value) {
  if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>)
    return value.to_float();
  else
    return static_cast<double>(value);
}

template <typename T>
void fill_floats(Tensor& tensor, const std::string& name, const ValueRange& range,
                 std::mt19937_64& generator) {
  T* data = tensor.data<T>();
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    int draws = 0;
    for (;; ++draws) {
      if (draws == kMaxDraws) {
        fail(ErrorCode::kInvalidArgument, "input '{}': the range [{}, {}) holds no {} value", name,
             range.low, range.high, dtype_name(tensor.dtype()));
      }
      const double unit = static_cast<double>(generator() >> 11) * 0x1.0p-53;
      const T value = to_element<T>(range.low + (range.high - range.low) * unit);
      const double back = from_element(value);
      if (back >= range.low && back < range.high) {
        data[i] = value;
        break;
      }
    }
  }
}

template <typename T>
void fill_integers(Tensor& tensor, const std::string& name, const ValueRange& range,
                   std::mt19937_64& generator) {
  const auto [first, last] = integer_bounds(name, range);
  if (std::cmp_less(first, std::numeric_limits<T>::min()) ||
      std::cmp_greater(last, std::numeric_limits<T>::max())) {
    fail(ErrorCode::kInvalidArgument, "input '{}' is {}, which cannot hold the range [{}, {})",
         name, dtype_name(tensor.dtype()), range.low, range.high);
  }
  const uint64_t span = static_cast<uint64_t>(last) - static_cast<uint64_t>(first) + 1;
  T* data = tensor.data<T>();
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    data[i] = static_cast<T>(
        static_cast<int64_t>(static_cast<uint64_t>(first) + uniform_below(generator, span)));
  }
}

}  // namespace

std::vector<uint32_t> seed_words(uint64_t seed, const std::string& input_name) {
  const uint64_t name_hash = fnv1a64(input_name);
  return {static_cast<uint32_t>(seed), static_cast<uint32_t>(seed >> 32),
          static_cast<uint32_t>(name_hash), static_cast<uint32_t>(name_hash >> 32)};
}

Tensor random_tensor(const model::ValueInfo& input, const Shape& shape, const ValueRange& range,
                     uint64_t seed) {
  const std::vector<uint32_t> words = seed_words(seed, input.name);
  std::seed_seq seeds(words.begin(), words.end());
  std::mt19937_64 generator(seeds);
  if (input.dtype == DataType::kString) {
    fail(ErrorCode::kUnsupported,
         "input '{}' holds strings, which are not generated; give it from a file", input.name);
  }
  Tensor tensor(input.dtype, shape);
  if (input.dtype == DataType::kBool) {
    bool* data = tensor.data<bool>();
    for (int64_t i = 0; i < tensor.numel(); ++i) data[i] = (generator() >> 63) != 0;
  } else if (input.dtype == DataType::kFloat16) {
    fill_floats<Float16>(tensor, input.name, range, generator);
  } else if (input.dtype == DataType::kBFloat16) {
    fill_floats<BFloat16>(tensor, input.name, range, generator);
  } else {
    visit_dtype(input.dtype, "input '" + input.name + "'", [&](auto tag) {
      using T = typename decltype(tag)::type;
      if constexpr (std::is_floating_point_v<T>)
        fill_floats<T>(tensor, input.name, range, generator);
      else if constexpr (!std::is_same_v<T, bool>)
        fill_integers<T>(tensor, input.name, range, generator);
    });
  }
  return tensor;
}

backends::TensorMap random_inputs(const std::vector<model::ValueInfo>& inputs,
                                  const std::map<std::string, Shape>& shapes,
                                  const std::map<std::string, ValueRange>& ranges, uint64_t seed) {
  backends::TensorMap tensors;
  for (const model::ValueInfo& input : inputs) {
    auto shape = shapes.find(input.name);
    auto range = ranges.find(input.name);
    if (shape == shapes.end() || range == ranges.end())
      fail(ErrorCode::kInvalidArgument, "input '{}' has no resolved shape or range", input.name);
    tensors[input.name] = random_tensor(input, shape->second, range->second, seed);
  }
  return tensors;
}

}  // namespace inferlab::inputs
