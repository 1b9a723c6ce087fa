// From a plotted value to its bits (issue 46 item 3): every value plot says which value a point stands
// for and where it came from (PlotPanel::valueAt), a click or Enter at the keyboard cursor emits it, and
// the main window opens it in the number formats panel with that note.
#include <gtest/gtest.h>

#include <QDockWidget>
#include <QLabel>
#include <QLineEdit>
#include <QSignalSpy>
#include <QTest>
#include <cmath>
#include <qcustomplot.h>

#include "ampscope/engine/telemetry_store.h"
#include "support/synthetic_records.h"
#include "ui/formats/number_formats_panel.h"
#include "ui/main_window.h"
#include "ui/training/heat_map_plot.h"
#include "ui/training/histogram_plot.h"
#include "ui/training/scale_plot.h"
#include "ui/training/training_workspace.h"
#include "ui/training/underflow_plot.h"

namespace ampscope::ui {
namespace {

using test::feed;
using test::SyntheticOptions;

SyntheticOptions fp16Only() {
  SyntheticOptions o;
  o.modes = {PrecisionMode::FP16Amp};
  return o;
}

// The synthetic FP16 gradients (support/synthetic_records.h) centre fc1.weight on bin -28 and
// fc2.weight on bin -29, each spreading two bins either side: bin -28 holds both tensors' values, bin -31
// only fc2.weight's (fc1.weight reaches down to -30).
TEST(PlotValues, AHistogramBinNamesItsCountsAndTheTensorsThatHoldThem) {
  TelemetryStore store;
  HistogramPlot plot(&store);
  feed(store, 1, 3, fp16Only());
  plot.onDataAppended();
  plot.setScaled(false);
  const auto both = plot.valueAt(-28, 0);
  ASSERT_TRUE(both.has_value());
  EXPECT_EQ(both->value, std::ldexp(1.0, -28));
  const ModeStep step3 = test::syntheticModeStep(PrecisionMode::FP16Amp, 3, fp16Only());
  const int64_t fc1 = step3.tensors[0].unscaled.countAt(-28), fc2 = step3.tensors[1].unscaled.countAt(-28);
  ASSERT_GT(fc1, 0);
  ASSERT_GT(fc2, 0);
  EXPECT_TRUE(both->context.contains(QStringLiteral("step 3"))) << both->context.toStdString();
  EXPECT_TRUE(both->context.contains(QStringLiteral("%1 of %2 values").arg(fc1 + fc2).arg(2000)))
      << both->context.toStdString();
  EXPECT_TRUE(both->context.contains(QStringLiteral("fc1.weight (%1)").arg(fc1))) << both->context.toStdString();
  EXPECT_TRUE(both->context.contains(QStringLiteral("fc2.weight (%1)").arg(fc2))) << both->context.toStdString();
  const auto one = plot.valueAt(-31, 0);
  ASSERT_TRUE(one.has_value());
  EXPECT_TRUE(one->context.contains(QStringLiteral("fc2.weight"))) << one->context.toStdString();
  EXPECT_FALSE(one->context.contains(QStringLiteral("fc1.weight"))) << one->context.toStdString();
  const auto zeros = plot.valueAt(plot.zeroKey(), 0);
  ASSERT_TRUE(zeros.has_value());
  EXPECT_EQ(zeros->value, 0.0);
  EXPECT_TRUE(zeros->context.contains(QStringLiteral("6 of 2000 values")))  // 3 exact zeros per tensor
      << zeros->context.toStdString();
}

// The keyboard reaches every bin: ←/→ move the cursor one bin, Enter opens it.
TEST(PlotValues, TheKeyboardCursorMovesByBinsAndEnterOpensTheBin) {
  TelemetryStore store;
  HistogramPlot plot(&store);
  feed(store, 1, 3, fp16Only());
  plot.onDataAppended();
  plot.resize(900, 500);
  plot.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&plot));
  plot.plot()->setFocus();
  QSignalSpy spy(&plot, &PlotPanel::valueActivated);
  plot.setCursor(-28, 0);
  QTest::keyClick(plot.plot(), Qt::Key_Right);
  QTest::keyClick(plot.plot(), Qt::Key_Right);
  QTest::keyClick(plot.plot(), Qt::Key_Left);
  EXPECT_DOUBLE_EQ(plot.cursorKey(), -27.0);
  QTest::keyClick(plot.plot(), Qt::Key_Return);
  ASSERT_EQ(spy.count(), 1);
  EXPECT_EQ(spy.at(0).at(0).toDouble(), std::ldexp(1.0, -27));
  // A click puts the cursor on the clicked bin: the arrows go on from there.
  plot.plot()->replot();
  const QPoint bin30(static_cast<int>(plot.plot()->xAxis->coordToPixel(-30)),
                     static_cast<int>(plot.plot()->yAxis->coordToPixel(plot.plot()->yAxis->range().center())));
  QTest::mouseClick(plot.plot(), Qt::LeftButton, Qt::NoModifier, bin30);
  ASSERT_EQ(spy.count(), 2);
  EXPECT_EQ(spy.at(1).at(0).toDouble(), std::ldexp(1.0, -30));
  QTest::keyClick(plot.plot(), Qt::Key_Left);
  QTest::keyClick(plot.plot(), Qt::Key_Enter);
  ASSERT_EQ(spy.count(), 3);
  EXPECT_EQ(spy.at(2).at(0).toDouble(), std::ldexp(1.0, -31));
}

