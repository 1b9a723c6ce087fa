#include "ui/training/loss_plot.h"

#include <QCheckBox>
#include <QLabel>
#include <QSlider>
#include <cmath>
#include <qcustomplot.h>

#include "ampscope/engine/telemetry_store.h"
#include "ui/training/elided_legend_item.h"
#include "ui/training/mode_palette.h"
#include "ui/training/series_style.h"

namespace ampscope::ui {

namespace {
const QColor kNonFiniteColor(200, 0, 0);
constexpr int kSmoothingSteps = 100;  // slider resolution; value/100 * 0.99 is the EMA weight
}  // namespace

LossPlot::LossPlot(TelemetryStore* store, QWidget* parent) : PlotPanel(store, parent) {
  log_ = new QCheckBox(tr("Log y"), this);
  log_->setToolTip(tr("Logarithmic loss axis: late training differences stay visible."));
  auto* smoothLabel = new QLabel(tr("Smoothing"), this);
  smoothingSlider_ = new QSlider(Qt::Horizontal, this);
  smoothingSlider_->setRange(0, kSmoothingSteps);
  smoothingSlider_->setMaximumWidth(140);
  smoothingSlider_->setToolTip(
      tr("Exponential moving average of the loss (0 = raw values). NaN/Inf are never averaged away."));
  controls()->insertWidget(1, log_);
  controls()->insertWidget(2, smoothLabel);
  controls()->insertWidget(3, smoothingSlider_);
  connect(log_, &QCheckBox::toggled, this, &LossPlot::setLogScale);
  connect(smoothingSlider_, &QSlider::valueChanged, this,
          [this](int v) { setSmoothing(0.99 * v / static_cast<double>(kSmoothingSteps)); });

  plot()->xAxis->setLabel(tr("step"));
  plot()->yAxis->setLabel(tr("loss (cross-entropy, nats)"));
  plot()->legend->setFont(font());
  plot()->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignTop | Qt::AlignRight);
}

void LossPlot::setLogScale(bool log) {
  if (log_->isChecked() != log) log_->setChecked(log);
  setLogValueAxis(log);
  if (followLatest()) fitToData();
  replotQueued();
}

bool LossPlot::logScale() const { return log_->isChecked(); }

void LossPlot::setSmoothing(double beta) {
  smoothing_ = std::clamp(beta, 0.0, 0.999);
  const int slider = static_cast<int>(std::lround(smoothing_ / 0.99 * kSmoothingSteps));
  if (smoothingSlider_->value() != slider) {
    const QSignalBlocker block(smoothingSlider_);
    smoothingSlider_->setValue(slider);
  }
  refresh();
}

QCPGraph* LossPlot::lossGraph(SeriesKey key) const { return laneGraph(lanes_, key, &Lane::loss); }

QCPGraph* LossPlot::nonFiniteGraph(SeriesKey key) const { return laneGraph(lanes_, key, &Lane::nonFinite); }

QCPGraph* LossPlot::bandLowGraph(PrecisionMode mode) const {
  return laneGraph(lanes_, SeriesKey{kEngineRun, mode}, [](const Lane& lane) { return lane.band.low; });
}

QCPGraph* LossPlot::bandHighGraph(PrecisionMode mode) const {
  return laneGraph(lanes_, SeriesKey{kEngineRun, mode}, [](const Lane& lane) { return lane.band.high; });
}

