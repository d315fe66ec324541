#include "inferlab/backends/worker/shared_arena.h"

#include <sys/mman.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

#include "inferlab/backends/tensor_wire.h"

namespace inferlab::backends {

namespace {

constexpr size_t kAlignment = 64;
constexpr size_t kMinimumArenaBytes = size_t{1} << 20;

size_t aligned(size_t bytes) { return (bytes + kAlignment - 1) / kAlignment * kAlignment; }

}  // namespace

SharedArena::~SharedArena() {
  if (mapping_ != nullptr) munmap(mapping_, size_);
}

bool SharedArena::reserve(size_t bytes) {
  if (bytes <= size_ && mapping_ != nullptr) return false;
  // Grow geometrically so a slowly growing workload does not remap each call.
  size_t capacity = std::max(kMinimumArenaBytes, size_ * 2);
  while (capacity < bytes) capacity *= 2;
  UniqueFd fd(memfd_create("inferlab-tensors", MFD_CLOEXEC));
  if (!fd.valid())
    fail(ErrorCode::kRuntime, "cannot create shared memory: {}", std::strerror(errno));
  if (ftruncate(fd.get(), static_cast<off_t>(capacity)) != 0)
    fail(ErrorCode::kRuntime, "cannot size {} bytes of shared memory: {}", capacity,
         std::strerror(errno));
  void* mapping = mmap(nullptr, capacity, PROT_READ | PROT_WRITE, MAP_SHARED, fd.get(), 0);
  if (mapping == MAP_FAILED)
    fail(ErrorCode::kRuntime, "cannot map {} bytes of shared memory: {}", capacity,
         std::strerror(errno));
  if (mapping_ != nullptr) munmap(mapping_, size_);
  mapping_ = mapping;
  size_ = capacity;
  fd_ = std::move(fd);
  ++generation_;
  return true;
}

ArenaView::~ArenaView() { unmap(); }

void ArenaView::unmap() {
  if (mapping_ != nullptr) munmap(mapping_, size_);
  mapping_ = nullptr;
  size_ = 0;
}

void ArenaView::replace(UniqueFd fd, size_t bytes) {
  void* mapping = mmap(nullptr, bytes, PROT_READ, MAP_SHARED, fd.get(), 0);
  if (mapping == MAP_FAILED)
    fail(ErrorCode::kRuntime, "cannot map the worker's shared memory: {}", std::strerror(errno));
  unmap();
  mapping_ = mapping;
  size_ = bytes;
}

const uint8_t* ArenaView::at(uint64_t offset, uint64_t bytes) const {
  if (mapping_ == nullptr || offset > size_ || bytes > size_ - offset) {
    fail(ErrorCode::kRuntime, "tensor at offset {} ({} bytes) lies outside shared memory of {}",
         offset, bytes, size_);
  }
  return static_cast<const uint8_t*>(mapping_) + offset;
}

int write_tensors(SharedArena& arena, const TensorMap& tensors, nlohmann::json& message,
                  const char* key) {
  size_t total = 0;
  for (const auto& [name, tensor] : tensors) total += aligned(tensor.nbytes());
  const bool replaced = arena.reserve(total);
  nlohmann::json list = nlohmann::json::array();
  size_t offset = 0;
  for (const auto& [name, tensor] : tensors) {
    const std::string dtype = wire_dtype_name(tensor.dtype());
    if (tensor.nbytes() > 0) std::memcpy(arena.data() + offset, tensor.raw_data(), tensor.nbytes());
    list.push_back({{"name", name},
                    {"dtype", dtype},
                    {"shape", tensor.shape()},
                    {"offset", offset},
                    {"bytes", tensor.nbytes()}});
    offset += aligned(tensor.nbytes());
  }
  message[key] = std::move(list);
  if (!replaced) return -1;
  message["arena"] = {{"generation", arena.generation()}, {"bytes", arena.size()}};
  return arena.fd();
}

TensorMap read_tensors(ArenaView& view, const nlohmann::json& message, UniqueFd attached_fd,
                       const char* key) {
  if (message.contains("arena")) {
    if (!attached_fd.valid())
      fail(ErrorCode::kRuntime, "worker message announces a new arena but carries no descriptor");
    view.replace(std::move(attached_fd), message["arena"].at("bytes").get<size_t>());
  }
  TensorMap tensors;
  for (const nlohmann::json& entry : message.at(key)) {
    const DataType dtype = parse_wire_dtype(entry.at("dtype").get<std::string>());
    Tensor tensor(dtype, entry.at("shape").get<Shape>());
    const uint64_t bytes = entry.at("bytes").get<uint64_t>();
    if (bytes != tensor.nbytes()) {
      fail(ErrorCode::kRuntime, "tensor '{}' claims {} bytes for shape {} of {}",
           entry.at("name").get<std::string>(), bytes, shape_to_string(tensor.shape()),
           dtype_name(dtype));
    }
    if (bytes > 0)
      std::memcpy(tensor.raw_data(), view.at(entry.at("offset").get<uint64_t>(), bytes), bytes);
    tensors[entry.at("name").get<std::string>()] = std::move(tensor);
  }
  return tensors;
}

}  // namespace inferlab::backends
