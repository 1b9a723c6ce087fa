// TelemetrySink: the bounded hand-over buffer between the training thread and the display.
#include <gtest/gtest.h>

#include <atomic>
#include <chrono>
#include <future>
#include <stdexcept>
#include <thread>

#include "ampscope/engine/telemetry_sink.h"

namespace ampscope {
namespace {

using namespace std::chrono_literals;

StepRecord recordFor(int64_t step) {
  StepRecord record;
  record.step = step;
  return record;
}

TEST(TelemetrySink, DrainTakesEverythingInOrder) {
  TelemetrySink sink(8);
  for (int64_t i = 1; i <= 3; ++i) ASSERT_TRUE(sink.append(recordFor(i)));
  EXPECT_EQ(sink.pending(), 3u);
  const auto taken = sink.drain();
  ASSERT_EQ(taken.size(), 3u);
  for (int64_t i = 0; i < 3; ++i) EXPECT_EQ(taken[static_cast<size_t>(i)].step, i + 1);
  EXPECT_EQ(sink.pending(), 0u);
  EXPECT_TRUE(sink.drain().empty());
}

TEST(TelemetrySink, NotifiesOncePerEmptyToNonEmptyTransition) {
  TelemetrySink sink(16);
  int calls = 0;
  sink.setNotify([&calls] { ++calls; });
  sink.append(recordFor(1));
  sink.append(recordFor(2));
  sink.append(recordFor(3));
  EXPECT_EQ(calls, 1) << "one wake-up for a burst, not one per record";
  sink.drain();
  sink.append(recordFor(4));
  EXPECT_EQ(calls, 2);
  sink.append(recordFor(5));
  EXPECT_EQ(calls, 2);
}

TEST(TelemetrySink, FullBufferBlocksTheProducerUntilDrained) {
  TelemetrySink sink(2);
  ASSERT_TRUE(sink.append(recordFor(1)));
  ASSERT_TRUE(sink.append(recordFor(2)));
  std::atomic<bool> appended{false};
  std::thread producer([&] {
    EXPECT_TRUE(sink.append(recordFor(3)));
    appended = true;
  });
  std::this_thread::sleep_for(150ms);
  EXPECT_FALSE(appended.load()) << "back-pressure: the third record waits for room";
  EXPECT_EQ(sink.pending(), 2u) << "and nothing was dropped or overwritten";
  const auto first = sink.drain();
  producer.join();
  EXPECT_TRUE(appended.load());
  ASSERT_EQ(first.size(), 2u);
  const auto second = sink.drain();
  ASSERT_EQ(second.size(), 1u);
  EXPECT_EQ(second[0].step, 3);
}

TEST(TelemetrySink, CloseWakesABlockedProducerAndDropsLaterAppends) {
  TelemetrySink sink(1);
  ASSERT_TRUE(sink.append(recordFor(1)));
  auto blocked = std::async(std::launch::async, [&] { return sink.append(recordFor(2)); });
  EXPECT_EQ(blocked.wait_for(100ms), std::future_status::timeout);
  sink.close();
  ASSERT_EQ(blocked.wait_for(2s), std::future_status::ready) << "close() must wake the producer";
  EXPECT_FALSE(blocked.get());
  EXPECT_FALSE(sink.append(recordFor(3)));
  const auto kept = sink.drain();
  ASSERT_EQ(kept.size(), 1u) << "what was pending before close() can still be drained";
  EXPECT_EQ(kept[0].step, 1);
  sink.reopen();
  EXPECT_TRUE(sink.append(recordFor(4)));
}

TEST(TelemetrySink, NotifyMayDrainFromInsideTheCallback) {
  // The callback runs outside the sink's lock, so a consumer may drain at once without deadlock.
  TelemetrySink sink(4);
  size_t drained = 0;
  sink.setNotify([&] { drained += sink.drain().size(); });
  for (int64_t i = 1; i <= 10; ++i) ASSERT_TRUE(sink.append(recordFor(i)));
  EXPECT_EQ(drained, 10u);
}

TEST(TelemetrySink, ZeroCapacityIsRejected) {
  EXPECT_THROW(TelemetrySink(0), std::invalid_argument);
}

TEST(TelemetrySink, ManyRecordsCrossThreadsWithoutLossOrReordering) {
  TelemetrySink sink(8);
  constexpr int64_t kCount = 5000;
  std::thread producer([&] {
    for (int64_t i = 1; i <= kCount; ++i) sink.append(recordFor(i));
  });
  int64_t expected = 1;
  while (expected <= kCount) {
    for (const auto& record : sink.drain()) {
      ASSERT_EQ(record.step, expected);
      ++expected;
    }
    std::this_thread::yield();
  }
  producer.join();
}

}  // namespace
}  // namespace ampscope
