// The hashes behind the plan cache: SHA-256 of memory against the FIPS 180-2
// example, and the fast checksum's promises — deterministic, and changed by
// any single flipped bit, a moved byte or a different length.
#include "inferlab/core/file_hash.h"

#include <gtest/gtest.h>

#include <random>
#include <vector>

namespace inferlab {
namespace {

TEST(FileHash, Sha256OfMemoryMatchesTheStandardExample) {
  EXPECT_EQ(sha256_hex("abc", 3),
            "ba7816bf8f01cfea414140de5dae2223b00361a396177a9cb410ff61f20015ad");
}

std::vector<unsigned char> random_bytes(size_t count, uint32_t seed) {
  std::mt19937 generator(seed);
  std::vector<unsigned char> bytes(count);
  for (unsigned char& byte : bytes) byte = static_cast<unsigned char>(generator());
  return bytes;
}

TEST(FileHash, ChecksumChangesWithEverySingleBitFlip) {
  // 203 bytes: three full 64-byte blocks and a tail.
  std::vector<unsigned char> bytes = random_bytes(203, 1);
  const uint64_t original = fast_checksum(bytes.data(), bytes.size());
  EXPECT_EQ(fast_checksum(bytes.data(), bytes.size()), original);
  for (size_t byte = 0; byte < bytes.size(); ++byte) {
    for (int bit = 0; bit < 8; ++bit) {
      bytes[byte] ^= static_cast<unsigned char>(1 << bit);
      EXPECT_NE(fast_checksum(bytes.data(), bytes.size()), original) << byte << ":" << bit;
      bytes[byte] ^= static_cast<unsigned char>(1 << bit);
    }
  }
}

TEST(FileHash, ChecksumSeesSwappedBlocksAndLength) {
  std::vector<unsigned char> bytes = random_bytes(256, 2);
  const uint64_t original = fast_checksum(bytes.data(), bytes.size());
  std::vector<unsigned char> swapped = bytes;
  std::swap_ranges(swapped.begin(), swapped.begin() + 64, swapped.begin() + 64);
  EXPECT_NE(fast_checksum(swapped.data(), swapped.size()), original);
  EXPECT_NE(fast_checksum(bytes.data(), bytes.size() - 1), original);
  const std::vector<unsigned char> zeros(128, 0);
  EXPECT_NE(fast_checksum(zeros.data(), 64), fast_checksum(zeros.data(), 128));
}

}  // namespace
}  // namespace inferlab
