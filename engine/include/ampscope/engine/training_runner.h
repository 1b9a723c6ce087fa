// Runs a Comparison on its own std::thread with run control that any other thread may call:
// start, pause, resume, single step, stop, reset, and a speed cap. Stop returns within one step
// (it waits for the step in flight, never for the rest of the run). The destructor stops and joins,
// so a window closed mid-run shuts down cleanly.
#pragma once

#include <atomic>
#include <chrono>
#include <condition_variable>
#include <cstdint>
#include <functional>
#include <memory>
#include <map>
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
  // an invalid config. If `paused` the thread waits for resume() or stepOnce(). A run in progress is
  // stopped first. The comparison is built on the calling thread; every step runs on the training
  // thread, which sets at::set_num_threads(config.threadsPerMode) for itself.
  void start(const RunConfig& config, bool paused = false);
  // Returns once no step is being computed: after pause() returns, stepsDone() stays put until
  // resume() or stepOnce(), and the state is Paused. (Exception: if the training thread is blocked
  // handing a record to a full sink, pause() returns after at most 100 ms with the state still
  // Running; the step is counted and the state becomes Paused once the sink has room.)
  void pause();
  void resume();
  void stepOnce();              // while paused (or after start(paused)): exactly one step; else no-op
  // Returns after the step in flight finishes; the thread is joined and the state becomes Idle
  // (Finished and Failed stay). The comparison is kept for inspection. A training thread blocked on a
  // full sink is released by closing the sink, which stop() reopens afterwards.
  void stop();
  void reset();                 // stop, then forget the comparison (the next start begins at step 1)
  // Caps the stepping rate; 0 = unlimited. Throws std::invalid_argument when negative or NaN.
  void setMaxStepsPerSecond(double stepsPerSecond);
  void injectOverflowNextStep();  // applied by the training thread before its next step

  RunState state() const;
  int64_t stepsDone() const;
  std::string lastError() const;                  // why the state is Failed
  std::vector<ModeCapability> capabilities() const;  // empty before the first start()
  // Runs under the step lock: safe at any time, it waits for the step in flight (a forward pass on the
  // calling thread). Empty before the first start().
  std::vector<OpDtypeEntry> opDtypeReport(PrecisionMode mode);
  // The mode's ledger as of the last finished step (or start()), copied by the training thread after
  // each step: it never waits for a step, so a window refreshing its memory table cannot stall on one.
  MemoryLedger memoryLedger(PrecisionMode mode) const;
  // Called on the training thread when it changes the state (Running, Paused, Finished at the
  // configured step count or when every mode diverged, Failed, Idle after stop); on the calling thread
  // for start() and reset(). It must not block on the thread that calls pause() or stop().
  void setStateCallback(std::function<void(RunState)> callback);

 private:
  enum class Work { Stop, Step, SingleStep };
  void threadMain(int threads);
  Work waitForWork();
  void runOneStep();
  void setState(RunState state);
  std::unique_lock<std::mutex> lockBetweenSteps() const;

  std::shared_ptr<TelemetrySink> sink_;
  std::unique_ptr<Comparison> comparison_;
  std::thread thread_;
  // mutex_ guards the control flags' transitions, lastError_, stateCallback_ and the worker flags below;
  // wake_ wakes the training thread, ack_ wakes a controller waiting for it (pause, stop).
  mutable std::mutex mutex_;
  std::condition_variable wake_;
  std::condition_variable ack_;
  // Held by the training thread for the duration of each step, and by opDtypeReport()/memoryLedger(),
  // so those never run concurrently with a step.
  mutable std::mutex stepMutex_;
  mutable std::atomic<int> queriesWaiting_{0};  // queries blocked on stepMutex_; the worker yields to them
  std::vector<ModeCapability> capabilities_;     // under mutex_; copied from the comparison at start()
  std::map<PrecisionMode, MemoryLedger> ledgers_;  // under mutex_; per mode, as of the last finished step
  std::atomic<bool> stopRequested_{false};
  std::atomic<bool> paused_{false};
  std::atomic<int64_t> pendingSingleSteps_{0};
  std::atomic<double> maxStepsPerSecond_{0.0};
  std::atomic<int64_t> stepsDone_{0};
  std::atomic<RunState> state_{RunState::Idle};
  std::atomic<bool> injectOverflow_{false};
  bool workerAlive_ = false;   // under mutex_
  bool inAppend_ = false;      // under mutex_: the training thread may be blocked on a full sink
  std::chrono::steady_clock::time_point nextStepAllowed_{};  // training thread only
  std::string lastError_;
  std::function<void(RunState)> stateCallback_;
  int64_t targetSteps_ = 0;
};

}  // namespace ampscope
