#include "inferlab/core/huge_pages.h"

#include <sys/mman.h>

#include <cstdint>

namespace inferlab {

void advise_huge_pages(void* data, size_t bytes) {
  if (data == nullptr || bytes < kHugePageAdviceBytes) return;
  constexpr uintptr_t kHugePage = uintptr_t{2} << 20;
  const auto start = reinterpret_cast<uintptr_t>(data);
  const uintptr_t first = (start + kHugePage - 1) / kHugePage * kHugePage;
  const uintptr_t last = (start + bytes) / kHugePage * kHugePage;
  if (last <= first) return;
  madvise(reinterpret_cast<void*>(first), last - first, MADV_HUGEPAGE);
}

}  // namespace inferlab
