#include "ui/training/scale_plot.h"

#include <cmath>
#include <qcustomplot.h>

#include "ampscope/engine/number_text.h"
#include "ampscope/engine/telemetry_store.h"
#include "ui/training/elided_legend_item.h"
#include "ui/training/mode_palette.h"
#include "ui/training/power_of_two_ticker.h"
#include "ui/training/series_style.h"

namespace ampscope::ui {

ScalePlot::ScalePlot(TelemetryStore* store, QWidget* parent) : PlotPanel(store, parent) {
  plot()->xAxis->setLabel(tr("step"));
  plot()->yAxis->setLabel(tr("loss scale (log₂ axis)"));
  plot()->yAxis->setScaleType(QCPAxis::stLogarithmic);
  plot()->yAxis->setTicker(QSharedPointer<PowerOfTwoTicker>::create());
  plot()->yAxis->setRange(1, 65536.0 * 4);
  plot()->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
  emptyNote_ = new QCPItemText(plot());
  emptyNote_->position->setType(QCPItemPosition::ptAxisRectRatio);
  emptyNote_->position->setCoords(0.5, 0.5);
  emptyNote_->setText(tr("No mode in this run uses a GradScaler\n(fp16-amp-scaled does)."));
  emptyNote_->setColor(Qt::darkGray);
  updateEmptyNote();
}

QCPGraph* ScalePlot::scaleGraph(SeriesKey key) const { return laneGraph(lanes_, key, &Lane::scale); }

QCPGraph* ScalePlot::skippedGraph(SeriesKey key) const { return laneGraph(lanes_, key, &Lane::skipped); }

QCPGraph* ScalePlot::bandLowGraph(PrecisionMode mode) const {
  return laneGraph(lanes_, SeriesKey{kEngineRun, mode}, [](const Lane& lane) { return lane.band.low; });
}

QCPGraph* ScalePlot::bandHighGraph(PrecisionMode mode) const {
  return laneGraph(lanes_, SeriesKey{kEngineRun, mode}, [](const Lane& lane) { return lane.band.high; });
}

ScalePlot::Lane& ScalePlot::laneFor(SeriesKey key) {
  auto it = lanes_.find(key);
  if (it != lanes_.end()) return it->second;
  Lane lane;
  const QColor color = ModePalette::color(key.mode);
  // The band first, so the step line is drawn over it.
  lane.band = BandGraphs::add(*this, color, /*fillAlpha=*/60, SeriesStyle::penStyle(key.run));
  lane.scale = plot()->addGraph();
  lane.scale->setName(SeriesStyle::label(*store(), key));
  lane.scale->setProperty(ElidedLegendItem::kShortNameProperty, SeriesStyle::shortLabel(*store(), key));
  lane.scale->setLineStyle(QCPGraph::lsStepLeft);
  lane.scale->setAdaptiveSampling(true);
  setScaledPen(lane.scale, SeriesStyle::pen(key, key.run == kEngineRun ? 1.0 : 1.5));
  lane.skipped = plot()->addGraph();
  lane.skipped->setName(tr("%1: skipped step").arg(SeriesStyle::label(*store(), key)));
  lane.skipped->setProperty(ElidedLegendItem::kShortNameProperty,
                            tr("%1 skipped").arg(SeriesStyle::shortLabel(*store(), key)));
  lane.skipped->setLineStyle(QCPGraph::lsNone);
  lane.skipped->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, QPen(QColor(200, 0, 0), 1.5),
                                                QBrush(Qt::white), 7));
  lane.skipped->setProperty("noReadout", true);
  return lanes_.emplace(key, lane).first->second;
}

void ScalePlot::updateEmptyNote() { emptyNote_->setVisible(lanes_.empty()); }

