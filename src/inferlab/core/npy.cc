// NumPy .npy files: magic, version, a Python-dict header ('descr',
// 'fortran_order', 'shape'), then the raw C-order little-endian data. The
// header is parsed strictly; every fault names the file.
#include "inferlab/core/npy.h"

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <system_error>

#include "inferlab/core/error.h"

namespace inferlab {
namespace {

constexpr char kMagic[] = "\x93NUMPY";
constexpr size_t kMagicSize = 6;

struct NpyHeader {
  DataType dtype = DataType::kUndefined;
  Shape shape;
};

std::string descr_of(DataType dtype, const std::string& what) {
  switch (dtype) {
    case DataType::kFloat32:
      return "<f4";
    case DataType::kFloat64:
      return "<f8";
    case DataType::kFloat16:
      return "<f2";
    case DataType::kInt8:
      return "|i1";
    case DataType::kInt16:
      return "<i2";
    case DataType::kInt32:
      return "<i4";
    case DataType::kInt64:
      return "<i8";
    case DataType::kUint8:
      return "|u1";
    case DataType::kUint16:
      return "<u2";
    case DataType::kUint32:
      return "<u4";
    case DataType::kUint64:
      return "<u8";
    case DataType::kBool:
      return "|b1";
    default:
      fail(ErrorCode::kUnsupported, "{}: element type {} has no .npy (NumPy) equivalent", what,
           dtype_name(dtype));
  }
}

DataType dtype_of_descr(const std::string& descr, const std::string& source) {
  if (descr.size() >= 2 && descr[0] == '>' && descr.substr(1) != "i1" && descr.substr(1) != "u1" &&
      descr.substr(1) != "b1") {
    fail(ErrorCode::kUnsupported, "{}: big-endian data ('{}') is not supported", source, descr);
  }
  const std::string kind = descr.size() >= 2 ? descr.substr(1) : descr;
  const char order = descr.empty() ? '?' : descr[0];
  if (order == '<' || order == '|' || order == '=' || order == '>') {
    static const std::map<std::string, DataType> kTypes = {
        {"f4", DataType::kFloat32}, {"f8", DataType::kFloat64}, {"f2", DataType::kFloat16},
        {"i1", DataType::kInt8},    {"i2", DataType::kInt16},   {"i4", DataType::kInt32},
        {"i8", DataType::kInt64},   {"u1", DataType::kUint8},   {"u2", DataType::kUint16},
        {"u4", DataType::kUint32},  {"u8", DataType::kUint64},  {"b1", DataType::kBool}};
    auto it = kTypes.find(kind);
    if (it != kTypes.end()) return it->second;
  }
  fail(ErrorCode::kUnsupported, "{}: unsupported .npy dtype '{}'", source, descr);
}

// A tiny parser for the Python literal dict NumPy writes.
class HeaderParser {
 public:
  HeaderParser(const std::string& text, const std::string& source) : text_(text), source_(source) {}

  NpyHeader parse() {
    std::string descr;
    bool have_descr = false, have_order = false, have_shape = false;
    NpyHeader header;
    expect('{');
    while (!try_consume('}')) {
      const std::string key = parse_string();
      expect(':');
      if (key == "descr")
        descr = parse_string(), have_descr = true;
      else if (key == "fortran_order")
        check_fortran_order(), have_order = true;
      else if (key == "shape")
        header.shape = parse_shape_tuple(), have_shape = true;
      else
        bad("unexpected key '" + key + "'");
      if (!try_consume(',')) {
        expect('}');
        break;
      }
    }
    if (!have_descr || !have_order || !have_shape)
      bad("missing 'descr', 'fortran_order' or 'shape'");
    header.dtype = dtype_of_descr(descr, source_);
    return header;
  }

