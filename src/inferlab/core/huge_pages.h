// Transparent huge pages for InferLab's large allocations (weights, packed
// weights, scratch). Where THP is in "madvise" mode (Debian's default), a
// region is backed by 2 MiB pages only if asked; in a VM every 4 KiB page
// fault is costly (31% of an encoder load and first run went to faults,
// mostly while copying weights into fresh memory), and 2 MiB pages take
// 512 times fewer.
#pragma once

#include <cstddef>

namespace inferlab {

// Regions below this are left alone: too small to hold a whole huge page
// once aligned.
constexpr size_t kHugePageAdviceBytes = size_t{4} << 20;

// Asks for huge pages on the 2 MiB-aligned part of [data, data + bytes).
// Call before the memory is first written. A refusal (no THP) is ignored:
// the memory works the same with small pages.
void advise_huge_pages(void* data, size_t bytes);

}  // namespace inferlab
