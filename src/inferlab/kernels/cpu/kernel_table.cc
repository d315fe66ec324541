// kernel_table(Isa): the one switch from an ISA to its kernels.
#include "inferlab/kernels/cpu/kernel_table.h"

namespace inferlab::kernels::cpu {

const KernelTable& kernel_table(Isa isa) {
  switch (isa) {
    case Isa::kAvx512:
      return avx512::kernel_table();
    case Isa::kAvx2:
      return avx2::kernel_table();
    case Isa::kPortable:
      break;
  }
  return portable::kernel_table();
}

}  // namespace inferlab::kernels::cpu
