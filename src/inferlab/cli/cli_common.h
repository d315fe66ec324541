// Helpers shared by the CLI subcommands: the command table main() dispatches
// on, usage errors (exit status 2, unlike library errors which exit 1),
// parsing of NAME=VALUE flags, JSON output to a file or stdout, and
// human-readable numbers.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <stdexcept>
#include <string>
#include <vector>

#include <CLI/CLI.hpp>
#include <nlohmann/json.hpp>

#include "inferlab/cli/interrupts.h"
#include "inferlab/core/tensor.h"
#include "inferlab/model/graph.h"

namespace inferlab::cli {

// A malformed command line the parser could not catch (e.g. `--shape x=1,a`).
class UsageError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

// A registered subcommand: main() runs the one the user chose and returns
// its exit status.
struct Command {
  CLI::App* app = nullptr;
  std::function<int()> run;
};

void add_inspect_command(CLI::App& root, std::vector<Command>& commands);
void add_run_command(CLI::App& root, std::vector<Command>& commands);
void add_backends_command(CLI::App& root, std::vector<Command>& commands);
void add_gate_command(CLI::App& root, std::vector<Command>& commands, int argc, char** argv);
void add_optimize_command(CLI::App& root, std::vector<Command>& commands);
void add_sysinfo_command(CLI::App& root, std::vector<Command>& commands);
void add_profile_command(CLI::App& root, std::vector<Command>& commands);
// The parts' commands (defined only when the part is built: INFERLAB_HAS_SERVE,
// INFERLAB_HAS_LOADGEN).
// `interrupts`: the server drains on SIGINT/SIGTERM instead of dying.
void add_serve_command(CLI::App& root, std::vector<Command>& commands, InterruptRouter& interrupts);
void add_load_command(CLI::App& root, std::vector<Command>& commands);
// `argc`/`argv` are recorded in the result as the exact command line.
void add_bench_command(CLI::App& root, std::vector<Command>& commands, int argc, char** argv);

// Splits "NAME=VALUE" (first '='); throws UsageError naming `flag` otherwise.
std::pair<std::string, std::string> split_name_value(const std::string& flag,
                                                     const std::string& text);
// Parses repeated "NAME=VALUE" flags into a map, rejecting repeated names.
std::map<std::string, std::string> parse_name_values(const std::string& flag,
                                                     const std::vector<std::string>& texts);
// Parses repeated "--shape NAME=1,3,224,224" flags.
std::map<std::string, Shape> parse_shape_flags(const std::vector<std::string>& texts);

// The exact command line, recorded in results.
std::string command_line(int argc, char** argv);

// Writes `json` (pretty) to `target`: "-" for stdout, else a file path.
void write_json(const nlohmann::json& json, const std::string& target);

// A dim list as JSON: numbers for static dims, the symbol (or null) otherwise.
nlohmann::json dims_json(const model::ValueInfo& info);
nlohmann::json value_info_json(const model::ValueInfo& info);

// Prints the import's non-fatal findings as "warning: ..." lines on stderr.
void print_model_warnings(const model::Model& model);

// "97.5 MiB", "1.23 G" style numbers.
std::string human_bytes(int64_t bytes);
std::string human_count(double count);

}  // namespace inferlab::cli
