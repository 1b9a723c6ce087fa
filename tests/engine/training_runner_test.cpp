// TrainingRunner: run control of a Comparison on its own thread (docs/architecture.md, "Run control").
#include <gtest/gtest.h>

#include <chrono>
#include <functional>
#include <memory>
#include <mutex>
#include <stdexcept>
#include <thread>
#include <vector>

#include "ampscope/engine/comparison.h"
#include "ampscope/engine/training_runner.h"

namespace ampscope {
namespace {

using namespace std::chrono_literals;
using Clock = std::chrono::steady_clock;

RunConfig smallRun(int64_t steps) {
  RunConfig config = presetFor(ModelKind::TinyMLP);
  config.modes = {PrecisionMode::FP32};
  config.steps = steps;
  config.instrumentEvery = 1000000;  // run control is under test, not the instruments
  return config;
}

// Polls until `done` or the timeout; returns whether it became true.
bool waitFor(const std::function<bool()>& done, std::chrono::milliseconds timeout = 30s) {
  const auto deadline = Clock::now() + timeout;
  while (!done()) {
    if (Clock::now() > deadline) return false;
    std::this_thread::sleep_for(2ms);
  }
  return true;
}

struct StateLog {
  std::mutex mutex;
  std::vector<RunState> states;
  void add(RunState state) {
    std::lock_guard<std::mutex> lock(mutex);
    states.push_back(state);
  }
  bool contains(RunState state) {
    std::lock_guard<std::mutex> lock(mutex);
    for (RunState s : states) {
      if (s == state) return true;
    }
    return false;
  }
};

TEST(TrainingRunner, FinishesAtTheConfiguredStepCount) {
  auto sink = std::make_shared<TelemetrySink>();
  TrainingRunner runner(sink);
  StateLog log;
  runner.setStateCallback([&log](RunState state) { log.add(state); });
  runner.start(smallRun(12));
  ASSERT_TRUE(waitFor([&] { return runner.state() == RunState::Finished; })) << runner.lastError();
  EXPECT_EQ(runner.stepsDone(), 12);
  const auto records = sink->drain();
  ASSERT_EQ(records.size(), 12u) << "one record per lock-step, none dropped";
  EXPECT_EQ(records.front().step, 1);
  EXPECT_EQ(records.back().step, 12);
  EXPECT_TRUE(log.contains(RunState::Running));
  EXPECT_TRUE(log.contains(RunState::Finished));
  runner.stop();
  EXPECT_EQ(runner.state(), RunState::Finished) << "stop() after the end keeps Finished";
}

TEST(TrainingRunner, PauseReallyPauses) {
  auto sink = std::make_shared<TelemetrySink>();
  TrainingRunner runner(sink);
  runner.start(smallRun(1000000));
  ASSERT_TRUE(waitFor([&] { return runner.stepsDone() >= 3; })) << runner.lastError();
  runner.pause();
  EXPECT_EQ(runner.state(), RunState::Paused);
  const int64_t atPause = runner.stepsDone();
  std::this_thread::sleep_for(300ms);
  EXPECT_EQ(runner.stepsDone(), atPause) << "no step may run while paused";
  runner.resume();
  EXPECT_TRUE(waitFor([&] { return runner.stepsDone() > atPause + 2; }));
  EXPECT_EQ(runner.state(), RunState::Running);
}

TEST(TrainingRunner, StepOnceAdvancesExactlyOneStep) {
  auto sink = std::make_shared<TelemetrySink>();
  TrainingRunner runner(sink);
  runner.start(smallRun(1000000), /*paused=*/true);
  EXPECT_EQ(runner.state(), RunState::Paused);
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(runner.stepsDone(), 0) << "start(paused) waits for resume() or stepOnce()";
  runner.stepOnce();
  ASSERT_TRUE(waitFor([&] { return runner.stepsDone() == 1; })) << runner.lastError();
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(runner.stepsDone(), 1);
  runner.stepOnce();
  runner.stepOnce();
  ASSERT_TRUE(waitFor([&] { return runner.stepsDone() == 3; }));
  std::this_thread::sleep_for(200ms);
  EXPECT_EQ(runner.stepsDone(), 3) << "two requests, two steps";
  EXPECT_EQ(runner.state(), RunState::Paused);
  const auto records = sink->drain();
  ASSERT_EQ(records.size(), 3u);
  EXPECT_EQ(records.back().step, 3);
}

TEST(TrainingRunner, StopReturnsWithinOneStep) {
  auto sink = std::make_shared<TelemetrySink>();
  TrainingRunner runner(sink);
  runner.start(smallRun(1000000));
  ASSERT_TRUE(waitFor([&] { return runner.stepsDone() >= 20; })) << runner.lastError();
  // The slowest recorded step bounds how long stop() may wait (plus scheduling slack on 2 cores).
  double slowestMs = 0;
  for (const auto& record : sink->drain()) {
    for (const auto& mode : record.modes) slowestMs = std::max(slowestMs, mode.stepTimeMs);
  }
  const auto before = Clock::now();
  runner.stop();
  const double stopMs = std::chrono::duration<double, std::milli>(Clock::now() - before).count();
  EXPECT_LT(stopMs, 2 * slowestMs + 250.0);
  EXPECT_EQ(runner.state(), RunState::Idle);
  const int64_t atStop = runner.stepsDone();
  std::this_thread::sleep_for(100ms);
  EXPECT_EQ(runner.stepsDone(), atStop);
  EXPECT_LT(atStop, 1000000);
}

TEST(TrainingRunner, DestroyingMidRunIsClean) {
  auto sink = std::make_shared<TelemetrySink>();
  {
    TrainingRunner runner(sink);
    runner.start(smallRun(1000000));
    ASSERT_TRUE(waitFor([&] { return runner.stepsDone() >= 2; })) << runner.lastError();
  }
  SUCCEED() << "the destructor stopped and joined the training thread";
}

TEST(TrainingRunner, DestroyingWhileBlockedOnAFullSinkIsClean) {
  // Nobody drains: the training thread blocks on back-pressure. stop() must still return.
  auto sink = std::make_shared<TelemetrySink>(/*capacity=*/2);
  const auto before = Clock::now();
  {
    TrainingRunner runner(sink);
    runner.start(smallRun(1000000));
    ASSERT_TRUE(waitFor([&] { return runner.stepsDone() >= 3; })) << runner.lastError();
    std::this_thread::sleep_for(50ms);
    EXPECT_EQ(runner.stepsDone(), 3) << "two records pending + one waiting for room";
  }
  EXPECT_LT(Clock::now() - before, 20s);
  EXPECT_EQ(sink->drain().size(), 2u);
  EXPECT_TRUE(sink->append(StepRecord{})) << "stop() reopens the sink it had to close";
}

TEST(TrainingRunner, SpeedCapLimitsTheStepRate) {
  auto sink = std::make_shared<TelemetrySink>();
  TrainingRunner runner(sink);
  runner.setMaxStepsPerSecond(20.0);
  runner.start(smallRun(1000000));
  // A cap bounds the rate from above only, so the check is a least time: ten steps after the first take
  // at least 10/20 s (less a scheduler's slack), however slow the machine (a TSan build takes seconds to
  // reach its first step). A count over a fixed sleep failed there.
  ASSERT_TRUE(waitFor([&] { return runner.stepsDone() >= 1; }, 60s)) << runner.lastError();
  const auto first = Clock::now();
  const int64_t atFirst = runner.stepsDone();
  ASSERT_TRUE(waitFor([&] { return runner.stepsDone() >= atFirst + 10; }, 60s)) << runner.lastError();
  EXPECT_GE(Clock::now() - first, 450ms) << "20 steps/s: ten steps take half a second";
  runner.setMaxStepsPerSecond(0.0);
  const int64_t atUncap = runner.stepsDone();
  EXPECT_TRUE(waitFor([&] { return runner.stepsDone() > atUncap + 30; }, 10s));
  EXPECT_THROW(runner.setMaxStepsPerSecond(-1.0), std::invalid_argument);
}

TEST(TrainingRunner, ResetForgetsTheComparison) {
  auto sink = std::make_shared<TelemetrySink>();
  TrainingRunner runner(sink);
  runner.start(smallRun(5));
  ASSERT_TRUE(waitFor([&] { return runner.state() == RunState::Finished; })) << runner.lastError();
  runner.reset();
  EXPECT_EQ(runner.state(), RunState::Idle);
  EXPECT_EQ(runner.stepsDone(), 0);
  EXPECT_TRUE(runner.capabilities().empty());
  sink->drain();
  runner.start(smallRun(2));
  ASSERT_TRUE(waitFor([&] { return runner.state() == RunState::Finished; }));
  const auto records = sink->drain();
  ASSERT_EQ(records.size(), 2u);
  EXPECT_EQ(records.front().step, 1) << "the next start begins at step 1";
}

TEST(TrainingRunner, InvalidConfigThrowsAndStaysIdle) {
  auto sink = std::make_shared<TelemetrySink>();
  TrainingRunner runner(sink);
  RunConfig config = smallRun(0);  // steps < 1
  EXPECT_THROW(runner.start(config), std::invalid_argument);
  EXPECT_EQ(runner.state(), RunState::Idle);
}

TEST(TrainingRunner, InjectedOverflowMakesTheScalerSkipTheNextStep) {
  auto sink = std::make_shared<TelemetrySink>();
  TrainingRunner runner(sink);
  RunConfig config = smallRun(1000000);
  config.modes = {PrecisionMode::FP16AmpScaled};
  runner.start(config, /*paused=*/true);
  runner.stepOnce();
  ASSERT_TRUE(waitFor([&] { return runner.stepsDone() == 1; })) << runner.lastError();
  runner.injectOverflowNextStep();
  runner.stepOnce();
  ASSERT_TRUE(waitFor([&] { return runner.stepsDone() == 2; })) << runner.lastError();
  const auto records = sink->drain();
  ASSERT_EQ(records.size(), 2u);
  ASSERT_EQ(records[1].modes.size(), 1u);
  EXPECT_FALSE(records[0].modes[0].skipped);
  EXPECT_TRUE(records[1].modes[0].skipped);
  EXPECT_TRUE(records[1].modes[0].foundInf);
}

TEST(TrainingRunner, InspectionIsSafeWhilePaused) {
  auto sink = std::make_shared<TelemetrySink>();
  TrainingRunner runner(sink);
  EXPECT_TRUE(runner.opDtypeReport(PrecisionMode::FP32).empty()) << "nothing before start()";
  RunConfig config = smallRun(1000000);
  config.modes = {PrecisionMode::FP32, PrecisionMode::BF16Amp};
  runner.start(config);
  ASSERT_TRUE(waitFor([&] { return runner.stepsDone() >= 2; })) << runner.lastError();
  runner.pause();
  EXPECT_EQ(runner.capabilities().size(), 2u);
  EXPECT_FALSE(runner.opDtypeReport(PrecisionMode::BF16Amp).empty());
  EXPECT_GT(runner.memoryLedger(PrecisionMode::FP32).parameters, 0);
  runner.resume();
}

// The ledger the runner hands out is the training thread's copy after each step (so the GUI never
// waits on a step for it); it must be the one the comparison itself reports after the same steps.
TEST(TrainingRunner, TheMemoryLedgerIsTheComparisonsAfterTheSameSteps) {
  auto sink = std::make_shared<TelemetrySink>();
  TrainingRunner runner(sink);
  RunConfig config = smallRun(3);
  config.modes = {PrecisionMode::FP32, PrecisionMode::BF16Pure};
  EXPECT_EQ(runner.memoryLedger(PrecisionMode::FP32).parameters, 0) << "nothing before start()";
  runner.start(config);
  ASSERT_TRUE(waitFor([&] { return runner.state() == RunState::Finished; })) << runner.lastError();
  Comparison reference(config);
  for (int i = 0; i < 3; ++i) reference.step();
  for (PrecisionMode mode : config.modes) {
    const MemoryLedger got = runner.memoryLedger(mode);
    const MemoryLedger want = reference.memoryLedger(mode);
    EXPECT_GT(want.peak, 0);
    EXPECT_EQ(got.parameters, want.parameters);
    EXPECT_EQ(got.gradients, want.gradients);
    EXPECT_EQ(got.optimizerState, want.optimizerState);
    EXPECT_EQ(got.activations, want.activations);
    EXPECT_EQ(got.peak, want.peak);
  }
  runner.reset();
  EXPECT_EQ(runner.memoryLedger(PrecisionMode::FP32).parameters, 0) << "reset() forgets the ledgers";
}

}  // namespace
}  // namespace ampscope
