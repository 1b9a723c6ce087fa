#include "ui/session/session_recorder.h"

namespace ampscope::ui {

namespace {

bool hasInstruments(const StepRecord& record) {
  for (const auto& mode : record.modes) {
    if (!mode.tensors.empty() || !mode.roundingPoints.empty()) return true;
  }
  return false;
}

}  // namespace

SessionRecorder::SessionRecorder(QObject* parent) : QObject(parent) {}

void SessionRecorder::begin(const RunConfig& config, const QString& lesson) {
  session_ = Session{config, lesson, {}};
  hasConfig_ = true;
  instrumentedSteps_ = 0;
  emit changed();
}

void SessionRecorder::load(const Session& session) {
  session_ = session;
  hasConfig_ = true;
  instrumentedSteps_ = 0;
  for (const auto& record : session_.records) instrumentedSteps_ += hasInstruments(record) ? 1 : 0;
  emit changed();
}

void SessionRecorder::clear() {
  session_.records.clear();
  instrumentedSteps_ = 0;
  emit changed();
}

void SessionRecorder::append(const std::vector<StepRecord>& batch) {
  if (batch.empty()) return;
  for (const auto& record : batch) {
    // A step the recorder already has (a resumed drain) replaces nothing: steps only grow.
    if (!session_.records.empty() && record.step <= session_.records.back().step) continue;
    session_.records.push_back(record);
    instrumentedSteps_ += hasInstruments(record) ? 1 : 0;
  }
  if (session_.records.size() > kMaxRecords) thinRecords();
  if (instrumentedSteps_ > kMaxInstrumentedSteps) thinInstruments();
  emit changed();
}

void SessionRecorder::thinRecords() {
  // Keep the newer half whole; of the older half keep every other step (the first one included).
  auto& records = session_.records;
  const std::size_t older = records.size() / 2;
  std::vector<StepRecord> kept;
  kept.reserve(records.size() - older / 2);
  for (std::size_t i = 0; i < records.size(); ++i) {
    if (i < older && i % 2 == 1) continue;
    kept.push_back(std::move(records[i]));
  }
  records = std::move(kept);
  instrumentedSteps_ = 0;
  for (const auto& record : records) instrumentedSteps_ += hasInstruments(record) ? 1 : 0;
}

void SessionRecorder::thinInstruments() {
  // Drop the instruments (not the scalars) of every other instrumented step in the older half.
  std::size_t seen = 0;
  const std::size_t older = instrumentedSteps_ / 2;
  for (auto& record : session_.records) {
    if (!hasInstruments(record)) continue;
    if (seen >= older) break;
    if (seen % 2 == 1) {
      for (auto& mode : record.modes) {
        mode.tensors.clear();
        mode.roundingPoints.clear();
        mode.tensors.shrink_to_fit();
        mode.roundingPoints.shrink_to_fit();
      }
      --instrumentedSteps_;
    }
    ++seen;
  }
}

}  // namespace ampscope::ui
