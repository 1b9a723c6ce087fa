#include "ui/training/run_controller.h"

#include <QMetaObject>
#include <algorithm>
#include <exception>
#include <mutex>

namespace ampscope::ui {

namespace {
constexpr int kDrainIntervalMs = 33;     // ~30 Hz: smooth to the eye, cheap for the event loop
constexpr qint64 kRateWindowMs = 2000;   // steps/s is averaged over this window
}  // namespace

RunController::RunController(QObject* parent)
    : QObject(parent), sink_(std::make_shared<TelemetrySink>()) {
  qRegisterMetaType<ampscope::RunState>("ampscope::RunState");
  clock_.start();
  drainTimer_.setSingleShot(true);
  drainTimer_.setObjectName(QStringLiteral("drainTimer"));
  drainTimer_.setInterval(kDrainIntervalMs);
  connect(&drainTimer_, &QTimer::timeout, this, &RunController::drainNow);

  runner_ = std::make_unique<TrainingRunner>(sink_);
  // Both callbacks run on the training thread: hop to the GUI thread with a queued call whose context
  // object is `this`, so a call still in the queue when we are destroyed is discarded by Qt. Called by
  // name and without arguments, the states queued under a mutex: a functor or a copied argument would
  // cross threads inside Qt's event queue, a hand-over that ThreadSanitizer cannot see.
  sink_->setNotify([this] { QMetaObject::invokeMethod(this, "onSinkNotified", Qt::QueuedConnection); });
  runner_->setStateCallback([this](RunState state) {
    {
      const std::lock_guard<std::mutex> lock(statesMutex_);
      states_.push_back(state);
    }
    QMetaObject::invokeMethod(this, "takeRunnerStates", Qt::QueuedConnection);
  });
}

RunController::~RunController() { shutdown(); }

void RunController::shutdown() {
  if (shutDown_) return;
  shutDown_ = true;
  drainTimer_.stop();
  sink_->close();
  runner_->stop();
  sink_->setNotify(nullptr);
  runner_->setStateCallback(nullptr);
}

RunState RunController::state() const { return runner_->state(); }

bool RunController::isActive() const {
  const RunState s = state();
  return s == RunState::Running || s == RunState::Paused;
}

int64_t RunController::stepsDone() const { return runner_->stepsDone(); }

QString RunController::lastError() const { return QString::fromStdString(runner_->lastError()); }

std::vector<ModeCapability> RunController::capabilities() const { return runner_->capabilities(); }

std::vector<OpDtypeEntry> RunController::opDtypeReport(PrecisionMode mode) {
  try {
    return runner_->opDtypeReport(mode);
  } catch (const std::exception& e) {
    emit errorOccurred(tr("Op-dtype report for %1 failed: %2")
                           .arg(QString::fromStdString(modeName(mode)), QString::fromUtf8(e.what())));
    return {};
  }
}

MemoryLedger RunController::memoryLedger(PrecisionMode mode) const { return runner_->memoryLedger(mode); }

double RunController::stepsPerSecond() const {
  if (rateSamples_.size() < 2) return 0.0;
  const qint64 now = clock_.elapsed();
  // No data for a while (paused, capped to a slow rate): report what the last window saw only if fresh.
  if (now - rateSamples_.back().first > kRateWindowMs) return 0.0;
  const auto& first = rateSamples_.front();
  const auto& last = rateSamples_.back();
  const qint64 dt = std::max<qint64>(now - first.first, 1);
  return static_cast<double>(last.second - first.second) * 1000.0 / static_cast<double>(dt);
}

bool RunController::start(const RunConfig& config, bool paused) {
  if (shutDown_) return false;
  drainTimer_.stop();
  runner_->reset();
  sink_->drain();  // leftovers of the previous run
  sink_->reopen();
  store_.clear();
  rateSamples_.clear();
  config_ = config;
  store_.setConfig(config);
  emit storeCleared();
  try {
    runner_->start(config, paused);
  } catch (const std::exception& e) {
    emit errorOccurred(tr("The run could not start: %1").arg(QString::fromUtf8(e.what())));
    emitStateIfChanged();
    return false;
  }
  runner_->setMaxStepsPerSecond(maxStepsPerSecond_);
  rateSamples_.emplace_back(clock_.elapsed(), 0);
  emit runStarted();
  emitStateIfChanged();
  return true;
}

void RunController::pause() {
  runner_->pause();
  emitStateIfChanged();
}

void RunController::resume() {
  runner_->resume();
  emitStateIfChanged();
}

void RunController::stepOnce() {
  runner_->stepOnce();
  emitStateIfChanged();
}

void RunController::stop() {
  // Make room first so a producer waiting on back-pressure can finish its step and see the stop.
  drainNow();
  runner_->stop();
  drainNow();
  emitStateIfChanged();
}

void RunController::reset() {
  drainTimer_.stop();
  runner_->reset();
  sink_->drain();
  store_.clear();
  rateSamples_.clear();
  emit storeCleared();
  emitStateIfChanged();
}

void RunController::setMaxStepsPerSecond(double stepsPerSecond) {
  maxStepsPerSecond_ = stepsPerSecond > 0 ? stepsPerSecond : 0.0;
  runner_->setMaxStepsPerSecond(maxStepsPerSecond_);
}

void RunController::injectOverflowNextStep() { runner_->injectOverflowNextStep(); }

void RunController::takeRunnerStates() {
  std::vector<RunState> states;
  {
    const std::lock_guard<std::mutex> lock(statesMutex_);
    states.swap(states_);
  }
  for (RunState state : states) onRunnerState(state);
}

void RunController::onSinkNotified() {
  if (shutDown_) return;
  if (!drainTimer_.isActive()) drainTimer_.start();
}

void RunController::drainNow() {
  std::vector<StepRecord> batch = sink_->drain();
  if (batch.empty()) return;
  const int64_t first = batch.front().step;
  const int64_t last = batch.back().step;
  store_.append(batch);
  emit recordsDrained(batch);
  const qint64 now = clock_.elapsed();
  rateSamples_.emplace_back(now, last);
  while (rateSamples_.size() > 2 && now - rateSamples_.front().first > kRateWindowMs) rateSamples_.pop_front();
  emit dataAppended(first, last);
}

void RunController::showRecords(const RunConfig& config, const std::vector<StepRecord>& records) {
  drainTimer_.stop();
  runner_->reset();
  sink_->drain();
  store_.clear();
  rateSamples_.clear();
  config_ = config;
  store_.setConfig(config);
  emit storeCleared();
  if (!records.empty()) {
    store_.append(records);
    emit dataAppended(records.front().step, records.back().step);
  }
  emitStateIfChanged();
}

void RunController::onRunnerState(RunState) {
  // Whatever the engine reports, pull what is pending first so views see the final steps of a run.
  drainNow();
  emitStateIfChanged();
}

void RunController::emitStateIfChanged() {
  const RunState s = runner_->state();
  if (s == lastEmittedState_) return;
  lastEmittedState_ = s;
  emit stateChanged(s);
}

}  // namespace ampscope::ui
