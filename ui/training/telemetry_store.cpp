#include "ui/training/telemetry_store.h"

#include <algorithm>
#include <cmath>
#include <limits>

namespace ampscope::ui {

namespace {

void addCounts(std::vector<RoundingCounts>& into, const std::vector<RoundingCounts>& from) {
  if (into.size() < from.size()) into.resize(from.size());
  for (std::size_t i = 0; i < from.size(); ++i) into[i].add(from[i]);
}

// Merges neighbours pairwise so that `buckets` holds at most half as many, oldest first.
template <typename Bucket>
void mergePairs(std::deque<Bucket>& buckets) {
  std::deque<Bucket> merged;
  for (std::size_t i = 0; i < buckets.size(); i += 2) {
    Bucket b = buckets[i];
    if (i + 1 < buckets.size()) b.merge(buckets[i + 1]);
    merged.push_back(std::move(b));
  }
  buckets.swap(merged);
}

}  // namespace

double ScalarBucket::lossMean() const {
  return finiteCount > 0 ? lossSum / static_cast<double>(finiteCount)
                         : std::numeric_limits<double>::quiet_NaN();
}

void ScalarBucket::add(const ScalarPoint& point) {
  if (count == 0) {
    firstStep = point.step;
    firstScale = point.lossScale;
    minScale = maxScale = point.lossScale;
  }
  lastStep = point.step;
  ++count;
  if (std::isfinite(point.loss)) {
    if (finiteCount == 0) {
      lossMin = lossMax = point.loss;
    } else {
      lossMin = std::min(lossMin, point.loss);
      lossMax = std::max(lossMax, point.loss);
    }
    lossSum += point.loss;
    ++finiteCount;
  } else {
    ++nonFiniteCount;
  }
  lastScale = point.lossScale;
  minScale = std::min(minScale, point.lossScale);
  maxScale = std::max(maxScale, point.lossScale);
  if (point.skipped) ++skipped;
}

void ScalarBucket::merge(const ScalarBucket& later) {
  if (later.count == 0) return;
  if (count == 0) {
    *this = later;
    return;
  }
  lastStep = later.lastStep;
  count += later.count;
  if (later.finiteCount > 0) {
    if (finiteCount == 0) {
      lossMin = later.lossMin;
      lossMax = later.lossMax;
    } else {
      lossMin = std::min(lossMin, later.lossMin);
      lossMax = std::max(lossMax, later.lossMax);
    }
  }
  lossSum += later.lossSum;
  finiteCount += later.finiteCount;
  nonFiniteCount += later.nonFiniteCount;
  lastScale = later.lastScale;
  minScale = std::min(minScale, later.minScale);
  maxScale = std::max(maxScale, later.maxScale);
  skipped += later.skipped;
}

void InstrumentBucket::add(const InstrumentPoint& point) {
  if (count == 0) firstStep = point.step;
  lastStep = point.step;
  ++count;
  total.add(point.total);
  addCounts(perLayer, point.perLayer);
}

void InstrumentBucket::merge(const InstrumentBucket& later) {
  if (later.count == 0) return;
  if (count == 0) {
    *this = later;
    return;
  }
  lastStep = later.lastStep;
  count += later.count;
  total.add(later.total);
  addCounts(perLayer, later.perLayer);
}

TelemetryStore::TelemetryStore(StoreLimits limits) : limits_(limits) {
  limits_.foldChunk = std::max<std::size_t>(1, limits_.foldChunk);
  limits_.stepsPerBucket = std::max<std::size_t>(1, limits_.stepsPerBucket);
  limits_.maxBuckets = std::max<std::size_t>(2, limits_.maxBuckets);
  limits_.maxInstrumentBuckets = std::max<std::size_t>(2, limits_.maxInstrumentBuckets);
}

void TelemetryStore::clear() {
  series_.clear();
  lastStep_ = 0;
  ++generation_;
}

void TelemetryStore::setConfig(const RunConfig& config) {
  config_ = config;
  // Create the series in the configured order so colours, legends and tables list modes the same way.
  for (PrecisionMode mode : config.modes) seriesFor(mode);
}

bool TelemetryStore::usesScaler(PrecisionMode mode) const {
  if (config_) {
    return config_->scaler.enabled && usesGradScaler(*config_, mode);
  }
  const ModeSeries* s = series(mode);
  if (!s) return false;
  for (const ScalarBucket& b : s->buckets)
    if (b.minScale != 1.0 || b.maxScale != 1.0) return true;
  for (const ScalarPoint& p : s->recent)
    if (p.lossScale != 1.0) return true;
  return false;
}

std::vector<PrecisionMode> TelemetryStore::modes() const {
  std::vector<PrecisionMode> out;
  out.reserve(series_.size());
  for (const auto& s : series_) out.push_back(s->mode);
  return out;
}

const ModeSeries* TelemetryStore::series(PrecisionMode mode) const {
  for (const auto& s : series_)
    if (s->mode == mode) return s.get();
  return nullptr;
}

ModeSeries& TelemetryStore::seriesFor(PrecisionMode mode) {
  for (auto& s : series_)
    if (s->mode == mode) return *s;
  series_.push_back(std::make_unique<ModeSeries>());
  series_.back()->mode = mode;
  series_.back()->bucketWidth = limits_.stepsPerBucket;
  return *series_.back();
}

void TelemetryStore::append(const std::vector<StepRecord>& batch) {
  for (const StepRecord& record : batch) append(record);
}

void TelemetryStore::append(const StepRecord& record) {
  for (const ModeStep& modeStep : record.modes) appendModeStep(seriesFor(modeStep.mode), modeStep);
  lastStep_ = std::max(lastStep_, record.step);
}

void TelemetryStore::appendModeStep(ModeSeries& s, const ModeStep& step) {
  // Steps arrive in order; a repeated or older step (a restarted run fed without clear()) starts over.
  if (!s.recent.empty() && step.step <= s.recent.back().step) {
    const PrecisionMode mode = s.mode;
    s = ModeSeries{};
    s.mode = mode;
    s.bucketWidth = limits_.stepsPerBucket;
    ++generation_;
  }
  ScalarPoint p;
  p.step = step.step;
  p.loss = step.loss;
  p.lossScale = step.lossScale;
  p.gradNorm = step.gradNormBeforeClip;
  p.clipNormSeen = step.clipNormSeen;
  p.gradNormAfterClip = step.gradNormAfterClip;
  p.stepTimeMs = step.stepTimeMs;
  p.currentBytes = step.currentBytes;
  p.peakBytes = step.peakBytes;
  p.skipped = step.skipped;
  p.foundInf = step.foundInf;
  p.diverged = step.diverged;
  s.recent.push_back(p);
  s.lastStep = step.step;
  ++s.stepsSeen;
  if (step.skipped) ++s.skippedTotal;
  if (!std::isfinite(step.loss)) ++s.nonFiniteLossTotal;
  if (step.diverged && !s.divergedAt) s.divergedAt = step.step;

  if (step.instrumented) {
    InstrumentPoint ip;
    ip.step = step.step;
    ip.total = step.rounding;
    ip.perLayer.resize(s.layers.size());
    for (const RoundingPointStats& rp : step.roundingPoints) {
      auto it = std::find(s.layers.begin(), s.layers.end(), rp.layer);
      std::size_t index = static_cast<std::size_t>(it - s.layers.begin());
      if (it == s.layers.end()) {
        s.layers.push_back(rp.layer);
        ip.perLayer.resize(s.layers.size());
      }
      ip.perLayer[index].add(rp.counts);
    }
    s.roundingTotal.add(step.rounding);
    s.instruments.push_back(std::move(ip));

    if (!step.tensors.empty()) {
      s.latestTensors = step.tensors;
      s.latestTensorsStep = step.step;
      HistogramSnapshot snap;
      snap.step = step.step;
      for (const TensorStats& t : step.tensors) {
        if (!t.isParameter) continue;
        snap.scaled.add(t.scaled);
        snap.unscaled.add(t.unscaled);
      }
      s.histogramRing.push_back(std::move(snap));
      while (s.histogramRing.size() > limits_.histogramSnapshots) s.histogramRing.pop_front();
    }
  }
  foldIfNeeded(s);
}

void TelemetryStore::foldIfNeeded(ModeSeries& s) {
  bool folded = false;
  if (s.recent.size() >= limits_.recentSteps + limits_.foldChunk) {
    std::size_t n = limits_.foldChunk;
    ScalarBucket current;
    for (std::size_t i = 0; i < n; ++i) {
      current.add(s.recent.front());
      s.recent.pop_front();
      if (static_cast<std::size_t>(current.count) >= s.bucketWidth) {
        s.buckets.push_back(current);
        current = ScalarBucket{};
      }
    }
    if (current.count > 0) s.buckets.push_back(current);
    while (s.buckets.size() > limits_.maxBuckets) {
      mergePairs(s.buckets);
      s.bucketWidth *= 2;
    }
    folded = true;
  }
  if (s.instruments.size() >= limits_.recentInstruments + limits_.foldChunk) {
    std::size_t n = std::min(limits_.foldChunk, s.instruments.size());
    // Instrument buckets follow the scalar bucket width so both views decimate alike.
    InstrumentBucket current;
    for (std::size_t i = 0; i < n; ++i) {
      current.add(s.instruments.front());
      s.instruments.pop_front();
      if (static_cast<std::size_t>(current.count) >= s.bucketWidth) {
        s.instrumentBuckets.push_back(std::move(current));
        current = InstrumentBucket{};
      }
    }
    if (current.count > 0) s.instrumentBuckets.push_back(std::move(current));
    while (s.instrumentBuckets.size() > limits_.maxInstrumentBuckets) mergePairs(s.instrumentBuckets);
    folded = true;
  }
  if (folded) ++generation_;
}

}  // namespace ampscope::ui
