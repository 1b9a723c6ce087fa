// RunController: the GUI thread's handle on a training run. It owns the TelemetrySink, the
// TrainingRunner (whose std::thread does the training) and the TelemetryStore the views read.
//
// Data path (docs/architecture.md, "Data flow"): the training thread appends StepRecords to the sink;
// when the sink goes from empty to non-empty its notify callback posts ONE queued call here, which starts a
// ~33 ms single-shot timer unless it is already running; the timer drains everything pending in one swap,
// appends it to the store and emits dataAppended once. However fast the engine steps, the GUI thread
// sees at most ~30 wake-ups per second.
//
// Shutdown (destructor or shutdown()): close the sink (wakes a producer blocked on back-pressure), stop
// the runner (returns after the step in flight) and join. After that no callback can arrive.
#pragma once

#include <QElapsedTimer>
#include <QObject>
#include <QString>
#include <QTimer>
#include <deque>
#include <memory>
#include <mutex>
#include <utility>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"
#include "ampscope/engine/telemetry_sink.h"
#include "ampscope/engine/telemetry_store.h"
#include "ampscope/engine/training_runner.h"

Q_DECLARE_METATYPE(ampscope::RunState)

namespace ampscope::ui {

class RunController : public QObject {
  Q_OBJECT
 public:
  explicit RunController(QObject* parent = nullptr);
  ~RunController() override;

  TelemetryStore* store() { return &store_; }
  const TelemetryStore* store() const { return &store_; }
  RunState state() const;
  bool isActive() const;  // Running or Paused: a comparison exists and may step
  const RunConfig& config() const { return config_; }
  int64_t stepsDone() const;
  double stepsPerSecond() const;  // measured over the last two seconds of drained data
  QString lastError() const;
  std::vector<ModeCapability> capabilities() const;
  std::vector<OpDtypeEntry> opDtypeReport(PrecisionMode mode);  // while paused or finished
  MemoryLedger memoryLedger(PrecisionMode mode) const;
  double maxStepsPerSecond() const { return maxStepsPerSecond_; }
  int drainIntervalMs() const { return drainTimer_.interval(); }

  // Starts a fresh comparison (step 1, store cleared). Returns false and emits errorOccurred when the
  // engine refuses the config.
  bool start(const RunConfig& config, bool paused = false);
  void pause();
  void resume();
  void stepOnce();
  void stop();
  void reset();                              // stop and forget the run; the store is cleared
  void setMaxStepsPerSecond(double stepsPerSecond);  // 0 = unlimited
  void injectOverflowNextStep();
  void shutdown();                           // close, stop, join; idempotent
  void drainNow();                           // what the timer does, callable from tests
  // A recorded run (an opened session): stops any run, and the store and views show these records
  // under `config` without training (storeCleared, then one dataAppended).
  void showRecords(const RunConfig& config, const std::vector<StepRecord>& records);

 signals:
  void dataAppended(qint64 firstStep, qint64 lastStep);
  void stateChanged(ampscope::RunState state);
  void runStarted();      // a new comparison exists (store cleared, config() set)
  void storeCleared();
  void errorOccurred(const QString& message);
  // Every drained batch at full resolution, just before dataAppended (the session recorder keeps it;
  // the store decimates). Connect directly: the reference is valid only during the emission.
  void recordsDrained(const std::vector<ampscope::StepRecord>& records);

 private:
  // Invoked by name from the training thread (queued).
  Q_INVOKABLE void onSinkNotified();
  Q_INVOKABLE void takeRunnerStates();  // onRunnerState for each state queued in states_
  void onRunnerState(RunState state);
  void emitStateIfChanged();

  std::shared_ptr<TelemetrySink> sink_;
  std::unique_ptr<TrainingRunner> runner_;
  std::mutex statesMutex_;
  std::vector<RunState> states_;  // from the training thread, for takeRunnerStates
  TelemetryStore store_;
  RunConfig config_;
  QTimer drainTimer_;
  QElapsedTimer clock_;
  std::deque<std::pair<qint64, int64_t>> rateSamples_;  // (ms since clock_ start, last step)
  double maxStepsPerSecond_ = 0;
  RunState lastEmittedState_ = RunState::Idle;
  bool shutDown_ = false;
};

}  // namespace ampscope::ui
