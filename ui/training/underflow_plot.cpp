#include "ui/training/underflow_plot.h"

#include <QCheckBox>
#include <QComboBox>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "ampscope/engine/mode_formats.h"
#include "ampscope/engine/telemetry_store.h"
#include "ui/training/elided_legend_item.h"
#include "ui/training/format_window.h"
#include "ui/training/mode_palette.h"
#include "ui/training/power_of_two_ticker.h"
#include "ui/training/series_style.h"

namespace ampscope::ui {

namespace {
const Qt::PenStyle kStyles[] = {Qt::SolidLine, Qt::DashLine, Qt::DotLine};

const RoundingCounts* countsFor(const std::vector<std::string>& layers, const std::vector<RoundingCounts>& perLayer,
                                const RoundingCounts& total, const QString& layer) {
  if (layer.isEmpty()) return &total;
  const auto it = std::find(layers.begin(), layers.end(), layer.toStdString());
  const size_t index = static_cast<size_t>(it - layers.begin());
  if (it == layers.end() || index >= perLayer.size()) return nullptr;
  return &perLayer[index];
}
}  // namespace

UnderflowPlot::UnderflowPlot(TelemetryStore* store, QWidget* parent) : PlotPanel(store, parent) {
  // The glyph after each name is its line style in the plot; the legend lists modes (colours) only.
  const QString names[] = {tr("Flushed to zero ━"), tr("Subnormal ╍"), tr("Overflowed ┈")};
  const QString tips[] = {
      tr("Elements that were non-zero before a rounding point and exactly zero after it (solid line)."),
      tr("Elements left subnormal after rounding: they kept only part of their precision (dashed line)."),
      tr("Elements that were finite before a rounding point and ±inf after it (dotted line). The FP8 and FP4 "
         "modes count their quantised GEMM operands in their own formats (E4M3, E5M2, E2M1): a saturated value "
         "(clamped to the format's largest) counts as overflowed; their subnormals are not counted.")};
  for (int q = 0; q < kQuantities; ++q) {
    quantityBoxes_[q] = new QCheckBox(names[q], this);
    quantityBoxes_[q]->setChecked(true);
    quantityBoxes_[q]->setToolTip(tips[q]);
    controls()->insertWidget(1 + q, quantityBoxes_[q]);
    connect(quantityBoxes_[q], &QCheckBox::toggled, this, [this] { applyVisibility(); });
  }
  unitCombo_ = new QComboBox(this);
  unitCombo_->addItem(tr("count"));
  unitCombo_->addItem(tr("% of elements"));
  layerCombo_ = new QComboBox(this);
  layerCombo_->addItem(tr("All rounding points"), QString());
  controls()->insertWidget(4, unitCombo_);
  controls()->insertWidget(5, layerCombo_);
  connect(unitCombo_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });
  connect(layerCombo_, &QComboBox::currentIndexChanged, this, [this] { refresh(); });

  plot()->xAxis->setLabel(tr("step"));
  plot()->yAxis->setLabel(tr("elements per instrumented step"));
  placeLegendAbove(6);
}

void UnderflowPlot::setPercent(bool percent) { unitCombo_->setCurrentIndex(percent ? 1 : 0); }

bool UnderflowPlot::percent() const { return unitCombo_->currentIndex() == 1; }

void UnderflowPlot::setQuantityShown(Quantity quantity, bool shown) {
  quantityBoxes_[static_cast<int>(quantity)]->setChecked(shown);
}

void UnderflowPlot::setLayer(const QString& layer) {
  refillLayers();
  const int index = layerCombo_->findData(layer);
  if (index >= 0) layerCombo_->setCurrentIndex(index);
}

QString UnderflowPlot::layer() const { return layerCombo_->currentData().toString(); }

QCPGraph* UnderflowPlot::graph(SeriesKey key, Quantity quantity) const {
  return laneGraph(lanes_, key, [quantity](const Lane& lane) { return lane.graphs[static_cast<size_t>(quantity)]; });
}

QCPGraph* UnderflowPlot::bandHighGraph(PrecisionMode mode, Quantity quantity) const {
  return laneGraph(lanes_, SeriesKey{kEngineRun, mode},
                   [quantity](const Lane& lane) { return lane.bands[static_cast<size_t>(quantity)].high; });
}

