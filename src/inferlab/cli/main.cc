// The `inferlab` command: dispatches to one subcommand per file (inspect.cc,
// run.cc, ...). Exit status: 0 success, 1 any error (message on stderr),
// 2 usage error. Everything is caught here, so no input ends in a signal;
// SIGINT, SIGTERM and SIGHUP end it by that signal after its workers are
// killed and reaped.
#include <exception>
#include <iostream>
#include <new>

#include "inferlab/backends/worker/child_process.h"
#include "inferlab/cli/cli_common.h"
#include "inferlab/cli/openmp_policy.h"
#include "inferlab/core/error.h"
#include "inferlab/core/signal_thread.h"

namespace {

constexpr int kExitError = 1;
constexpr int kExitUsage = 2;

int run_cli(int argc, char** argv, inferlab::cli::InterruptRouter& interrupts) {
  CLI::App app{"InferLab: load ONNX models, run them, and measure them."};
  app.require_subcommand(1);
  std::vector<inferlab::cli::Command> commands;
  inferlab::cli::add_inspect_command(app, commands);
  inferlab::cli::add_run_command(app, commands);
  inferlab::cli::add_backends_command(app, commands);
  inferlab::cli::add_bench_command(app, commands, argc, argv);
  inferlab::cli::add_gate_command(app, commands, argc, argv);
  inferlab::cli::add_optimize_command(app, commands);
  inferlab::cli::add_sysinfo_command(app, commands);
  inferlab::cli::add_profile_command(app, commands);
#ifdef INFERLAB_HAS_SERVE
  inferlab::cli::add_serve_command(app, commands, interrupts);
#endif
#ifdef INFERLAB_HAS_LOADGEN
  inferlab::cli::add_load_command(app, commands);
#endif
  try {
    app.parse(argc, argv);
  } catch (const CLI::ParseError& error) {
    const int status = app.exit(error);  // prints help or the parse error
    return status == 0 ? 0 : kExitUsage;
  }
  for (const inferlab::cli::Command& command : commands) {
    if (command.app->parsed()) return command.run();
  }
  return kExitUsage;
}

}  // namespace

int main(int argc, char** argv) {
  // First: it may replace this process, and must run before any thread exists.
  inferlab::cli::ensure_passive_openmp_or_reexec(argc, argv);
  // Before any other thread, so every thread inherits the blocked signals.
  // A command may take the signal itself (the server drains); else the
  // process's workers must not outlive an interrupted command: kill and
  // reap them, then die of the signal as a program without handlers would.
  inferlab::cli::InterruptRouter interrupts;
  inferlab::SignalThread signals([&interrupts](int signal_number) {
    if (interrupts.deliver(signal_number)) return;
    inferlab::backends::kill_and_reap_all_children();
    inferlab::SignalThread::die_of(signal_number);
  });
  try {
    return run_cli(argc, argv, interrupts);
  } catch (const inferlab::cli::UsageError& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitUsage;
  } catch (const inferlab::Error& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitError;
  } catch (const std::bad_alloc&) {
    std::cerr << "error: out of memory\n";
    return kExitError;
  } catch (const std::exception& error) {
    std::cerr << "error: " << error.what() << "\n";
    return kExitError;
  } catch (...) {
    std::cerr << "error: unknown failure\n";
    return kExitError;
  }
}
