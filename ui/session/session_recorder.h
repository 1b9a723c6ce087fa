// SessionRecorder: the full-resolution record of the current run, kept for saving, autosave, data
// export and "Reproduce in PyTorch" (the TelemetryStore the plots read decimates old steps; a session
// file must not). RunController hands it every drained batch.
//
// Memory stays bounded on very long runs, with an even resolution over the whole run: when more than
// kMaxRecords steps are held, every other one is dropped and from then on only every 2nd (then 4th, ...)
// step is kept; the bulky per-step instruments (rounding points, exponent histograms) likewise, capped
// at kMaxInstrumentedSteps instrumented steps (their scalars and rounding totals stay). Each thinning
// doubles the stride, so it happens a logarithmic number of times in a run (and so does the autosave's
// full re-serialization that follows it). Lives on the GUI thread.
#pragma once

#include <QObject>
#include <QString>
#include <cstddef>
#include <cstdint>
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
  void load(Session&& session);  // without copying a long session's records
  void append(const std::vector<StepRecord>& batch);
  void clear();

  const Session& session() const { return session_; }
  const std::vector<StepRecord>& records() const { return session_.records; }
  bool isEmpty() const { return session_.records.empty(); }
  int64_t lastStep() const { return session_.records.empty() ? 0 : session_.records.back().step; }
  void setLesson(const QString& lesson) { session_.lesson = lesson; }
  bool hasConfig() const { return hasConfig_; }
  // Changes whenever records already handed out were replaced or removed (a new run, a load, a clear, a
  // thinning); appending keeps it. Lets the autosave serialize only the records it has not seen.
  uint64_t generation() const { return generation_; }

 signals:
  void changed();  // records appended, loaded or cleared

 private:
  void resetThinning();
  void thinRecords();
  void thinInstruments();
  static void stripInstruments(StepRecord& record);

  Session session_;
  bool hasConfig_ = false;
  std::size_t instrumentedSteps_ = 0;  // records that still carry instruments
  uint64_t generation_ = 0;
  uint64_t recordStride_ = 1;  // keep every n-th arriving step
  uint64_t recordsArrived_ = 0;
  uint64_t instrumentStride_ = 1;  // keep the instruments of every n-th arriving instrumented step
  uint64_t instrumentedArrived_ = 0;
};

}  // namespace ampscope::ui
