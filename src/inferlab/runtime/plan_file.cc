// Layout (little-endian; docs/plan-format.md):
//   0   magic "INFERLAB-PLAN\n\0\0" (16 bytes)
//   16  u32 format version, u32 header bytes (the JSON)
//   24  u64 blob offset (4096-aligned), u64 blob bytes
//   40  u64 header checksum, u64 blob checksum (core/file_hash.h)
//   56  the header JSON: {"key": ..., "model": ..., "graph": ..., "packed": ...}
//   blob offset: the tensors and the packed weights, each 64-byte aligned
#include "inferlab/runtime/plan_file.h"

#include <fcntl.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <fstream>

#include <fmt/format.h>

#include "inferlab/core/error.h"
#include "inferlab/core/file_hash.h"
#include "inferlab/runtime/graph_record.h"

namespace inferlab::runtime {

using nlohmann::json;

namespace {

constexpr char kMagic[16] = {'I', 'N', 'F', 'E', 'R', 'L',  'A',  'B',
                             '-', 'P', 'L', 'A', 'N', '\n', '\0', '\0'};
constexpr uint64_t kBlobAlignment = 4096;

struct PlanHeader {
  char magic[16];
  uint32_t format_version;
  uint32_t header_bytes;
  uint64_t blob_offset;
  uint64_t blob_bytes;
  uint64_t header_checksum;
  uint64_t blob_checksum;
};
static_assert(sizeof(PlanHeader) == 56);

json model_record(const model::Model& model) {
  return {{"source", model.source},
          {"ir_version", model.ir_version},
          {"opsets", model.opsets},
          {"producer_name", model.producer_name},
          {"producer_version", model.producer_version}};
}

uint64_t blob_checksum(const BlobLayout& blob) {
  // The checksum of the blob as it will lie in the file, padding included.
  std::vector<char> bytes(blob.total_bytes, 0);
  for (size_t i = 0; i < blob.pieces.size(); ++i)
    std::memcpy(bytes.data() + blob.offsets[i], blob.pieces[i].data, blob.pieces[i].bytes);
  return fast_checksum(bytes.data(), bytes.size());
}

// The mapping of a plan file; unmapped when the last tensor borrowing from
// it (through Model::backing) is gone.
class Mapping {
 public:
  Mapping(void* address, size_t size) : address_(address), size_(size) {}
  ~Mapping() {
    if (address_ != nullptr) munmap(address_, size_);
  }
  Mapping(const Mapping&) = delete;
  Mapping& operator=(const Mapping&) = delete;
  const char* bytes() const { return static_cast<const char*>(address_); }
  size_t size() const { return size_; }

