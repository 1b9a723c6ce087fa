#include "ui/lessons/clip_norm_plot.h"

#include <qcustomplot.h>

#include <QEvent>
#include <cmath>

#include "ampscope/engine/telemetry_store.h"
#include "ui/training/elided_legend_item.h"
#include "ui/training/mode_palette.h"

namespace ampscope::ui {

namespace {
const QColor kMaxNormColor(120, 120, 120);
// A log axis cannot show 0 (clipping off, or a skipped step with no norm): such points are left out.
bool plottable(double v) { return std::isfinite(v) && v > 0; }
}  // namespace

ClipNormPlot::ClipNormPlot(TelemetryStore* store, QWidget* parent) : PlotPanel(store, parent) {
  setObjectName(QStringLiteral("clipNormPlot"));
  QCPAxis* y = plot()->yAxis;
  y->setScaleType(QCPAxis::stLogarithmic);
  y->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  y->setNumberFormat(QStringLiteral("eb"));
  y->setNumberPrecision(0);
  // Four long legend entries would cover the curves: the legend goes below the plot, two per row.
  if (plot()->axisRect()->insetLayout()->take(plot()->legend)) {
    plot()->plotLayout()->addElement(1, 0, plot()->legend);
    plot()->legend->setFillOrder(QCPLayoutGrid::foColumnsFirst);
    plot()->legend->setWrap(2);
    plot()->plotLayout()->setRowStretchFactor(1, 0.001);
  }

  maxNormLine_ = new QCPItemStraightLine(plot());
  maxNormLine_->setPen(QPen(kMaxNormColor, 1, Qt::DashDotLine));
  maxNormLabel_ = new QCPItemText(plot());
  maxNormLabel_->setColor(kMaxNormColor);
  maxNormLabel_->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  maxNormLabel_->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
  maxNormLabel_->position->setTypeY(QCPItemPosition::ptPlotCoords);
  retranslate();
}

QCPGraph* ClipNormPlot::seenGraph(PrecisionMode mode) const { return laneGraph(lanes_, mode, &Lane::seen); }

QCPGraph* ClipNormPlot::afterGraph(PrecisionMode mode) const { return laneGraph(lanes_, mode, &Lane::after); }

void ClipNormPlot::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslate();
  PlotPanel::changeEvent(event);
}

void ClipNormPlot::retranslate() {
  plot()->xAxis->setLabel(tr("step"));
  plot()->yAxis->setLabel(tr("gradient L2 norm (log)"));
  for (auto& [mode, lane] : lanes_) nameLane(mode, lane);
  updateMaxNormLine();
  replotQueued();
}

void ClipNormPlot::updateMaxNormLine() {
  const std::optional<RunConfig>& config = store()->config();
  const bool clipping = config && config->clipOrder != ClipOrder::Off;
  maxNormLine_->setVisible(clipping);
  maxNormLabel_->setVisible(clipping);
  if (!clipping) return;
  const double maxNorm = config->clipMaxNorm;
  maxNormLine_->point1->setCoords(0, maxNorm);
  maxNormLine_->point2->setCoords(1, maxNorm);
  maxNormLabel_->position->setCoords(0.01, maxNorm);
  maxNormLabel_->setText(tr("max_norm = %1").arg(maxNorm));
}

QCPGraph* ClipNormPlot::seenBandHighGraph(PrecisionMode mode) const {
  return laneGraph(lanes_, mode, [](const Lane& lane) { return lane.seenBand.high; });
}

