// Hashes of files and memory: SHA-256 where identity matters (a model in a
// result or a cache key; OpenSSL), and a fast 64-bit checksum where only
// corruption must be caught in data too large to hash on every load (a plan
// file's weights).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>

namespace inferlab {

// Lowercase hex SHA-256 of a file's bytes; Error(kIo) naming the file when
// it cannot be read.
std::string file_sha256(const std::string& path);
// Lowercase hex SHA-256 of `size` bytes.
std::string sha256_hex(const void* data, size_t size);

// A 64-bit checksum of `size` bytes at memory speed (eight xor-rotate-add
// lanes, mixed by multiplication at the end). Detects corruption, not
// tampering.
uint64_t fast_checksum(const void* data, size_t size);

}  // namespace inferlab
