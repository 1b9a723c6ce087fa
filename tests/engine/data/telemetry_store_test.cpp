// TelemetryStore: full resolution for recent steps, bounded decimation for old ones, NaN/Inf kept.
#include <gtest/gtest.h>

#include <algorithm>
#include <cmath>
#include <limits>

#include "ampscope/engine/telemetry_store.h"
#include "support/synthetic_records.h"

namespace ampscope {
namespace {

using test::feed;
using test::foldingLimits;
using test::syntheticRecord;
using test::SyntheticOptions;

SyntheticOptions twoModes(int64_t instrumentEvery = 1) {
  SyntheticOptions o;
  o.modes = {PrecisionMode::FP32, PrecisionMode::FP16AmpScaled};
  o.instrumentEvery = instrumentEvery;
  o.tensorElements = 100;
  return o;
}

TEST(TelemetryStore, KeepsEveryStepOfEveryModeBelowTheLimit) {
  TelemetryStore store;
  feed(store, 1, 1000, twoModes());
  ASSERT_EQ(store.modes().size(), 2u);
  for (PrecisionMode mode : store.modes()) {
    const ModeSeries* series = store.series(mode);
    EXPECT_EQ(series->recent.size(), 1000u);
    EXPECT_TRUE(series->buckets.empty());
    EXPECT_EQ(series->recent.front().step, 1);
    EXPECT_EQ(series->recent.back().step, 1000);
    EXPECT_EQ(series->instruments.size(), 1000u);
  }
  EXPECT_EQ(store.lastStep(), 1000);
}

TEST(TelemetryStore, DecimationBoundsMemoryAndPreservesLossExtremes) {
  StoreLimits limits = foldingLimits(100, 50, 5);
  limits.maxBuckets = 20;
  limits.recentInstruments = 100;
  limits.maxInstrumentBuckets = 20;
  limits.histogramSnapshots = 16;
  TelemetryStore store(limits);
  const int64_t kSteps = 100000;
  // Spikes deep in the past: they must survive any number of folds and merges as a bucket's min/max.
  const int64_t kHighStep = 777, kLowStep = 31337;
  feed(store, 1, kSteps, twoModes(10), [&](StepRecord& r) {
    for (ModeStep& m : r.modes) {
      if (r.step == kHighStep) m.loss = 1e6;
      if (r.step == kLowStep) m.loss = -5.0;
    }
  });
  for (PrecisionMode mode : store.modes()) {
    const ModeSeries* series = store.series(mode);
    EXPECT_LE(series->buckets.size(), limits.maxBuckets);
    EXPECT_LT(series->recent.size(), limits.recentSteps + limits.foldChunk);
    EXPECT_LE(series->instrumentBuckets.size(), limits.maxInstrumentBuckets);
    EXPECT_LE(series->histogramRing.size(), limits.histogramSnapshots);
    int64_t counted = 0;
    double lo = std::numeric_limits<double>::infinity(), hi = -lo;
    int64_t expectedFirst = 1;
    for (const ScalarBucket& b : series->buckets) {
      EXPECT_EQ(b.firstStep, expectedFirst);  // buckets tile the folded steps without gaps
      expectedFirst = b.lastStep + 1;
      counted += b.count;
      lo = std::min(lo, b.lossMin);
      hi = std::max(hi, b.lossMax);
    }
    EXPECT_EQ(series->recent.front().step, expectedFirst);
    counted += static_cast<int64_t>(series->recent.size());
    EXPECT_EQ(counted, kSteps);
    EXPECT_EQ(hi, 1e6);
    EXPECT_EQ(lo, -5.0);
    // Rounding counts summed into buckets: nothing lost (synthetic overflow: 1 per layer every 50th step).
    int64_t overflowed = 0;
    for (const InstrumentBucket& b : series->instrumentBuckets) overflowed += b.total.overflowed;
    for (const InstrumentPoint& p : series->instruments) overflowed += p.total.overflowed;
    EXPECT_EQ(overflowed, 2 * (kSteps / 50));
    EXPECT_EQ(series->roundingTotal.overflowed, overflowed);
  }
}

TEST(TelemetryStore, ASpikeOlderThanTheFullResolutionWindowIsItsBucketsMaximum) {
  // Default limits: 20,000 recent steps, folds of 5,000, 25 steps per bucket. After 60,000 steps the
  // steps 1..40,000 are buckets (1,600 of them, under the 2,000 cap, so none merged yet).
  TelemetryStore store;
  const int64_t kSteps = 60000, kSpikeStep = 5;
  const double kSpike = 1e6;
  feed(store, 1, kSteps, twoModes(0), [&](StepRecord& r) {
    if (r.step == kSpikeStep) r.modes[0].loss = kSpike;
  });
  const ModeSeries* fp32 = store.series(PrecisionMode::FP32);
  ASSERT_NE(fp32, nullptr);
  ASSERT_FALSE(fp32->recent.empty());
  EXPECT_GT(fp32->recent.front().step, kSpikeStep);  // the spike is no longer at full resolution
  EXPECT_EQ(fp32->buckets.size(), 1600u);
  const auto bucket = std::find_if(fp32->buckets.begin(), fp32->buckets.end(), [&](const ScalarBucket& b) {
    return b.firstStep <= kSpikeStep && kSpikeStep <= b.lastStep;
  });
  ASSERT_NE(bucket, fp32->buckets.end());
  EXPECT_EQ(bucket->firstStep, 1);
  EXPECT_EQ(bucket->lastStep, 25);
  EXPECT_EQ(bucket->lossMax, kSpike);
  // The other 24 steps are the synthetic curve (about 2.3 + offset), so the mean alone would show a
  // bump of 1e6 / 25 and the minimum none at all: only the maximum keeps the spike's height.
  EXPECT_LT(bucket->lossMin, 3.0);
  EXPECT_LT(bucket->lossMean(), kSpike / 20);
  // The other mode never spiked.
  const ModeSeries* scaled = store.series(PrecisionMode::FP16AmpScaled);
  EXPECT_LT(scaled->buckets.front().lossMax, 3.0);
}

TEST(TelemetryStore, FoldedStepsKeepTheirGradientNormRange) {
  TelemetryStore store(foldingLimits(10, 10, 5));
  SyntheticOptions o = twoModes(0);
  o.modes = {PrecisionMode::FP32};
  feed(store, 1, 25, o, [](StepRecord& r) {  // every norm is 1.0 in the synthetic records
    ModeStep& m = r.modes[0];
    m.clipNormSeen = 0;  // clipping off: the engine reports no clip norm
    if (r.step == 3) m.gradNormBeforeClip = m.gradNormAfterClip = 1e3;
    if (r.step == 4) m.gradNormBeforeClip = m.gradNormAfterClip = std::numeric_limits<double>::quiet_NaN();
    if (r.step == 7) {
      m.clipNormSeen = 40.0;  // clipping on: the norm it saw, and the smaller norm after it
      m.gradNormAfterClip = 0.25;
    }
  });
  const ModeSeries* fp32 = store.series(PrecisionMode::FP32);
  ASSERT_EQ(fp32->buckets.size(), 2u);  // steps 1..5 and 6..10 folded at step 20
  const ScalarBucket& first = fp32->buckets[0];
  EXPECT_EQ(first.normSeen.max, 1e3);  // without a clip norm, the norm before clipping
  EXPECT_EQ(first.normSeen.min, 1.0);
  EXPECT_EQ(first.normSeen.count, 4);  // the NaN of step 4 is no magnitude
  EXPECT_EQ(first.normAfterClip.max, 1e3);
  const ScalarBucket& second = fp32->buckets[1];
  EXPECT_EQ(second.normSeen.max, 40.0);
  EXPECT_EQ(second.normAfterClip.min, 0.25);
  EXPECT_EQ(second.normAfterClip.max, 1.0);
  // Merging keeps the extremes (what maxBuckets' pairwise merges rely on).
  ScalarBucket merged = first;
  merged.merge(second);
  EXPECT_EQ(merged.normSeen.max, 1e3);
  EXPECT_EQ(merged.normAfterClip.min, 0.25);
  EXPECT_EQ(merged.normSeen.count, 9);
}

TEST(TelemetryStore, FoldedInstrumentedStepsKeepTheirPerStepExtremes) {
  StoreLimits limits = foldingLimits(10, 10, 5);
  limits.recentInstruments = 10;
  TelemetryStore store(limits);
  SyntheticOptions o = twoModes(1);
  o.modes = {PrecisionMode::FP32};
  o.tensorElements = 100;
  feed(store, 1, 25, o, [](StepRecord& r) {  // two layers, no overflow before step 50
    if (r.step == 3) {
      r.modes[0].roundingPoints[1].counts.overflowed = 7;  // a burst in layer fc2 at one step
      r.modes[0].rounding.overflowed = 7;
    }
  });
  const ModeSeries* fp32 = store.series(PrecisionMode::FP32);
  ASSERT_GE(fp32->instrumentBuckets.size(), 1u);
  const InstrumentBucket& first = fp32->instrumentBuckets.front();
  ASSERT_EQ(first.firstStep, 1);
  ASSERT_EQ(first.count, 5);
  EXPECT_EQ(first.total.overflowed, 7);     // the sum: 7 over five steps, 1.4 per step on average
  EXPECT_EQ(first.totalMax.overflowed, 7);  // the one step's burst
  EXPECT_EQ(first.totalMin.overflowed, 0);
  ASSERT_EQ(first.perLayerMax.size(), 2u);
  EXPECT_EQ(first.perLayerMax[1].overflowed, 7);
  EXPECT_EQ(first.perLayerMax[0].overflowed, 0);
  EXPECT_EQ(first.totalMax.elements, 2 * o.tensorElements);  // every step: two layers of 100
  EXPECT_EQ(first.totalMin.elements, 2 * o.tensorElements);
}

TEST(TelemetryStore, NonFiniteLossesAreCountedNotDropped) {
  TelemetryStore store(foldingLimits(10, 10, 4));
  feed(store, 1, 30, twoModes(0), [](StepRecord& r) {
    if (r.step == 3) r.modes[0].loss = std::numeric_limits<double>::quiet_NaN();
    if (r.step == 5) r.modes[0].loss = std::numeric_limits<double>::infinity();
  });
  const ModeSeries* fp32 = store.series(PrecisionMode::FP32);
  EXPECT_EQ(fp32->nonFiniteLossTotal, 2);
  int64_t inBuckets = 0;
  for (const ScalarBucket& b : fp32->buckets) {
    inBuckets += b.nonFiniteCount;
    EXPECT_TRUE(std::isfinite(b.lossMin));
    EXPECT_TRUE(std::isfinite(b.lossMax));
  }
  EXPECT_EQ(inBuckets, 2);
}

TEST(TelemetryStore, RemembersTheStepWhereAModeDiverged) {
  TelemetryStore store;
  feed(store, 1, 10, twoModes(), [](StepRecord& r) {
    if (r.step == 6) {
      r.modes[1].diverged = true;
      r.modes[1].loss = std::numeric_limits<double>::quiet_NaN();
    }
    if (r.step > 6) r.modes.pop_back();  // the engine leaves a diverged mode out of later records
  });
  ASSERT_TRUE(store.series(PrecisionMode::FP16AmpScaled)->divergedAt.has_value());
  EXPECT_EQ(*store.series(PrecisionMode::FP16AmpScaled)->divergedAt, 6);
  EXPECT_FALSE(store.series(PrecisionMode::FP32)->divergedAt.has_value());
  EXPECT_EQ(store.series(PrecisionMode::FP32)->lastStep, 10);
}

TEST(TelemetryStore, KeepsLatestTensorsAndSumsParameterHistogramsForTheHeatMap) {
  TelemetryStore store;
  feed(store, 1, 9, twoModes(3));
  const ModeSeries* fp32 = store.series(PrecisionMode::FP32);
  EXPECT_EQ(fp32->latestTensorsStep, 9);
  ASSERT_EQ(fp32->histogramRing.size(), 3u);  // steps 3, 6, 9
  EXPECT_EQ(fp32->histogramRing.front().step, 3);
  // Two parameter tensors of 100 elements each: the snapshot sums parameters only (not activations).
  EXPECT_EQ(fp32->histogramRing.back().unscaled.total(), 200);
}

TEST(TelemetryStore, UsesScalerFollowsTheConfig) {
  TelemetryStore store;
  RunConfig config;
  config.modes = {PrecisionMode::FP32, PrecisionMode::FP16AmpScaled, PrecisionMode::FP16Pure};
  store.setConfig(config);
  EXPECT_FALSE(store.usesScaler(PrecisionMode::FP32));
  EXPECT_TRUE(store.usesScaler(PrecisionMode::FP16AmpScaled));
  EXPECT_FALSE(store.usesScaler(PrecisionMode::FP16Pure));
  config.scalerForPureFp16 = true;
  store.setConfig(config);
  EXPECT_TRUE(store.usesScaler(PrecisionMode::FP16Pure));
  // The configured order is the display order, before any data arrives.
  EXPECT_EQ(store.modes(), config.modes);
}

TEST(TelemetryStore, AnOlderStepStartsTheModeOverAndBumpsTheGeneration) {
  TelemetryStore store;
  feed(store, 1, 5, twoModes());
  const uint64_t before = store.generation();
  store.append(syntheticRecord(1, twoModes()));
  EXPECT_NE(store.generation(), before);
  EXPECT_EQ(store.series(PrecisionMode::FP32)->recent.size(), 1u);
}

}  // namespace
}  // namespace ampscope
