// TelemetryStore: everything the training views show, per series, in bounded memory. A series is one
// precision mode of one run: run 0 is the engine's own run, runs 1.. are followed runs (a training
// script's stream), each with a label. The engine-only accessors (modes(), series(mode)) see run 0.
// The most recent `recentSteps` steps of each mode are kept at full resolution; older steps are folded
// into buckets (the min and max of loss, scale and gradient norms, summed counts) whose number is itself
// capped by merging neighbours, so a run of a million steps costs the same memory as one of 30,000, and a
// spike stays as tall as it was. Rounding counts of instrumented steps follow the same scheme (sums plus
// per-step extremes); exponent histograms keep only the latest tensors plus a bounded ring of per-step
// sums for the heat map.
//
// Not thread-safe: one thread feeds and reads it (in the GUI, RunController feeds it drained batches).
// Plain C++: no Qt, no LibTorch.
#pragma once

#include <cstddef>
#include <cstdint>
#include <deque>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "ampscope/engine/follow_budget.h"
#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"

namespace ampscope {

// One step of one mode at full resolution.
struct ScalarPoint {
  int64_t step = 0;
  double loss = 0;        // NaN/Inf kept
  double lossScale = 1;
  double gradNorm = 0;    // before clipping
  double clipNormSeen = 0;       // the norm clip_grad_norm_ computed (scaled when clipped before unscale_)
  double gradNormAfterClip = 0;  // unscaled norm after clipping
  double stepTimeMs = 0;
  int64_t currentBytes = 0;
  int64_t peakBytes = 0;
  bool skipped = false;
  bool foundInf = false;
  bool diverged = false;
  // The norm clip_grad_norm_ computed; without clipping the engine reports none (0) and the norm before
  // clipping is the same thing.
  double normSeen() const { return clipNormSeen > 0 ? clipNormSeen : gradNorm; }
  double normAfterClip() const { return gradNormAfterClip > 0 ? gradNormAfterClip : gradNorm; }
};

// The smallest and largest finite positive value among a bucket's steps. A norm of 0 or NaN (a skipped
// step, no norm reported) is no magnitude; count == 0 when there was none.
struct PositiveRange {
  double min = 0;
  double max = 0;
  int64_t count = 0;
  void add(double value);
  void merge(const PositiveRange& other);
};

// Consecutive old steps folded into one: what survives decimation. Loss statistics count finite losses
// only; non-finite ones are counted apart so they stay visible.
struct ScalarBucket {
  int64_t firstStep = 0;
  int64_t lastStep = 0;
  int64_t count = 0;
  double lossMin = 0;
  double lossMax = 0;
  double lossSum = 0;
  int64_t finiteCount = 0;
  int64_t nonFiniteCount = 0;
  double firstScale = 1;
  double lastScale = 1;
  double minScale = 1;
  double maxScale = 1;
  int64_t skipped = 0;
  PositiveRange normSeen;       // ScalarPoint::normSeen()
  PositiveRange normAfterClip;  // ScalarPoint::normAfterClip()
  double lossMean() const;
  void add(const ScalarPoint& point);
  void merge(const ScalarBucket& later);
};

// Rounding counts of one instrumented step: the total and one entry per layer (ModeSeries::layers).
struct InstrumentPoint {
  int64_t step = 0;
  RoundingCounts total;
  std::vector<RoundingCounts> perLayer;
};

// Several old instrumented steps summed; `count` instrumented steps went in. The extremes are field by
// field over single steps (the most any one step flushed, the least), so a burst of overflows in one step
// stays as high as it was; a layer a step did not report counts zero for that step.
struct InstrumentBucket {
  int64_t firstStep = 0;
  int64_t lastStep = 0;
  int64_t count = 0;
  RoundingCounts total;
  std::vector<RoundingCounts> perLayer;
  RoundingCounts totalMin;
  RoundingCounts totalMax;
  std::vector<RoundingCounts> perLayerMin;
  std::vector<RoundingCounts> perLayerMax;
  void add(const InstrumentPoint& point);
  void merge(const InstrumentBucket& later);
};

// Exponent histograms of all parameter gradients of one mode, summed, at one instrumented step.
struct HistogramSnapshot {
  int64_t step = 0;
  ExponentHistogram scaled;
  ExponentHistogram unscaled;
};

// One quantised tensor (QuantTensorStats) at one step, for the scale plot. After a merge of old
// points: the later step's scale, the larger amaxes, the wider block-exponent range, summed counts.
struct QuantPoint {
  int64_t step = 0;
  double scale = 1;
  double amax = 0;
  double amaxHistoryMax = 0;
  int blockScaleExpMin = 0;
  int blockScaleExpMax = 0;
  bool measured = false;
  int64_t numel = 0;
  int64_t saturated = 0;
  int64_t flushed = 0;
  void merge(const QuantPoint& later);
};

// Every step's scale of one quantised tensor of one mode ("fc1.input"), bounded: past
// StoreLimits::quantPoints the older half is merged in pairs (a saturation burst keeps its count).
struct QuantSeries {
  std::string name;
  std::string layer;
  bool backward = false;
  QuantFormat format = QuantFormat::E4M3;
  ScalingKind scaling = ScalingKind::Current;
  std::deque<QuantPoint> points;        // ascending steps
  QuantTensorStats latestMeasured;      // the latest instrumented step's, histogram included
  int64_t latestMeasuredStep = 0;       // 0: none yet
};

// Which series: the run it belongs to (0 = the engine's run) and its precision mode.
struct SeriesKey {
  int run = 0;
  PrecisionMode mode = PrecisionMode::FP32;
  bool operator==(const SeriesKey& o) const { return run == o.run && mode == o.mode; }
  bool operator!=(const SeriesKey& o) const { return !(*this == o); }
  bool operator<(const SeriesKey& o) const { return run != o.run ? run < o.run : mode < o.mode; }
};

inline constexpr int kEngineRun = 0;

struct ModeSeries {
  PrecisionMode mode = PrecisionMode::FP32;
  int run = kEngineRun;
  std::deque<ScalarBucket> buckets;          // oldest first, all steps before recent.front()
  std::deque<ScalarPoint> recent;            // full resolution, ascending steps
  std::size_t bucketWidth = 0;               // steps per bucket for the next fold (grows by merging)
  std::deque<InstrumentBucket> instrumentBuckets;
  std::deque<InstrumentPoint> instruments;
  std::vector<std::string> layers;           // RoundingPointStats::layer names in first-seen order; past
                                             // StoreLimits::maxLayers the last is "(other layers)"
  int64_t layersOverCap = 0;                 // rounding points counted into "(other layers)"
  std::vector<TensorStats> latestTensors;    // of the latest instrumented step
  int64_t latestTensorsStep = 0;
  FoldedEntries latestFolded;                // what the reader's budget folded of that step's lists
  int64_t foldedRecords = 0;                 // records whose lists the reader's budget folded
  FoldedEntries foldedEntries;               // their counts summed (no histograms: see latestFolded)
  std::deque<HistogramSnapshot> histogramRing;  // bounded, oldest first
  std::optional<int64_t> divergedAt;
  int64_t lastStep = 0;
  int64_t stepsSeen = 0;
  int64_t skippedTotal = 0;
  int64_t nonFiniteLossTotal = 0;
  RoundingCounts roundingTotal;              // over the whole run
  std::vector<QuantSeries> quantized;        // FP8/microscaling modes, in first-seen order
  const QuantSeries* quantSeries(const std::string& name) const;
  const ScalarPoint* latest() const { return recent.empty() ? nullptr : &recent.back(); }
  SeriesKey key() const { return {run, mode}; }
};

struct StoreLimits {
  std::size_t recentSteps = 20000;       // full-resolution steps kept per mode
  std::size_t foldChunk = 5000;          // fold this many at once (each fold makes views rebuild)
  std::size_t stepsPerBucket = 25;       // initial bucket width; doubles as buckets merge
  std::size_t maxBuckets = 2000;
  std::size_t recentInstruments = 5000;  // instrumented steps kept with per-layer counts
  std::size_t maxInstrumentBuckets = 1000;
  std::size_t histogramSnapshots = 512;  // heat-map columns kept per mode
  std::size_t quantPoints = 20000;       // scale-plot points kept per quantised tensor before merging
  std::size_t maxLayers = kMaxLayersPerSeries;  // per-layer counts; later layers share "(other layers)"
};

class TelemetryStore {
 public:
  explicit TelemetryStore(StoreLimits limits = {});

