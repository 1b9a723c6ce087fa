// Steps the store folded into buckets are drawn as min/max bands: a spike older than the full-resolution
// window keeps its height in the loss plot (and a gradient-norm spike in the clipping lesson's plot), a
// backoff inside a bucket keeps its depth in the scale plot, a burst of overflows at one step keeps its
// count in the underflow plot, and a NaN inside a bucket keeps its cross. The expected values are the store's own buckets (their
// layout is pinned by tests/engine/data/telemetry_store_test.cpp) and the values the test feeds in.
#include <gtest/gtest.h>

#include <QCoreApplication>
#include <QDir>
#include <QImage>
#include <cmath>
#include <limits>
#include <qcustomplot.h>

#include "ampscope/engine/telemetry_store.h"
#include "support/synthetic_records.h"
#include "ui/lessons/clip_norm_plot.h"
#include "ui/training/loss_plot.h"
#include "ui/training/scale_plot.h"
#include "ui/training/underflow_plot.h"

namespace ampscope::ui {
namespace {

using test::feed;
using test::foldingLimits;
using test::SyntheticOptions;

SyntheticOptions twoModes() {
  SyntheticOptions o;
  o.modes = {PrecisionMode::FP32, PrecisionMode::FP16AmpScaled};
  o.instrumentEvery = 0;
  return o;
}

SyntheticOptions fp32Only() {
  SyntheticOptions o = twoModes();
  o.modes = {PrecisionMode::FP32};
  return o;
}

// Does `graph` hold a point with exactly `value` at a key in [first, last]?
bool hasPoint(const QCPGraph* graph, double first, double last, double value) {
  for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it)
    if (it->key >= first && it->key <= last && it->value == value) return true;
  return false;
}

TEST(LossPlotBand, ASpikeOlderThanTheFullResolutionWindowKeepsItsHeight) {
  // Default limits: steps 1..40,000 of 60,000 are folded, 25 to a bucket.
  TelemetryStore store;
  const int64_t kSteps = 60000, kSpikeStep = 5;
  const double kSpike = 1e6;
  feed(store, 1, kSteps, twoModes(), [&](StepRecord& r) {
    // A positive, decaying, noisy loss (the synthetic one crosses zero, which a log axis cannot show).
    const double t = static_cast<double>(r.step);
    for (ModeStep& m : r.modes)
      m.loss = 0.3 + 0.1 * static_cast<int>(m.mode) + 2.0 * std::exp(-t / 8000.0) + 0.05 * std::sin(0.37 * t);
    if (r.step == kSpikeStep) r.modes[0].loss = kSpike;
  });
  LossPlot plot(&store);
  plot.resize(900, 520);
  plot.show();
  plot.onDataAppended();

  const ModeSeries* fp32 = store.series(PrecisionMode::FP32);
  ASSERT_FALSE(fp32->buckets.empty());
  const ScalarBucket& first = fp32->buckets.front();
  ASSERT_LE(first.firstStep, kSpikeStep);
  ASSERT_GE(first.lastStep, kSpikeStep);
  QCPGraph* high = plot.bandHighGraph(PrecisionMode::FP32);
  QCPGraph* low = plot.bandLowGraph(PrecisionMode::FP32);
  ASSERT_NE(high, nullptr);
  ASSERT_NE(low, nullptr);
  // The band's top over the spike's bucket is the spike itself, not the bucket's mean (1e6 / 25 + ...).
  EXPECT_TRUE(hasPoint(high, static_cast<double>(first.firstStep), static_cast<double>(first.lastStep), kSpike));
  EXPECT_TRUE(hasPoint(low, static_cast<double>(first.firstStep), static_cast<double>(first.lastStep),
                       first.lossMin));
  // Two points per bucket, filled down to the low edge.
  EXPECT_EQ(high->dataCount(), static_cast<int>(2 * fp32->buckets.size()));
  EXPECT_EQ(high->channelFillGraph(), low);
  EXPECT_NE(high->brush().style(), Qt::NoBrush);
  EXPECT_LT(high->brush().color().alpha(), 255);  // translucent: the line stays readable over it
  // The line is the full-resolution steps only.
  QCPGraph* line = plot.lossGraph(PrecisionMode::FP32);
  EXPECT_EQ(line->dataCount(), static_cast<int>(fp32->recent.size()));
  EXPECT_EQ(line->data()->constBegin()->key, static_cast<double>(fp32->recent.front().step));
  // The mode that never spiked has no 1e6 anywhere.
  EXPECT_FALSE(hasPoint(plot.bandHighGraph(PrecisionMode::FP16AmpScaled), 1, kSteps, kSpike));

  // For looking at: the plot as the user sees it, linear and log.
  const QString dir = QCoreApplication::applicationDirPath();
  EXPECT_TRUE(plot.plot()->savePng(QDir(dir).filePath(QStringLiteral("loss_band_spike_linear.png")), 900, 520));
  plot.setLogScale(true);
  plot.plot()->replot();
  EXPECT_TRUE(plot.plot()->savePng(QDir(dir).filePath(QStringLiteral("loss_band_spike_log.png")), 900, 520));
}

TEST(LossPlotBand, ANonFiniteLossInsideABucketKeepsItsCross) {
  TelemetryStore store(foldingLimits(100, 100, 10));
  feed(store, 1, 250, fp32Only(), [](StepRecord& r) {
    if (r.step == 7) r.modes[0].loss = std::numeric_limits<double>::quiet_NaN();
  });
  LossPlot plot(&store);
  plot.show();
  plot.onDataAppended();
  // Steps 1..100 are buckets of 10; the NaN is in the first, [1, 10].
  const ScalarBucket& first = store.series(PrecisionMode::FP32)->buckets.front();
  ASSERT_EQ(first.lastStep, 10);
  ASSERT_EQ(first.nonFiniteCount, 1);
  QCPGraph* crosses = plot.nonFiniteGraph(PrecisionMode::FP32);
  ASSERT_EQ(crosses->dataCount(), 1);
  EXPECT_EQ(crosses->data()->constBegin()->key, 5.5);  // the bucket's middle
  EXPECT_EQ(crosses->data()->constBegin()->value, first.lossMax);
  EXPECT_TRUE(std::isfinite(first.lossMax));
}

TEST(ScalePlotBand, ABackoffInsideABucketKeepsItsDepth) {
  // Synthetic scales: 2^(16 + (step / 50) % 4), so a bucket of 100 steps spans two or three of them.
  TelemetryStore store(foldingLimits(200, 400, 100));
  RunConfig config;
  config.modes = twoModes().modes;
  store.setConfig(config);
  feed(store, 1, 700, twoModes());
  ScalePlot plot(&store);
  plot.show();
  plot.onDataAppended();
  const ModeSeries* scaled = store.series(PrecisionMode::FP16AmpScaled);
  ASSERT_EQ(scaled->buckets.size(), 4u);  // steps 1..400
  QCPGraph* high = plot.bandHighGraph(PrecisionMode::FP16AmpScaled);
  QCPGraph* low = plot.bandLowGraph(PrecisionMode::FP16AmpScaled);
  ASSERT_NE(high, nullptr);
  ASSERT_EQ(high->dataCount(), 8);
  for (const ScalarBucket& b : scaled->buckets) {
    EXPECT_LT(b.minScale, b.maxScale);  // each bucket saw a change of scale
    EXPECT_TRUE(hasPoint(high, static_cast<double>(b.firstStep), static_cast<double>(b.lastStep), b.maxScale));
    EXPECT_TRUE(hasPoint(low, static_cast<double>(b.firstStep), static_cast<double>(b.lastStep), b.minScale));
  }
  // Steps 101..200 hold 2^18 (101..149), 2^19 (150..199) and 2^16 (200, the wrap-around): the band
  // spans 2^16..2^19 although the bucket's first and last scale alone would draw a line down from 2^18.
  EXPECT_EQ(scaled->buckets[1].minScale, std::ldexp(1.0, 16));
  EXPECT_EQ(scaled->buckets[1].maxScale, std::ldexp(1.0, 19));
}

TEST(ClipNormPlotBand, AGradientNormSpikeInAFoldedBucketKeepsItsHeight) {
  TelemetryStore store(foldingLimits(100, 100, 10));
  feed(store, 1, 250, fp32Only(), [](StepRecord& r) {  // norms of 1.0, clipping off (no clip norm reported)
    if (r.step == 3) r.modes[0].gradNormBeforeClip = r.modes[0].gradNormAfterClip = 1e3;
  });
  ClipNormPlot plot(&store);
  plot.show();
  plot.onDataAppended();
  const ScalarBucket& first = store.series(PrecisionMode::FP32)->buckets.front();
  ASSERT_EQ(first.lastStep, 10);
  QCPGraph* high = plot.seenBandHighGraph(PrecisionMode::FP32);
  ASSERT_NE(high, nullptr);
  EXPECT_TRUE(hasPoint(high, 1, 10, 1e3));
  EXPECT_EQ(high->dataCount(), 2 * 10);
  // The lines hold the full-resolution steps only: 101..250.
  EXPECT_EQ(plot.seenGraph(PrecisionMode::FP32)->dataCount(), 150);
}

TEST(UnderflowPlotBand, AnOverflowBurstInAFoldedBucketKeepsItsCount) {
  StoreLimits limits = foldingLimits(10, 10, 5);
  limits.recentInstruments = 10;
  TelemetryStore store(limits);
  SyntheticOptions o = fp32Only();
  o.instrumentEvery = 1;
  o.tensorElements = 100;  // two layers: 200 elements through rounding points per step
  feed(store, 1, 25, o, [](StepRecord& r) {
    if (r.step == 3) {
      r.modes[0].roundingPoints[1].counts.overflowed = 7;
      r.modes[0].rounding.overflowed = 7;
    }
  });
  UnderflowPlot plot(&store);
  plot.show();
  plot.onDataAppended();
  const InstrumentBucket& first = store.series(PrecisionMode::FP32)->instrumentBuckets.front();
  ASSERT_EQ(first.lastStep, 5);
  QCPGraph* high = plot.bandHighGraph(PrecisionMode::FP32, UnderflowPlot::Quantity::Overflowed);
  ASSERT_NE(high, nullptr);
  EXPECT_TRUE(hasPoint(high, 1, 5, 7.0));  // the step's 7, not the bucket's average of 1.4
  plot.setPercent(true);
  high = plot.bandHighGraph(PrecisionMode::FP32, UnderflowPlot::Quantity::Overflowed);
  EXPECT_TRUE(hasPoint(high, 1, 5, 100.0 * 7 / 200));
  // The per-layer view: the burst was in fc2.
  plot.setLayer(QStringLiteral("fc2"));
  plot.setPercent(false);
  EXPECT_TRUE(hasPoint(plot.bandHighGraph(PrecisionMode::FP32, UnderflowPlot::Quantity::Overflowed), 1, 5, 7.0));
  plot.setLayer(QStringLiteral("fc1"));
  EXPECT_FALSE(hasPoint(plot.bandHighGraph(PrecisionMode::FP32, UnderflowPlot::Quantity::Overflowed), 1, 5, 7.0));
}

}  // namespace
}  // namespace ampscope::ui
