// Shared-memory arenas for tensors crossing to and from a worker
// (docs/worker-protocol.md). Each side owns the arena it writes (a memfd,
// anonymous: nothing to clean up in /dev/shm) and maps the other's read-only.
#pragma once

#include <cstddef>
#include <cstdint>

#include <nlohmann/json.hpp>

#include "inferlab/backends/backend.h"
#include "inferlab/backends/worker/unique_fd.h"

namespace inferlab::backends {

// A read-write memfd mapping that grows by replacement.
class SharedArena {
 public:
  SharedArena() = default;
  ~SharedArena();
  SharedArena(const SharedArena&) = delete;
  SharedArena& operator=(const SharedArena&) = delete;

  // Ensures at least `bytes` of capacity; true when a new memfd replaced the
  // old one (its fd must then go with the next message).
  bool reserve(size_t bytes);
  uint8_t* data() { return static_cast<uint8_t*>(mapping_); }
  int fd() const { return fd_.get(); }
  size_t size() const { return size_; }
  uint64_t generation() const { return generation_; }

 private:
  UniqueFd fd_;
  void* mapping_ = nullptr;
  size_t size_ = 0;
  uint64_t generation_ = 0;
};

// The peer's arena, mapped read-only.
class ArenaView {
 public:
  ArenaView() = default;
  ~ArenaView();
  ArenaView(const ArenaView&) = delete;
  ArenaView& operator=(const ArenaView&) = delete;

  void replace(UniqueFd fd, size_t bytes);
  // Bounds-checked pointer to [offset, offset + bytes).
  const uint8_t* at(uint64_t offset, uint64_t bytes) const;

 private:
  void unmap();
  void* mapping_ = nullptr;
  size_t size_ = 0;
};

// Lays `tensors` out in `arena` (64-byte aligned) and describes them for a
// message. Sets "arena" in `message` and returns the fd to attach when the
// arena was replaced, else -1.
int write_tensors(SharedArena& arena, const TensorMap& tensors, nlohmann::json& message,
                  const char* key);

// Maps a new arena if the message carries one, then copies the tensors of
// `message[key]` out of `view` into owned Tensors.
TensorMap read_tensors(ArenaView& view, const nlohmann::json& message, UniqueFd attached_fd,
                       const char* key);

}  // namespace inferlab::backends
