#include "ui/training/heat_map_plot.h"

#include <QComboBox>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "ampscope/engine/telemetry_store.h"
#include "ui/training/mode_palette.h"
#include "ui/training/power_of_two_ticker.h"
#include "ui/training/series_style.h"

namespace ampscope::ui {

HeatMapPlot::HeatMapPlot(TelemetryStore* store, QWidget* parent) : PlotPanel(store, parent) {
  modeCombo_ = new QComboBox(this);
  scaledCombo_ = new QComboBox(this);
  scaledCombo_->addItem(tr("Scaled"));
  scaledCombo_->addItem(tr("Unscaled"));
  scaledCombo_->setToolTip(tr("Scaled: as the GradScaler saw them; unscaled: as the optimizer gets them."));
  controls()->insertWidget(1, modeCombo_);
  controls()->insertWidget(2, scaledCombo_);
  connect(modeCombo_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });
  connect(scaledCombo_, &QComboBox::currentIndexChanged, this, [this] { redraw(); });

  plot()->legend->setVisible(false);
  plot()->xAxis->setLabel(tr("step"));
  plot()->yAxis->setLabel(tr("binary exponent ⌊log₂|g|⌋"));
  map_ = new QCPColorMap(plot()->xAxis, plot()->yAxis);
  colorScale_ = new QCPColorScale(plot());
  plot()->plotLayout()->addElement(0, 1, colorScale_);
  colorScale_->setType(QCPAxis::atRight);
  colorScale_->setDataScaleType(QCPAxis::stLogarithmic);
  colorScale_->axis()->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
  colorScale_->axis()->setNumberFormat(QStringLiteral("eb"));
  colorScale_->axis()->setNumberPrecision(0);
  colorScale_->axis()->setLabel(tr("values per bin"));
  map_->setColorScale(colorScale_);
  QCPColorGradient gradient(QCPColorGradient::gpThermal);
  gradient.setNanHandling(QCPColorGradient::nhTransparent);
  map_->setGradient(gradient);
  map_->setInterpolate(false);
  auto margins = new QCPMarginGroup(plot());
  plot()->axisRect()->setMarginGroup(QCP::msBottom | QCP::msTop, margins);
  colorScale_->setMarginGroup(QCP::msBottom | QCP::msTop, margins);

  // The shown series' format's landmarks as horizontal lines (landmarks(): flush edge, smallest normal,
  // overflow), FP16's until a series is shown.
  for (int i = 0; i < 3; ++i) {
    const QColor c = i == 1 ? QColor(200, 160, 0) : QColor(220, 0, 0);
    auto* line = new QCPItemStraightLine(plot());
    line->setPen(QPen(c, 1, Qt::DashLine));
    auto* label = new QCPItemText(plot());
    label->position->setTypeX(QCPItemPosition::ptAxisRectRatio);
    label->position->setTypeY(QCPItemPosition::ptPlotCoords);
    label->setPositionAlignment(Qt::AlignLeft | Qt::AlignBottom);
    label->setColor(c);
    lines_[static_cast<size_t>(i)] = line;
    lineLabels_[static_cast<size_t>(i)] = label;
  }
  setLandmarks(PrecisionMode::FP32);
}

void HeatMapPlot::setLandmarks(PrecisionMode mode) {
  const ModeFormats f = modeFormats(mode);
  zones_ = formatZones(f.measuredAgainst, f.quantised);
  // Row e holds |g| in [2^e, 2^(e+1)): a boundary at 2^b lies between rows b - 1 and b.
  const double ys[] = {zones_.flushLog2 + 0.5 - 1, zones_.normalLog2 - 0.5, std::ceil(zones_.overflowLog2) - 0.5};
  const QString texts[] = {tr("%1 flush to 0 below").arg(zones_.name), tr("%1 subnormal below").arg(zones_.name),
                           zones_.saturates ? tr("%1 saturates above").arg(zones_.name)
                                            : tr("%1 overflow above").arg(zones_.name)};
  for (size_t i = 0; i < 3; ++i) {
    lines_[i]->point1->setCoords(0, ys[i]);
    lines_[i]->point2->setCoords(1, ys[i]);
    lineLabels_[i]->position->setCoords(0.005, ys[i]);
    lineLabels_[i]->setText(texts[i]);
  }
}