ClipNormPlot::Lane& ClipNormPlot::laneFor(PrecisionMode mode) {
  auto it = lanes_.find(mode);
  if (it != lanes_.end()) return it->second;
  Lane lane;
  // Bands first, so the lines are drawn over them.
  lane.seenBand = BandGraphs::add(*this, ModePalette::color(mode), /*fillAlpha=*/40, Qt::SolidLine);
  lane.afterBand = BandGraphs::add(*this, ModePalette::color(mode), /*fillAlpha=*/40, Qt::DashLine);
  lane.seen = plot()->addGraph();
  setScaledPen(lane.seen, QPen(ModePalette::color(mode), 1.0));
  lane.after = plot()->addGraph();
  setScaledPen(lane.after, QPen(ModePalette::color(mode), 1.0, Qt::DashLine));
  nameLane(mode, lane);
  return lanes_.emplace(mode, lane).first->second;
}

void ClipNormPlot::nameLane(PrecisionMode mode, Lane& lane) {
  lane.seen->setName(tr("%1: norm clip_grad_norm_ saw").arg(ModePalette::label(mode)));
  lane.after->setName(tr("%1: true norm after clipping").arg(ModePalette::label(mode)));
  // What a narrow legend shows (see ElidedLegendItem): the mode's identifier and which of the two norms.
  lane.seen->setProperty(ElidedLegendItem::kShortNameProperty, tr("%1: clip saw").arg(ModePalette::name(mode)));
  lane.after->setProperty(ElidedLegendItem::kShortNameProperty, tr("%1: after clip").arg(ModePalette::name(mode)));
}

void ClipNormPlot::rebuildFromStore() {
  for (auto& [mode, lane] : lanes_) {
    lane.seenBand.removeFrom(plot());
    lane.afterBand.removeFrom(plot());
    plot()->removeGraph(lane.seen);
    plot()->removeGraph(lane.after);
  }
  lanes_.clear();
  updateMaxNormLine();
  for (PrecisionMode mode : store()->modes()) {
    const ModeSeries* s = store()->series(mode);
    Lane& lane = laneFor(mode);
    const auto fill = [&s](const BandGraphs& graphs, PositiveRange ScalarBucket::*range) {
      BandPoints band;
      band.reserve(s->buckets.size());
      for (const ScalarBucket& b : s->buckets) {
        const PositiveRange& r = b.*range;
        if (r.count == 0) {
          band.addGap(b.firstStep);  // nothing to show
        } else {
          band.addBucket(b.firstStep, b.lastStep, r.min, r.max);
        }
      }
      band.setOn(graphs);
    };
    fill(lane.seenBand, &ScalarBucket::normSeen);
    fill(lane.afterBand, &ScalarBucket::normAfterClip);
  }
  appendFromStore();
}

void ClipNormPlot::appendFromStore() {
  for (PrecisionMode mode : store()->modes()) {
    const ModeSeries* s = store()->series(mode);
    Lane& lane = laneFor(mode);
    auto it = s->recent.end();
    while (it != s->recent.begin() && (it - 1)->step > lane.lastStep) --it;
    QVector<double> seenKeys, seenValues, afterKeys, afterValues;
    for (; it != s->recent.end(); ++it) {
      const double key = static_cast<double>(it->step);
      const double seen = it->normSeen();
      const double after = it->normAfterClip();
      if (plottable(seen)) {
        seenKeys << key;
        seenValues << seen;
      }
      if (plottable(after)) {
        afterKeys << key;
        afterValues << after;
      }
      lane.lastStep = it->step;
    }
    lane.seen->addData(seenKeys, seenValues, /*alreadySorted=*/true);
    lane.after->addData(afterKeys, afterValues, /*alreadySorted=*/true);
  }
}

void ClipNormPlot::fitToData() {
  PlotPanel::fitToData();
  QCPRange y = plot()->yAxis->range();
  if (maxNormLine_->visible()) {
    const double maxNorm = store()->config()->clipMaxNorm;
    y.lower = std::min(y.lower, maxNorm);
    y.upper = std::max(y.upper, maxNorm);
  }
  if (y.lower > 0) plot()->yAxis->setRange(y.lower / 3, y.upper * 3);
}

QString ClipNormPlot::emptyNote() const { return tr("Run to see the gradient norm before and after clipping."); }

}  // namespace ampscope::ui