UnderflowPlot::Lane& UnderflowPlot::laneFor(SeriesKey key) {
  auto it = lanes_.find(key);
  if (it != lanes_.end()) return it->second;
  Lane lane;
  const QColor color = ModePalette::color(key.mode);
  // Bands first, so the lines are drawn over them.
  for (int q = 0; q < kQuantities; ++q)
    lane.bands[static_cast<size_t>(q)] = BandGraphs::add(*this, color, /*fillAlpha=*/50, kStyles[q]);
  const QString quantityNames[] = {tr("flushed"), tr("subnormal"), tr("overflowed")};
  const QString name = SeriesStyle::label(*store(), key);
  // The line style already says which quantity; a followed run's points get a marker shape of its own.
  static const QCPScatterStyle::ScatterShape kRunShapes[] = {QCPScatterStyle::ssCircle, QCPScatterStyle::ssSquare,
                                                             QCPScatterStyle::ssTriangle, QCPScatterStyle::ssDiamond};
  for (int q = 0; q < kQuantities; ++q) {
    QCPGraph* g = plot()->addGraph();
    // The legend shows the first quantity's entry per series, so that name is just the series.
    g->setName(q == 0 ? name : QStringLiteral("%1 · %2").arg(name, quantityNames[q]));
    g->setProperty("readoutName", QStringLiteral("%1 · %2").arg(name, quantityNames[q]));
    if (q == 0) g->setProperty(ElidedLegendItem::kShortNameProperty, SeriesStyle::shortLabel(*store(), key));
    if (q > 0) g->removeFromLegend();
    g->setAdaptiveSampling(true);
    setScaledPen(g, QPen(color, 1.0, kStyles[q]));
    if (key.run != kEngineRun)
      g->setScatterStyle(QCPScatterStyle(kRunShapes[(key.run - 1) % 4], color, 5));
    lane.graphs[static_cast<size_t>(q)] = g;
  }
  return lanes_.emplace(key, lane).first->second;
}

double UnderflowPlot::valueOf(const RoundingCounts& c, Quantity quantity, double steps) const {
  const int64_t n = quantity == Quantity::FlushedToZero ? c.flushedToZero
                    : quantity == Quantity::Subnormal   ? c.subnormal
                                                        : c.overflowed;
  if (percent()) return c.elements > 0 ? 100.0 * static_cast<double>(n) / static_cast<double>(c.elements) : 0.0;
  return static_cast<double>(n) / steps;  // per instrumented step
}

void UnderflowPlot::refillLayers() {
  QStringList names;
  for (SeriesKey key : store()->seriesKeys())
    for (const std::string& l : store()->series(key)->layers)
      if (!names.contains(QString::fromStdString(l))) names << QString::fromStdString(l);
  if (names == layerNames_) return;
  layerNames_ = names;
  const QString current = layer();
  const QSignalBlocker block(layerCombo_);
  layerCombo_->clear();
  layerCombo_->addItem(tr("All rounding points"), QString());
  for (const QString& n : names) layerCombo_->addItem(tr("Layer %1").arg(n), n);
  const int index = layerCombo_->findData(current);
  layerCombo_->setCurrentIndex(std::max(index, 0));
}

void UnderflowPlot::applyVisibility() {
  for (auto& [mode, lane] : lanes_) {
    bool listed = false;  // one legend entry per mode: its first visible quantity
    for (int q = 0; q < kQuantities; ++q) {
      QCPGraph* g = lane.graphs[static_cast<size_t>(q)];
      const bool shown = quantityBoxes_[q]->isChecked();
      g->setVisible(shown);
      lane.bands[static_cast<size_t>(q)].setVisible(shown);
      if (shown && !listed) {
        g->addToLegend();
        listed = true;
      } else {
        g->removeFromLegend();
      }
    }
  }
  if (followLatest()) fitToData();
  replotQueued();
}

