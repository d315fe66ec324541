// advise_huge_pages marks the 2 MiB-aligned part of a large region for
// transparent huge pages (the mapping holding it shows the "hg" flag in
// /proc/self/smaps), as a large Tensor's allocation does; small regions are
// left alone.
#include "inferlab/core/huge_pages.h"

#include <sys/mman.h>

#include <gtest/gtest.h>

#include <cstdint>
#include <filesystem>
#include <fstream>
#include <sstream>
#include <string>

#include "inferlab/core/tensor.h"

namespace inferlab {
namespace {

// The VmFlags of the mapping that holds `address`, or "" when none does.
std::string vm_flags_at(const void* address) {
  const auto at = reinterpret_cast<uintptr_t>(address);
  std::ifstream smaps("/proc/self/smaps");
  std::string line;
  bool inside = false;
  while (std::getline(smaps, line)) {
    uintptr_t start = 0;
    uintptr_t end = 0;
    char dash = 0;
    std::istringstream range(line);
    if (range >> std::hex >> start >> dash >> end && dash == '-') {
      inside = start <= at && at < end;
      continue;
    }
    if (inside && line.rfind("VmFlags:", 0) == 0) return line;
  }
  return "";
}

bool has_huge_page_flag(const void* address) {
  return vm_flags_at(address).find(" hg") != std::string::npos;
}

class HugePages : public ::testing::Test {
 protected:
  void SetUp() override {
    if (!std::filesystem::exists("/sys/kernel/mm/transparent_hugepage/enabled")) {
      GTEST_SKIP() << "no transparent huge pages in this kernel";
    }
  }
};

TEST_F(HugePages, ALargeTensorsAlignedInteriorIsMarked) {
  const Tensor large = Tensor::uninitialized(DataType::kFloat32, {4, 1024, 1024});  // 16 MiB
  const auto start = reinterpret_cast<uintptr_t>(large.raw_data());
  const uintptr_t inside =
      (start + (uintptr_t{2} << 20) - 1) / (uintptr_t{2} << 20) * (uintptr_t{2} << 20);
  EXPECT_TRUE(has_huge_page_flag(reinterpret_cast<const void*>(inside)))
      << vm_flags_at(reinterpret_cast<const void*>(inside));
}

TEST_F(HugePages, SmallRegionsAreLeftAlone) {
  void* small = mmap(nullptr, 2 << 20, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
  ASSERT_NE(small, MAP_FAILED);
  advise_huge_pages(small, 2 << 20);
  EXPECT_FALSE(has_huge_page_flag(small)) << vm_flags_at(small);
  munmap(small, 2 << 20);
}

}  // namespace
}  // namespace inferlab
