// Out-of-process backends through the worker protocol, exercised with the
// native engine hosted by inferlab-backend-host: same results as in process,
// timings split into conversions, execution and channel, errors crossing the
// process boundary with their code, and a worker that dies mid-run becoming
// an error that says how it ended — never a hang.
#include <gtest/gtest.h>
#include <signal.h>
#include <sys/types.h>

#include <chrono>
#include <filesystem>
#include <thread>

#include "inferlab/backends/registry.h"
#include "inferlab/backends/worker/child_process.h"
#include "test_util.h"

namespace inferlab::backends {
namespace {

std::string zoo_model(const std::string& name) {
  return testing::cache_dir() + "/models/" + name + ".onnx";
}

bool process_exists(pid_t pid) { return kill(pid, 0) == 0; }

// Runs `body` on a thread of its own and returns once that thread has fully
// exited (gone from /proc/self/task): any PR_SET_PDEATHSIG tied to it has
// been sent by then.
template <typename Body>
void run_on_a_thread_that_ends(Body&& body) {
  pid_t tid = 0;
  std::thread thread([&] {
    tid = gettid();
    body();
  });
  thread.join();
  const std::string task = "/proc/self/task/" + std::to_string(tid);
  while (std::filesystem::exists(task)) std::this_thread::sleep_for(std::chrono::milliseconds(1));
}

class WorkerProcess : public ::testing::Test {
 protected:
  BackendRegistry registry_{BackendEnvironment::from_process_environment()};
};

TEST_F(WorkerProcess, NativeInAWorkerMatchesNativeInProcess) {
  const ModelSource source = ModelSource::resolve(zoo_model("mobilenet_v2_op17"));
  auto isolated = registry_.get("native", Placement::kChildProcess)->open(source, {});
  auto local = registry_.get("native")->open(source, {});
  const Tensor input = testing::random_float_tensor({1, 3, 224, 224}, 11, 0.0f, 1.0f);
  const TensorMap remote_outputs = isolated->run({{"input", input}});
  EXPECT_TRUE(remote_outputs.at("output").equals(local->run({{"input", input}}).at("output")));
  EXPECT_TRUE(isolated->capabilities().out_of_process);
  EXPECT_GT(isolated->load_timings().startup_ms, 0.0);
  const RunTimings timings = isolated->last_timings();
  EXPECT_GT(timings.execute_ns, 0);
  EXPECT_GT(timings.channel_ns, 0);
}

TEST_F(WorkerProcess, StagedRunReportsEachPartSeparately) {
  const ModelSource source = ModelSource::resolve(zoo_model("mobilenet_v2_op17"));
  auto model = registry_.get("native", Placement::kChildProcess)->open(source, {});
  const Tensor input = testing::random_float_tensor({1, 3, 224, 224}, 5, 0.0f, 1.0f);
  model->bind({{"input", input}});
  const int64_t first = model->execute();
  const int64_t second = model->execute();
  EXPECT_GT(first, 0);
  EXPECT_GT(second, 0);
  const TensorMap outputs = model->fetch();
  EXPECT_EQ(outputs.at("output").shape(), (Shape{1, 1000}));
  EXPECT_GT(model->last_timings().convert_out_ns, 0);
}

TEST_F(WorkerProcess, ErrorsFromTheWorkerKeepTheirCode) {
  const std::string corrupt = testing::make_temp_dir("inferlab-corrupt") + "/model.onnx";
  testing::write_file(corrupt, "not a protobuf at all");
  try {
    registry_.get("native", Placement::kChildProcess)->open(ModelSource::resolve(corrupt), {});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidModel) << error.what();
    EXPECT_NE(std::string(error.what()).find("native: "), std::string::npos) << error.what();
    EXPECT_NE(std::string(error.what()).find(corrupt), std::string::npos) << error.what();
  }
  std::filesystem::remove_all(std::filesystem::path(corrupt).parent_path());
}

TEST_F(WorkerProcess, AWorkerKilledMidRunIsAnErrorAndIsReaped) {
  const ModelSource source = ModelSource::resolve(zoo_model("mobilenet_v2_op17"));
  auto model = registry_.get("native", Placement::kChildProcess)->open(source, {});
  const pid_t worker = model->configuration().at("worker_pid").get<pid_t>();
  ASSERT_TRUE(process_exists(worker));
  ASSERT_EQ(kill(worker, SIGKILL), 0);
  const Tensor input = testing::random_float_tensor({1, 3, 224, 224}, 5, 0.0f, 1.0f);
  try {
    model->run({{"input", input}});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kUnavailable);
    EXPECT_NE(std::string(error.what()).find("killed by signal 9"), std::string::npos)
        << error.what();
  }
  EXPECT_FALSE(process_exists(worker)) << "the dead worker was not reaped";
}

