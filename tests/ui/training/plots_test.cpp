// The streaming plots, fed with synthetic telemetry: one point per step per mode, exact histogram bins,
// NaN marked, scale on a log2 axis, rebuild after the store folds.
#include <gtest/gtest.h>

#include <QApplication>
#include <QTest>
#include <cmath>
#include <limits>
#include <qcustomplot.h>

#include "ampscope/engine/telemetry_store.h"
#include "support/synthetic_records.h"
#include "ui/training/heat_map_plot.h"
#include "ui/training/histogram_plot.h"
#include "ui/training/loss_plot.h"
#include "ui/training/mode_palette.h"
#include "ui/training/power_of_two_ticker.h"
#include "ui/training/scale_plot.h"
#include "ui/training/underflow_plot.h"

namespace ampscope::ui {
namespace {

using test::feed;
using test::SyntheticOptions;

TEST(LossPlot, HoldsOnePointPerStepPerModeAcrossIncrementalAppends) {
  TelemetryStore store;
  LossPlot plot(&store);
  plot.show();
  feed(store, 1, 40);
  plot.onDataAppended();
  feed(store, 41, 100);
  plot.onDataAppended();
  for (PrecisionMode mode : SyntheticOptions{}.modes) {
    ASSERT_NE(plot.lossGraph(mode), nullptr);
    EXPECT_EQ(plot.lossGraph(mode)->dataCount(), 100);
    EXPECT_EQ(plot.lossGraph(mode)->pen().color(), ModePalette::color(mode));
  }
}

TEST(LossPlot, MarksNaNAndInfLossesAndTheDivergedStep) {
  TelemetryStore store;
  LossPlot plot(&store);
  plot.show();
  feed(store, 1, 20, {}, [](StepRecord& r) {
    if (r.step == 12) {
      r.modes[2].loss = std::numeric_limits<double>::infinity();
      r.modes[2].diverged = true;
    }
    if (r.step > 12) r.modes.erase(r.modes.begin() + 2);
  });
  plot.onDataAppended();
  QCPGraph* loss = plot.lossGraph(PrecisionMode::FP16Amp);
  EXPECT_EQ(loss->dataCount(), 12);
  EXPECT_TRUE(std::isnan((loss->data()->constEnd() - 1)->value));  // a gap, not a dropped point
  // One cross for the inf loss and one for the divergence, both at step 12.
  QCPGraph* marks = plot.nonFiniteGraph(PrecisionMode::FP16Amp);
  ASSERT_GE(marks->dataCount(), 1);
  EXPECT_EQ(marks->data()->constBegin()->key, 12.0);
  EXPECT_EQ(plot.divergenceMarkerCount(), 1);
  EXPECT_EQ(plot.nonFiniteGraph(PrecisionMode::FP32)->dataCount(), 0);
}

TEST(LossPlot, SmoothingIsAnExponentialMovingAverage) {
  TelemetryStore store;
  LossPlot plot(&store);
  plot.show();
  SyntheticOptions o;
  o.modes = {PrecisionMode::FP32};
  feed(store, 1, 3, o);
  plot.setSmoothing(0.5);
  const ModeSeries* s = store.series(PrecisionMode::FP32);
  const double l1 = s->recent[0].loss, l2 = s->recent[1].loss, l3 = s->recent[2].loss;
  const double ema = 0.5 * (0.5 * l1 + 0.5 * l2) + 0.5 * l3;  // ema_t = b*ema_{t-1} + (1-b)*x_t, ema_1 = x_1
  EXPECT_NEAR((plot.lossGraph(PrecisionMode::FP32)->data()->constEnd() - 1)->value, ema, 1e-12);
}

TEST(LossPlot, RebuildsFromBucketsAfterTheStoreFolds) {
  TelemetryStore store(test::foldingLimits(100, 100, 10));
  LossPlot plot(&store);
  plot.show();
  SyntheticOptions o;
  o.modes = {PrecisionMode::FP32};
  feed(store, 1, 150, o);
  plot.onDataAppended();
  EXPECT_EQ(plot.lossGraph(PrecisionMode::FP32)->dataCount(), 150);
  feed(store, 151, 250, o);  // recent reaches 200: the oldest 100 steps fold into 10 buckets
  plot.onDataAppended();
  // The line keeps the 150 full-resolution steps; the 10 buckets are a band, two points each.
  EXPECT_EQ(plot.lossGraph(PrecisionMode::FP32)->dataCount(), 150);
  EXPECT_EQ(plot.lossGraph(PrecisionMode::FP32)->data()->constBegin()->key, 101.0);
  EXPECT_EQ(plot.bandHighGraph(PrecisionMode::FP32)->dataCount(), 2 * 10);
  EXPECT_EQ(plot.bandLowGraph(PrecisionMode::FP32)->dataCount(), 2 * 10);
}

TEST(ScalePlot, ShowsOnlyScalerModesWithSkippedStepsMarked) {
  TelemetryStore store;
  RunConfig config;
  config.modes = SyntheticOptions{}.modes;
  store.setConfig(config);
  ScalePlot plot(&store);
  plot.show();
  feed(store, 1, 120);
  plot.onDataAppended();
  EXPECT_EQ(plot.scaleGraph(PrecisionMode::FP32), nullptr);
  ASSERT_NE(plot.scaleGraph(PrecisionMode::FP16AmpScaled), nullptr);
  EXPECT_EQ(plot.scaleGraph(PrecisionMode::FP16AmpScaled)->dataCount(), 120);
  EXPECT_EQ(plot.skippedGraph(PrecisionMode::FP16AmpScaled)->dataCount(), 2);  // steps 50 and 100
  EXPECT_EQ(plot.plot()->yAxis->scaleType(), QCPAxis::stLogarithmic);
}

TEST(PowerOfTwoTicker, LabelsExponentsWithSuperscripts) {
  EXPECT_EQ(PowerOfTwoTicker::label(16), QStringLiteral("2¹⁶"));
  EXPECT_EQ(PowerOfTwoTicker::label(-24), QStringLiteral("2⁻²⁴"));
  EXPECT_EQ(PowerOfTwoTicker::label(0), QStringLiteral("2⁰"));
}

TEST(HistogramPlot, BinsPlusZeroInfNaNSumToTheElementCount) {
  TelemetryStore store;
  HistogramPlot plot(&store);
  plot.show();
  SyntheticOptions o;
  o.tensorElements = 1000;
  feed(store, 1, 14, o);  // step 14: a NaN in every histogram (14 % 7 == 0)
  plot.onDataAppended();
  for (PrecisionMode mode : o.modes) {
    QCPBars* bars = plot.bars(mode);
    ASSERT_NE(bars, nullptr);
    double inBars = 0;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) inBars += it->value;
    const ExponentHistogram h = plot.shownHistogram(mode);
    // "All layers": the two parameter tensors of 1000 elements each. Bars hold the exponent bins and the
    // exact zeros; with ±inf and NaN (the side note) they account for every element (telemetry.h).
    EXPECT_EQ(static_cast<int64_t>(inBars) + h.posInf + h.negInf + h.nan, 2000);
    auto zero = bars->data()->findBegin(plot.zeroKey(), false);
    ASSERT_NE(zero, bars->data()->constEnd());
    EXPECT_EQ(zero->key, plot.zeroKey());
    EXPECT_EQ(static_cast<int64_t>(zero->value), h.zero);
    EXPECT_EQ(h.nan, 2);
  }
  EXPECT_TRUE(plot.sideNote().contains(QStringLiteral("NaN 2")));
}

TEST(HistogramPlot, LossScalingSlidesTheScaledHistogramRightByLog2OfTheScale) {
  TelemetryStore store;
  HistogramPlot plot(&store);
  plot.show();
  feed(store, 1, 1);  // synthetic fp16-amp-scaled: scale 2^16 at step 1
  plot.onDataAppended();
  plot.setLayer(QStringLiteral("fc1.weight"));  // one tensor: its peak bin is the synthetic centre
  auto peak = [&](PrecisionMode mode) {
    QCPBars* bars = plot.bars(mode);
    double bestKey = 0, best = -1;
    for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
      if (it->value > best) {
        best = it->value;
        bestKey = it->key;
      }
    return bestKey;
  };
  plot.setScaled(false);
  const double unscaled = peak(PrecisionMode::FP16AmpScaled);
  plot.setScaled(true);
  EXPECT_EQ(peak(PrecisionMode::FP16AmpScaled) - unscaled, 16.0);
  EXPECT_EQ(peak(PrecisionMode::FP32), -20.0);  // no scaler: scaled == unscaled
}

TEST(HistogramPlot, OneLayerOrAllActivationGradients) {
  TelemetryStore store;
  HistogramPlot plot(&store);
  plot.show();
  SyntheticOptions o;
  o.tensorElements = 500;
  feed(store, 1, 1, o);
  plot.onDataAppended();
  plot.setLayer(QStringLiteral("fc2.weight"));
  EXPECT_EQ(plot.shownHistogram(PrecisionMode::FP32).total(), 500);
  plot.setLayer(QString::fromLatin1(HistogramPlot::kAllActivations));
  EXPECT_EQ(plot.layer(), QString::fromLatin1(HistogramPlot::kAllActivations));
  EXPECT_EQ(plot.shownHistogram(PrecisionMode::FP32).total(), 500);
  plot.setModeShown(PrecisionMode::BF16Amp, false);
  EXPECT_EQ(plot.bars(PrecisionMode::BF16Amp), nullptr);
}

TEST(UnderflowPlot, OnePointPerInstrumentedStepPerModeAndQuantity) {
  TelemetryStore store;
  UnderflowPlot plot(&store);
  plot.show();
  SyntheticOptions o;
  o.instrumentEvery = 2;
  feed(store, 1, 30, o);
  plot.onDataAppended();
  feed(store, 31, 40, o);
  plot.onDataAppended();
  for (PrecisionMode mode : o.modes)
    for (auto q : {UnderflowPlot::Quantity::FlushedToZero, UnderflowPlot::Quantity::Subnormal,
                   UnderflowPlot::Quantity::Overflowed})
      EXPECT_EQ(plot.graph(mode, q)->dataCount(), 20);
  // fp16-amp flushes half of the elements of both layers in the synthetic data: 50 %.
  plot.setPercent(true);
  QCPGraph* flushed = plot.graph(PrecisionMode::FP16Amp, UnderflowPlot::Quantity::FlushedToZero);
  EXPECT_DOUBLE_EQ(flushed->data()->constBegin()->value, 50.0);
  plot.setPercent(false);
  plot.setLayer(QStringLiteral("fc1"));
  flushed = plot.graph(PrecisionMode::FP16Amp, UnderflowPlot::Quantity::FlushedToZero);
  EXPECT_DOUBLE_EQ(flushed->data()->constBegin()->value, 500.0);  // one layer of 1000 elements
}

TEST(HeatMapPlot, OneColumnPerInstrumentedStep) {
  TelemetryStore store;
  HeatMapPlot plot(&store);
  plot.show();
  SyntheticOptions o;
  o.instrumentEvery = 5;
  feed(store, 1, 50, o);
  plot.onDataAppended();
  EXPECT_EQ(plot.mode(), PrecisionMode::FP16AmpScaled);  // the default: the scaler's view
  plot.setMode(PrecisionMode::FP16Amp);
  EXPECT_EQ(plot.columns(), 10);
  int c = 0, r = 0;
  plot.colorMap()->data()->coordToCell(50, -28, &c, &r);  // fp16-amp's synthetic mass sits at 2^-28
  EXPECT_EQ(c, 9);
  EXPECT_GT(plot.colorMap()->data()->cell(c, r), 0);
}

// Empty cells are NaN; the colour range must still reach the fullest bin (QCustomPlot's own bounds
// start from the first cell and stop at a NaN there).
TEST(HeatMapPlot, TheColourRangeReachesTheFullestBinWhenTheFirstCellIsEmpty) {
  TelemetryStore store;
  HeatMapPlot plot(&store);
  plot.show();
  SyntheticOptions o;
  o.instrumentEvery = 5;
  feed(store, 1, 50, o);
  // A later step with one tiny value below everything before: the first column's lowest cell is empty.
  StepRecord late;
  late.step = 51;
  ModeStep m;
  m.mode = PrecisionMode::FP16Amp;
  m.step = 51;
  m.instrumented = true;
  TensorStats t;
  t.name = "fc1.weight";
  t.numel = 1;
  t.scaled.counts.set(-40, 1);
  t.unscaled = t.scaled;
  m.tensors.push_back(t);
  late.modes.push_back(m);
  store.append(late);
  plot.onDataAppended();
  plot.setMode(PrecisionMode::FP16Amp);
  QCPColorMapData* data = plot.colorMap()->data();
  ASSERT_TRUE(std::isnan(data->cell(0, 0))) << "the lowest row of the first column holds no values";
  double fullest = 0;
  for (int c = 0; c < data->keySize(); ++c)
    for (int r = 0; r < data->valueSize(); ++r)
      if (!std::isnan(data->cell(c, r))) fullest = std::max(fullest, data->cell(c, r));
  ASSERT_GT(fullest, 1);
  EXPECT_EQ(plot.colorMap()->dataRange().lower, 1);
  EXPECT_EQ(plot.colorMap()->dataRange().upper, fullest);
}

TEST(PlotPanel, HiddenPanelsCatchUpWhenShown) {
  TelemetryStore store;
  LossPlot plot(&store);
  feed(store, 1, 10);
  plot.onDataAppended();  // not visible: nothing drawn yet
  EXPECT_EQ(plot.lossGraph(PrecisionMode::FP32), nullptr);
  plot.show();
  EXPECT_EQ(plot.lossGraph(PrecisionMode::FP32)->dataCount(), 10);
}

TEST(PlotPanel, LineScaleMultipliesPenWidths) {
  TelemetryStore store;
  LossPlot plot(&store);
  plot.show();
  feed(store, 1, 3);
  plot.onDataAppended();
  plot.setLineScale(2.5);
  EXPECT_DOUBLE_EQ(plot.lossGraph(PrecisionMode::FP32)->pen().widthF(), 2.5);
  plot.setLineScale(1.0);
  EXPECT_DOUBLE_EQ(plot.lossGraph(PrecisionMode::FP32)->pen().widthF(), 1.0);
}

}  // namespace
}  // namespace ampscope::ui