namespace {
// The combo's item data: a series as one int.
constexpr int kModesPerRun = 16;
int seriesData(SeriesKey key) { return key.run * kModesPerRun + static_cast<int>(key.mode); }
SeriesKey seriesOf(int data) { return {data / kModesPerRun, static_cast<PrecisionMode>(data % kModesPerRun)}; }
}  // namespace

void HeatMapPlot::setMode(PrecisionMode mode) { setSeries({kEngineRun, mode}); }

PrecisionMode HeatMapPlot::mode() const { return seriesKey().mode; }

void HeatMapPlot::setSeries(SeriesKey key) {
  refillModes();
  const int index = modeCombo_->findData(seriesData(key));
  if (index >= 0) modeCombo_->setCurrentIndex(index);
}

SeriesKey HeatMapPlot::seriesKey() const { return seriesOf(modeCombo_->currentData().toInt()); }

void HeatMapPlot::setScaled(bool scaled) { scaledCombo_->setCurrentIndex(scaled ? 0 : 1); }

bool HeatMapPlot::scaled() const { return scaledCombo_->currentIndex() == 0; }

void HeatMapPlot::refillModes() {
  const std::vector<SeriesKey> keys = store()->seriesKeys();
  bool same = modeCombo_->count() == static_cast<int>(keys.size());
  for (std::size_t i = 0; same && i < keys.size(); ++i)
    same = modeCombo_->itemData(static_cast<int>(i)).toInt() == seriesData(keys[i]);
  if (same) return;
  const QVariant current = modeCombo_->currentData();
  const QSignalBlocker block(modeCombo_);
  modeCombo_->clear();
  for (SeriesKey k : keys)
    modeCombo_->addItem(ModePalette::swatch(k.mode), SeriesStyle::label(*store(), k), seriesData(k));
  // Default to FP16 with a scaler: its gradients sit between FP16's landmark lines and move with the scale.
  int index = modeCombo_->findData(current);
  if (index < 0) index = modeCombo_->findData(seriesData({kEngineRun, PrecisionMode::FP16AmpScaled}));
  if (index < 0) index = modeCombo_->findData(seriesData({kEngineRun, PrecisionMode::FP16Amp}));
  modeCombo_->setCurrentIndex(std::max(index, 0));
}

void HeatMapPlot::rebuildFromStore() {
  refillModes();
  redraw();
}

void HeatMapPlot::appendFromStore() {
  refillModes();
  const ModeSeries* s = modeCombo_->count() > 0 ? store()->series(seriesKey()) : nullptr;
  const int64_t latest = (s && !s->histogramRing.empty()) ? s->histogramRing.back().step : -1;
  if (latest == drawnStep_) {
    skipReplot();
    return;
  }
  redraw();
}

void HeatMapPlot::redraw() {
  const ModeSeries* s = modeCombo_->count() > 0 ? store()->series(seriesKey()) : nullptr;
  if (!s || s->histogramRing.empty()) {
    map_->data()->clear();
    columns_ = 0;
    drawnStep_ = -1;
    replotQueued();
    return;
  }
  setLandmarks(seriesKey().mode);
  const bool useScaled = scaled();
  // Rows: the exponents that occur, plus the format's landmarks so the lines are in view.
  int lo = static_cast<int>(zones_.flushLog2) - 2, hi = static_cast<int>(std::ceil(zones_.overflowLog2)) + 1;
  for (const HistogramSnapshot& snap : s->histogramRing) {
    const ExponentHistogram& h = useScaled ? snap.scaled : snap.unscaled;
    if (h.counts.empty()) continue;
    lo = std::min(lo, h.counts.lowest());  // both ends are non-empty bins
    hi = std::max(hi, h.counts.highest());
  }
  minExponent_ = lo;
  maxExponent_ = hi;
  columns_ = static_cast<int>(s->histogramRing.size());
  const int rows = hi - lo + 1;
  map_->data()->setSize(columns_, rows);
  const double firstStep = static_cast<double>(s->histogramRing.front().step);
  const double lastStep = static_cast<double>(s->histogramRing.back().step);
  map_->data()->setRange(QCPRange(firstStep, columns_ > 1 ? lastStep : firstStep + 1), QCPRange(lo, hi));
  // The colour range is taken here, not from QCPColorMap::rescaleDataRange: empty cells are NaN, and
  // QCustomPlot's bounds start from the first cell, so a NaN there leaves the range where it was.
  int64_t most = 1;
  for (int c = 0; c < columns_; ++c) {
    const ExponentHistogram& h = useScaled ? s->histogramRing[static_cast<size_t>(c)].scaled
                                           : s->histogramRing[static_cast<size_t>(c)].unscaled;
    for (int r = 0; r < rows; ++r) {
      const int64_t n = h.countAt(lo + r);
      most = std::max(most, n);
      map_->data()->setCell(c, r, n > 0 ? static_cast<double>(n) : std::nan(""));
    }
  }
  map_->setDataRange(QCPRange(1, most > 1 ? static_cast<double>(most) : 10.0));
  drawnStep_ = s->histogramRing.back().step;
  if (followLatest()) fitToData();
  replotQueued();
}

