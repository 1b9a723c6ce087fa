// Runs a Comparison on its own std::thread with run control that any other thread may call:
// start, pause, resume, single step, stop, reset, and a speed cap. Stop returns within one step
// (it waits for the step in flight, never for the rest of the run). The destructor stops and joins,
// so a window closed mid-run shuts down cleanly.
#pragma once

#include <atomic>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <mutex>
#include <string>
#include <thread>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"
#include "ampscope/engine/telemetry_sink.h"

namespace ampscope {

class Comparison;

enum class RunState { Idle, Running, Paused, Finished, Failed };
std::string runStateName(RunState state);

class TrainingRunner {
 public:
  explicit TrainingRunner(std::shared_ptr<TelemetrySink> sink);
  ~TrainingRunner();
  TrainingRunner(const TrainingRunner&) = delete;
  TrainingRunner& operator=(const TrainingRunner&) = delete;

  // Builds the comparison (weights from the seed) and starts stepping; throws std::invalid_argument on
  // an invalid config. If `paused` the thread waits for resume() or stepOnce().
  void start(const RunConfig& config, bool paused = false);
  void pause();
  void resume();
  void stepOnce();              // while paused (or idle after start(paused)): exactly one step
  void stop();                  // returns after the step in flight finishes; the thread is joined
  void reset();                 // stop, then forget the comparison (the next start begins at step 1)
  void setMaxStepsPerSecond(double stepsPerSecond);  // 0 = unlimited
  void injectOverflowNextStep();

  RunState state() const;
  int64_t stepsDone() const;
  std::string lastError() const;                  // why the state is Failed
  std::vector<ModeCapability> capabilities() const;
  std::vector<OpDtypeEntry> opDtypeReport(PrecisionMode mode);  // safe while paused/finished
  MemoryLedger memoryLedger(PrecisionMode mode) const;
  // Called on the training thread when the state changes (Finished at the configured step count, ...).
  void setStateCallback(std::function<void(RunState)> callback);

 private:
  void threadMain();
  void setState(RunState state);

  std::shared_ptr<TelemetrySink> sink_;
  std::unique_ptr<Comparison> comparison_;
  std::thread thread_;
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::atomic<bool> stopRequested_{false};
  std::atomic<bool> paused_{false};
  std::atomic<int64_t> pendingSingleSteps_{0};
  std::atomic<double> maxStepsPerSecond_{0.0};
  std::atomic<int64_t> stepsDone_{0};
  std::atomic<RunState> state_{RunState::Idle};
  std::string lastError_;
  std::function<void(RunState)> stateCallback_;
  int64_t targetSteps_ = 0;
};

}  // namespace ampscope