LossPlot::Lane& LossPlot::laneFor(SeriesKey key) {
  auto it = lanes_.find(key);
  if (it != lanes_.end()) return it->second;
  Lane lane;
  // The band first, so the line is drawn over it.
  const QColor color = ModePalette::color(key.mode);
  lane.band = BandGraphs::add(*this, color, /*fillAlpha=*/60, SeriesStyle::penStyle(key.run));
  lane.loss = plot()->addGraph();
  lane.loss->setName(SeriesStyle::label(*store(), key));
  lane.loss->setProperty(ElidedLegendItem::kShortNameProperty, SeriesStyle::shortLabel(*store(), key));
  setScaledPen(lane.loss, SeriesStyle::pen(key, key.run == kEngineRun ? 1.0 : 1.5));
  lane.loss->setAdaptiveSampling(true);
  lane.nonFinite = plot()->addGraph();
  lane.nonFinite->setLineStyle(QCPGraph::lsNone);
  lane.nonFinite->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, kNonFiniteColor, 9));
  lane.nonFinite->setPen(QPen(kNonFiniteColor, 2));
  lane.nonFinite->setProperty("noReadout", true);
  lane.nonFinite->removeFromLegend();
  return lanes_.emplace(key, lane).first->second;
}

void LossPlot::addPoint(Lane& lane, int64_t step, double key, double loss) {
  lane.lastStep = step;
  if (!std::isfinite(loss)) {
    // A gap in the line (QCustomPlot breaks lines at NaN) plus a red cross where the line stopped.
    lane.loss->addData(key, std::nan(""));
    lane.nonFinite->addData(key, lane.haveFinite ? lane.lastFinite : 0.0);
    return;
  }
  double shown = loss;
  if (smoothing_ > 0) {
    lane.ema = lane.emaStarted ? smoothing_ * lane.ema + (1 - smoothing_) * loss : loss;
    lane.emaStarted = true;
    shown = lane.ema;
  }
  lane.lastFinite = shown;
  lane.haveFinite = true;
  lane.loss->addData(key, shown);
}

void LossPlot::markDivergence(SeriesKey key, Lane& lane, int64_t step) {
  if (divergedLabels_.count(key)) return;
  const double y = lane.haveFinite ? lane.lastFinite : 0.0;
  lane.nonFinite->addData(static_cast<double>(step), y);
  auto* label = new QCPItemText(plot());
  label->position->setCoords(static_cast<double>(step), y);
  label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
  label->setText(tr("✕ %1 diverged at step %2").arg(SeriesStyle::label(*store(), key)).arg(step));
  label->setColor(kNonFiniteColor);
  label->setPadding(QMargins(4, 0, 0, 2));
  QFont f = font();
  f.setBold(true);
  label->setFont(f);
  divergedLabels_[key] = label;
}

void LossPlot::rebuildFromStore() {
  for (auto& [mode, label] : divergedLabels_) plot()->removeItem(label);
  divergedLabels_.clear();
  for (auto& [mode, lane] : lanes_) {
    lane.band.removeFrom(plot());
    plot()->removeGraph(lane.loss);
    plot()->removeGraph(lane.nonFinite);
  }
  lanes_.clear();
  for (SeriesKey key : store()->seriesKeys()) {
    const ModeSeries* s = store()->series(key);
    Lane& lane = laneFor(key);
    BandPoints band;
    band.reserve(s->buckets.size());
    QVector<double> keys, values, badKeys, badValues;
    keys.reserve(static_cast<int>(s->recent.size()));
    for (const ScalarBucket& b : s->buckets) {
      const double first = static_cast<double>(b.firstStep), last = static_cast<double>(b.lastStep);
      if (b.finiteCount > 0) {
        band.addBucket(b.firstStep, b.lastStep, b.lossMin, b.lossMax);
        // The line starts after the buckets; its moving average starts warm from their means.
        const double mean = b.lossMean();
        lane.ema = lane.emaStarted ? smoothing_ * lane.ema + (1 - smoothing_) * mean : mean;
        lane.emaStarted = true;
        lane.lastFinite = smoothing_ > 0 ? lane.ema : mean;
        lane.haveFinite = true;
      } else {
        band.addGap(b.firstStep);  // only NaN/Inf in this bucket
      }
      if (b.nonFiniteCount > 0) {
        badKeys << 0.5 * (first + last);
        badValues << (b.finiteCount > 0 ? b.lossMax : (lane.haveFinite ? lane.lastFinite : 0.0));
      }
    }
    for (const ScalarPoint& p : s->recent) {
      const double key = static_cast<double>(p.step);
      if (!std::isfinite(p.loss)) {
        // A gap in the line plus a red cross where the line stopped (as addPoint does).
        keys << key;
        values << std::nan("");
        badKeys << key;
        badValues << (lane.haveFinite ? lane.lastFinite : 0.0);
        continue;
      }
      double shown = p.loss;
      if (smoothing_ > 0) {
        lane.ema = lane.emaStarted ? smoothing_ * lane.ema + (1 - smoothing_) * p.loss : p.loss;
        lane.emaStarted = true;
        shown = lane.ema;
      }
      lane.lastFinite = shown;
      lane.haveFinite = true;
      keys << key;
      values << shown;
    }
    band.setOn(lane.band);
    lane.loss->setData(keys, values, /*alreadySorted=*/true);
    lane.nonFinite->setData(badKeys, badValues, /*alreadySorted=*/true);
    lane.lastStep = s->lastStep;
    if (s->divergedAt) markDivergence(key, lane, *s->divergedAt);
  }
}

