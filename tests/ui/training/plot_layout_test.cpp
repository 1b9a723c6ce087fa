// Plots that stay readable at any size: a minimum plot area before any data, a "Run to see ..." note
// until data arrives, tick labels that never touch, zone labels kept inside their zones, and legend
// names that fit or end in "…" with the full name in a tooltip. Label extents are measured here with
// QFontMetrics of the fonts the axes draw with (QCustomPlot draws tick labels centred on their tick).
#include <gtest/gtest.h>

#include <QFontMetricsF>
#include <QMouseEvent>
#include <QSet>
#include <QTest>
#include <QToolTip>
#include <algorithm>
#include <memory>
#include <string>
#include <qcustomplot.h>

#include "ampscope/engine/telemetry_store.h"
#include "support/synthetic_records.h"
#include "ui/training/elided_legend_item.h"
#include "ui/training/histogram_plot.h"
#include "ui/training/loss_plot.h"
#include "ui/training/tick_label_fitter.h"
#include "ui/training/underflow_plot.h"

namespace ampscope::ui {
namespace {

using test::feed;
using test::SyntheticOptions;

// Extents of the tick labels along the axis, in pixels, sorted.
std::vector<std::pair<double, double>> labelSpans(const QCPAxis* axis) {
  std::vector<std::pair<double, double>> spans;
  if (!axis->tickLabels()) return spans;
  const QFontMetricsF fm(axis->tickLabelFont());
  const QVector<double> ticks = axis->tickVector();
  const QVector<QString> labels = axis->tickVectorLabels();
  for (int i = 0; i < ticks.size(); ++i) {
    const double at = axis->coordToPixel(ticks[i]);
    const double half = axis->orientation() == Qt::Horizontal ? fm.horizontalAdvance(labels[i]) / 2 : fm.height() / 2;
    spans.emplace_back(at - half, at + half);
  }
  std::sort(spans.begin(), spans.end());
  return spans;
}

void expectNoTouchingTickLabels(QCustomPlot* plot, const char* what) {
  for (QCPAxis* axis : plot->axisRect()->axes()) {
    if (!axis->visible()) continue;
    const auto spans = labelSpans(axis);
    for (size_t i = 1; i < spans.size(); ++i)
      EXPECT_LT(spans[i - 1].second, spans[i].first)
          << what << ": tick labels " << axis->tickVectorLabels()[0].toStdString() << "... overlap on axis "
          << axis->axisType() << " at " << spans[i].first;
    // The fitter's own rectangles agree that nothing overlaps.
    const QList<QRectF> rects = TickLabelFitter::tickLabelRects(axis);
    for (int i = 0; i < rects.size(); ++i)
      for (int j = i + 1; j < rects.size(); ++j) EXPECT_FALSE(rects[i].intersects(rects[j])) << what;
  }
}

void settle(PlotPanel& panel) {
  panel.plot()->replot();
  QTest::qWait(50);  // queued replots after the first layout
  panel.plot()->replot();
}

TEST(PlotLayout, EmptyPlotsKeepTheirMinimumAreaAndSayRunToSee) {
  TelemetryStore store;
  HistogramPlot histogram(&store);
  UnderflowPlot underflow(&store);
  for (PlotPanel* panel : {static_cast<PlotPanel*>(&histogram), static_cast<PlotPanel*>(&underflow)}) {
    panel->resize(520, 360);
    panel->show();
    settle(*panel);
    const QRect area = panel->plot()->axisRect()->rect();
    // An empty legend above the plot once shrank the area to about 40 pixels.
    EXPECT_GE(area.width(), PlotPanel::kMinAxisWidth) << panel->metaObject()->className();
    EXPECT_GE(area.height(), PlotPanel::kMinAxisHeight) << panel->metaObject()->className();
    EXPECT_GT(area.width(), 300) << "the area takes the panel's width: " << panel->metaObject()->className();
    EXPECT_TRUE(panel->shownEmptyNote().startsWith(QStringLiteral("Run to see"))) << panel->metaObject()->className();
    EXPECT_EQ(panel->axisRectOnScreen().size(), area.size());
    // Ticks that say something: no label twice (a log axis from 0.5 to 1.2 labelled 1.0 and 1.2 "1E+00").
    for (QCPAxis* axis : {panel->plot()->xAxis, panel->plot()->yAxis}) {
      const QVector<QString> labels = axis->tickVectorLabels();
      EXPECT_EQ(QSet<QString>(labels.begin(), labels.end()).size(), labels.size())
          << panel->metaObject()->className() << ": " << QStringList(labels.begin(), labels.end()).join(u' ').toStdString();
    }
  }
  feed(store, 1, 10, SyntheticOptions{});
  histogram.onDataAppended();
  settle(histogram);
  EXPECT_TRUE(histogram.shownEmptyNote().isEmpty());
}

TEST(PlotLayout, TickLabelsNeverTouchAsThePlotNarrows) {
  TelemetryStore store;
  feed(store, 1, 2000, SyntheticOptions{});
  HistogramPlot histogram(&store);
  LossPlot loss(&store);
  for (PlotPanel* panel : {static_cast<PlotPanel*>(&histogram), static_cast<PlotPanel*>(&loss)}) {
    panel->show();
    panel->refresh();
    // Large type as on a projector (presenter mode scales the fonts): QCustomPlot's own tick spacing
    // does not look at label widths.
    for (QCPAxis* axis : panel->plot()->axisRect()->axes()) {
      QFont big = axis->tickLabelFont();
      big.setPointSizeF(20);
      axis->setTickLabelFont(big);
    }
    for (int width : {900, 520, 330}) {
      panel->resize(width, 420);
      settle(*panel);
      expectNoTouchingTickLabels(panel->plot(), panel->metaObject()->className());
      // Thinned, not emptied: at least two labels on the x axis.
      EXPECT_GE(labelSpans(panel->plot()->xAxis).size(), 2u) << width;
    }
  }
}

TEST(PlotLayout, TheLossLegendMovesToTheCornerTheCurvesLeaveFree) {
  // One mode falls from the top left to the bottom right, the others stay flat along the top edge (as
  // fp16-amp does in the underflow lesson): only the bottom left corner is free of data.
  TelemetryStore store;
  feed(store, 1, 300, SyntheticOptions{}, [](StepRecord& r) {
    for (ModeStep& m : r.modes) m.loss = m.mode == PrecisionMode::FP32 ? 2.3 - 2.0 * r.step / 300.0 : 2.3;
  });
  LossPlot loss(&store);
  loss.resize(600, 400);
  loss.show();
  loss.refresh();
  settle(loss);
  settle(loss);
  const QRect area = loss.plot()->axisRect()->rect();
  const QRect legend = loss.plot()->legend->outerRect();
  ASSERT_TRUE(loss.plot()->legend->visible());
  EXPECT_LT(legend.center().x(), area.center().x()) << "legend at " << legend.x() << "," << legend.y();
  EXPECT_GT(legend.center().y(), area.center().y()) << "legend at " << legend.x() << "," << legend.y();
}

TEST(PlotLayout, ZoneLabelsStayInsideTheirZonesOrHide) {
  TelemetryStore store;
  feed(store, 1, 10, SyntheticOptions{});
  HistogramPlot histogram(&store);
  histogram.show();
  histogram.refresh();
  for (int width : {1000, 420, 300}) {
    histogram.resize(width, 340);
    settle(histogram);
    QList<QRectF> shown;
    QStringList texts;
    QCustomPlot* plot = histogram.plot();
    for (int i = 0; i < plot->itemCount(); ++i) {
      auto* text = qobject_cast<QCPItemText*>(plot->item(i));
      if (!text || !text->visible() || text->objectName() != QLatin1String("zoneLabel")) continue;
      shown << QRectF(text->topLeft->pixelPosition(), text->bottomRight->pixelPosition()).normalized();
      texts << text->text();
    }
    EXPECT_GE(shown.size(), 2) << "some zone labels stay at " << width;
    for (int i = 0; i < shown.size(); ++i)
      for (int j = i + 1; j < shown.size(); ++j)
        EXPECT_FALSE(shown[i].intersects(shown[j])) << "zone labels overlap at width " << width << ": " << texts[i].toStdString() << " / " << texts[j].toStdString();
  }
}

// At 1280x720 the underflow lesson's histogram is about 110 pixels tall: the bars of a 10^5 count
// reached up into the FP16 zone labels and were drawn over them. Following the data, the count axis
// leaves the labels' rows to the labels, on a log and on a linear axis.
TEST(PlotLayout, NoBarReachesUpIntoTheZoneLabels) {
  TelemetryStore store;
  feed(store, 1, 10, SyntheticOptions{});
  HistogramPlot histogram(&store);
  histogram.show();
  histogram.refresh();
  for (const bool log : {true, false}) {
    histogram.setLogCounts(log);
    for (const QSize size : {QSize(330, 230), QSize(520, 300), QSize(1000, 600)}) {
      histogram.resize(size);
      settle(histogram);
      QCustomPlot* plot = histogram.plot();
      double labelsBottom = -1;
      for (int i = 0; i < plot->itemCount(); ++i) {
        auto* text = qobject_cast<QCPItemText*>(plot->item(i));
        if (!text || !text->visible() || text->objectName() != QLatin1String("zoneLabel")) continue;
        labelsBottom = std::max(labelsBottom, text->bottomRight->pixelPosition().y());
        // And drawn over the bars, should a bar reach them anyway (a view that does not follow the data).
        EXPECT_GT(text->layer()->index(), plot->layer(QStringLiteral("main"))->index()) << text->text().toStdString();
      }
      ASSERT_GT(labelsBottom, 0) << "some zone label shows at " << size.width() << "x" << size.height();
      double highestBar = 1e9;  // pixels grow downwards
      int bars = 0;
      for (int i = 0; i < plot->plottableCount(); ++i) {
        auto* b = qobject_cast<QCPBars*>(plot->plottable(i));
        if (!b || !b->visible()) continue;
        for (auto it = b->data()->constBegin(); it != b->data()->constEnd(); ++it, ++bars)
          highestBar = std::min(highestBar, plot->yAxis->coordToPixel(it->value));
      }
      ASSERT_GT(bars, 0);
      EXPECT_GT(highestBar, labelsBottom) << (log ? "log" : "linear") << " counts at " << size.width() << "x"
                                          << size.height() << ": the tallest bar's top at " << highestBar
                                          << " px, the labels end at " << labelsBottom;
    }
  }
}

// Four modes' whole names, one per row, took 90 of a 230-pixel histogram panel at 1280x720. A short plot's
// legend puts the modes' identifiers side by side instead, and names every entry the same way.
TEST(PlotLayout, AShortPlotsLegendSharesRowsAndNamesEveryModeAlike) {
  TelemetryStore store;
  SyntheticOptions options;
  options.modes = {PrecisionMode::FP32, PrecisionMode::FP16Amp, PrecisionMode::FP16AmpScaled, PrecisionMode::BF16Amp};
  feed(store, 1, 10, options);
  for (const bool histogramPanel : {true, false}) {
    std::unique_ptr<PlotPanel> panel;
    if (histogramPanel)
      panel = std::make_unique<HistogramPlot>(&store);
    else
      panel = std::make_unique<UnderflowPlot>(&store);
    panel->show();
    panel->refresh();
    for (const QSize size : {QSize(330, 230), QSize(1400, 700)}) {
      panel->resize(size);
      settle(*panel);
      settle(*panel);
      QCPLegend* legend = panel->plot()->legend;
      int full = 0, shortNames = 0, entries = 0;
      for (int i = 0; i < legend->itemCount(); ++i) {
        auto* item = qobject_cast<ElidedLegendItem*>(legend->item(i));
        if (!item || !item->visible()) continue;
        ++entries;
        const QString shortName = item->plottable()->property(ElidedLegendItem::kShortNameProperty).toString();
        if (item->shownName() == item->fullName()) ++full;
        if (item->shownName() == shortName) ++shortNames;
      }
      const std::string what = std::string(panel->metaObject()->className()) + " at " +
                               std::to_string(size.width()) + "x" + std::to_string(size.height());
      ASSERT_EQ(entries, 4) << what;
      EXPECT_TRUE(full == entries || shortNames == entries) << what << ": " << full << " whole names, " << shortNames
                                                            << " identifiers";
      if (size.height() < 300) {
        EXPECT_EQ(shortNames, entries) << what;
        EXPECT_LE(legend->outerRect().height(), panel->plot()->height() / 4) << what;
      } else {
        EXPECT_EQ(full, entries) << what;
      }
    }
  }
}

TEST(PlotLayout, LegendNamesFitOrEndInAnEllipsisWithTheFullNameInATooltip) {
  TelemetryStore store;
  feed(store, 1, 20, SyntheticOptions{});
  UnderflowPlot plot(&store);
  plot.show();
  plot.refresh();
  // A followed run's label can be as long as its user likes.
  const QString longName = QStringLiteral("a followed run with a long label from the command line: FP16 AMP, no scaler");
  plot.graph(PrecisionMode::FP16Amp, UnderflowPlot::Quantity::FlushedToZero)->setName(longName);
  int elided = 0;
  for (int width : {1400, 300}) {
    plot.resize(width, 320);
    settle(plot);
    QCPLegend* legend = plot.plot()->legend;
    ASSERT_GT(legend->itemCount(), 0);
    for (int i = 0; i < legend->itemCount(); ++i) {
      auto* item = qobject_cast<ElidedLegendItem*>(legend->item(i));
      ASSERT_NE(item, nullptr) << "every entry can elide";
      if (!item->visible()) continue;
      const QFontMetrics fm(legend->font());
      // The entry's cell holds what it draws: icon, padding and the shown name, inside the plot.
      EXPECT_LE(item->chromeWidth() + fm.horizontalAdvance(item->shownName()), item->outerRect().width() + 1)
          << item->shownName().toStdString() << " at " << width;
      EXPECT_LE(item->outerRect().right(), plot.plot()->width());
      if (item->elided()) {
        ++elided;
        // Either the mode's identifier, whole, or a name with "…" where letters were left out.
        const QString shortName = item->plottable()->property(ElidedLegendItem::kShortNameProperty).toString();
        EXPECT_TRUE(item->shownName() == shortName || item->shownName().contains(QChar(0x2026)))
            << item->shownName().toStdString();
        // Hovering the entry shows the whole name.
        const QPoint at = item->rect().center();
        QMouseEvent move(QEvent::MouseMove, at, plot.plot()->mapToGlobal(at), Qt::NoButton, Qt::NoButton, Qt::NoModifier);
        QCoreApplication::sendEvent(plot.plot(), &move);
        EXPECT_EQ(QToolTip::text(), item->fullName());
      }
    }
  }
  EXPECT_GT(elided, 0) << "at 300 pixels the long name must have been elided";
}

// "FP16 AMP + GradScaler" and "FP16 AMP, no scaler" both elided to "FP16 A…" in a narrow loss plot: a
// legend that cannot tell its entries apart. Short of room they show the modes' identifiers, elided in
// the middle ("fp1…led", "fp…mp"), which differ.
TEST(PlotLayout, ANarrowLegendStillTellsEveryModeApart) {
  TelemetryStore store;
  SyntheticOptions options;
  options.modes = {PrecisionMode::FP32, PrecisionMode::FP16AmpScaled, PrecisionMode::FP16Amp};
  feed(store, 1, 20, options);
  LossPlot plot(&store);
  plot.show();
  plot.refresh();
  bool sawShort = false;
  for (int width : {900, 420, 300, 240}) {
    plot.resize(width, 320);
    settle(plot);
    QCPLegend* legend = plot.plot()->legend;
    QStringList shown;
    for (int i = 0; i < legend->itemCount(); ++i) {
      auto* item = qobject_cast<ElidedLegendItem*>(legend->item(i));
      if (!item || !item->visible()) continue;
      shown << item->shownName();
      const QString shortName = item->plottable()->property(ElidedLegendItem::kShortNameProperty).toString();
      EXPECT_FALSE(shortName.isEmpty()) << item->fullName().toStdString();
      sawShort = sawShort || (item->elided() && item->shownName() == shortName);
    }
    ASSERT_EQ(shown.size(), 3) << width;
    EXPECT_EQ(QSet<QString>(shown.begin(), shown.end()).size(), 3) << shown.join(u'|').toStdString() << " at " << width;
  }
  EXPECT_TRUE(sawShort) << "some width must have shown a mode's identifier";
}

}  // namespace
}  // namespace ampscope::ui
