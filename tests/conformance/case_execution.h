// Runs one conformance case in the current process: load the model with
// runtime::Session, feed every test_data_set's inputs, compare every output.
// The runner calls this inside a child process, so a crash or a hang here
// costs one case, not the whole run.
#pragma once

#include <algorithm>
#include <chrono>
#include <cstring>
#include <exception>
#include <filesystem>
#include <map>
#include <optional>
#include <set>
#include <string>
#include <utility>
#include <vector>

#include <fmt/format.h>

#include "conformance/case_catalog.h"
#include "conformance/tensor_compare.h"
#include "conformance/tensor_proto_reader.h"
#include "inferlab/core/error.h"
#include "inferlab/model/tensor_file.h"
#include "inferlab/runtime/session.h"

namespace inferlab::conformance {

enum class CaseStatus { kPass, kFail, kUnsupported, kCrash };

inline const char* case_status_name(CaseStatus status) {
  switch (status) {
    case CaseStatus::kPass:
      return "pass";
    case CaseStatus::kFail:
      return "fail";
    case CaseStatus::kUnsupported:
      return "unsupported";
    case CaseStatus::kCrash:
      return "crash";
  }
  return "?";
}

inline CaseStatus parse_case_status(const std::string& name) {
  if (name == "pass") return CaseStatus::kPass;
  if (name == "unsupported") return CaseStatus::kUnsupported;
  if (name == "crash") return CaseStatus::kCrash;
  return CaseStatus::kFail;
}

struct CaseOutcome {
  CaseStatus status = CaseStatus::kFail;
  std::string reason;  // empty on pass
  double seconds = 0;
};

struct ExecutionOptions {
  int threads = 1;  // per case; cases already run in parallel processes
  int opt_level = 3;
};

namespace detail {

struct TestTensorFile {
  int index = 0;
  std::string path;
};

// `prefix`_N.pb files of a test set, ordered by N (input_10 after input_9).
inline std::vector<TestTensorFile> numbered_files(const std::string& dir,
                                                  const std::string& prefix) {
  std::vector<TestTensorFile> files;
  for (const auto& entry : std::filesystem::directory_iterator(dir)) {
    const std::string file = entry.path().filename().string();
    if (file.rfind(prefix, 0) != 0 || entry.path().extension() != ".pb") continue;
    const std::string number = file.substr(prefix.size(), file.size() - prefix.size() - 3);
    if (number.empty() || number.find_first_not_of("0123456789") != std::string::npos) continue;
    files.push_back({std::stoi(number), entry.path().string()});
  }
  std::sort(files.begin(), files.end(),
            [](const TestTensorFile& a, const TestTensorFile& b) { return a.index < b.index; });
  return files;
}

// ONNX 1.12's test data stores bfloat16 tensors as uint16 (numpy has no
// bfloat16); read them as the bfloat16 the model declares for that value.
inline Tensor as_declared_type(const ConformanceCase& c, const std::string& value_name,
                               const Tensor& tensor) {
  const auto declared = c.declared_elem_types.find(value_name);
  if (declared == c.declared_elem_types.end() ||
      declared->second != static_cast<int32_t>(DataType::kBFloat16) ||
      tensor.dtype() != DataType::kUint16) {
    return tensor;
  }
  Tensor bfloat16(DataType::kBFloat16, tensor.shape());
  if (tensor.nbytes() > 0) std::memcpy(bfloat16.raw_data(), tensor.raw_data(), tensor.nbytes());
  return bfloat16;
}

struct TestInput {
  std::string file_name;  // the TensorProto's name; may be empty
  Tensor tensor;
};

// Inputs go through InferLab's own .pb reader (exercising it); expected
// outputs through the runner's independent one (tensor_proto_reader.h), so a
// reader bug cannot cancel out on both sides of the comparison.
inline std::vector<TestInput> read_inputs(const std::string& test_set) {
  std::vector<TestInput> inputs;
  for (const auto& file : numbered_files(test_set, "input_")) {
    TestInput input;
    input.tensor = model::read_tensor_pb(file.path, &input.file_name);
    inputs.push_back(std::move(input));
  }
  return inputs;
}

// Input N of the test data feeds graph input N, unless the file names a
// graph input (or an initializer the caller may override) itself.
inline runtime::TensorMap bind_inputs(const ConformanceCase& c, const runtime::Session& session,
                                      const std::vector<TestInput>& inputs) {
  std::set<std::string> known;
  for (const auto& info : session.inputs()) known.insert(info.name);
  for (const auto& info : session.model().graph->overridable_initializers) known.insert(info.name);
  runtime::TensorMap bound;
  for (size_t i = 0; i < inputs.size(); ++i) {
    if (!inputs[i].file_name.empty() && known.count(inputs[i].file_name)) {
      bound[inputs[i].file_name] = as_declared_type(c, inputs[i].file_name, inputs[i].tensor);
    } else if (i < session.inputs().size()) {
      const std::string& name = session.inputs()[i].name;
      bound[name] = as_declared_type(c, name, inputs[i].tensor);
    } else {
      fail(ErrorCode::kInvalidArgument, "test data has {} inputs, the model takes {}",
           inputs.size(), session.inputs().size());
    }
  }
  return bound;
}

// The graph input each test input feeds: the one the file names, else the
// one at the same position (empty when there is none).
inline std::string graph_input_for(const ConformanceCase& c, const std::vector<TestInput>& inputs,
                                   size_t index) {
  const auto& names = c.runtime_inputs;
  const std::string& file_name = inputs[index].file_name;
  if (std::find(names.begin(), names.end(), file_name) != names.end()) return file_name;
  return index < names.size() ? names[index] : std::string();
}

// Shapes for the inputs declared with symbolic dims, taken from the test data.
inline std::map<std::string, Shape> symbolic_input_shapes(const ConformanceCase& c,
                                                          const std::vector<TestInput>& inputs) {
  std::map<std::string, Shape> shapes;
  const auto& symbolic = c.inputs_with_symbolic_dims;
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = graph_input_for(c, inputs, i);
    if (std::find(symbolic.begin(), symbolic.end(), name) != symbolic.end()) {
      shapes[name] = inputs[i].tensor.shape();
    }
  }
  return shapes;
}

// A few ONNX 1.12 cases ship inputs whose shape contradicts the shape the
// model declares (test_castlike_*BFLOAT16*: 'like' is [1], declared [3, 4]);
// name that plainly instead of leaving it to a generic input-shape error.
inline std::optional<std::string> test_data_contradiction(const ConformanceCase& c,
                                                          const std::vector<TestInput>& inputs) {
  for (size_t i = 0; i < inputs.size(); ++i) {
    const std::string name = graph_input_for(c, inputs, i);
    const auto declared = c.declared_input_dims.find(name);
    if (declared == c.declared_input_dims.end()) continue;
    const Shape& actual = inputs[i].tensor.shape();
    bool agrees = declared->second.size() == actual.size();
    for (size_t d = 0; agrees && d < actual.size(); ++d) {
      agrees = declared->second[d] < 0 || declared->second[d] == actual[d];
    }
    if (!agrees) {
      return fmt::format("test data defect: input '{}' has shape {}, the model declares {}", name,
                         shape_to_string(actual), shape_to_string(declared->second));
    }
  }
  return std::nullopt;
}

// Compares every expected output; returns the first mismatch.
inline std::optional<std::string> check_outputs(const ConformanceCase& c,
                                                const runtime::Session& session,
                                                const runtime::TensorMap& outputs,
                                                const std::string& test_set) {
  for (const auto& file : numbered_files(test_set, "output_")) {
    if (static_cast<size_t>(file.index) >= session.outputs().size()) {
      return fmt::format("test data has output_{}, the model has {} outputs", file.index,
                         session.outputs().size());
    }
    const std::string& name = session.outputs()[file.index].name;
    const Tensor expected = as_declared_type(c, name, read_tensor_proto_file(file.path, nullptr));
    const auto found = outputs.find(name);
    if (found == outputs.end())
      return fmt::format("output {} '{}' was not produced", file.index, name);
    if (auto mismatch = compare_tensors(found->second, expected)) {
      return fmt::format("{}: output {} '{}': {}",
                         std::filesystem::path(test_set).filename().string(), file.index, name,
                         *mismatch);
    }
  }
  return std::nullopt;
}

inline CaseOutcome run_case_unguarded(const ConformanceCase& c, const ExecutionOptions& options) {
  runtime::SessionOptions session_options;
  session_options.threads = options.threads;
  session_options.opt_level = options.opt_level;
  std::optional<runtime::Session> session;
  if (!c.non_tensor_values.empty()) {
    // Let the Session reject the model itself if it does; its message is the better reason.
    runtime::Session::load(c.model_path, session_options);
    return {CaseStatus::kUnsupported,
            c.non_tensor_values.front() + " value; InferLab's Session runs on tensors only"};
  }
  for (const auto& test_set : c.test_sets) {
    const std::vector<TestInput> inputs = read_inputs(test_set);
    if (auto contradiction = test_data_contradiction(c, inputs)) {
      return {CaseStatus::kFail, *contradiction};
    }
    auto shapes = symbolic_input_shapes(c, inputs);
    if (!session || shapes != session_options.input_shapes) {
      session_options.input_shapes = std::move(shapes);
      session.emplace(runtime::Session::load(c.model_path, session_options));
    }
    const runtime::TensorMap outputs = session->run(bind_inputs(c, *session, inputs));
    if (auto mismatch = check_outputs(c, *session, outputs, test_set)) {
      return {CaseStatus::kFail, *mismatch};
    }
  }
  return {CaseStatus::kPass, {}};
}

}  // namespace detail