 private:
  [[noreturn]] void bad(const std::string& why) const {
    fail(ErrorCode::kInvalidArgument, "{}: malformed .npy header ({}): {}", source_, why, text_);
  }
  void skip_space() {
    while (pos_ < text_.size() && (text_[pos_] == ' ' || text_[pos_] == '\n')) ++pos_;
  }
  bool try_consume(char c) {
    skip_space();
    if (pos_ < text_.size() && text_[pos_] == c) return ++pos_, true;
    return false;
  }
  void expect(char c) {
    if (!try_consume(c)) bad(std::string("expected '") + c + "'");
  }
  std::string parse_string() {
    skip_space();
    if (pos_ >= text_.size() || (text_[pos_] != '\'' && text_[pos_] != '"'))
      bad("expected a string");
    const char quote = text_[pos_++];
    const size_t end = text_.find(quote, pos_);
    if (end == std::string::npos) bad("unterminated string");
    std::string value = text_.substr(pos_, end - pos_);
    pos_ = end + 1;
    return value;
  }
  void check_fortran_order() {
    skip_space();
    if (text_.compare(pos_, 5, "False") == 0) {
      pos_ += 5;
    } else if (text_.compare(pos_, 4, "True") == 0) {
      fail(ErrorCode::kUnsupported, "{}: Fortran-order arrays are not supported (save C order)",
           source_);
    } else {
      bad("fortran_order must be True or False");
    }
  }
  Shape parse_shape_tuple() {
    Shape shape;
    expect('(');
    while (!try_consume(')')) {
      skip_space();
      int64_t dim = 0;
      size_t digits = 0;
      while (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9' && digits < 18) {
        dim = dim * 10 + (text_[pos_++] - '0');
        ++digits;
      }
      if (digits == 0 || (pos_ < text_.size() && text_[pos_] >= '0' && text_[pos_] <= '9')) {
        bad("shape must be a tuple of non-negative integers");
      }
      shape.push_back(dim);
      if (!try_consume(',')) {
        expect(')');
        break;
      }
    }
    return shape;
  }