  // Forgets the engine's run (run 0); followed runs stay.
  void clear();
  // Forgets everything, followed runs and their ids included.
  void clearAll();
  // The configuration of the run the data comes from (which modes use a scaler, ...). Optional.
  void setConfig(const RunConfig& config);
  const std::optional<RunConfig>& config() const { return config_; }

  void append(const std::vector<StepRecord>& batch);
  void append(const StepRecord& record);

  std::vector<PrecisionMode> modes() const;  // run 0's, in first-seen order (the configured order when known)
  const ModeSeries* series(PrecisionMode mode) const;  // run 0's

  // Followed runs. addRun returns a new id (1, 2, ...; never reused until clearAll) for `label`.
  int addRun(const std::string& label);
  void removeRun(int run);
  std::vector<int> runs() const;  // followed runs, in the order they were added
  std::string runLabel(int run) const;  // "" for run 0 and unknown ids
  // A followed run's steps (no StepRecord: each stream carries one mode). Per-layer counts come from
  // the tensors' format counts when the step has no rounding points (see appendFollowed's note).
  void appendFollowed(int run, const std::vector<ModeStep>& steps);
  void appendFollowed(int run, const ModeStep& step);

  // Every series: run 0's first, then each followed run's in the order they were added.
  std::vector<SeriesKey> seriesKeys() const;
  const ModeSeries* series(SeriesKey key) const;
  bool usesScaler(SeriesKey key) const;
  int64_t lastStep() const { return lastStep_; }
  // Changes whenever data already handed out was rewritten (a fold, a clear): views then rebuild
  // instead of appending.
  uint64_t generation() const { return generation_; }
  const StoreLimits& limits() const { return limits_; }
  // True when `mode` runs with a GradScaler in the current config (or, without a config, when its
  // loss scale was ever different from 1).
  bool usesScaler(PrecisionMode mode) const;

 private:
  ModeSeries& seriesFor(SeriesKey key);
  void appendModeStep(ModeSeries& series, const ModeStep& step);
  void resetSeries(ModeSeries& series);
  void appendQuantized(ModeSeries& series, const ModeStep& step);
  void foldIfNeeded(ModeSeries& series);
  std::size_t layerIndex(ModeSeries& series, const std::string& layer) const;

  StoreLimits limits_;
  std::optional<RunConfig> config_;
  std::vector<std::unique_ptr<ModeSeries>> series_;
  std::vector<std::pair<int, std::string>> runs_;  // followed runs: id, label
  int nextRun_ = 1;
  int64_t lastStep_ = 0;
  uint64_t generation_ = 0;
};

}  // namespace ampscope
