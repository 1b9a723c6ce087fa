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
  session_ = Session{config, lesson, {}, {}};
  hasConfig_ = true;
  resetThinning();
  ++generation_;
  emit changed();
}

void SessionRecorder::load(const Session& session) { load(Session(session)); }

void SessionRecorder::load(Session&& session) {
  session_ = std::move(session);
  session_.followed.clear();  // followed runs live in the follow controller, which saves them
  hasConfig_ = true;
  resetThinning();
  for (const auto& record : session_.records) instrumentedSteps_ += hasInstruments(record) ? 1 : 0;
  ++generation_;
  emit changed();
}

void SessionRecorder::clear() {
  session_.records.clear();
  resetThinning();
  ++generation_;
  emit changed();
}

void SessionRecorder::resetThinning() {
  instrumentedSteps_ = 0;
  recordStride_ = 1;
  recordsArrived_ = 0;
  instrumentStride_ = 1;
  instrumentedArrived_ = 0;
}

void SessionRecorder::append(const std::vector<StepRecord>& batch) {
  if (batch.empty()) return;
  for (const auto& record : batch) {
    // Steps only grow: a step the recorder already has is not taken twice.
    if (!session_.records.empty() && record.step <= session_.records.back().step) continue;
    if (recordsArrived_++ % recordStride_ != 0) continue;
    session_.records.push_back(record);
    if (hasInstruments(record)) {
      if (instrumentedArrived_++ % instrumentStride_ == 0) {
        ++instrumentedSteps_;
      } else {
        stripInstruments(session_.records.back());
      }
    }
  }
  if (session_.records.size() > kMaxRecords) {
    thinRecords();
    ++generation_;
  }
  if (instrumentedSteps_ > kMaxInstrumentedSteps) {
    thinInstruments();
    ++generation_;
  }
  emit changed();
}

void SessionRecorder::stripInstruments(StepRecord& record) {
  for (auto& mode : record.modes) {
    std::vector<TensorStats>().swap(mode.tensors);
    std::vector<RoundingPointStats>().swap(mode.roundingPoints);
  }
}

void SessionRecorder::thinRecords() {
  // Every other record goes (the first stays), and from now on every other arriving one.
  auto& records = session_.records;
  std::vector<StepRecord> kept;
  kept.reserve(records.size() / 2 + 1);
  for (std::size_t i = 0; i < records.size(); i += 2) kept.push_back(std::move(records[i]));
  records = std::move(kept);
  recordStride_ *= 2;
  instrumentedSteps_ = 0;
  for (const auto& record : records) instrumentedSteps_ += hasInstruments(record) ? 1 : 0;
}

void SessionRecorder::thinInstruments() {
  // The instruments of every other instrumented step go (their scalars stay), and from now on those of
  // every other arriving instrumented step.
  std::size_t seen = 0;
  for (auto& record : session_.records) {
    if (!hasInstruments(record)) continue;
    if (seen++ % 2 == 1) {
      stripInstruments(record);
      --instrumentedSteps_;
    }
  }
  instrumentStride_ *= 2;
}

}  // namespace ampscope::ui
