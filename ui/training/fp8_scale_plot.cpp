#include "ui/training/fp8_scale_plot.h"

#include <QComboBox>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "ampscope/engine/number_text.h"
#include "ui/training/mode_palette.h"
#include "ui/training/power_of_two_ticker.h"
#include "ui/training/series_style.h"

namespace ampscope::ui {

namespace {

// More lanes than this and the legend would cover the plot: the read-out names them instead.
constexpr int kMaxLegendLanes = 6;

bool isBlock(ScalingKind kind) { return kind == ScalingKind::MxBlock || kind == ScalingKind::Nvfp4Block; }

// The operand a tensor name ends in: "input" (and a matmul's "other"), "weight", or the gradient.
Qt::PenStyle operandStyle(const QuantSeries& q) {
  if (q.backward) return Qt::DotLine;
  const std::string& n = q.name;
  const std::string weight = ".weight";
  if (n.size() >= weight.size() && n.compare(n.size() - weight.size(), weight.size(), weight) == 0)
    return Qt::DashLine;
  return Qt::SolidLine;
}

// Layers of one mode read apart by shade, the mode's colour kept recognisable.
QColor shadeOf(QColor base, int shade) {
  static constexpr int kFactors[] = {100, 145, 65, 185, 45};
  const int f = kFactors[shade % 5];
  if (f == 100) return base;
  return f > 100 ? base.lighter(f) : base.darker(100 * 100 / f);
}

}  // namespace

Fp8ScalePlot::Fp8ScalePlot(TelemetryStore* store, QWidget* parent) : PlotPanel(store, parent) {
  filter_ = new QComboBox(this);
  filter_->setMinimumContentsLength(18);
  filter_->setSizeAdjustPolicy(QComboBox::AdjustToMinimumContentsLengthWithIcon);
  filter_->setToolTip(tr("Which quantised tensors: all of them, the forward operands (inputs and weights, "
                         "E4M3), the gradients (E5M2), or one tensor."));
  controls()->insertWidget(1, filter_);
  connect(filter_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  plot()->xAxis->setLabel(tr("step"));
  plot()->yAxis->setLabel(tr("scale: values × scale before rounding (log₂ axis)"));
  plot()->yAxis->setScaleType(QCPAxis::stLogarithmic);
  plot()->yAxis->setTicker(QSharedPointer<PowerOfTwoTicker>::create());
  plot()->yAxis->setRange(std::ldexp(1.0, -4), std::ldexp(1.0, 16));
  plot()->axisRect()->insetLayout()->setInsetAlignment(0, Qt::AlignBottom | Qt::AlignRight);
  refillFilterCombo();
}

std::pair<double, double> Fp8ScalePlot::blockScaleRange(int blockScaleExpMin, int blockScaleExpMax) {
  return {std::ldexp(1.0, -blockScaleExpMax), std::ldexp(1.0, -blockScaleExpMin)};
}

void Fp8ScalePlot::setTensorFilter(const QString& filter) {
  refillFilterCombo();
  const int index = filter_->findData(filter);
  if (index >= 0) filter_->setCurrentIndex(index);
}

QString Fp8ScalePlot::tensorFilter() const { return filter_->currentData().toString(); }

bool Fp8ScalePlot::matchesFilter(const QuantSeries& q) const {
  const QString f = tensorFilter();
  if (f.isEmpty()) return true;
  if (f == QLatin1String(kForward)) return !q.backward;
  if (f == QLatin1String(kBackward)) return q.backward;
  return QString::fromStdString(q.name) == f;
}

void Fp8ScalePlot::refillFilterCombo() {
  QStringList names;
  for (SeriesKey key : store()->seriesKeys())
    for (const QuantSeries& q : store()->series(key)->quantized) {
      const QString name = QString::fromStdString(q.name);
      if (!names.contains(name)) names << name;
    }
  if (names == names_ && filter_->count() > 0) return;
  names_ = names;
  const QString current = tensorFilter();
  const QSignalBlocker block(filter_);
  filter_->clear();
  filter_->addItem(tr("All quantised tensors"), QString());
  filter_->addItem(tr("Forward: inputs and weights"), QString::fromLatin1(kForward));
  filter_->addItem(tr("Backward: gradients"), QString::fromLatin1(kBackward));
  for (const QString& n : names) filter_->addItem(n, n);
  const int index = filter_->findData(current);
  filter_->setCurrentIndex(index >= 0 ? index : 0);
}

QCPGraph* Fp8ScalePlot::scaleGraph(SeriesKey key, const QString& tensor) const {
  return laneGraph(lanes_, LaneKey{key, tensor.toStdString()}, &Lane::scale);
}

QCPGraph* Fp8ScalePlot::bandLowGraph(SeriesKey key, const QString& tensor) const {
  return laneGraph(lanes_, LaneKey{key, tensor.toStdString()}, [](const Lane& l) { return l.band.low; });
}

QCPGraph* Fp8ScalePlot::bandHighGraph(SeriesKey key, const QString& tensor) const {
  return laneGraph(lanes_, LaneKey{key, tensor.toStdString()}, [](const Lane& l) { return l.band.high; });
}

Fp8ScalePlot::Lane& Fp8ScalePlot::laneFor(SeriesKey key, const QuantSeries& q, int shade) {
  const LaneKey laneKey{key, q.name};
  auto it = lanes_.find(laneKey);
  if (it != lanes_.end()) return it->second;
  Lane lane;
  lane.block = isBlock(q.scaling);
  const QColor color = shadeOf(ModePalette::color(key.mode), shade);
  const QString name = QStringLiteral("%1: %2").arg(SeriesStyle::label(*store(), key), QString::fromStdString(q.name));
  if (lane.block) {
    lane.band = BandGraphs::add(*this, color, /*fillAlpha=*/70, operandStyle(q));
    // The band's high edge speaks for the lane in the legend and the read-out.
    lane.band.high->setName(name);
    lane.band.high->addToLegend();
    lane.band.high->setProperty("noReadout", false);
    lane.band.high->setProperty("readoutName", tr("%1 (largest block scale)").arg(name));
    lane.band.low->setName(name);
    lane.band.low->setProperty("noReadout", false);
    lane.band.low->setProperty("readoutName", tr("%1 (smallest block scale)").arg(name));
  } else {
    lane.scale = plot()->addGraph();
    lane.scale->setName(name);
    lane.scale->setLineStyle(QCPGraph::lsStepLeft);
    lane.scale->setAdaptiveSampling(true);
    QPen pen(color, key.run == kEngineRun ? 1.4 : 1.8, operandStyle(q));
    setScaledPen(lane.scale, pen);
  }
  return lanes_.emplace(laneKey, lane).first->second;
}

void Fp8ScalePlot::addPoints(Lane& lane, const QuantSeries& q, bool onlyNew) {
  auto it = q.points.end();
  if (onlyNew) {
    while (it != q.points.begin() && (it - 1)->step > lane.lastStep) --it;
  } else {
    it = q.points.begin();
  }
  QVector<double> keys, values, lows;
  for (; it != q.points.end(); ++it) {
    keys << static_cast<double>(it->step);
    if (lane.block) {
      const auto [lo, hi] = blockScaleRange(it->blockScaleExpMin, it->blockScaleExpMax);
      lows << lo;
      values << hi;
    } else {
      values << it->scale;
    }
    lane.lastStep = it->step;
  }
  if (keys.isEmpty()) return;
  if (lane.block) {
    lane.band.low->addData(keys, lows, true);
    lane.band.high->addData(keys, values, true);
  } else {
    lane.scale->addData(keys, values, true);
  }
}

void Fp8ScalePlot::updateLegendVisibility() {
  const bool inLegend = static_cast<int>(lanes_.size()) <= kMaxLegendLanes;
  for (auto& [key, lane] : lanes_) {
    QCPGraph* g = lane.block ? lane.band.high : lane.scale;
    if (inLegend)
      g->addToLegend();
    else
      g->removeFromLegend();
  }
}

void Fp8ScalePlot::rebuildFromStore() {
  for (auto& [key, lane] : lanes_) {
    if (lane.block)
      lane.band.removeFrom(plot());
    else
      plot()->removeGraph(lane.scale);
  }
  lanes_.clear();
  addFromStore(/*onlyNew=*/false);
  updateLegendVisibility();
}

void Fp8ScalePlot::appendFromStore() {
  const std::size_t before = lanes_.size();
  const bool changed = addFromStore(/*onlyNew=*/true);
  if (lanes_.size() != before) updateLegendVisibility();
  if (!changed) skipReplot();
}

bool Fp8ScalePlot::addFromStore(bool onlyNew) {
  bool changed = false;
  refillFilterCombo();
  for (SeriesKey key : store()->seriesKeys()) {
    const ModeSeries* s = store()->series(key);
    QStringList layers;  // the shade of a lane is its layer's place in the mode's tensor order
    for (const QuantSeries& q : s->quantized) {
      const QString layer = QString::fromStdString(q.layer);
      if (!layers.contains(layer)) layers << layer;
      if (!matchesFilter(q)) continue;
      Lane& lane = laneFor(key, q, static_cast<int>(layers.indexOf(layer)));
      const int64_t last = lane.lastStep;
      addPoints(lane, q, onlyNew);
      changed = changed || lane.lastStep != last;
    }
  }
  return changed;
}

void Fp8ScalePlot::fitToData() {
  // From the data (a flat scale gives rescaleAxes nothing to fit on a log axis), a binade of head room
  // either side.
  double lo = 0, hi = 0, lastKey = 1;
  bool any = false;
  const auto take = [&](const QCPGraph* g) {
    bool found = false;
    // On a log axis only positive values count.
    const QCPRange r = g->data()->valueRange(found, QCP::sdPositive);
    if (!found) return;
    const double rLo = r.lower, rHi = r.upper;
    lo = any ? std::min(lo, rLo) : rLo;
    hi = any ? std::max(hi, rHi) : rHi;
    lastKey = std::max(lastKey, (g->data()->constEnd() - 1)->key);
    any = true;
  };
  for (const auto& [key, lane] : lanes_) {
    if (lane.block) {
      take(lane.band.low);
      take(lane.band.high);
    } else {
      take(lane.scale);
    }
  }
  if (!any || lo <= 0) return;
  plot()->yAxis->setRange(std::exp2(std::floor(std::log2(lo)) - 1), std::exp2(std::ceil(std::log2(hi)) + 1));
  plot()->xAxis->setRange(0, lastKey + std::max(1.0, 0.02 * lastKey));
}

QString Fp8ScalePlot::emptyNote() const { return tr("Run an FP8 mode to see its scales."); }

std::optional<PlotPanel::PlotValue> Fp8ScalePlot::valueAt(double key, double value) const {
  QCPGraph* graph = nullptr;
  double step = 0, scale = 0;
  if (!nearestGraphPoint(key, value, &graph, &step, &scale)) return std::nullopt;
  const QVariant readoutName = graph->property("readoutName");
  PlotValue shown;
  shown.value = scale;
  shown.context = tr("Scale, %1 at step %2: %3 (%4). The recipe multiplies the tensor by it before rounding "
                     "to the FP8 format.")
                      .arg(readoutName.isValid() ? readoutName.toString() : graph->name())
                      .arg(static_cast<qint64>(std::llround(step)))
                      .arg(QString::fromStdString(numberText(scale)), PowerOfTwoTicker::scaleLabel(scale));
  return shown;
}

}  // namespace ampscope::ui