TEST_F(WorkerProcess, ACallBeyondTheTimeoutKillsTheWorkerAndFails) {
  // forward() sleeps 30 s; the 2 s call timeout must end it well before.
  const ModelSource source =
      ModelSource::resolve(testing::source_dir() + "/tests/backends/data/slow_forward");
  BackendOptions options;
  options.call_timeout_s = 2.0;
  auto model = registry_.get("python")->open(source, options);
  const pid_t worker = model->configuration().at("worker_pid").get<pid_t>();
  const auto start = std::chrono::steady_clock::now();
  try {
    model->run({{"input", testing::random_float_tensor({1, 4}, 3, 0.0f, 1.0f)}});
    FAIL() << "expected a timeout";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kDeadlineExceeded) << error.what();
    const std::string message = error.what();
    EXPECT_NE(message.find("within 2000 ms"), std::string::npos) << message;
    EXPECT_NE(message.find("worker killed"), std::string::npos) << message;
    // The worker's last words say what it was doing.
    EXPECT_NE(message.find("sleeping 30"), std::string::npos) << message;
  }
  EXPECT_LT(std::chrono::steady_clock::now() - start, std::chrono::seconds(20));
  EXPECT_FALSE(process_exists(worker)) << "the timed-out worker was not reaped";
}

TEST_F(WorkerProcess, AnInProcessBackendRefusesACallTimeout) {
  BackendOptions options;
  options.call_timeout_s = 1.0;
  try {
    registry_.get("native", Placement::kInProcess)
        ->open(ModelSource::resolve(zoo_model("mobilenet_v2_op17")), options);
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kUnsupported);
    EXPECT_NE(std::string(error.what()).find("worker process"), std::string::npos) << error.what();
  }
}

// PR_SET_PDEATHSIG follows the thread that forked: a worker forked by a
// request thread would be killed when that thread ends. Workers are forked
// by the process-wide spawner thread instead.
TEST_F(WorkerProcess, AWorkerOpenedFromAThreadThatEndedStillAnswers) {
  const ModelSource source = ModelSource::resolve(zoo_model("mobilenet_v2_op17"));
  std::unique_ptr<Model> model;
  run_on_a_thread_that_ends(
      [&] { model = registry_.get("native", Placement::kChildProcess)->open(source, {}); });
  ASSERT_NE(model, nullptr);
  const pid_t worker = model->configuration().at("worker_pid").get<pid_t>();
  const Tensor input = testing::random_float_tensor({1, 3, 224, 224}, 5, 0.0f, 1.0f);
  for (int run = 0; run < 2; ++run)
    EXPECT_EQ(model->run({{"input", input}}).at("output").shape(), (Shape{1, 1000}));
  EXPECT_EQ(model->configuration().at("worker_pid").get<pid_t>(), worker);
}

TEST_F(WorkerProcess, ClosingTheModelStopsTheWorker) {
  const ModelSource source = ModelSource::resolve(zoo_model("mobilenet_v2_op17"));
  pid_t worker = 0;
  {
    auto model = registry_.get("native", Placement::kChildProcess)->open(source, {});
    worker = model->configuration().at("worker_pid").get<pid_t>();
    EXPECT_TRUE(process_exists(worker));
  }
  EXPECT_FALSE(process_exists(worker));
}

TEST(ChildProcess, AProgramThatCannotStartIsAClearError) {
  try {
    ChildProcess child(ChildSpec{{"/nonexistent/worker"}, {}, {}});
    FAIL() << "expected an error";
  } catch (const Error& error) {
    EXPECT_NE(std::string(error.what()).find("/nonexistent/worker"), std::string::npos);
  }
}

TEST(ChildProcess, OutlivesTheThreadThatStartedIt) {
  std::unique_ptr<ChildProcess> child;
  run_on_a_thread_that_ends([&] {
    child = std::make_unique<ChildProcess>(ChildSpec{{"/bin/sleep", "600"}, {}, {}});
  });
  // A SIGKILL from PR_SET_PDEATHSIG would have been sent already; give it
  // ample time to land before concluding it was not.
  EXPECT_FALSE(child->wait_for_exit(1000)) << "the child " << child->exit_description();
  child->kill_and_reap();
  EXPECT_EQ(child->exit_description(), "killed by signal 9 (Killed)");
}

TEST(ChildProcess, KillAndReapAllChildrenEndsEveryLiveChild) {
  ChildProcess first(ChildSpec{{"/bin/sleep", "600"}, {}, {}});
  ChildProcess second(ChildSpec{{"/bin/sh", "-c", "sleep 600 & wait"}, {}, {}});
  kill_and_reap_all_children();
  EXPECT_FALSE(process_exists(first.pid()));
  EXPECT_FALSE(process_exists(second.pid()));
  EXPECT_TRUE(first.wait_for_exit(0));  // the objects see their children as ended
}

TEST(ChildProcess, ReportsHowTheChildEndedAndWhatItPrinted) {
  ChildProcess child(ChildSpec{{"/bin/sh", "-c", "echo about to fail >&2; exit 3"}, {}, {}});
  ASSERT_TRUE(child.wait_for_exit(10000));
  EXPECT_EQ(child.exit_description(), "exited with status 3");
  for (int i = 0; i < 100 && child.output_tail().empty(); ++i) usleep(10000);
  EXPECT_NE(child.output_tail().find("about to fail"), std::string::npos);
}

TEST(ChildProcess, EnvironmentOverridesReachTheChild) {
  ChildProcess child(ChildSpec{{"/bin/sh", "-c", "echo \"value=$INFERLAB_TEST_VARIABLE\""},
                               {{"INFERLAB_TEST_VARIABLE", "42"}},
                               {}});
  ASSERT_TRUE(child.wait_for_exit(10000));
  for (int i = 0; i < 100 && child.output_tail().find('\n') == std::string::npos; ++i)
    usleep(10000);
  EXPECT_NE(child.output_tail().find("value=42"), std::string::npos);
}

}  // namespace
}  // namespace inferlab::backends
