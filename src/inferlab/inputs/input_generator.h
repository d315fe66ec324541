// Fixed-seed random inputs, the same bytes for `inferlab run`, `bench` and
// `profile` given the same seed, model, shapes and ranges.
//
// The seed rule: the values of the input named NAME come from one
// std::mt19937_64 seeded through std::seed_seq{seed & 0xffffffff, seed >> 32,
// fnv1a64(NAME) & 0xffffffff, fnv1a64(NAME) >> 32}, drawn in element order.
// Seeding by name (not by position) gives an input the same values whichever
// order a backend lists its inputs in. Both std::mt19937_64 and std::seed_seq
// are specified exactly by the standard; the values are mapped from its 64-bit
// words by this module (not by std::uniform_*_distribution, whose algorithms
// differ between standard libraries), so a seed means the same inputs in
// every build.
//
// Floats: low + (high - low) * u, u = the word's top 53 bits / 2^53, drawn
// again when rounding to the dtype leaves [low, high). Integers: uniform over
// the range's integers (input_range.h), unbiased. Booleans: the word's top bit.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "inferlab/backends/backend.h"
#include "inferlab/inputs/input_range.h"

namespace inferlab::inputs {

// The generator's seed for the input named `input_name` (FNV-1a of the name
// mixed with `seed` as described above); exposed for tests.
std::vector<uint32_t> seed_words(uint64_t seed, const std::string& input_name);

// One input's values. Throws Error naming the input: a string input
// (kUnsupported: give it from a file), a range that holds no value of the
// dtype, or an integer range outside the dtype's (kInvalidArgument).
Tensor random_tensor(const model::ValueInfo& input, const Shape& shape, const ValueRange& range,
                     uint64_t seed);

// Every input, by `shapes` and `ranges` (both by input name; see
// input_shapes.h and input_range.h).
backends::TensorMap random_inputs(const std::vector<model::ValueInfo>& inputs,
                                  const std::map<std::string, Shape>& shapes,
                                  const std::map<std::string, ValueRange>& ranges, uint64_t seed);

}  // namespace inferlab::inputs
