// Terminal tables of `inferlab profile`: per backend the run line, the
// hottest nodes, the per-operator-type summary and the time outside
// kernels; with two backends the cross-engine comparison.
#pragma once

#include <ostream>

#include "inferlab/profile/profile.h"

namespace inferlab::cli {

void print_profile_tables(const profile::ProfileResult& result, std::ostream& out);

}  // namespace inferlab::cli
