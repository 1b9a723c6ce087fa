#include "ampscope/engine/training_runner.h"

#include <ATen/Parallel.h>

#include <cmath>
#include <exception>
#include <stdexcept>
#include <utility>

#include "ampscope/engine/comparison.h"
#include "counting_allocator.h"

namespace ampscope {

std::string runStateName(RunState state) {
  switch (state) {
    case RunState::Idle: return "idle";
    case RunState::Running: return "running";
    case RunState::Paused: return "paused";
    case RunState::Finished: return "finished";
    case RunState::Failed: return "failed";
  }
  return "unknown";
}

TrainingRunner::TrainingRunner(std::shared_ptr<TelemetrySink> sink) : sink_(std::move(sink)) {
  if (!sink_) throw std::invalid_argument("TrainingRunner needs a TelemetrySink");
  // Early, before the comparison allocates its tensors, so its memory is counted from the start.
  detail::installCountingAllocator();
}

TrainingRunner::~TrainingRunner() { stop(); }

namespace {

std::map<PrecisionMode, MemoryLedger> ledgersOf(const Comparison& comparison, const std::vector<PrecisionMode>& modes) {
  std::map<PrecisionMode, MemoryLedger> ledgers;
  for (PrecisionMode mode : modes) ledgers[mode] = comparison.memoryLedger(mode);
  return ledgers;
}

}  // namespace

void TrainingRunner::start(const RunConfig& config, bool paused) {
  const std::vector<ConfigError> errors = validate(config);
  if (!errors.empty()) {
    std::string message = "invalid run configuration:";
    for (const auto& error : errors) message += " " + error.field + ": " + error.message + ";";
    throw std::invalid_argument(message);
  }
  stop();
  auto comparison = std::make_unique<Comparison>(config);  // may throw; the old state stays then
  std::vector<ModeCapability> capabilities = comparison->capabilities();
  std::map<PrecisionMode, MemoryLedger> ledgers = ledgersOf(*comparison, config.modes);
  {
    std::lock_guard<std::mutex> stepLock(stepMutex_);
    comparison_ = std::move(comparison);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    capabilities_ = std::move(capabilities);
    ledgers_ = std::move(ledgers);
    targetSteps_ = config.steps;
    stepsDone_ = comparison_->stepsDone();
    stopRequested_ = false;
    paused_ = paused;
    pendingSingleSteps_ = 0;
    injectOverflow_ = false;
    lastError_.clear();
    workerAlive_ = true;
    inAppend_ = false;
  }
  setState(paused ? RunState::Paused : RunState::Running);
  thread_ = std::thread(&TrainingRunner::threadMain, this, config.threadsPerMode);
}

void TrainingRunner::pause() {
  std::unique_lock<std::mutex> lock(mutex_);
  if (!workerAlive_) return;
  paused_ = true;
  wake_.notify_all();
  ack_.wait(lock, [this] { return !workerAlive_ || inAppend_ || state_.load() != RunState::Running; });
  // The step is done. The training thread marks Paused before handing its record over, so this
  // wait is short, unless the request arrived during the hand-over and the sink is full: then only
  // the consumer can make progress (and may be the caller), so give up after a bounded wait.
  ack_.wait_for(lock, std::chrono::milliseconds(100),
                [this] { return !workerAlive_ || state_.load() != RunState::Running; });
}

void TrainingRunner::resume() {
  std::lock_guard<std::mutex> lock(mutex_);
  paused_ = false;
  wake_.notify_all();
}

void TrainingRunner::stepOnce() {
  std::lock_guard<std::mutex> lock(mutex_);
  if (!workerAlive_ || !paused_) return;
  ++pendingSingleSteps_;
  wake_.notify_all();
}

void TrainingRunner::stop() {
  if (!thread_.joinable()) return;
  bool closedSink = false;
  {
    std::unique_lock<std::mutex> lock(mutex_);
    stopRequested_ = true;
    wake_.notify_all();
    while (workerAlive_) {
      if (inAppend_ && !closedSink) {
        // The training thread waits for room that a consumer may never make (a closing window):
        // closing the sink releases it; the record it was handing over is dropped.
        lock.unlock();
        sink_->close();
        closedSink = true;
        lock.lock();
        continue;
      }
      ack_.wait(lock);
    }
  }
  thread_.join();
  if (closedSink) sink_->reopen();
}

void TrainingRunner::reset() {
  stop();
  {
    std::lock_guard<std::mutex> stepLock(stepMutex_);
    comparison_.reset();
  }
  stepsDone_ = 0;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    capabilities_.clear();
    ledgers_.clear();
    lastError_.clear();
  }
  setState(RunState::Idle);
}

void TrainingRunner::setMaxStepsPerSecond(double stepsPerSecond) {
  if (!(stepsPerSecond >= 0.0)) {
    throw std::invalid_argument("max steps per second must be >= 0 (0 = unlimited)");
  }
  std::lock_guard<std::mutex> lock(mutex_);
  maxStepsPerSecond_ = stepsPerSecond;
  wake_.notify_all();
}

void TrainingRunner::injectOverflowNextStep() { injectOverflow_ = true; }

RunState TrainingRunner::state() const { return state_.load(); }

int64_t TrainingRunner::stepsDone() const { return stepsDone_.load(); }

std::string TrainingRunner::lastError() const {
  std::lock_guard<std::mutex> lock(mutex_);
  return lastError_;
}