void LossPlot::appendFromStore() {
  bool changed = false;
  for (SeriesKey key : store()->seriesKeys()) {
    const ModeSeries* s = store()->series(key);
    Lane& lane = laneFor(key);
    const int64_t stepBefore = lane.lastStep;
    // New points are at the back of `recent`: walk back to the first unseen one.
    auto it = s->recent.end();
    while (it != s->recent.begin() && (it - 1)->step > lane.lastStep) --it;
    QVector<double> keys, values;
    for (; it != s->recent.end(); ++it) {
      if (!std::isfinite(it->loss)) {
        if (!keys.isEmpty()) lane.loss->addData(keys, values, /*alreadySorted=*/true);
        keys.clear();
        values.clear();
        addPoint(lane, it->step, static_cast<double>(it->step), it->loss);
        continue;
      }
      // Batch the finite ones; addPoint's EMA logic inlined to keep one addData per drain.
      double shown = it->loss;
      if (smoothing_ > 0) {
        lane.ema = lane.emaStarted ? smoothing_ * lane.ema + (1 - smoothing_) * it->loss : it->loss;
        lane.emaStarted = true;
        shown = lane.ema;
      }
      lane.lastFinite = shown;
      lane.haveFinite = true;
      lane.lastStep = it->step;
      keys << static_cast<double>(it->step);
      values << shown;
    }
    if (!keys.isEmpty()) lane.loss->addData(keys, values, /*alreadySorted=*/true);
    if (s->divergedAt && !divergedLabels_.count(key)) {
      markDivergence(key, lane, *s->divergedAt);
      changed = true;
    }
    changed = changed || lane.lastStep != stepBefore;
  }
  if (!changed) skipReplot();
}

void LossPlot::fitToData() {
  PlotPanel::fitToData();
  // Keep the crosses and labels inside the frame: a little head room above the data.
  QCPRange y = plot()->yAxis->range();
  if (plot()->yAxis->scaleType() == QCPAxis::stLinear) {
    const double pad = 0.05 * std::max(y.size(), 1e-12);
    plot()->yAxis->setRange(y.lower - pad, y.upper + pad);
  } else if (y.lower > 0) {
    plot()->yAxis->setRange(y.lower / 1.5, y.upper * 1.5);
  }
  // A little room left of the first step too: a spike in the first bucket would hide in the y axis.
  QCPRange x = plot()->xAxis->range();
  plot()->xAxis->setRange(std::max(0.0, x.lower) - 0.01 * x.size(), x.upper + std::max(1.0, 0.02 * x.size()));
}

QString LossPlot::emptyNote() const { return tr("Run to see each mode's loss, step by step."); }

}  // namespace ampscope::ui
