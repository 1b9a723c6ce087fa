// TelemetryStore with followed runs: series keyed by (run, mode) next to the engine's run, and per-layer
// counts derived from a probe's format counts (a probe measures no rounding points).
#include <gtest/gtest.h>

#include <cmath>
#include <limits>
#include <string>

#include "ampscope/engine/follow_budget.h"
#include "ampscope/engine/telemetry_store.h"

namespace ampscope {
namespace {

void expectSameCounts(const RoundingCounts& a, const RoundingCounts& b) {
  EXPECT_EQ(a.elements, b.elements);
  EXPECT_EQ(a.flushedToZero, b.flushedToZero);
  EXPECT_EQ(a.subnormal, b.subnormal);
  EXPECT_EQ(a.overflowed, b.overflowed);
  EXPECT_EQ(a.nan, b.nan);
}

ModeStep plainStep(PrecisionMode mode, int64_t step, double loss) {
  ModeStep s;
  s.mode = mode;
  s.step = step;
  s.loss = loss;
  return s;
}

// One parameter gradient whose scaled histogram carries format counts: format f gets (10f+1, 10f+2,
// 10f+3) flushed/subnormal/overflowed, so a test can tell which format the store read.
TensorStats tensor(const std::string& name, int64_t numel, int64_t nan = 0, int64_t posInf = 0, int64_t negInf = 0) {
  TensorStats t;
  t.name = name;
  t.numel = numel;
  t.scaled.formatsMeasured = true;
  for (int f = 0; f < kRangeFormats; ++f)
    t.scaled.formats[static_cast<std::size_t>(f)] = {10 * f + 1, 10 * f + 2, 10 * f + 3};
  t.scaled.nan = nan;
  t.scaled.posInf = posInf;
  t.scaled.negInf = negInf;
  t.unscaled = t.scaled;
  return t;
}

ModeStep instrumentedStep(PrecisionMode mode, int64_t step) {
  ModeStep s = plainStep(mode, step, 1.0);
  s.instrumented = true;
  s.tensors = {tensor("net.0.weight", 100, 1, 2, 3), tensor("net.0.bias", 10), tensor("head.weight", 50)};
  return s;
}

TEST(TelemetryStoreFollowed, FollowedRunsAreSeriesOfTheirOwnBesideTheEnginesRun) {
  TelemetryStore store;
  StepRecord engine;
  engine.step = 1;
  engine.modes = {plainStep(PrecisionMode::FP16AmpScaled, 1, 2.0)};
  store.append(engine);
  const int a = store.addRun("my-run");
  const int b = store.addRun("my-run rank 1");
  EXPECT_EQ(a, 1);
  EXPECT_EQ(b, 2);
  store.appendFollowed(b, plainStep(PrecisionMode::BF16Amp, 1, 3.0));
  store.appendFollowed(a, plainStep(PrecisionMode::FP16AmpScaled, 1, 4.0));
  store.appendFollowed(a, plainStep(PrecisionMode::FP16AmpScaled, 11, 5.0));

  // The engine-only accessors see run 0 alone: same mode, different runs, different series.
  ASSERT_EQ(store.modes(), std::vector<PrecisionMode>{PrecisionMode::FP16AmpScaled});
  EXPECT_EQ(store.series(PrecisionMode::FP16AmpScaled)->recent.size(), 1u);
  EXPECT_EQ(store.series(PrecisionMode::FP16AmpScaled)->recent.back().loss, 2.0);
  // Every series: run 0 first, then followed runs in the order they were added (not the order of data).
  const std::vector<SeriesKey> keys = store.seriesKeys();
  ASSERT_EQ(keys.size(), 3u);
  EXPECT_EQ(keys[0], (SeriesKey{0, PrecisionMode::FP16AmpScaled}));
  EXPECT_EQ(keys[1], (SeriesKey{a, PrecisionMode::FP16AmpScaled}));
  EXPECT_EQ(keys[2], (SeriesKey{b, PrecisionMode::BF16Amp}));
  EXPECT_EQ(store.series(keys[1])->recent.size(), 2u);
  EXPECT_EQ(store.series(keys[1])->recent.back().loss, 5.0);
  EXPECT_EQ(store.runLabel(b), "my-run rank 1");
  EXPECT_EQ(store.lastStep(), 1);  // the engine's step count only

  // A new engine run forgets run 0 only; removing a followed run forgets its series.
  store.clear();
  EXPECT_TRUE(store.modes().empty());
  EXPECT_EQ(store.seriesKeys().size(), 2u);
  store.removeRun(a);
  ASSERT_EQ(store.seriesKeys().size(), 1u);
  EXPECT_EQ(store.seriesKeys()[0].run, b);
  EXPECT_EQ(store.addRun("again"), 3);  // ids are not reused
  store.clearAll();
  EXPECT_TRUE(store.seriesKeys().empty());
  EXPECT_TRUE(store.runs().empty());
  EXPECT_EQ(store.addRun("fresh"), 1);
}

TEST(TelemetryStoreFollowed, StepsForAnUnknownRunAreIgnored) {
  TelemetryStore store;
  store.appendFollowed(7, plainStep(PrecisionMode::FP32, 1, 1.0));
  store.appendFollowed(kEngineRun, plainStep(PrecisionMode::FP32, 1, 1.0));
  EXPECT_TRUE(store.seriesKeys().empty());
}

TEST(TelemetryStoreFollowed, PerLayerCountsComeFromTheModesFormat) {
  TelemetryStore store;
  const int run = store.addRun("r");
  store.appendFollowed(run, instrumentedStep(PrecisionMode::FP16AmpScaled, 1));
  store.appendFollowed(run, instrumentedStep(PrecisionMode::BF16Amp, 1));

  // fp16 modes count against FP16 (formats[0]): layer = the parameter name without its last component.
  const ModeSeries* fp16 = store.series(SeriesKey{run, PrecisionMode::FP16AmpScaled});
  ASSERT_NE(fp16, nullptr);
  ASSERT_EQ(fp16->layers, (std::vector<std::string>{"net.0", "head"}));
  ASSERT_EQ(fp16->instruments.size(), 1u);
  const RoundingCounts& net0 = fp16->instruments[0].perLayer[0];
  EXPECT_EQ(net0.elements, 110);       // numel of weight + bias
  EXPECT_EQ(net0.flushedToZero, 2);    // 1 + 1
  EXPECT_EQ(net0.subnormal, 4);
  EXPECT_EQ(net0.overflowed, 6);
  EXPECT_EQ(net0.nan, 1 + 2 + 3);      // NaN and both infinities
  EXPECT_EQ(fp16->instruments[0].total.elements, 160);
  EXPECT_EQ(fp16->instruments[0].total.flushedToZero, 3);
  EXPECT_EQ(fp16->roundingTotal.overflowed, 9);

  // bf16 modes count against BF16 (formats[1]: 11, 12, 13 per tensor).
  const ModeSeries* bf16 = store.series(SeriesKey{run, PrecisionMode::BF16Amp});
  ASSERT_NE(bf16, nullptr);
  EXPECT_EQ(bf16->instruments[0].perLayer[1].flushedToZero, 11);
  EXPECT_EQ(bf16->instruments[0].perLayer[1].subnormal, 12);
  EXPECT_EQ(bf16->instruments[0].perLayer[1].overflowed, 13);
  // The histograms still feed the histogram and heat map.
  EXPECT_EQ(bf16->latestTensors.size(), 3u);
  EXPECT_EQ(bf16->histogramRing.size(), 1u);
}

TEST(TelemetryStoreFollowed, EngineStepsKeepTheirOwnRoundingCounts) {
  // The engine's records are not re-derived: an instrumented step without rounding points stays without
  // layers (engine-only behaviour unchanged).
  TelemetryStore store;
  StepRecord r;
  r.step = 1;
  r.modes = {instrumentedStep(PrecisionMode::FP32, 1)};
  store.append(r);
  EXPECT_TRUE(store.series(PrecisionMode::FP32)->layers.empty());
  EXPECT_EQ(store.series(PrecisionMode::FP32)->instruments[0].total.elements, 0);
}

// A stream naming more layers than StoreLimits::maxLayers: the first maxLayers - 1 keep their own
// counts, every later one shares "(other layers)", and the per-layer counts still sum to the step's total.
TEST(TelemetryStoreFollowed, LayersPastTheCapShareOneLayerAndKeepTheTotal) {
  StoreLimits limits;
  limits.maxLayers = 4;
  TelemetryStore store(limits);
  const int run = store.addRun("r");
  ModeStep step = plainStep(PrecisionMode::FP16AmpScaled, 1, 1.0);
  step.instrumented = true;
  for (int i = 0; i < 10; ++i) step.tensors.push_back(tensor("l" + std::to_string(i) + ".weight", 10 + i));
  store.appendFollowed(run, step);
  const ModeSeries* s = store.series(SeriesKey{run, PrecisionMode::FP16AmpScaled});
  ASSERT_NE(s, nullptr);
  EXPECT_EQ(s->layers, (std::vector<std::string>{"l0", "l1", "l2", kOtherLayers}));
  EXPECT_EQ(s->layersOverCap, 7);  // l3..l9: l3 opened the shared layer
  RoundingCounts sum;
  for (const RoundingCounts& c : s->instruments[0].perLayer) sum.add(c);
  EXPECT_EQ(sum.elements, s->instruments[0].total.elements);
  EXPECT_EQ(s->instruments[0].perLayer[3].elements, 13 + 14 + 15 + 16 + 17 + 18 + 19);
}

// A followed run of many steps is folded as the engine's runs are: what the buckets and the recent steps
// hold adds up to every step that arrived (counts, skipped steps, non-finite losses, rounding totals).
TEST(TelemetryStoreFollowed, ALongFollowedRunIsFoldedWithExactCounts) {
  StoreLimits limits;
  limits.recentSteps = 100;
  limits.foldChunk = 50;
  limits.stepsPerBucket = 5;
  limits.maxBuckets = 8;
  limits.recentInstruments = 40;
  limits.maxInstrumentBuckets = 6;
  TelemetryStore store(limits);
  const int run = store.addRun("long");
  const int64_t steps = 5000;
  int64_t skipped = 0, nonFinite = 0, instrumented = 0;
  for (int64_t i = 1; i <= steps; ++i) {
    ModeStep step = i % 10 == 1 ? instrumentedStep(PrecisionMode::FP16AmpScaled, i)
                                : plainStep(PrecisionMode::FP16AmpScaled, i, 1.0 / static_cast<double>(i));
    step.skipped = i % 97 == 0;
    if (i % 501 == 0) step.loss = std::numeric_limits<double>::quiet_NaN();
    skipped += step.skipped ? 1 : 0;
    nonFinite += std::isfinite(step.loss) ? 0 : 1;
    instrumented += step.instrumented ? 1 : 0;
    store.appendFollowed(run, step);
  }
  const ModeSeries* s = store.series(SeriesKey{run, PrecisionMode::FP16AmpScaled});
  ASSERT_NE(s, nullptr);
  EXPECT_LE(s->buckets.size(), limits.maxBuckets);
  EXPECT_LT(s->recent.size(), limits.recentSteps + limits.foldChunk);
  int64_t count = 0, bucketSkipped = 0, bucketNonFinite = 0;
  for (const ScalarBucket& b : s->buckets) {
    count += b.count;
    bucketSkipped += b.skipped;
    bucketNonFinite += b.nonFiniteCount;
  }
  for (const ScalarPoint& p : s->recent) {
    ++count;
    bucketSkipped += p.skipped ? 1 : 0;
    bucketNonFinite += std::isfinite(p.loss) ? 0 : 1;
  }
  EXPECT_EQ(count, steps);
  EXPECT_EQ(bucketSkipped, skipped);
  EXPECT_EQ(bucketNonFinite, nonFinite);
  EXPECT_EQ(s->buckets.front().firstStep, 1);
  EXPECT_EQ(s->buckets.back().lastStep + 1, s->recent.front().step);
  // Rounding counts: each instrumented step adds 160 elements (instrumentedStep's three tensors).
  RoundingCounts folded;
  int64_t instrumentedCount = 0;
  for (const InstrumentBucket& b : s->instrumentBuckets) {
    folded.add(b.total);
    instrumentedCount += b.count;
  }
  for (const InstrumentPoint& p : s->instruments) {
    folded.add(p.total);
    ++instrumentedCount;
  }
  EXPECT_EQ(instrumentedCount, instrumented);
  EXPECT_EQ(folded.elements, 160 * instrumented);
  expectSameCounts(folded, s->roundingTotal);
}

}  // namespace
}  // namespace ampscope
