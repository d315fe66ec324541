// SignalThread: SIGINT/SIGTERM/SIGHUP reach the callback on its thread (never
// a thread started later, never the default action), die_of() ends the
// process by the signal, an inherited "ignore" is kept, and destruction
// stops the thread without calling back. Signals go to the whole process, so
// each case runs in a death-test child (threadsafe style: a fresh process).
#include "inferlab/core/signal_thread.h"

#include <gtest/gtest.h>
#include <unistd.h>

#include <atomic>
#include <thread>

namespace inferlab {
namespace {

class SignalThreadTest : public ::testing::Test {
 protected:
  void SetUp() override { GTEST_FLAG_SET(death_test_style, "threadsafe"); }
};

[[noreturn]] void wait_for_ever() {
  for (;;) pause();
}

TEST_F(SignalThreadTest, CallsTheCallbackWithTheSignalNumber) {
  EXPECT_EXIT(
      {
        SignalThread signals([](int number) { _exit(number); });
        kill(getpid(), SIGTERM);
        wait_for_ever();
      },
      ::testing::ExitedWithCode(SIGTERM), "");
}

TEST_F(SignalThreadTest, ThreadsStartedAfterItLeaveTheSignalToIt) {
  EXPECT_EXIT(
      {
        SignalThread signals([](int number) { _exit(number); });
        std::thread other([] { wait_for_ever(); });
        other.detach();
        kill(getpid(), SIGINT);
        wait_for_ever();
      },
      ::testing::ExitedWithCode(SIGINT), "");
}

TEST_F(SignalThreadTest, DieOfEndsTheProcessByThatSignal) {
  EXPECT_EXIT(
      {
        SignalThread signals([](int number) { SignalThread::die_of(number); });
        kill(getpid(), SIGHUP);
        wait_for_ever();
      },
      ::testing::KilledBySignal(SIGHUP), "");
}

TEST_F(SignalThreadTest, AnInheritedIgnoreIsKept) {
  EXPECT_EXIT(
      {
        signal(SIGHUP, SIG_IGN);  // as under nohup
        SignalThread signals([](int number) { _exit(number); });
        kill(getpid(), SIGHUP);
        kill(getpid(), SIGTERM);
        wait_for_ever();
      },
      ::testing::ExitedWithCode(SIGTERM), "");
}

TEST_F(SignalThreadTest, DestructionStopsTheThreadWithoutCallingBack) {
  std::atomic<int> calls{0};
  sigset_t before, after;
  pthread_sigmask(SIG_SETMASK, nullptr, &before);
  {
    SignalThread signals([&](int) { ++calls; });
  }
  pthread_sigmask(SIG_SETMASK, nullptr, &after);
  EXPECT_EQ(calls.load(), 0);
  EXPECT_EQ(sigismember(&after, SIGTERM), sigismember(&before, SIGTERM)) << "mask not restored";
}

}  // namespace
}  // namespace inferlab