  const std::string& text_;
  const std::string& source_;
  size_t pos_ = 0;
};

uint32_t read_le(const std::string& bytes, size_t offset, size_t width) {
  uint32_t value = 0;
  for (size_t i = 0; i < width; ++i)
    value |= uint32_t{static_cast<uint8_t>(bytes[offset + i])} << (8 * i);
  return value;
}

}  // namespace

Tensor parse_npy(const std::string& bytes, const std::string& source, int64_t max_tensor_bytes) {
  if (bytes.size() < kMagicSize + 2 || bytes.compare(0, kMagicSize, kMagic) != 0) {
    fail(ErrorCode::kInvalidArgument, "{}: not a .npy file (bad magic)", source);
  }
  const int major = static_cast<uint8_t>(bytes[6]);
  if (major < 1 || major > 3) {
    fail(ErrorCode::kUnsupported, "{}: .npy format version {} is not supported (1 to 3)", source,
         major);
  }
  const size_t length_width = major == 1 ? 2 : 4;
  const size_t header_start = kMagicSize + 2 + length_width;
  if (bytes.size() < header_start)
    fail(ErrorCode::kInvalidArgument, "{}: truncated .npy header", source);
  const size_t header_length = read_le(bytes, kMagicSize + 2, length_width);
  if (bytes.size() - header_start < header_length) {
    fail(ErrorCode::kInvalidArgument, "{}: truncated .npy header ({} bytes announced, {} present)",
         source, header_length, bytes.size() - header_start);
  }
  const std::string text = bytes.substr(header_start, header_length);
  const NpyHeader header = HeaderParser(text, source).parse();
  int64_t numel = 1;
  for (int64_t dim : header.shape) numel = checked_mul(numel, dim, source + ": shape");
  const int64_t data_bytes =
      checked_mul(numel, static_cast<int64_t>(dtype_size(header.dtype)), source);
  if (data_bytes > max_tensor_bytes) {
    fail(ErrorCode::kLimitExceeded, "{}: tensor of {} bytes exceeds max_tensor_bytes = {}", source,
         data_bytes, max_tensor_bytes);
  }
  const size_t data_offset = header_start + header_length;
  if (bytes.size() - data_offset != static_cast<size_t>(data_bytes)) {
    fail(ErrorCode::kInvalidArgument, "{}: shape {} of {} needs {} data bytes, the file has {}",
         source, shape_to_string(header.shape), dtype_name(header.dtype), data_bytes,
         bytes.size() - data_offset);
  }
  Tensor tensor(header.dtype, header.shape);
  if (data_bytes > 0)
    std::memcpy(tensor.raw_data(), bytes.data() + data_offset, static_cast<size_t>(data_bytes));
  if (header.dtype == DataType::kBool) {
    auto* values = static_cast<uint8_t*>(tensor.raw_data());
    for (int64_t i = 0; i < numel; ++i) values[i] = values[i] != 0;
  }
  return tensor;
}

Tensor read_npy(const std::string& path, int64_t max_tensor_bytes) {
  std::error_code ec;
  if (!std::filesystem::is_regular_file(path, ec)) fail(ErrorCode::kIo, "{}: file not found", path);
  const auto size = std::filesystem::file_size(path, ec);
  // Header plus data: reject files far larger than any tensor we accept.
  if (ec || size > static_cast<uintmax_t>(max_tensor_bytes) + (uintmax_t{1} << 20)) {
    fail(ErrorCode::kLimitExceeded, "{}: file is larger than max_tensor_bytes = {}", path,
         max_tensor_bytes);
  }
  std::ifstream in(path, std::ios::binary);
  if (!in) fail(ErrorCode::kIo, "{}: cannot open", path);
  std::string bytes(static_cast<size_t>(size), '\0');
  in.read(bytes.data(), static_cast<std::streamsize>(size));
  if (static_cast<uintmax_t>(in.gcount()) != size) fail(ErrorCode::kIo, "{}: read failed", path);
  return parse_npy(bytes, path, max_tensor_bytes);
}

std::string serialize_npy(const Tensor& tensor) {
  if (tensor.empty()) fail(ErrorCode::kInvalidArgument, "cannot write an empty tensor as .npy");
  std::string shape_text = "(";
  for (size_t i = 0; i < tensor.shape().size(); ++i) {
    shape_text += std::to_string(tensor.shape()[i]) + (tensor.shape().size() == 1 ? "," : "");
    if (i + 1 < tensor.shape().size()) shape_text += ", ";
  }
  shape_text += ")";
  std::string header = "{'descr': '" + descr_of(tensor.dtype(), "npy") +
                       "', 'fortran_order': False, 'shape': " + shape_text + ", }";
  // Pad with spaces so the data starts on a 64-byte boundary; end with '\n'.
  const bool version2 = header.size() + 64 > 65535;
  const size_t prefix = kMagicSize + 2 + (version2 ? 4 : 2);
  header.append((64 - (prefix + header.size() + 1) % 64) % 64, ' ');
  header += '\n';
  std::string out(kMagic, kMagicSize);
  out += static_cast<char>(version2 ? 2 : 1);
  out += '\0';
  const size_t width = version2 ? 4 : 2;
  for (size_t i = 0; i < width; ++i) out += static_cast<char>((header.size() >> (8 * i)) & 0xff);
  out += header;
  out.append(static_cast<const char*>(tensor.raw_data()), tensor.nbytes());
  return out;
}

void write_npy(const std::string& path, const Tensor& tensor) {
  if (tensor.dtype() == DataType::kString || tensor.dtype() == DataType::kBFloat16) {
    descr_of(tensor.dtype(), path);  // throws naming the file
  }
  const std::string bytes = serialize_npy(tensor);
  std::ofstream out(path, std::ios::binary | std::ios::trunc);
  if (!out) fail(ErrorCode::kIo, "{}: cannot open for writing", path);
  out.write(bytes.data(), static_cast<std::streamsize>(bytes.size()));
  out.close();
  if (!out) fail(ErrorCode::kIo, "{}: write failed", path);
}

}  // namespace inferlab
