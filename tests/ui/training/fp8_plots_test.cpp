// The FP8 views over synthetic telemetry: the scale plot (a lane per quantised tensor per mode, block
// scalings as a band) and the histogram's format window where the scale puts it.
//
// Format limits from the OCP 8-bit Floating Point specification (OFP8, 2023): E4M3 max 448 = 1.75 x 2^8,
// smallest subnormal 2^-9; E5M2 max 57344 = 1.75 x 2^15, smallest subnormal 2^-16. E2M1 from the OCP
// Microscaling Formats (MX) specification v1.0: max 6, smallest subnormal 0.5.
#include <gtest/gtest.h>

#include <QComboBox>
#include <QSignalSpy>
#include <QTest>
#include <cmath>
#include <memory>
#include <qcustomplot.h>

#include "ampscope/engine/telemetry_store.h"
#include "support/synthetic_records.h"
#include "ui/training/format_window.h"
#include "ui/lessons/lesson_library.h"
#include "ui/training/fp8_scale_plot.h"
#include "ui/training/heat_map_plot.h"
#include "ui/training/histogram_plot.h"

namespace ampscope::ui {
namespace {

using test::feed;
using test::SyntheticOptions;

constexpr SeriesKey kDelayed{kEngineRun, PrecisionMode::Fp8Delayed};
constexpr SeriesKey kMx{kEngineRun, PrecisionMode::MXFP8};

QuantTensorStats quant(const std::string& name, bool backward, QuantFormat format, ScalingKind scaling,
                       double scale, int64_t step, int center) {
  QuantTensorStats q;
  q.name = name;
  q.layer = name.substr(0, name.find('.'));
  q.backward = backward;
  q.format = format;
  q.scaling = scaling;
  q.numel = 1000;
  q.scale = scale;
  q.amax = 448 / scale;
  q.amaxHistoryMax = q.amax;
  q.measured = true;
  q.saturated = 7;
  q.flushed = 250;
  q.histogram = std::make_shared<ExponentHistogram>(test::syntheticHistogram(center, q.numel, step));
  if (scaling == ScalingKind::MxBlock) {
    q.scale = 1;
    q.blockScaleExpMin = -12;
    q.blockScaleExpMax = -4;
  }
  return q;
}

// fp8-delayed: scale 2^(step / 10) for fc1.input, 2^10 for fc1.grad_output; mxfp8: block scales.
void feedFp8(TelemetryStore& store, int64_t from, int64_t to, double inputScaleAt100 = 0) {
  SyntheticOptions o;
  o.modes = {PrecisionMode::Fp8Delayed, PrecisionMode::MXFP8};
  feed(store, from, to, o, [&](StepRecord& r) {
    const double inputScale = (inputScaleAt100 > 0 && r.step >= 100) ? inputScaleAt100
                                                                       : std::exp2(static_cast<double>(r.step / 10));
    for (ModeStep& m : r.modes) {
      if (m.mode == PrecisionMode::Fp8Delayed) {
        m.quantized = {quant("fc1.input", false, QuantFormat::E4M3, ScalingKind::Delayed, inputScale, r.step, -2),
                       quant("fc1.weight", false, QuantFormat::E4M3, ScalingKind::Delayed, 64, r.step, -6),
                       quant("fc1.grad_output", true, QuantFormat::E5M2, ScalingKind::Delayed, 1024, r.step, -20)};
      } else {
        m.quantized = {quant("fc1.input", false, QuantFormat::E4M3, ScalingKind::MxBlock, 1, r.step, -2)};
      }
    }
  });
}

void settle(PlotPanel& panel) {
  panel.resize(640, 400);
  panel.show();
  panel.plot()->replot();
  QTest::qWait(50);  // queued replots after the first layout
  panel.plot()->replot();
}

TEST(FormatWindow, E4M3AndE5M2LimitsComeFromTheOcpSpec) {
  EXPECT_EQ(smallestSubnormal(QuantFormat::E4M3), std::ldexp(1.0, -9));
  EXPECT_EQ(largestFinite(QuantFormat::E4M3), 448.0);
  EXPECT_EQ(smallestSubnormal(QuantFormat::E5M2), std::ldexp(1.0, -16));
  EXPECT_EQ(largestFinite(QuantFormat::E5M2), 57344.0);
  EXPECT_EQ(smallestSubnormal(QuantFormat::E2M1), 0.5);
  EXPECT_EQ(largestFinite(QuantFormat::E2M1), 6.0);
}

TEST(FormatWindow, APerTensorScaleMovesTheWindowLeftByLog2OfTheScale) {
  QuantTensorStats t;
  t.format = QuantFormat::E4M3;
  t.scaling = ScalingKind::Delayed;
  t.scale = 16;  // x * 16 is stored: [2^-9, 448] / 16 in x's units
  FormatWindow w = formatWindow(t);
  EXPECT_EQ(w.lowLog2, -13.0);
  EXPECT_DOUBLE_EQ(w.highLog2, std::log2(448.0) - 4);
  EXPECT_EQ(w.flushLog2, -14.0);  // half the smallest subnormal rounds to 0 (the tie goes to even 0)
  EXPECT_FALSE(w.blocks);
  t.format = QuantFormat::E5M2;
  t.scale = 0.25;
  w = formatWindow(t);
  EXPECT_EQ(w.lowLog2, -14.0);
  EXPECT_DOUBLE_EQ(w.highLog2, std::log2(57344.0) + 2);
}

TEST(FormatWindow, BlockScalingsSpanTheirBlocksWindows) {
  QuantTensorStats t;
  t.format = QuantFormat::E4M3;
  t.scaling = ScalingKind::MxBlock;
  t.blockScaleExpMin = -12;  // a block decoding by 2^-12 holds [2^-21, 448 * 2^-12]
  t.blockScaleExpMax = -4;
  const FormatWindow w = formatWindow(t);
  EXPECT_TRUE(w.blocks);
  EXPECT_EQ(w.lowLog2, -21.0);
  EXPECT_DOUBLE_EQ(w.highLog2, std::log2(448.0) - 4);
}

TEST(Fp8ScalePlot, ShowsItsEmptyStateWithoutAQuantisedMode) {
  TelemetryStore store;
  Fp8ScalePlot plot(&store);
  plot.show();
  feed(store, 1, 20);  // FP32 and the FP16/BF16 modes: nothing quantised
  plot.onDataAppended();
  settle(plot);
  EXPECT_EQ(plot.laneCount(), 0);
  EXPECT_EQ(plot.shownEmptyNote(), Fp8ScalePlot::tr("Run an FP8 mode to see its scales."));
}

TEST(Fp8ScalePlot, OneStepLinePerTensorPerModeWithEveryStepsScale) {
  TelemetryStore store;
  Fp8ScalePlot plot(&store);
  plot.show();
  feedFp8(store, 1, 40);
  plot.onDataAppended();
  feedFp8(store, 41, 60);
  plot.onDataAppended();
  EXPECT_EQ(plot.laneCount(), 4);  // three fp8-delayed tensors, one mxfp8 band
  QCPGraph* input = plot.scaleGraph(kDelayed, QStringLiteral("fc1.input"));
  ASSERT_NE(input, nullptr);
  ASSERT_EQ(input->dataCount(), 60);
  for (auto it = input->data()->constBegin(); it != input->data()->constEnd(); ++it)
    EXPECT_EQ(it->value, std::exp2(static_cast<double>(static_cast<int64_t>(it->key) / 10))) << it->key;
  EXPECT_EQ(input->lineStyle(), QCPGraph::lsStepLeft);
  EXPECT_EQ(plot.scaleGraph(kDelayed, QStringLiteral("fc1.grad_output"))->pen().style(), Qt::DotLine);
  EXPECT_EQ(plot.scaleGraph(kDelayed, QStringLiteral("fc1.weight"))->pen().style(), Qt::DashLine);
  settle(plot);
  EXPECT_TRUE(plot.shownEmptyNote().isEmpty());
  EXPECT_TRUE(plot.plot()->yAxis->scaleType() == QCPAxis::stLogarithmic);
  // Following the data: the largest scale (2^6 at step 60, 2^10 for the gradient) in view.
  EXPECT_GE(plot.plot()->yAxis->range().upper, 1024.0);
}

TEST(Fp8ScalePlot, ABlockScalingIsABandFromItsSmallestToItsLargestBlockScale) {
  TelemetryStore store;
  Fp8ScalePlot plot(&store);
  plot.show();
  feedFp8(store, 1, 10);
  plot.onDataAppended();
  EXPECT_EQ(plot.scaleGraph(kMx, QStringLiteral("fc1.input")), nullptr);
  QCPGraph* low = plot.bandLowGraph(kMx, QStringLiteral("fc1.input"));
  QCPGraph* high = plot.bandHighGraph(kMx, QStringLiteral("fc1.input"));
  ASSERT_NE(low, nullptr);
  ASSERT_NE(high, nullptr);
  ASSERT_EQ(low->dataCount(), 10);
  // Decode factors 2^-12 .. 2^-4: values are multiplied by 2^4 .. 2^12 before rounding.
  EXPECT_EQ(low->data()->constBegin()->value, 16.0);
  EXPECT_EQ(high->data()->constBegin()->value, 4096.0);
  EXPECT_EQ(high->channelFillGraph(), low);
}

TEST(Fp8ScalePlot, TheFilterPicksOneTensorOrOneDirection) {
  TelemetryStore store;
  Fp8ScalePlot plot(&store);
  plot.show();
  feedFp8(store, 1, 10);
  plot.onDataAppended();
  EXPECT_GE(plot.filterCombo()->findData(QStringLiteral("fc1.grad_output")), 0);
  plot.setTensorFilter(QString::fromLatin1(Fp8ScalePlot::kBackward));
  EXPECT_EQ(plot.laneCount(), 1);
  EXPECT_NE(plot.scaleGraph(kDelayed, QStringLiteral("fc1.grad_output")), nullptr);
  plot.setTensorFilter(QStringLiteral("fc1.input"));
  EXPECT_EQ(plot.laneCount(), 2);  // both modes
  EXPECT_EQ(plot.scaleGraph(kDelayed, QStringLiteral("fc1.weight")), nullptr);
  feedFp8(store, 11, 15);
  plot.onDataAppended();
  EXPECT_EQ(plot.scaleGraph(kDelayed, QStringLiteral("fc1.input"))->dataCount(), 15);
  plot.setTensorFilter(QString());
  EXPECT_EQ(plot.laneCount(), 4);
}

TEST(HistogramPlot, AQuantisedTensorShowsItsFormatWindowWhereTheScalePutsIt) {
  TelemetryStore store;
  HistogramPlot plot(&store);
  plot.show();
  feedFp8(store, 1, 99);
  plot.onDataAppended();
  const QString input = QString::fromLatin1(HistogramPlot::kQuantPrefix) + QStringLiteral("fc1.input");
  plot.setLayer(input);
  ASSERT_EQ(plot.layer(), input);
  EXPECT_EQ(plot.quantTensor(), QStringLiteral("fc1.input"));
  // The bars are that tensor's own exponents (synthetic: centred on 2^-2).
  const ExponentHistogram shown = plot.shownHistogram(kDelayed);
  EXPECT_EQ(shown.total(), 1000);
  EXPECT_GT(shown.countAt(-4), 0);
  double low = 0, high = 0;
  ASSERT_TRUE(plot.shownWindow(kDelayed, &low, &high));
  // Step 99: scale 2^9, so E4M3's [2^-9, 448] covers [2^-18, 448 / 2^9] of x; below 2^-19 flushes.
  EXPECT_EQ(low, -19.0);
  EXPECT_DOUBLE_EQ(high, std::log2(448.0) - 9);
  EXPECT_TRUE(plot.sideNote().contains(QStringLiteral("7 (0.70%)"))) << plot.sideNote().toStdString();
  EXPECT_TRUE(plot.sideNote().contains(QStringLiteral("250 (25.00%)")));
  // The scale moves: so does the window, by log2 of the change.
  feedFp8(store, 100, 110, /*inputScaleAt100=*/std::exp2(3.0));
  plot.onDataAppended();
  ASSERT_TRUE(plot.shownWindow(kDelayed, &low, &high));
  EXPECT_EQ(low, -13.0);
  EXPECT_DOUBLE_EQ(high, std::log2(448.0) - 3);
  // The mxfp8 series quantises the tensor too: its window spans its blocks'.
  ASSERT_TRUE(plot.shownWindow(kMx, &low, &high));
  EXPECT_EQ(low, -22.0);
  EXPECT_DOUBLE_EQ(high, std::log2(448.0) - 4);
  // Back to the gradients: no window.
  plot.setLayer(QString());
  EXPECT_FALSE(plot.shownWindow(kDelayed, nullptr, nullptr));
}

// The visible zone labels' first lines (the zone's name), and the edges of the dashed lines.
QStringList shownZoneNames(const QCustomPlot* plot) {
  QStringList out;
  for (int i = 0; i < plot->itemCount(); ++i)
    if (auto* text = qobject_cast<QCPItemText*>(plot->item(i)); text && text->visible() && !text->text().isEmpty())
      out << text->text().split(QLatin1Char('\n')).first();
  return out;
}

// The FP8 lesson's run (fp32 and fp8-delayed): fp8-delayed rounds its gradients to E5M2 (mode_formats.h,
// docs/fp8-recipes.md), so the gradient histogram draws E5M2's zones, not FP16's. E5M2 (OFP8 table 1):
// smallest subnormal 2^-16, so |g| <= 2^-17 flushes; smallest normal 2^-14; max 57344 and, the quantiser
// saturating, |g| >= 57344 + half an ulp (4096) = 61440 becomes ±57344. The strip keeps FP16 (the FP32
// mode is measured against it).
TEST(HistogramPlot, TheFp8LessonsHistogramDrawsE5M2Zones) {
  LessonLibrary library;
  library.load();
  const Lesson* lesson = library.find(QStringLiteral("fp8-scaling"));
  ASSERT_NE(lesson, nullptr) << library.errors().join(QLatin1Char('\n')).toStdString();
  const std::optional<RunConfig> config = lesson->configFor(0);
  ASSERT_TRUE(config.has_value());
  TelemetryStore store;
  store.setConfig(*config);
  HistogramPlot plot(&store);
  // Before any run: FP16 and BF16, as the chapter's modes.
  EXPECT_EQ(plot.mainZones().name, QStringLiteral("FP16"));
  SyntheticOptions o;
  o.modes = config->modes;
  feed(store, 1, 10, o);
  plot.onDataAppended();
  plot.resize(1000, 500);
  plot.show();
  plot.plot()->replot();
  QTest::qWait(50);
  plot.plot()->replot();

  EXPECT_EQ(plot.mainZones().dtype, DType::FP8E5M2);
  EXPECT_EQ(plot.mainZones().name, QStringLiteral("E5M2"));
  EXPECT_EQ(plot.mainZones().flushLog2, -17.0);
  EXPECT_EQ(plot.mainZones().normalLog2, -14.0);
  EXPECT_DOUBLE_EQ(plot.mainZones().overflowLog2, std::log2(61440.0));
  EXPECT_TRUE(plot.mainZones().saturates);
  EXPECT_EQ(plot.stripZones().name, QStringLiteral("FP16"));
  const QStringList names = shownZoneNames(plot.plot());
  EXPECT_TRUE(names.contains(QStringLiteral("E5M2 → 0"))) << names.join(u'|').toStdString();
  EXPECT_TRUE(names.contains(QStringLiteral("E5M2 normal"))) << names.join(u'|').toStdString();
  // None of FP16's full-height labels ("FP16 → 0", "FP16" over "subnormal", "FP16 normal"); the strip's
  // one-line labels read "FP16 subnormal", "FP16 normal 2⁻¹⁴ … 65504".
  for (const char* fp16 : {"FP16 → 0", "FP16", "FP16 normal", "FP16 → inf"})
    EXPECT_FALSE(names.contains(QString::fromUtf8(fp16))) << fp16 << ": " << names.join(u'|').toStdString();
  // The flush line is E5M2's: at bar -17's lower edge.
  bool flushLine = false;
  for (int i = 0; i < plot.plot()->itemCount(); ++i)
    if (auto* line = qobject_cast<QCPItemStraightLine*>(plot.plot()->item(i)))
      flushLine = flushLine || line->point1->key() == -17.5;
  EXPECT_TRUE(flushLine);

  // The heat map of the fp8-delayed series marks E5M2's landmarks.
  HeatMapPlot heat(&store);
  heat.onDataAppended();
  heat.setMode(PrecisionMode::Fp8Delayed);
  EXPECT_EQ(heat.landmarks().name, QStringLiteral("E5M2"));
  heat.setMode(PrecisionMode::FP32);
  EXPECT_EQ(heat.landmarks().name, QStringLiteral("FP16"));
}

// mxfp8's gradients meet E4M3 through their blocks' E8M0 scales: the gradient view draws the union of the
// blocks' windows. The synthetic block factors span 2^-12 ... 2^-4, so the windows span E4M3's smallest
// subnormal 2^-9 times 2^-12 to its max 448 times 2^-4 (OFP8 table 1; MX v1.0 6.3: x = 2^X * element).
TEST(HistogramPlot, ABlockModesGradientViewShowsItsBlockWindows) {
  TelemetryStore store;
  HistogramPlot plot(&store);
  plot.show();
  SyntheticOptions o;
  o.modes = {PrecisionMode::Fp8Delayed, PrecisionMode::MXFP8};
  feed(store, 1, 10, o, [](StepRecord& r) {
    for (ModeStep& m : r.modes)
      m.quantized = {m.mode == PrecisionMode::MXFP8
                         ? quant("fc1.grad_output", true, QuantFormat::E4M3, ScalingKind::MxBlock, 1, r.step, -20)
                         : quant("fc1.grad_output", true, QuantFormat::E5M2, ScalingKind::Delayed, 1024, r.step, -20)};
  });
  plot.onDataAppended();
  double low = 0, high = 0;
  ASSERT_TRUE(plot.shownBlockWindow(kMx, &low, &high));
  EXPECT_EQ(low, -9.0 - 12.0);
  EXPECT_DOUBLE_EQ(high, std::log2(448.0) - 4);
  EXPECT_FALSE(plot.shownBlockWindow(kDelayed, &low, &high));  // one scale per tensor: no blocks
}

// From a bin to its bits and back (issue 46 item 3): a click on a bar emits its bin's lower edge 2^e
// (exact, so the formats panel shows the binade's first value), and a value marks the bin whose
// [2^e, 2^(e+1)) holds it: 0.1 lies in [2^-4, 2^-3), 0.25 = 2^-2 starts bin -2.
TEST(HistogramPlot, ABinClickedOpensItsValueAndAValueMarksItsBin) {
  TelemetryStore store;
  HistogramPlot plot(&store);
  SyntheticOptions o;
  o.modes = {PrecisionMode::FP16Amp};
  feed(store, 1, 3, o);
  plot.onDataAppended();
  plot.resize(900, 500);
  plot.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&plot));
  plot.plot()->replot();
  QSignalSpy spy(&plot, &HistogramPlot::binActivated);
  // The tallest bar of the synthetic histogram, clicked in its middle.
  QCPBars* bars = plot.bars(PrecisionMode::FP16Amp);
  ASSERT_NE(bars, nullptr);
  auto tallest = bars->data()->constBegin();
  for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it)
    if (it->value > tallest->value) tallest = it;
  const QPointF centre(plot.plot()->xAxis->coordToPixel(tallest->key),
                       plot.plot()->yAxis->coordToPixel(std::sqrt(tallest->value * 0.5)));
  QTest::mouseClick(plot.plot(), Qt::LeftButton, Qt::NoModifier, centre.toPoint());
  ASSERT_EQ(spy.count(), 1);
  EXPECT_EQ(spy.takeFirst().at(0).toDouble(), std::ldexp(1.0, static_cast<int>(tallest->key)));
  plot.activateBin(static_cast<int>(plot.zeroKey()));
  ASSERT_EQ(spy.count(), 1);
  EXPECT_EQ(spy.takeFirst().at(0).toDouble(), 0.0);

  int bin = 0;
  plot.markValue(0.1);
  ASSERT_TRUE(plot.markedBin(&bin));
  EXPECT_EQ(bin, -4);
  plot.markValue(-0.25);
  ASSERT_TRUE(plot.markedBin(&bin));
  EXPECT_EQ(bin, -2);
  plot.markValue(std::ldexp(1.0, -149));  // float32's smallest subnormal has a bin of its own
  ASSERT_TRUE(plot.markedBin(&bin));
  EXPECT_EQ(bin, -149);
  plot.markValue(0.0);
  EXPECT_FALSE(plot.markedBin(&bin));
}