 private:
  void* address_;
  size_t size_;
};

std::shared_ptr<Mapping> map_file(const std::string& path) {
  const int fd = open(path.c_str(), O_RDONLY | O_CLOEXEC);
  if (fd < 0) fail(ErrorCode::kIo, "cannot open plan file {}: {}", path, std::strerror(errno));
  struct stat status {};
  if (fstat(fd, &status) != 0) {
    close(fd);
    fail(ErrorCode::kIo, "cannot stat plan file {}: {}", path, std::strerror(errno));
  }
  const size_t size = static_cast<size_t>(status.st_size);
  void* address =
      size == 0 ? MAP_FAILED : mmap(nullptr, size, PROT_READ, MAP_PRIVATE | MAP_POPULATE, fd, 0);
  const int map_errno = errno;
  close(fd);
  if (size == 0) return std::make_shared<Mapping>(nullptr, 0);
  if (address == MAP_FAILED)
    fail(ErrorCode::kIo, "cannot map plan file {}: {}", path, std::strerror(map_errno));
  return std::make_shared<Mapping>(address, size);
}

std::string to_hex(const std::string& bytes) {
  std::string hex;
  hex.reserve(bytes.size() * 2);
  for (const char byte : bytes) fmt::format_to(std::back_inserter(hex), "{:02x}", byte & 0xff);
  return hex;
}

std::string from_hex(const std::string& hex) {
  if (hex.size() % 2 != 0) fail(ErrorCode::kInvalidModel, "a layout of odd hex length");
  auto nibble = [](char digit) {
    if (digit >= '0' && digit <= '9') return digit - '0';
    if (digit >= 'a' && digit <= 'f') return digit - 'a' + 10;
    fail(ErrorCode::kInvalidModel, "a layout with a bad hex digit '{}'", digit);
  };
  std::string bytes(hex.size() / 2, '\0');
  for (size_t i = 0; i < bytes.size(); ++i) {
    bytes[i] = static_cast<char>(nibble(hex[2 * i]) * 16 + nibble(hex[2 * i + 1]));
  }
  return bytes;
}

json packed_record(const PackedNodes& packed, BlobLayout& blob) {
  json nodes = json::array();
  for (const auto& [node, copies] : packed) {
    json records = json::array();
    for (const kernels::PackedCopy& copy : copies) {
      records.push_back({{"input", copy.input},
                         {"shape", std::vector<int64_t>(copy.shape.begin(), copy.shape.end())},
                         {"original_layout", to_hex(copy.original_layout)},
                         {"layout", to_hex(copy.layout)},
                         {"offset", blob.add(copy.bytes.get(), copy.size)},
                         {"bytes", copy.size}});
    }
    nodes.push_back({{"node", node}, {"kind", "onednn"}, {"copies", std::move(records)}});
  }
  return nodes;
}

PackedNodes packed_from(const json& nodes, const std::shared_ptr<const char>& blob,
                        uint64_t blob_bytes) {
  PackedNodes packed;
  for (const json& node : nodes) {
    std::vector<kernels::PackedCopy> copies;
    for (const json& record : node.at("copies")) {
      kernels::PackedCopy copy;
      copy.input = record.at("input").get<size_t>();
      const auto dims = record.at("shape").get<std::vector<int64_t>>();
      copy.shape = Shape(dims.begin(), dims.end());
      copy.original_layout = from_hex(record.at("original_layout").get<std::string>());
      copy.layout = from_hex(record.at("layout").get<std::string>());
      const auto offset = record.at("offset").get<uint64_t>();
      copy.size = record.at("bytes").get<uint64_t>();
      if (offset > blob_bytes || copy.size > blob_bytes - offset) {
        fail(ErrorCode::kInvalidModel, "packed weights of {} bytes at offset {} outside the blob",
             copy.size, offset);
      }
      copy.bytes = std::shared_ptr<const void>(blob, blob.get() + offset);
      copies.push_back(std::move(copy));
    }
    packed.emplace_back(node.at("node").get<size_t>(), std::move(copies));
  }
  return packed;
}

bool reject(PlanRejection& rejection, const char* kind, std::string detail) {
  rejection.kind = kind;
  rejection.detail = std::move(detail);
  return false;
}

// "stale" when only the build or format moved on, "foreign" when the plan
// is for another model, options or shapes.
bool check_key(const json& found, const json& expected, PlanRejection& rejection) {
  for (const auto& [field, value] : expected.items()) {
    const json actual = found.contains(field) ? found.at(field) : json(nullptr);
    if (actual == value) continue;
    const bool stale = field == "build" || field == "kernels" || field == "format_version";
    return reject(rejection, stale ? "stale" : "foreign",
                  fmt::format("{} is {} (expected {})", field, actual.dump(), value.dump()));
  }
  return true;
}

}  // namespace

void write_plan_file(const std::string& path, const json& key, const model::Model& model,
                     const PackedNodes& packed) {
  BlobLayout blob;
  const json document = {{"key", key},
                         {"model", model_record(model)},
                         {"graph", graph_to_record(*model.graph, blob)},
                         {"packed", packed_record(packed, blob)}};
  const std::string header_json = document.dump();
  PlanHeader header{};
  std::memcpy(header.magic, kMagic, sizeof(kMagic));
  header.format_version = kPlanFormatVersion;
  header.header_bytes = static_cast<uint32_t>(header_json.size());
  header.blob_offset = (sizeof(PlanHeader) + header_json.size() + kBlobAlignment - 1) /
                       kBlobAlignment * kBlobAlignment;
  header.blob_bytes = blob.total_bytes;
  header.header_checksum = fast_checksum(header_json.data(), header_json.size());
  header.blob_checksum = blob_checksum(blob);

  const std::string temporary = fmt::format("{}.tmp-{}", path, getpid());
  {
    std::ofstream file(temporary, std::ios::binary | std::ios::trunc);
    if (!file) fail(ErrorCode::kIo, "cannot write plan file {}", temporary);
    file.write(reinterpret_cast<const char*>(&header), sizeof(header));
    file.write(header_json.data(), static_cast<std::streamsize>(header_json.size()));
    const std::vector<char> padding(kBlobAlignment, 0);
    uint64_t at = sizeof(header) + header_json.size();
    auto pad_to = [&](uint64_t target) {
      file.write(padding.data(), static_cast<std::streamsize>(target - at));
      at = target;
    };
    pad_to(header.blob_offset);
    for (size_t i = 0; i < blob.pieces.size(); ++i) {
      pad_to(header.blob_offset + blob.offsets[i]);
      file.write(static_cast<const char*>(blob.pieces[i].data),
                 static_cast<std::streamsize>(blob.pieces[i].bytes));
      at += blob.pieces[i].bytes;
    }
    if (!file.flush()) fail(ErrorCode::kIo, "cannot write plan file {}", temporary);
  }
  std::error_code error;
  std::filesystem::rename(temporary, path, error);
  if (error) {
    std::filesystem::remove(temporary, error);
    fail(ErrorCode::kIo, "cannot move the plan into place at {}", path);
  }
}

bool read_plan_file(const std::string& path, const json& expected_key, model::Model& model,
                    PackedNodes& packed, PlanRejection& rejection) {
  const std::shared_ptr<Mapping> mapping = map_file(path);
  PlanHeader header{};
  if (mapping->size() == 0) return reject(rejection, "truncated", "the file is empty");
  if (std::memcmp(mapping->bytes(), kMagic, std::min(mapping->size(), sizeof(kMagic))) != 0)
    return reject(rejection, "corrupt", "not an InferLab plan file (bad magic)");
  if (mapping->size() < sizeof(header))
    return reject(rejection, "truncated",
                  fmt::format("{} bytes, not even a header", mapping->size()));
  std::memcpy(&header, mapping->bytes(), sizeof(header));
  if (header.format_version != kPlanFormatVersion)
    return reject(rejection, "stale",
                  fmt::format("format version {} (this build reads {})", header.format_version,
                              kPlanFormatVersion));
  const uint64_t expected_size = header.blob_offset + header.blob_bytes;
  if (header.blob_offset < sizeof(header) + header.header_bytes || mapping->size() != expected_size)
    return reject(rejection, mapping->size() < expected_size ? "truncated" : "corrupt",
                  fmt::format("{} bytes, the header describes {}", mapping->size(), expected_size));
  const char* header_json = mapping->bytes() + sizeof(header);
  if (fast_checksum(header_json, header.header_bytes) != header.header_checksum)
    return reject(rejection, "corrupt", "header checksum mismatch");
  json document;
  try {
    document = json::parse(header_json, header_json + header.header_bytes);
  } catch (const json::exception& error) {
    return reject(rejection, "corrupt", std::string("header is not JSON: ") + error.what());
  }
  if (!check_key(document.value("key", json::object()), expected_key, rejection)) return false;
  const char* blob = mapping->bytes() + header.blob_offset;
  const uint64_t checksum = fast_checksum(blob, header.blob_bytes);
  if (checksum != header.blob_checksum)
    return reject(
        rejection, "corrupt",
        fmt::format("weights checksum {:#x} != {:#x} recorded", checksum, header.blob_checksum));
  try {
    const json& record = document.at("model");
    model.source = record.at("source").get<std::string>();
    model.ir_version = record.at("ir_version").get<int64_t>();
    model.opsets = record.at("opsets").get<std::map<std::string, int64_t>>();
    model.producer_name = record.at("producer_name").get<std::string>();
    model.producer_version = record.at("producer_version").get<std::string>();
    model.graph = graph_from_record(document.at("graph"), blob, header.blob_bytes);
    packed = packed_from(document.value("packed", json::array()),
                         std::shared_ptr<const char>(mapping, blob), header.blob_bytes);
  } catch (const json::exception& error) {
    return reject(rejection, "corrupt", std::string("malformed plan: ") + error.what());
  } catch (const Error& error) {
    return reject(rejection, "corrupt", error.what());
  }
  model.backing = mapping;
  return true;
}

}  // namespace inferlab::runtime
