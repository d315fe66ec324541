#include "inferlab/core/build_identity.h"

#include <dlfcn.h>
#include <elf.h>
#include <link.h>

#include <cstring>

#include <fmt/format.h>

#include "inferlab/core/file_hash.h"

namespace inferlab {

namespace {

struct BuildIdSearch {
  const void* address_in_library = nullptr;
  std::string hex;
};

std::string note_build_id(const ElfW(Nhdr) * note, const char* end) {
  const char* at = reinterpret_cast<const char*>(note);
  while (at + sizeof(ElfW(Nhdr)) <= end) {
    const auto* header = reinterpret_cast<const ElfW(Nhdr)*>(at);
    const size_t name_size = (header->n_namesz + 3) & ~size_t{3};
    const size_t desc_size = (header->n_descsz + 3) & ~size_t{3};
    const char* name = at + sizeof(ElfW(Nhdr));
    const auto* desc = reinterpret_cast<const unsigned char*>(name + name_size);
    if (reinterpret_cast<const char*>(desc) + header->n_descsz > end) break;
    if (header->n_type == NT_GNU_BUILD_ID && header->n_namesz == 4 &&
        std::memcmp(name, "GNU", 4) == 0) {
      std::string hex;
      for (size_t i = 0; i < header->n_descsz; ++i) hex += fmt::format("{:02x}", desc[i]);
      return hex;
    }
    at = name + name_size + desc_size;
  }
  return {};
}

// dl_iterate_phdr callback: finds the loaded object containing the search
// address and reads its NT_GNU_BUILD_ID note.
int find_build_id(dl_phdr_info* info, size_t, void* data) {
  auto* search = static_cast<BuildIdSearch*>(data);
  const auto address = reinterpret_cast<ElfW(Addr)>(search->address_in_library);
  bool contains = false;
  for (int i = 0; i < info->dlpi_phnum && !contains; ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    const ElfW(Addr) start = info->dlpi_addr + segment.p_vaddr;
    contains = segment.p_type == PT_LOAD && address >= start && address < start + segment.p_memsz;
  }
  if (!contains) return 0;
  for (int i = 0; i < info->dlpi_phnum && search->hex.empty(); ++i) {
    const ElfW(Phdr)& segment = info->dlpi_phdr[i];
    if (segment.p_type != PT_NOTE) continue;
    const char* start = reinterpret_cast<const char*>(info->dlpi_addr + segment.p_vaddr);
    search->hex =
        note_build_id(reinterpret_cast<const ElfW(Nhdr)*>(start), start + segment.p_memsz);
  }
  return 1;
}

std::string compute_identity() {
  BuildIdSearch search;
  search.address_in_library = reinterpret_cast<const void*>(&library_build_identity);
  dl_iterate_phdr(find_build_id, &search);
  if (!search.hex.empty()) return "build-id:" + search.hex;
  Dl_info info{};
  if (dladdr(search.address_in_library, &info) != 0 && info.dli_fname != nullptr)
    return "sha256:" + file_sha256(info.dli_fname);
  return "unknown";
}

}  // namespace

const std::string& library_build_identity() {
  static const std::string identity = compute_identity();
  return identity;
}

}  // namespace inferlab