void HeatMapPlot::fitToData() {
  if (columns_ == 0) return;
  const QCPRange keys = map_->data()->keyRange();
  const double half = columns_ > 1 ? 0.5 * keys.size() / (columns_ - 1) : 0.5;
  plot()->xAxis->setRange(keys.lower - half, keys.upper + half);
  plot()->yAxis->setRange(minExponent_ - 1.5, maxExponent_ + 1.5);
}

QString HeatMapPlot::readoutAt(double key, double value) const {
  if (columns_ == 0) return {};
  int c = 0, r = 0;
  map_->data()->coordToCell(key, value, &c, &r);
  if (c < 0 || c >= columns_ || r < 0 || r > maxExponent_ - minExponent_) return {};
  const ModeSeries* s = store()->series(seriesKey());
  if (!s || static_cast<size_t>(c) >= s->histogramRing.size()) return {};
  const HistogramSnapshot& snap = s->histogramRing[static_cast<size_t>(c)];
  const int e = minExponent_ + r;
  const int64_t n = (scaled() ? snap.scaled : snap.unscaled).countAt(e);
  return tr("step %1\n|g| in [%2, %3): %4 values\nClick (or arrows and Enter): this bin's value in the number "
            "formats panel")
      .arg(snap.step)
      .arg(PowerOfTwoTicker::label(e), PowerOfTwoTicker::label(e + 1))
      .arg(n);
}

double HeatMapPlot::cursorKeyStep() const {
  const QCPRange keys = map_->data()->keyRange();
  return columns_ > 1 ? keys.size() / (columns_ - 1) : 1.0;
}

std::optional<PlotPanel::PlotValue> HeatMapPlot::valueAt(double key, double value) const {
  if (columns_ == 0) return std::nullopt;
  int c = 0, r = 0;
  map_->data()->coordToCell(key, value, &c, &r);
  if (c < 0 || c >= columns_ || r < 0 || r > maxExponent_ - minExponent_) return std::nullopt;
  const ModeSeries* s = store()->series(seriesKey());
  if (!s || static_cast<size_t>(c) >= s->histogramRing.size()) return std::nullopt;
  const HistogramSnapshot& snap = s->histogramRing[static_cast<size_t>(c)];
  const int e = minExponent_ + r;
  const ExponentHistogram& h = scaled() ? snap.scaled : snap.unscaled;
  PlotValue shown;
  shown.value = std::ldexp(1.0, e);
  shown.context = tr("Exponent heat map, %1 at step %2: %3 ≤ |g| < %4 holds %5 of %6 values. Shown is the "
                     "bin's lower edge: the engine counts the values of each bin exactly but does not keep them.")
                      .arg(modeCombo_->currentText())
                      .arg(snap.step)
                      .arg(PowerOfTwoTicker::label(e), PowerOfTwoTicker::label(e + 1))
                      .arg(h.countAt(e))
                      .arg(h.total());
  return shown;
}

QString HeatMapPlot::emptyNote() const { return tr("Run to see the exponents over time."); }

}  // namespace ampscope::ui
