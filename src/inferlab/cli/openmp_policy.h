// OMP_WAIT_POLICY=PASSIVE for commands that keep several models in one
// process. libgomp reads OMP_WAIT_POLICY once, when it is loaded (before
// main(), as a dependency of libinferlab), and by default an OpenMP team
// that finished its work spins for a while before sleeping. One model per
// process can afford that; several (a server's models, each with its team)
// spin against each other and against the team that has work. So such a
// command puts PASSIVE in its environment and re-executes itself, before
// anything else happens, for libgomp to load again and see it.
#pragma once

namespace inferlab::cli {

// When argv[1] names a command that hosts several models (today: `serve`,
// plus the comma-separated names in INFERLAB_PASSIVE_OPENMP_COMMANDS, a hook
// for tests) and OMP_WAIT_POLICY is not set, sets OMP_WAIT_POLICY=PASSIVE
// and execv()s /proc/self/exe with the same argv; it does not return then.
// Returns without doing anything otherwise: a user's own OMP_WAIT_POLICY
// (any value) is respected. If the exec fails, the command runs on with
// libgomp's default policy. Call first thing in main(), before any thread.
void ensure_passive_openmp_or_reexec(int argc, char** argv);

}  // namespace inferlab::cli