void UnderflowPlot::rebuildFromStore() {
  refillLayers();
  for (auto& [mode, lane] : lanes_) {
    for (const BandGraphs& band : lane.bands) band.removeFrom(plot());
    for (QCPGraph* g : lane.graphs) plot()->removeGraph(g);
  }
  lanes_.clear();
  plot()->yAxis->setLabel(percent() ? tr("% of elements at rounding points") : tr("elements per instrumented step"));
  const QString chosen = layer();
  for (SeriesKey key : store()->seriesKeys()) {
    const ModeSeries* s = store()->series(key);
    Lane& lane = laneFor(key);
    for (int q = 0; q < kQuantities; ++q) {
      BandPoints band;
      band.reserve(s->instrumentBuckets.size());
      QVector<double> keys, values;
      const auto quantity = static_cast<Quantity>(q);
      for (const InstrumentBucket& b : s->instrumentBuckets) {
        const RoundingCounts* sum = countsFor(s->layers, b.perLayer, b.total, chosen);
        const RoundingCounts* lo = countsFor(s->layers, b.perLayerMin, b.totalMin, chosen);
        const RoundingCounts* hi = countsFor(s->layers, b.perLayerMax, b.totalMax, chosen);
        // A percentage is of one step's elements: the same at every step of a mode (same model, same
        // batch), so the bucket's average serves for its extremes too.
        RoundingCounts perStep;
        if (sum) perStep.elements = sum->elements / std::max<int64_t>(1, b.count);
        const auto value = [&](const RoundingCounts* c) {
          if (!c) return 0.0;
          RoundingCounts one = *c;
          one.elements = perStep.elements;
          return valueOf(one, quantity, 1.0);
        };
        band.addBucket(b.firstStep, b.lastStep, value(lo), value(hi));
      }
      band.setOn(lane.bands[static_cast<size_t>(q)]);
      for (const InstrumentPoint& p : s->instruments) {
        const RoundingCounts* c = countsFor(s->layers, p.perLayer, p.total, chosen);
        keys << static_cast<double>(p.step);
        values << (c ? valueOf(*c, quantity, 1.0) : 0.0);
      }
      lane.graphs[static_cast<size_t>(q)]->setData(keys, values, true);
    }
    lane.lastStep = s->instruments.empty() ? 0 : s->instruments.back().step;
  }
  applyVisibility();
}

void UnderflowPlot::appendFromStore() {
  bool changed = false;
  const size_t lanesBefore = lanes_.size();
  refillLayers();
  const QString chosen = layer();
  for (SeriesKey key : store()->seriesKeys()) {
    const ModeSeries* s = store()->series(key);
    Lane& lane = laneFor(key);
    auto first = s->instruments.end();
    while (first != s->instruments.begin() && (first - 1)->step > lane.lastStep) --first;
    if (first == s->instruments.end()) continue;
    for (int q = 0; q < kQuantities; ++q) {
      QVector<double> keys, values;
      for (auto it = first; it != s->instruments.end(); ++it) {
        const RoundingCounts* c = countsFor(s->layers, it->perLayer, it->total, chosen);
        keys << static_cast<double>(it->step);
        values << (c ? valueOf(*c, static_cast<Quantity>(q), 1.0) : 0.0);
      }
      lane.graphs[static_cast<size_t>(q)]->addData(keys, values, true);
    }
    lane.lastStep = s->instruments.back().step;
    changed = true;
  }
  if (lanes_.size() != lanesBefore) applyVisibility();  // new modes follow the quantity check boxes
  if (!changed) skipReplot();
}

QString UnderflowPlot::emptyNote() const { return tr("Run to see flushed and subnormal values."); }

std::optional<PlotPanel::PlotValue> UnderflowPlot::valueAt(double key, double value) const {
  QCPGraph* graph = nullptr;
  double step = 0, count = 0;
  if (!nearestGraphPoint(key, value, &graph, &step, &count)) return std::nullopt;
  for (const auto& [series, lane] : lanes_) {
    for (int q = 0; q < kQuantities; ++q) {
      if (lane.graphs[static_cast<size_t>(q)] != graph) continue;
      const ModeFormats formats = modeFormats(series.mode);
      const FormatZones zones = formatZones(formats.measuredAgainst, formats.quantised);
      PlotValue shown;
      QString why;
      const auto quantity = static_cast<Quantity>(q);
      if (quantity == Quantity::FlushedToZero) {
        shown.value = std::ldexp(1.0, static_cast<int>(zones.flushLog2));
        why = tr("a value flushes to 0 in %1 at or below half its smallest subnormal; exactly half is a tie, "
                 "and round-to-nearest-even goes to 0")
                  .arg(zones.name);
      } else if (quantity == Quantity::Subnormal) {
        shown.value = std::ldexp(1.0, static_cast<int>(zones.normalLog2) - 1);
        why = tr("below %1's smallest normal %2 a value is subnormal: fewer significant bits")
                  .arg(zones.name, PowerOfTwoTicker::label(static_cast<int>(zones.normalLog2)));
      } else {
        shown.value = zones.overflowFrom;
        why = zones.saturates ? tr("from the largest finite value plus half its ulp a value saturates to ±max")
                              : tr("from the largest finite value plus half its ulp a value overflows to ±inf");
      }
      shown.context = tr("Rounding points, %1 at step %2: %3 %4. Shown is a value of that class in %5: %6.")
                          .arg(graph->property("readoutName").toString())
                          .arg(static_cast<qint64>(std::llround(step)))
                          .arg(QString::number(count, 'g', 6), percent() ? tr("% of the rounded values")
                                                                          : tr("values per instrumented step"))
                          .arg(zones.name, why);
      return shown;
    }
  }
  return std::nullopt;
}

}  // namespace ampscope::ui