// A heat-map cell: its exponent row's lower edge, at its column's step, with the cell's count.
TEST(PlotValues, AHeatMapCellOpensItsBinAtItsStep) {
  TelemetryStore store;
  HeatMapPlot plot(&store);
  feed(store, 1, 4, fp16Only());
  plot.show();
  plot.onDataAppended();
  ASSERT_GT(plot.columns(), 0);
  const int64_t step = store.series(SeriesKey{kEngineRun, PrecisionMode::FP16Amp})->histogramRing.back().step;
  const auto cell = plot.valueAt(static_cast<double>(step), -29);
  ASSERT_TRUE(cell.has_value());
  EXPECT_EQ(cell->value, std::ldexp(1.0, -29));
  const ModeStep m = test::syntheticModeStep(PrecisionMode::FP16Amp, step, fp16Only());
  int64_t count = 0;
  for (const TensorStats& t : m.tensors)
    if (t.isParameter) count += t.unscaled.countAt(-29);
  EXPECT_TRUE(cell->context.contains(QStringLiteral("step %1").arg(step))) << cell->context.toStdString();
  EXPECT_TRUE(cell->context.contains(QStringLiteral("holds %1 of").arg(count))) << cell->context.toStdString();
  EXPECT_FALSE(plot.valueAt(static_cast<double>(step), 500).has_value()) << "outside the rows";
}

// The loss scale of the nearest point (the synthetic scaler doubles every 50 steps from 2^16).
TEST(PlotValues, AScalePointOpensTheScale) {
  TelemetryStore store;
  ScalePlot plot(&store);
  SyntheticOptions o;
  o.modes = {PrecisionMode::FP16AmpScaled};
  feed(store, 1, 120, o);
  plot.resize(800, 400);
  plot.show();
  plot.onDataAppended();
  plot.plot()->replot();
  const auto at60 = plot.valueAt(60, std::ldexp(1.0, 17));
  ASSERT_TRUE(at60.has_value());
  EXPECT_EQ(at60->value, std::ldexp(1.0, 17));
  EXPECT_TRUE(at60->context.contains(QStringLiteral("step 60"))) << at60->context.toStdString();
}

