// SessionRecorder: the full-resolution record of the current run, kept for saving, autosave, data
// export and "Reproduce in PyTorch" (the TelemetryStore the plots read decimates old steps; a session
// file must not). RunController hands it every drained batch.
//
// Memory stays bounded on very long runs: every step's scalars are kept up to kMaxRecords steps, after
// which the older half is thinned to every other step; the bulky per-step instruments (rounding points,
// exponent histograms) are kept for at most kMaxInstrumentedSteps instrumented steps, thinned the same
// way (dropped from every other instrumented step, oldest first), so early and late histograms both
// survive. Lives on the GUI thread.
#pragma once

#include <QObject>
#include <QString>
#include <cstddef>
#include <vector>

#include "ui/session/session_file.h"

namespace ampscope::ui {

class SessionRecorder : public QObject {
  Q_OBJECT

 public:
  static constexpr std::size_t kMaxRecords = 200000;
  static constexpr std::size_t kMaxInstrumentedSteps = 2000;

  explicit SessionRecorder(QObject* parent = nullptr);

  // A new run: forget the old records.
  void begin(const RunConfig& config, const QString& lesson = QString());
  // The records of a session that was opened (they become the current ones).
  void load(const Session& session);
  void append(const std::vector<StepRecord>& batch);
  void clear();

  const Session& session() const { return session_; }
  const std::vector<StepRecord>& records() const { return session_.records; }
  bool isEmpty() const { return session_.records.empty(); }
  int64_t lastStep() const { return session_.records.empty() ? 0 : session_.records.back().step; }
  void setLesson(const QString& lesson) { session_.lesson = lesson; }
  bool hasConfig() const { return hasConfig_; }

 signals:
  void changed();  // records appended, loaded or cleared

 private:
  void thinRecords();
  void thinInstruments();

  Session session_;
  bool hasConfig_ = false;
  std::size_t instrumentedSteps_ = 0;
};

}  // namespace ampscope::ui
