// Names that cross process boundaries: element types as numpy spells them
// ("float32", "int64", ...) and error codes as snake_case words, so the
// Python worker and the C++ side agree without sharing code.
#pragma once

#include <string>
#include <string_view>

#include "inferlab/core/data_type.h"
#include "inferlab/core/error.h"

namespace inferlab::backends {

// Throws Error(kUnsupported) for types with no wire form (string).
std::string wire_dtype_name(DataType dtype);
DataType parse_wire_dtype(std::string_view name);

std::string wire_error_code(ErrorCode code);
ErrorCode parse_wire_error_code(std::string_view name);

}  // namespace inferlab::backends