// An underflow point opens a value of the class it counts in the mode's format. IEEE-754 binary16: the
// smallest subnormal is 2^-24, so 2^-25 is the tie that rounds to even, 0; the smallest normal is 2^-14;
// the largest finite is 65504 with an ulp of 32, so from 65520 a value rounds to inf. bfloat16 shares
// binary32's exponent: smallest subnormal 2^-133, so 2^-134 flushes.
TEST(PlotValues, AnUnderflowPointOpensAValueOfTheClassItCounts) {
  TelemetryStore store;
  UnderflowPlot plot(&store);
  SyntheticOptions o;
  o.modes = {PrecisionMode::FP16Amp, PrecisionMode::BF16Amp};
  feed(store, 1, 10, o);
  plot.resize(800, 400);
  plot.show();
  plot.onDataAppended();
  plot.plot()->replot();
  using Q = UnderflowPlot::Quantity;
  auto valueOn = [&plot](PrecisionMode mode, Q quantity) -> std::optional<PlotPanel::PlotValue> {
    QCPGraph* g = plot.graph(mode, quantity);
    if (!g || g->data()->isEmpty()) return std::nullopt;
    const auto point = g->data()->constEnd() - 1;
    return plot.valueAt(point->key, point->value);
  };
  plot.setQuantityShown(Q::Subnormal, true);
  plot.setQuantityShown(Q::Overflowed, true);
  const auto flushed = valueOn(PrecisionMode::FP16Amp, Q::FlushedToZero);
  ASSERT_TRUE(flushed.has_value());
  EXPECT_EQ(flushed->value, std::ldexp(1.0, -25));
  EXPECT_TRUE(flushed->context.contains(QStringLiteral("FP16"))) << flushed->context.toStdString();
  const auto subnormal = valueOn(PrecisionMode::FP16Amp, Q::Subnormal);
  ASSERT_TRUE(subnormal.has_value());
  EXPECT_EQ(subnormal->value, std::ldexp(1.0, -15));
  EXPECT_LT(subnormal->value, std::ldexp(1.0, -14));
  // Only bf16-amp's lines: fp16-amp's overflow line lies on its flushed one (both 0 at step 10).
  TelemetryStore bf16Store;
  UnderflowPlot bf16Plot(&bf16Store);
  o.modes = {PrecisionMode::BF16Amp};
  feed(bf16Store, 1, 10, o);
  bf16Plot.resize(800, 400);
  bf16Plot.show();
  bf16Plot.onDataAppended();
  bf16Plot.plot()->replot();
  QCPGraph* g = bf16Plot.graph(PrecisionMode::BF16Amp, Q::FlushedToZero);
  ASSERT_TRUE(g && !g->data()->isEmpty());
  const auto bf16 = bf16Plot.valueAt((g->data()->constEnd() - 1)->key, (g->data()->constEnd() - 1)->value);
  ASSERT_TRUE(bf16.has_value());
  EXPECT_EQ(bf16->value, std::ldexp(1.0, -134));
  EXPECT_TRUE(bf16->context.contains(QStringLiteral("BF16"))) << bf16->context.toStdString();
}

// The main window wires every value plot to the formats panel: the value in the entry, the note saying
// where it came from, the panel shown; typing another value drops the note.
TEST(PlotValues, TheMainWindowOpensAPlottedValueInTheFormatsPanel) {
  MainWindow window;
  window.setLayoutPersistence(false);
  window.show();
  TrainingWorkspace* ws = window.trainingWorkspace();
  auto* panel = window.findChild<formats::NumberFormatsPanel*>();
  ASSERT_NE(panel, nullptr);
  const std::vector<PlotPanel*> plots = ws->valuePlots();
  ASSERT_EQ(plots.size(), 5u);
  for (PlotPanel* plot : plots) {
    emit plot->valueActivated(std::ldexp(1.0, -26), QStringLiteral("from %1").arg(plot->metaObject()->className()));
    EXPECT_EQ(panel->currentValue(), std::ldexp(1.0, -26)) << plot->metaObject()->className();
    EXPECT_TRUE(panel->plotContextLabel()->isVisibleTo(panel));
    EXPECT_EQ(panel->plotContextLabel()->text(), QStringLiteral("from %1").arg(plot->metaObject()->className()));
  }
  auto* dock = qobject_cast<QDockWidget*>(panel->parentWidget()->parentWidget()->parentWidget());
  ASSERT_NE(dock, nullptr);
  EXPECT_TRUE(dock->isVisible());
  panel->valueEdit()->setText(QStringLiteral("0.5"));
  EXPECT_FALSE(panel->plotContextLabel()->isVisibleTo(panel)) << "the note belongs to the plotted value only";
}

}  // namespace
}  // namespace ampscope::ui
