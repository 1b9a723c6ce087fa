#include "ampscope/engine/telemetry_store.h"

#include <algorithm>
#include <cmath>
#include <limits>

#include "ampscope/engine/follow_budget.h"
#include "ampscope/engine/mode_formats.h"

namespace ampscope {

namespace {

// Without a config (a followed run, an opened stream) a series used a scaler if its scale ever left 1.
bool scaleEverMoved(const ModeSeries* s) {
  if (!s) return false;
  for (const ScalarBucket& b : s->buckets)
    if (b.minScale != 1.0 || b.maxScale != 1.0) return true;
  for (const ScalarPoint& p : s->recent)
    if (p.lossScale != 1.0) return true;
  return false;
}

void addCounts(std::vector<RoundingCounts>& into, const std::vector<RoundingCounts>& from) {
  if (into.size() < from.size()) into.resize(from.size());
  for (std::size_t i = 0; i < from.size(); ++i) into[i].add(from[i]);
}

template <typename Pick>
RoundingCounts fieldwise(const RoundingCounts& a, const RoundingCounts& b, Pick pick) {
  RoundingCounts out;
  out.elements = pick(a.elements, b.elements);
  out.flushedToZero = pick(a.flushedToZero, b.flushedToZero);
  out.subnormal = pick(a.subnormal, b.subnormal);
  out.overflowed = pick(a.overflowed, b.overflowed);
  out.nan = pick(a.nan, b.nan);
  return out;
}

// Folds `fromMin`/`fromMax` (one step's counts twice, or a later bucket's extremes) into lo/hi. A layer
// one side lacks counted zero there.
void widen(RoundingCounts& lo, RoundingCounts& hi, const RoundingCounts& fromMin, const RoundingCounts& fromMax) {
  lo = fieldwise(lo, fromMin, [](int64_t a, int64_t b) { return std::min(a, b); });
  hi = fieldwise(hi, fromMax, [](int64_t a, int64_t b) { return std::max(a, b); });
}

void widen(std::vector<RoundingCounts>& lo, std::vector<RoundingCounts>& hi, const std::vector<RoundingCounts>& fromMin,
           const std::vector<RoundingCounts>& fromMax) {
  const std::size_t n = std::max({lo.size(), fromMin.size(), fromMax.size()});
  lo.resize(n);
  hi.resize(n);
  for (std::size_t i = 0; i < n; ++i)
    widen(lo[i], hi[i], i < fromMin.size() ? fromMin[i] : RoundingCounts{},
          i < fromMax.size() ? fromMax[i] : RoundingCounts{});
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

// What merging any bucket into an earlier one starts with: an empty side leaves the other as the result;
// otherwise the later bucket's steps extend the span. False when that already settled the merge.
template <typename Bucket>
bool extendSpan(Bucket& into, const Bucket& later) {
  if (later.count == 0) return false;
  if (into.count == 0) {
    into = later;
    return false;
  }
  into.lastStep = later.lastStep;
  into.count += later.count;
  return true;
}

// Folds the oldest `n` points into buckets of `width` steps each (the last one may hold fewer).
template <typename Point, typename Bucket>
void foldOldest(std::deque<Point>& points, std::size_t n, std::size_t width, std::deque<Bucket>& buckets) {
  n = std::min(n, points.size());
  Bucket current;
  for (std::size_t i = 0; i < n; ++i) {
    current.add(points.front());
    points.pop_front();
    if (static_cast<std::size_t>(current.count) >= width) {
      buckets.push_back(std::move(current));
      current = Bucket{};
    }
  }
  if (current.count > 0) buckets.push_back(std::move(current));
}

// The format a mode's gradients are measured against (mode_formats.h): its own, FP16 for FP32 runs (as
// the engine's own overlays are); FP16 too where the histograms have no counts for it (NVFP4's E2M1).
RangeFormat lowFormat(PrecisionMode mode) {
  return rangeFormatOf(modeFormats(mode).measuredAgainst).value_or(RangeFormat::FP16);
}

// A quantised mode's rounding points are its quantised GEMM operands, in its own formats (E4M3, E5M2,
// E2M1): one per operand measured at this step, flushed = rounded to 0 after scaling, overflowed = saturated
// (clamped to the format's largest value). Their subnormal share is not measured (0). Other modes'
// rounding points are the step's own.
std::vector<RoundingPointStats> quantisedRoundingPoints(const ModeStep& step) {
  std::vector<RoundingPointStats> points;
  for (const QuantTensorStats& q : step.quantized) {
    if (!q.measured) continue;
    RoundingPointStats rp;
    rp.name = q.name;
    rp.layer = q.layer;
    rp.backward = q.backward;
    rp.counts.elements = q.numel;
    rp.counts.flushedToZero = q.flushed;
    rp.counts.overflowed = q.saturated;
    points.push_back(std::move(rp));
  }
  return points;
}

// "net.0.weight" -> "net.0"; a name without a dot is its own layer.
std::string layerOf(const std::string& parameter) {
  const std::size_t dot = parameter.rfind('.');
  return dot == std::string::npos || dot == 0 ? parameter : parameter.substr(0, dot);
}

}  // namespace

void PositiveRange::add(double value) {
  if (!(std::isfinite(value) && value > 0)) return;
  min = count == 0 ? value : std::min(min, value);
  max = count == 0 ? value : std::max(max, value);
  ++count;
}

void PositiveRange::merge(const PositiveRange& other) {
  if (other.count == 0) return;
  min = count == 0 ? other.min : std::min(min, other.min);
  max = count == 0 ? other.max : std::max(max, other.max);
  count += other.count;
}

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
  normSeen.add(point.normSeen());
  normAfterClip.add(point.normAfterClip());
}

void ScalarBucket::merge(const ScalarBucket& later) {
  if (!extendSpan(*this, later)) return;
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
  normSeen.merge(later.normSeen);
  normAfterClip.merge(later.normAfterClip);
}

void InstrumentBucket::add(const InstrumentPoint& point) {
  if (count == 0) {
    firstStep = point.step;
    totalMin = totalMax = point.total;
    perLayerMin = perLayerMax = point.perLayer;
  } else {
    widen(totalMin, totalMax, point.total, point.total);
    widen(perLayerMin, perLayerMax, point.perLayer, point.perLayer);
  }
  lastStep = point.step;
  ++count;
  total.add(point.total);
  addCounts(perLayer, point.perLayer);
}

void InstrumentBucket::merge(const InstrumentBucket& later) {
  if (!extendSpan(*this, later)) return;
  total.add(later.total);
  addCounts(perLayer, later.perLayer);
  widen(totalMin, totalMax, later.totalMin, later.totalMax);
  widen(perLayerMin, perLayerMax, later.perLayerMin, later.perLayerMax);
}

TelemetryStore::TelemetryStore(StoreLimits limits) : limits_(limits) {
  limits_.foldChunk = std::max<std::size_t>(1, limits_.foldChunk);
  limits_.stepsPerBucket = std::max<std::size_t>(1, limits_.stepsPerBucket);
  limits_.maxBuckets = std::max<std::size_t>(2, limits_.maxBuckets);
  limits_.maxInstrumentBuckets = std::max<std::size_t>(2, limits_.maxInstrumentBuckets);
  limits_.maxLayers = std::max<std::size_t>(2, limits_.maxLayers);
}

void TelemetryStore::clear() {
  series_.erase(std::remove_if(series_.begin(), series_.end(), [](const auto& s) { return s->run == kEngineRun; }),
                series_.end());
  lastStep_ = 0;
  ++generation_;
}

void TelemetryStore::clearAll() {
  series_.clear();
  runs_.clear();
  nextRun_ = 1;
  lastStep_ = 0;
  ++generation_;
}

int TelemetryStore::addRun(const std::string& label) {
  runs_.emplace_back(nextRun_, label);
  return nextRun_++;
}

void TelemetryStore::removeRun(int run) {
  if (run == kEngineRun) return;
  runs_.erase(std::remove_if(runs_.begin(), runs_.end(), [run](const auto& r) { return r.first == run; }), runs_.end());
  series_.erase(std::remove_if(series_.begin(), series_.end(), [run](const auto& s) { return s->run == run; }),
                series_.end());
  ++generation_;
}

std::vector<int> TelemetryStore::runs() const {
  std::vector<int> out;
  for (const auto& r : runs_) out.push_back(r.first);
  return out;
}

std::string TelemetryStore::runLabel(int run) const {
  for (const auto& r : runs_)
    if (r.first == run) return r.second;
  return {};
}

std::vector<SeriesKey> TelemetryStore::seriesKeys() const {
  std::vector<SeriesKey> out;
  for (const auto& s : series_)
    if (s->run == kEngineRun) out.push_back(s->key());
  for (const auto& r : runs_)
    for (const auto& s : series_)
      if (s->run == r.first) out.push_back(s->key());
  return out;
}

const ModeSeries* TelemetryStore::series(SeriesKey key) const {
  for (const auto& s : series_)
    if (s->key() == key) return s.get();
  return nullptr;
}

void TelemetryStore::appendFollowed(int run, const std::vector<ModeStep>& steps) {
  for (const ModeStep& step : steps) appendFollowed(run, step);
}

void TelemetryStore::appendFollowed(int run, const ModeStep& step) {
  if (run == kEngineRun || runLabel(run).empty()) return;
  ModeSeries& s = seriesFor({run, step.mode});
  const TensorStats* foldedSum = step.folded.parameterSum.get();
  if (!step.instrumented || !step.roundingPoints.empty() || (step.tensors.empty() && !foldedSum)) {
    appendModeStep(s, step);
    return;
  }
  // A probe measures no rounding points, only its gradients. Their format counts (flushed, subnormal,
  // overflowed in the mode's format) stand in: one rounding point per layer, made of its parameters.
  // The scaled histogram is the one the low-precision gradient held.
  ModeStep derived = step;
  const auto format = static_cast<std::size_t>(lowFormat(step.mode));
  RoundingCounts total;
  // The parameters a reader's budget folded count as one more layer, "(folded)", with their exact sums.
  std::vector<const TensorStats*> parameters;
  for (const TensorStats& t : step.tensors) parameters.push_back(&t);
  if (foldedSum) parameters.push_back(foldedSum);
  for (const TensorStats* tp : parameters) {
    const TensorStats& t = *tp;
    if (!t.isParameter) continue;
    const FormatRangeCounts& f = t.scaled.formats[format];
    RoundingCounts c;
    c.elements = t.numel;
    c.flushedToZero = f.flushed;
    c.subnormal = f.subnormal;
    c.overflowed = f.overflowed;
    c.nan = t.scaled.nan + t.scaled.posInf + t.scaled.negInf;
    const std::string layer = tp == foldedSum ? std::string(kFoldedRoundingPoint) : layerOf(t.name);
    auto it = std::find_if(derived.roundingPoints.begin(), derived.roundingPoints.end(),
                           [&](const RoundingPointStats& rp) { return rp.layer == layer; });
    if (it == derived.roundingPoints.end()) {
      RoundingPointStats rp;
      rp.name = layer + ".grad";
      rp.layer = layer;
      rp.backward = true;
      derived.roundingPoints.push_back(rp);
      it = derived.roundingPoints.end() - 1;
    }
    it->counts.add(c);
    total.add(c);
  }
  derived.rounding = total;
  appendModeStep(s, derived);
}

bool TelemetryStore::usesScaler(SeriesKey key) const {
  if (key.run == kEngineRun) return usesScaler(key.mode);
  return scaleEverMoved(series(key));
}

void TelemetryStore::setConfig(const RunConfig& config) {
  config_ = config;
  // Create the series in the configured order so colours, legends and tables list modes the same way.
  for (PrecisionMode mode : config.modes) seriesFor({kEngineRun, mode});
}

bool TelemetryStore::usesScaler(PrecisionMode mode) const {
  if (config_) {
    return config_->scaler.enabled && usesGradScaler(*config_, mode);
  }
  return scaleEverMoved(series(SeriesKey{kEngineRun, mode}));
}

std::vector<PrecisionMode> TelemetryStore::modes() const {
  std::vector<PrecisionMode> out;
  out.reserve(series_.size());
  for (const auto& s : series_)
    if (s->run == kEngineRun) out.push_back(s->mode);
  return out;
}

const ModeSeries* TelemetryStore::series(PrecisionMode mode) const { return series(SeriesKey{kEngineRun, mode}); }

ModeSeries& TelemetryStore::seriesFor(SeriesKey key) {
  for (auto& s : series_)
    if (s->key() == key) return *s;
  series_.push_back(std::make_unique<ModeSeries>());
  series_.back()->mode = key.mode;
  series_.back()->run = key.run;
  series_.back()->bucketWidth = limits_.stepsPerBucket;
  return *series_.back();
}

void QuantPoint::merge(const QuantPoint& later) {
  step = later.step;
  scale = later.scale;
  amax = std::max(amax, later.amax);
  amaxHistoryMax = std::max(amaxHistoryMax, later.amaxHistoryMax);
  blockScaleExpMin = std::min(blockScaleExpMin, later.blockScaleExpMin);
  blockScaleExpMax = std::max(blockScaleExpMax, later.blockScaleExpMax);
  measured = measured || later.measured;
  numel += later.numel;
  saturated += later.saturated;
  flushed += later.flushed;
}

const QuantSeries* ModeSeries::quantSeries(const std::string& name) const {
  for (const QuantSeries& q : quantized) {
    if (q.name == name) return &q;
  }
  return nullptr;
}

void TelemetryStore::appendQuantized(ModeSeries& s, const ModeStep& step) {
  for (const QuantTensorStats& t : step.quantized) {
    auto it = std::find_if(s.quantized.begin(), s.quantized.end(),
                           [&](const QuantSeries& q) { return q.name == t.name; });
    if (it == s.quantized.end()) {
      QuantSeries q;
      q.name = t.name;
      q.layer = t.layer;
      q.backward = t.backward;
      q.format = t.format;
      q.scaling = t.scaling;
      s.quantized.push_back(std::move(q));
      it = s.quantized.end() - 1;
    }
    QuantPoint p;
    p.step = step.step;
    p.scale = t.scale;
    p.amax = t.amax;
    p.amaxHistoryMax = t.amaxHistoryMax;
    p.blockScaleExpMin = t.blockScaleExpMin;
    p.blockScaleExpMax = t.blockScaleExpMax;
    p.measured = t.measured;
    if (t.measured) {
      p.numel = t.numel;
      p.saturated = t.saturated;
      p.flushed = t.flushed;
      it->latestMeasured = t;
      it->latestMeasuredStep = step.step;
    }
    it->points.push_back(p);
    if (limits_.quantPoints >= 2 && it->points.size() > limits_.quantPoints) {
      // Merge the older half in pairs; the newer half stays at full resolution.
      const std::size_t half = it->points.size() / 2;
      std::deque<QuantPoint> merged;
      for (std::size_t i = 0; i < half; i += 2) {
        QuantPoint m = it->points[i];
        if (i + 1 < half) m.merge(it->points[i + 1]);
        merged.push_back(m);
      }
      for (std::size_t i = half; i < it->points.size(); ++i) merged.push_back(it->points[i]);
      it->points = std::move(merged);
      ++generation_;
    }
  }
}

void TelemetryStore::resetSeries(ModeSeries& s) {
  const SeriesKey key = s.key();
  s = ModeSeries{};
  s.mode = key.mode;
  s.run = key.run;
  s.bucketWidth = limits_.stepsPerBucket;
  ++generation_;
}

void TelemetryStore::append(const std::vector<StepRecord>& batch) {
  for (const StepRecord& record : batch) append(record);
}

void TelemetryStore::append(const StepRecord& record) {
  for (const ModeStep& modeStep : record.modes) appendModeStep(seriesFor({kEngineRun, modeStep.mode}), modeStep);
  lastStep_ = std::max(lastStep_, record.step);
}

void TelemetryStore::appendModeStep(ModeSeries& s, const ModeStep& step) {
  // Steps arrive in order; a repeated or older step (a restarted run fed without clear()) starts over.
  if (!s.recent.empty() && step.step <= s.recent.back().step) resetSeries(s);
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
  if (step.folded.any()) {
    ++s.foldedRecords;
    s.foldedEntries.addCounts(step.folded);
  }
  if (step.skipped) ++s.skippedTotal;
  if (!std::isfinite(step.loss)) ++s.nonFiniteLossTotal;
  if (step.diverged && !s.divergedAt) s.divergedAt = step.step;

  if (step.instrumented) {
    InstrumentPoint ip;
    ip.step = step.step;
    ip.total = step.rounding;
    ip.perLayer.resize(s.layers.size());
    const bool quantised = isQuantizedMode(step.mode) && step.roundingPoints.empty();
    const std::vector<RoundingPointStats> derived =
        quantised ? quantisedRoundingPoints(step) : std::vector<RoundingPointStats>{};
    if (quantised) {
      ip.total = RoundingCounts{};
      for (const RoundingPointStats& rp : derived) ip.total.add(rp.counts);
    }
    for (const RoundingPointStats& rp : quantised ? derived : step.roundingPoints) {
      const std::size_t index = layerIndex(s, rp.layer);
      ip.perLayer.resize(s.layers.size());
      ip.perLayer[index].add(rp.counts);
    }
    s.roundingTotal.add(ip.total);
    s.instruments.push_back(std::move(ip));

    if (!step.tensors.empty() || step.folded.parameterSum) {
      s.latestTensors = step.tensors;
      s.latestTensorsStep = step.step;
      s.latestFolded = step.folded;
      HistogramSnapshot snap;
      snap.step = step.step;
      for (const TensorStats& t : step.tensors) {
        if (!t.isParameter) continue;
        snap.scaled.add(t.scaled);
        snap.unscaled.add(t.unscaled);
      }
      if (const TensorStats* sum = step.folded.parameterSum.get()) {
        snap.scaled.add(sum->scaled);
        snap.unscaled.add(sum->unscaled);
      }
      s.histogramRing.push_back(std::move(snap));
      while (s.histogramRing.size() > limits_.histogramSnapshots) s.histogramRing.pop_front();
    }
  }
  appendQuantized(s, step);
  foldIfNeeded(s);
}

std::size_t TelemetryStore::layerIndex(ModeSeries& s, const std::string& layer) const {
  const auto it = std::find(s.layers.begin(), s.layers.end(), layer);
  if (it != s.layers.end()) return static_cast<std::size_t>(it - s.layers.begin());
  // Past the cap every new layer shares the last slot, kOtherLayers: per-layer counts are kept per
  // instrumented step, so their width is what a stream naming many layers would make grow.
  if (s.layers.size() + 1 >= limits_.maxLayers) {
    ++s.layersOverCap;
    const auto other = std::find(s.layers.begin(), s.layers.end(), kOtherLayers);
    if (other != s.layers.end()) return static_cast<std::size_t>(other - s.layers.begin());
  }
  s.layers.push_back(s.layers.size() + 1 >= limits_.maxLayers ? kOtherLayers : layer);
  return s.layers.size() - 1;
}

void TelemetryStore::foldIfNeeded(ModeSeries& s) {
  bool folded = false;
  if (s.recent.size() >= limits_.recentSteps + limits_.foldChunk) {
    foldOldest(s.recent, limits_.foldChunk, s.bucketWidth, s.buckets);
    while (s.buckets.size() > limits_.maxBuckets) {
      mergePairs(s.buckets);
      s.bucketWidth *= 2;
    }
    folded = true;
  }
  if (s.instruments.size() >= limits_.recentInstruments + limits_.foldChunk) {
    // Instrument buckets follow the scalar bucket width so both views decimate alike.
    foldOldest(s.instruments, limits_.foldChunk, s.bucketWidth, s.instrumentBuckets);
    while (s.instrumentBuckets.size() > limits_.maxInstrumentBuckets) mergePairs(s.instrumentBuckets);
    folded = true;
  }
  if (folded) ++generation_;
}

}  // namespace ampscope
