// RequestQueue: priority order, the bound per level, Triton's timeout
// override rule, REJECT and DELAY on timeout, removal by ticket.
#include "inferlab/serve/scheduler/request_queue.h"

#include <gtest/gtest.h>

namespace inferlab::serve {
namespace {

std::unique_ptr<Job> job(int64_t priority = 0, std::optional<int64_t> timeout_us = std::nullopt) {
  auto made = std::make_unique<Job>();
  made->priority = priority;
  made->timeout_us = timeout_us;
  return made;
}

QueueConfig two_levels(size_t bound) {
  QueueConfig config;
  config.levels.assign(2, QueuePolicy{bound, 0, true, false});
  config.default_level = 1;
  return config;
}

TEST(RequestQueue, HigherPriorityFirstThenFifo) {
  RequestQueue queue(two_levels(8));
  const auto now = Clock::now();
  uint64_t low_a = 0, low_b = 0, high = 0;
  auto a = job(2), b = job(0), c = job(1);  // 0: the default level, 2
  ASSERT_EQ(queue.push(a, now, low_a), RequestQueue::PushResult::kQueued);
  ASSERT_EQ(queue.push(b, now, low_b), RequestQueue::PushResult::kQueued);
  ASSERT_EQ(queue.push(c, now, high), RequestQueue::PushResult::kQueued);
  EXPECT_EQ(queue.pop()->ticket, high);
  EXPECT_EQ(queue.pop()->ticket, low_a);
  EXPECT_EQ(queue.pop()->ticket, low_b);
  EXPECT_EQ(queue.pop(), nullptr);
}

TEST(RequestQueue, EachLevelIsBoundedOnItsOwn) {
  RequestQueue queue(two_levels(1));
  uint64_t ticket = 0;
  auto first = job(2), second = job(2), high = job(1);
  EXPECT_EQ(queue.push(first, Clock::now(), ticket), RequestQueue::PushResult::kQueued);
  EXPECT_EQ(queue.push(second, Clock::now(), ticket), RequestQueue::PushResult::kFull);
  ASSERT_NE(second, nullptr);  // a refused job stays with the caller
  EXPECT_EQ(queue.push(high, Clock::now(), ticket), RequestQueue::PushResult::kQueued);
  EXPECT_EQ(queue.size(), 2u);
}

TEST(RequestQueue, PriorityBeyondTheLevelsIsRefusedByName) {
  RequestQueue queue(two_levels(4));
  uint64_t ticket = 0;
  auto bad = job(3);
  try {
    queue.push(bad, Clock::now(), ticket);
    FAIL() << "priority 3 of 2 levels was queued";
  } catch (const Error& error) {
    EXPECT_EQ(error.code(), ErrorCode::kInvalidArgument);
    EXPECT_NE(std::string(error.what()).find("priority 3"), std::string::npos);
  }
}

TEST(RequestQueue, ARequestMayOnlyShortenTheDefaultTimeout) {
  QueueConfig config;
  config.levels.assign(1, QueuePolicy{8, 1000, true, false});
  RequestQueue queue(config);
  const auto now = Clock::now();
  uint64_t ticket = 0;
  auto shorter = job(0, 10), longer = job(0, 5000), plain = job();
  queue.push(shorter, now, ticket);
  queue.push(longer, now, ticket);
  queue.push(plain, now, ticket);
  EXPECT_EQ(queue.pop()->deadline, now + std::chrono::microseconds(10));
  EXPECT_EQ(queue.pop()->deadline, now + std::chrono::microseconds(1000));
  EXPECT_EQ(queue.pop()->deadline, now + std::chrono::microseconds(1000));
}

TEST(RequestQueue, WithoutOverrideTheRequestTimeoutIsIgnored) {
  QueueConfig config;
  config.levels.assign(1, QueuePolicy{8, 0, false, false});
  RequestQueue queue(config);
  uint64_t ticket = 0;
  auto timed = job(0, 10);
  queue.push(timed, Clock::now(), ticket);
  EXPECT_FALSE(queue.next_deadline().has_value());
}

TEST(RequestQueue, ExpiryRejectsOrDelays) {
  QueueConfig config;
  config.levels = {QueuePolicy{8, 0, true, false}, QueuePolicy{8, 0, true, true}};
  RequestQueue queue(config);
  const auto now = Clock::now();
  uint64_t rejected = 0, delayed = 0, waiting = 0, patient = 0;
  auto a = job(1, 100), b = job(2, 100), c = job(2), d = job(1, 1000000);
  queue.push(a, now, rejected);
  queue.push(b, now, delayed);
  queue.push(c, now, waiting);
  queue.push(d, now, patient);
  std::vector<std::unique_ptr<Job>> expired = queue.expire(now + std::chrono::milliseconds(1));
  ASSERT_EQ(expired.size(), 1u);
  EXPECT_EQ(expired[0]->ticket, rejected);
  // The delayed job runs after everything else, and is never refused later.
  EXPECT_EQ(queue.pop()->ticket, patient);
  EXPECT_EQ(queue.pop()->ticket, waiting);
  std::unique_ptr<Job> last = queue.pop();
  EXPECT_EQ(last->ticket, delayed);
  EXPECT_TRUE(last->delayed);
  EXPECT_TRUE(queue.empty());
}

TEST(RequestQueue, RemoveTakesAQueuedJobOutOnce) {
  RequestQueue queue(two_levels(4));
  uint64_t ticket = 0;
  auto timed = job(1, 1000);
  queue.push(timed, Clock::now(), ticket);
  EXPECT_NE(queue.remove(ticket), nullptr);
  EXPECT_EQ(queue.remove(ticket), nullptr);
  EXPECT_TRUE(queue.empty());
  EXPECT_FALSE(queue.next_deadline().has_value());
}

}  // namespace
}  // namespace inferlab::serve