void ScalePlot::rebuildFromStore() {
  for (auto& [mode, lane] : lanes_) {
    lane.band.removeFrom(plot());
    plot()->removeGraph(lane.scale);
    plot()->removeGraph(lane.skipped);
  }
  lanes_.clear();
  for (SeriesKey key : store()->seriesKeys()) {
    if (!store()->usesScaler(key)) continue;
    const ModeSeries* s = store()->series(key);
    Lane& lane = laneFor(key);
    BandPoints band;
    band.reserve(s->buckets.size());
    QVector<double> keys, values, skipKeys, skipValues;
    for (const ScalarBucket& b : s->buckets) {
      band.addBucket(b.firstStep, b.lastStep, b.minScale, b.maxScale);
      // A bucket keeps its first and last scale: enough for the step line to show the net change.
      keys << static_cast<double>(b.firstStep) << static_cast<double>(b.lastStep);
      values << b.firstScale << b.lastScale;
      if (b.skipped > 0) {
        skipKeys << static_cast<double>(b.lastStep);
        skipValues << b.lastScale;
      }
    }
    for (const ScalarPoint& p : s->recent) {
      keys << static_cast<double>(p.step);
      values << p.lossScale;
      if (p.skipped) {
        skipKeys << static_cast<double>(p.step);
        skipValues << p.lossScale;
      }
    }
    band.setOn(lane.band);
    lane.scale->setData(keys, values, true);
    lane.skipped->setData(skipKeys, skipValues, true);
    lane.lastStep = s->lastStep;
  }
  updateEmptyNote();
}

void ScalePlot::appendFromStore() {
  bool changed = false;
  for (SeriesKey key : store()->seriesKeys()) {
    if (!store()->usesScaler(key)) continue;
    const ModeSeries* s = store()->series(key);
    Lane& lane = laneFor(key);
    auto it = s->recent.end();
    while (it != s->recent.begin() && (it - 1)->step > lane.lastStep) --it;
    QVector<double> keys, values, skipKeys, skipValues;
    for (; it != s->recent.end(); ++it) {
      keys << static_cast<double>(it->step);
      values << it->lossScale;
      if (it->skipped) {
        skipKeys << static_cast<double>(it->step);
        skipValues << it->lossScale;
      }
      lane.lastStep = it->step;
    }
    if (!keys.isEmpty()) lane.scale->addData(keys, values, true);
    if (!skipKeys.isEmpty()) lane.skipped->addData(skipKeys, skipValues, true);
    changed = changed || !keys.isEmpty();
  }
  updateEmptyNote();
  if (!changed) skipReplot();
}

void ScalePlot::fitToData() {
  // From the data itself: a flat line (the scale between growths) gives rescaleAxes nothing to fit on a
  // log axis. One binade of head room either side so growth and backoff jumps are not glued to the frame.
  double lo = 0, hi = 0, lastKey = 1;
  bool any = false;
  for (const auto& [mode, lane] : lanes_) {
    bool found = false;
    const QCPRange r = lane.scale->data()->valueRange(found);
    if (!found) continue;
    lo = any ? std::min(lo, r.lower) : r.lower;
    hi = any ? std::max(hi, r.upper) : r.upper;
    lastKey = std::max(lastKey, (lane.scale->data()->constEnd() - 1)->key);
    any = true;
  }
  if (!any || lo <= 0) return;
  plot()->yAxis->setRange(std::exp2(std::floor(std::log2(lo)) - 1), std::exp2(std::ceil(std::log2(hi)) + 1));
  plot()->xAxis->setRange(0, lastKey + std::max(1.0, 0.02 * lastKey));
}

// Its own note (no mode with a GradScaler) is its empty state.
QString ScalePlot::emptyNote() const { return {}; }

std::optional<PlotPanel::PlotValue> ScalePlot::valueAt(double key, double value) const {
  QCPGraph* graph = nullptr;
  double step = 0, scale = 0;
  if (!nearestGraphPoint(key, value, &graph, &step, &scale)) return std::nullopt;
  PlotValue shown;
  shown.value = scale;
  shown.context = tr("Loss scale, %1 at step %2: %3 (%4). The scaler multiplies the loss, and so every "
                     "gradient, by it; a power of two changes only the exponent bits.")
                      .arg(graph->name())
                      .arg(static_cast<qint64>(std::llround(step)))
                      .arg(QString::fromStdString(numberText(scale)), PowerOfTwoTicker::scaleLabel(scale));
  return shown;
}

}  // namespace ampscope::ui
