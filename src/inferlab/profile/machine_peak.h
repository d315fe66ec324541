// The roofline's limits for a profile: taken from a sysinfo record (a file
// the user names, or the record `inferlab sysinfo` keeps in the cache), or
// measured now when there is none, and saved for next time.
#pragma once

#include <string>

#include <nlohmann/json.hpp>

#include "inferlab/profile/profile.h"

namespace inferlab::profile {

// The peak for `threads` threads from a sysinfo record (docs/sysinfo.md):
// the threads are capped at the record's usable cores (more threads add no
// FMA units); at the record's all-cores thread count the all-cores figure
// is taken, otherwise the single-core figure times the threads. The
// bandwidth is the record's triad figure, measured with every core.
// `threads` 0 means one per usable core, as in ProfileOptions.
MachinePeak peak_from_record(const nlohmann::json& record, int threads);

struct PeakRequest {
  int threads = 1;           // as ProfileOptions::threads
  std::string sysinfo_path;  // a sysinfo JSON to use; empty: the cached record
  std::string cache_path;    // the cached record (sysinfo::default_record_path())
  // Tests: measure with --quick's short runs and small arrays. Such a record
  // is saved but never reused (record_mismatch() says why).
  bool quick_measurement = false;
};

// The peak to profile against. With sysinfo_path it reads that file (its
// errors name the file). Otherwise it uses the cached record when it
// describes this machine, and else measures the machine as `inferlab
// sysinfo` does (a few seconds; `status` is told), saves the record to
// cache_path and uses it. MachinePeak::source says which happened.
MachinePeak resolve_machine_peak(const PeakRequest& request, const ProgressCallback& status);

}  // namespace inferlab::profile