std::vector<ModeCapability> TrainingRunner::capabilities() const {
  // Fixed for the life of a comparison, so copied at start(): the status bar asks on every drain and
  // must never wait for a step.
  std::lock_guard<std::mutex> lock(mutex_);
  return capabilities_;
}

std::unique_lock<std::mutex> TrainingRunner::lockBetweenSteps() const {
  // std::mutex is not fair: the training thread re-locks stepMutex_ microseconds after unlocking it,
  // and a waiting GUI thread was seen starved for 35 s. Announce the wait; runOneStep() yields to it.
  ++queriesWaiting_;
  std::unique_lock<std::mutex> stepLock(stepMutex_);
  --queriesWaiting_;
  return stepLock;
}

std::vector<OpDtypeEntry> TrainingRunner::opDtypeReport(PrecisionMode mode) {
  const auto stepLock = lockBetweenSteps();
  return comparison_ ? comparison_->opDtypeReport(mode) : std::vector<OpDtypeEntry>{};
}

MemoryLedger TrainingRunner::memoryLedger(PrecisionMode mode) const {
  std::lock_guard<std::mutex> lock(mutex_);
  const auto it = ledgers_.find(mode);
  return it == ledgers_.end() ? MemoryLedger{} : it->second;
}

void TrainingRunner::setStateCallback(std::function<void(RunState)> callback) {
  std::lock_guard<std::mutex> lock(mutex_);
  stateCallback_ = std::move(callback);
}

void TrainingRunner::setState(RunState state) {
  std::function<void(RunState)> callback;
  {
    std::lock_guard<std::mutex> lock(mutex_);
    if (state_.load() == state) return;
    state_ = state;
    callback = stateCallback_;
  }
  ack_.notify_all();
  if (callback) callback(state);
}

TrainingRunner::Work TrainingRunner::waitForWork() {
  std::unique_lock<std::mutex> lock(mutex_);
  for (;;) {
    if (stopRequested_) return Work::Stop;
    if (!paused_) {
      if (state_.load() != RunState::Running) {
        lock.unlock();
        setState(RunState::Running);
        lock.lock();
        continue;
      }
      const double rate = maxStepsPerSecond_.load();
      if (rate > 0.0 && std::chrono::steady_clock::now() < nextStepAllowed_) {
        wake_.wait_until(lock, nextStepAllowed_);
        continue;  // re-checks stop/pause/rate, which a controller may have changed meanwhile
      }
      return Work::Step;
    }
    if (state_.load() != RunState::Paused) {
      lock.unlock();
      setState(RunState::Paused);
      lock.lock();
      continue;
    }
    if (pendingSingleSteps_ > 0) {
      --pendingSingleSteps_;
      return Work::SingleStep;
    }
    wake_.wait(lock);
  }
}

void TrainingRunner::runOneStep() {
  const auto started = std::chrono::steady_clock::now();
  const double rate = maxStepsPerSecond_.load();
  if (rate > 0.0) {
    nextStepAllowed_ = started + std::chrono::duration_cast<std::chrono::steady_clock::duration>(
                                     std::chrono::duration<double>(1.0 / rate));
  }
  StepRecord record;
  std::map<PrecisionMode, MemoryLedger> ledgers;
  while (queriesWaiting_.load() > 0) std::this_thread::yield();  // let a waiting query in first
  {
    std::lock_guard<std::mutex> stepLock(stepMutex_);
    if (injectOverflow_.exchange(false)) comparison_->injectOverflowNextStep();
    record = comparison_->step();
    stepsDone_ = comparison_->stepsDone();
    for (const ModeStep& m : record.modes) ledgers[m.mode] = comparison_->memoryLedger(m.mode);
  }
  {
    std::lock_guard<std::mutex> lock(mutex_);
    for (auto& [mode, ledger] : ledgers) ledgers_[mode] = ledger;
  }
  // A pause requested during the step takes effect now, before the possibly blocking hand-over.
  if (paused_ && !stopRequested_) setState(RunState::Paused);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    inAppend_ = true;
  }
  ack_.notify_all();
  sink_->append(std::move(record));
  std::lock_guard<std::mutex> lock(mutex_);
  inAppend_ = false;
}

void TrainingRunner::threadMain(int threads) {
  // Intra-op threads are per thread in ATen's OpenMP backend: the training thread sets its own.
  at::set_num_threads(threads > 0 ? threads : 1);
  RunState exitState = RunState::Idle;
  try {
    for (;;) {
      const Work work = waitForWork();
      if (work == Work::Stop) break;
      runOneStep();
      bool done = false;
      {
        std::lock_guard<std::mutex> stepLock(stepMutex_);
        done = comparison_->stepsDone() >= targetSteps_ || comparison_->allDiverged();
      }
      if (done) {
        exitState = RunState::Finished;
        break;
      }
    }
  } catch (const std::exception& error) {
    std::lock_guard<std::mutex> lock(mutex_);
    lastError_ = error.what();
    exitState = RunState::Failed;
  } catch (...) {
    std::lock_guard<std::mutex> lock(mutex_);
    lastError_ = "unknown exception in a training step";
    exitState = RunState::Failed;
  }
  setState(exitState);
  {
    std::lock_guard<std::mutex> lock(mutex_);
    workerAlive_ = false;
    inAppend_ = false;
  }
  ack_.notify_all();
}

}  // namespace ampscope