// Each mode's own format: nvfp4's E2M1 (MX v1.0 5.3.3: smallest subnormal 0.5, max 6), mxfp8's E4M3
// (OFP8: smallest subnormal 2^-9), and FP16 first where a run has no quantised mode.
TEST(HistogramPlot, ZonesFollowTheRunsModes) {
  EXPECT_EQ(zoneFormats({PrecisionMode::NVFP4}).front().dtype, DType::FP4E2M1);
  EXPECT_EQ(formatZones(DType::FP4E2M1, true).flushLog2, -2.0);
  EXPECT_DOUBLE_EQ(formatZones(DType::FP4E2M1, true).overflowLog2, std::log2(7.0));  // 6 + ulp 2 / 2
  EXPECT_EQ(zoneFormats({PrecisionMode::Fp8Current, PrecisionMode::MXFP8})[1].dtype, DType::FP8E4M3FN);
  EXPECT_EQ(formatZones(DType::FP8E4M3FN, true).flushLog2, -10.0);
  const std::vector<ZoneFormat> chapter = zoneFormats({PrecisionMode::FP32, PrecisionMode::FP16AmpScaled,
                                                       PrecisionMode::BF16Amp});
  EXPECT_EQ(chapter[0].dtype, DType::FP16);
  EXPECT_EQ(chapter[1].dtype, DType::BF16);
  EXPECT_FALSE(chapter[0].saturates);
  EXPECT_DOUBLE_EQ(formatZones(DType::FP16, false).overflowLog2, std::log2(65520.0));
}

}  // namespace
}  // namespace ampscope::ui
