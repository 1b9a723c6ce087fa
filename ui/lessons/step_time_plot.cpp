#include "ui/lessons/step_time_plot.h"

#include <qcustomplot.h>

#include <QEvent>
#include <cmath>

#include "ampscope/engine/telemetry_store.h"
#include "ui/training/mode_palette.h"

namespace ampscope::ui {

StepTimePlot::StepTimePlot(TelemetryStore* store, QWidget* parent) : PlotPanel(store, parent) {
  setObjectName(QStringLiteral("stepTimePlot"));
  plot()->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
  retranslate();
}

QCPGraph* StepTimePlot::timeGraph(PrecisionMode mode) const {
  auto it = lanes_.find(mode);
  return it == lanes_.end() ? nullptr : it->second.times;
}

std::optional<double> StepTimePlot::meanAfterWarmup(PrecisionMode mode) const {
  auto it = lanes_.find(mode);
  if (it == lanes_.end() || it->second.timedCount < kTimedSteps) return std::nullopt;
  return it->second.timedSum / it->second.timedCount;
}

void StepTimePlot::changeEvent(QEvent* event) {
  if (event->type() == QEvent::LanguageChange) retranslate();
  PlotPanel::changeEvent(event);
}

void StepTimePlot::retranslate() {
  plot()->xAxis->setLabel(tr("step"));
  plot()->yAxis->setLabel(tr("step time (ms)"));
  for (auto& [mode, lane] : lanes_) updateLane(mode, lane);
  replotQueued();
}

StepTimePlot::Lane& StepTimePlot::laneFor(PrecisionMode mode) {
  auto it = lanes_.find(mode);
  if (it != lanes_.end()) return it->second;
  Lane lane;
  lane.times = plot()->addGraph();
  setScaledPen(lane.times, QPen(ModePalette::color(mode), 1.0));
  lane.times->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCircle, 4));
  lane.mean = plot()->addGraph();
  setScaledPen(lane.mean, QPen(ModePalette::color(mode), 1.0, Qt::DotLine));
  lane.mean->removeFromLegend();
  lane.mean->setProperty("noReadout", true);
  Lane& inserted = lanes_.emplace(mode, lane).first->second;
  updateLane(mode, inserted);
  return inserted;
}

void StepTimePlot::updateLane(PrecisionMode mode, Lane& lane) {
  if (lane.timedCount >= kTimedSteps) {
    const double mean = lane.timedSum / lane.timedCount;
    lane.times->setName(tr("%1: %2 ms (mean of steps %3–%4)")
                            .arg(ModePalette::label(mode))
                            .arg(mean, 0, 'f', 2)
                            .arg(kWarmupSteps + 1)
                            .arg(kWarmupSteps + kTimedSteps));
    lane.mean->data()->clear();
    lane.mean->addData(kWarmupSteps + 1, mean);
    lane.mean->addData(std::max<double>(static_cast<double>(lane.lastStep), kWarmupSteps + kTimedSteps),
                       mean);
  } else {
    lane.times->setName(ModePalette::label(mode));
  }
}

void StepTimePlot::rebuildFromStore() {
  for (auto& [mode, lane] : lanes_) {
    plot()->removeGraph(lane.times);
    plot()->removeGraph(lane.mean);
  }
  lanes_.clear();
  appendFromStore();
}

void StepTimePlot::appendFromStore() {
  for (PrecisionMode mode : store()->modes()) {
    const ModeSeries* s = store()->series(mode);
    Lane& lane = laneFor(mode);
    auto it = s->recent.end();
    while (it != s->recent.begin() && (it - 1)->step > lane.lastStep) --it;
    QVector<double> keys, values;
    for (; it != s->recent.end(); ++it) {
      keys << static_cast<double>(it->step);
      values << it->stepTimeMs;
      if (it->step > kWarmupSteps && it->step <= kWarmupSteps + kTimedSteps &&
          std::isfinite(it->stepTimeMs)) {
        lane.timedSum += it->stepTimeMs;
        ++lane.timedCount;
      }
      lane.lastStep = it->step;
    }
    lane.times->addData(keys, values, /*alreadySorted=*/true);
    updateLane(mode, lane);
  }
}

void StepTimePlot::fitToData() {
  PlotPanel::fitToData();
  // Time starts at zero so the bars of different modes compare by height.
  QCPRange y = plot()->yAxis->range();
  plot()->yAxis->setRange(0, y.upper * 1.1);
  QCPRange x = plot()->xAxis->range();
  plot()->xAxis->setRange(0, x.upper + 1);
}

QString StepTimePlot::emptyNote() const { return tr("Run to see how long each step takes."); }

}  // namespace ampscope::ui
