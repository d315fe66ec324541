#include "inferlab/serve/protocol/json_tensor.h"

#include <cstdint>
#include <limits>
#include <type_traits>

#include "inferlab/core/error.h"
#include "inferlab/core/float16.h"
#include "inferlab/serve/protocol/datatype.h"

namespace inferlab::serve {
namespace {

using nlohmann::json;

template <typename T>
bool fits(const json& value) {
  if (!value.is_number_integer()) return false;
  if (value.is_number_unsigned()) {
    return value.get<uint64_t>() <= static_cast<uint64_t>(std::numeric_limits<T>::max());
  }
  const int64_t signed_value = value.get<int64_t>();
  if constexpr (std::is_unsigned_v<T>) {
    return signed_value >= 0 && static_cast<uint64_t>(signed_value) <=
                                    static_cast<uint64_t>(std::numeric_limits<T>::max());
  } else {
    return signed_value >= static_cast<int64_t>(std::numeric_limits<T>::min()) &&
           signed_value <= static_cast<int64_t>(std::numeric_limits<T>::max());
  }
}

// The element type's value of one JSON leaf, or an error naming it.
template <typename T>
T element(const json& value, int64_t index, std::string_view name, DataType dtype) {
  const auto refuse = [&](const char* expected) {
    fail(ErrorCode::kInvalidArgument, "input '{}': element {} is {}, not {} ({})", name, index,
         value.dump(), expected, kserve_datatype(dtype));
  };
  if constexpr (std::is_same_v<T, bool>) {
    if (!value.is_boolean()) refuse("true or false");
    return value.get<bool>();
  } else if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
    if (!value.is_number()) refuse("a number");
    return T::from_float(value.get<float>());
  } else if constexpr (std::is_floating_point_v<T>) {
    if (!value.is_number()) refuse("a number");
    return value.get<T>();
  } else {
    if (!fits<T>(value)) refuse("an integer in the type's range");
    return static_cast<T>(value.is_number_unsigned() ? static_cast<T>(value.get<uint64_t>())
                                                     : static_cast<T>(value.get<int64_t>()));
  }
}

template <typename T>
class LeafWriter {
 public:
  LeafWriter(Tensor& tensor, std::string_view name)
      : out_(static_cast<T*>(tensor.raw_data())),
        count_(tensor.numel()),
        dtype_(tensor.dtype()),
        name_(name) {}

  // Row-major order; nesting is bounded by the parser's depth limit.
  void write(const json& node) {
    if (node.is_array()) {
      for (const json& child : node) write(child);
      return;
    }
    if (written_ == count_) {
      fail(ErrorCode::kInvalidArgument,
           "input '{}': \"data\" has more than the {} values its "
           "shape holds",
           name_, count_);
    }
    out_[written_] = element<T>(node, written_, name_, dtype_);
    ++written_;
  }
  int64_t written() const { return written_; }

 private:
  T* out_;
  int64_t count_;
  DataType dtype_;
  std::string_view name_;
  int64_t written_ = 0;
};

template <typename T>
void fill_typed(const json& data, Tensor& tensor, std::string_view name) {
  LeafWriter<T> writer(tensor, name);
  writer.write(data);
  if (writer.written() != tensor.numel()) {
    fail(ErrorCode::kInvalidArgument, "input '{}': \"data\" has {} values, but shape {} holds {}",
         name, writer.written(), shape_to_string(tensor.shape()), tensor.numel());
  }
}

template <typename T>
json typed_to_json(const Tensor& tensor) {
  json values = json::array();
  const T* data = static_cast<const T*>(tensor.raw_data());
  for (int64_t i = 0; i < tensor.numel(); ++i) {
    if constexpr (std::is_same_v<T, Float16> || std::is_same_v<T, BFloat16>) {
      values.push_back(data[i].to_float());
    } else {
      values.push_back(data[i]);
    }
  }
  return values;
}

// Calls fn.template operator()<T>() with the C++ type of `dtype`.
template <typename Fn>
auto visit_type(DataType dtype, std::string_view name, Fn&& fn) {
  switch (dtype) {
    case DataType::kBool:
      return fn.template operator()<bool>();
    case DataType::kUint8:
      return fn.template operator()<uint8_t>();
    case DataType::kUint16:
      return fn.template operator()<uint16_t>();
    case DataType::kUint32:
      return fn.template operator()<uint32_t>();
    case DataType::kUint64:
      return fn.template operator()<uint64_t>();
    case DataType::kInt8:
      return fn.template operator()<int8_t>();
    case DataType::kInt16:
      return fn.template operator()<int16_t>();
    case DataType::kInt32:
      return fn.template operator()<int32_t>();
    case DataType::kInt64:
      return fn.template operator()<int64_t>();
    case DataType::kFloat16:
      return fn.template operator()<Float16>();
    case DataType::kBFloat16:
      return fn.template operator()<BFloat16>();
    case DataType::kFloat32:
      return fn.template operator()<float>();
    case DataType::kFloat64:
      return fn.template operator()<double>();
    default:
      fail(ErrorCode::kUnsupported, "tensor '{}': type {} has no protocol datatype", name,
           dtype_name(dtype));
  }
}

}  // namespace

void fill_from_json(const json& data, Tensor& tensor, std::string_view name) {
  visit_type(tensor.dtype(), name, [&]<typename T>() { fill_typed<T>(data, tensor, name); });
}

json tensor_to_json(const Tensor& tensor) {
  return visit_type(tensor.dtype(), "output",
                    [&]<typename T>() { return typed_to_json<T>(tensor); });
}

}  // namespace inferlab::serve