// Error messages name the model by its full path; inside a case's report
// "model.onnx" says the same in less space.
inline std::string without_case_dir(std::string reason, const ConformanceCase& c) {
  for (const std::string& long_name : {c.model_path, c.dir}) {
    const std::string short_name = long_name == c.model_path ? "model.onnx" : ".";
    for (size_t at = reason.find(long_name); at != std::string::npos;
         at = reason.find(long_name, at + short_name.size())) {
      reason.replace(at, long_name.size(), short_name);
    }
  }
  return reason;
}

// Never throws: every failure becomes an outcome with a reason.
inline CaseOutcome run_case(const ConformanceCase& c, const ExecutionOptions& options) {
  const auto start = std::chrono::steady_clock::now();
  CaseOutcome outcome;
  try {
    outcome = detail::run_case_unguarded(c, options);
  } catch (const Error& error) {
    outcome.status =
        error.code() == ErrorCode::kUnsupported ? CaseStatus::kUnsupported : CaseStatus::kFail;
    outcome.reason = fmt::format("[{}] {}", error_code_name(error.code()), error.what());
  } catch (const std::exception& error) {
    outcome.reason = fmt::format("non-inferlab exception: {}", error.what());
  }
  outcome.reason = without_case_dir(outcome.reason, c);
  outcome.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - start).count();
  return outcome;
}

}  // namespace inferlab::conformance
