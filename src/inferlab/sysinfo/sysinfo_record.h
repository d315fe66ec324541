// The last full `inferlab sysinfo` measurement, kept on disk so the profiler
// can draw its roofline without measuring the machine again on every run.
// The record is the JSON of to_json() (docs/sysinfo.md), stored at
// $INFERLAB_CACHE/sysinfo.json; it is reused only on the machine it was
// measured on (same CPU model and usable core count) and only when it was a
// full measurement (not --quick).
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

namespace inferlab::sysinfo {

// $INFERLAB_CACHE/sysinfo.json (default ~/.cache/inferlab/sysinfo.json).
std::string default_record_path();

// Writes `record` to `path` through a temporary file and a rename, so a
// reader never sees half a record; creates the directory.
void save_record(const nlohmann::json& record, const std::string& path);

// Reads a sysinfo JSON file; throws Error(kIo) if it cannot be read and
// Error(kInvalidArgument) naming the file and field if it is not a sysinfo
// record (needs peak_gflops_single_core, peak_gflops_all_cores,
// memory_bandwidth_gbps and fma.all_cores.threads).
nlohmann::json load_record(const std::string& path);

// Why `record` does not describe this machine ("measured on CPU 'X' with 4
// usable cores, this is 'Y' with 2", "a --quick measurement"), or nullopt
// when it does. `machine` is bench::machine_record() of this machine.
std::optional<std::string> record_mismatch(const nlohmann::json& record,
                                           const nlohmann::json& machine);

}  // namespace inferlab::sysinfo
