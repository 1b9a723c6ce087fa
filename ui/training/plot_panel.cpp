#include "ui/training/plot_panel.h"

#include <QCheckBox>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QShowEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <qcustomplot.h>

#include "ampscope/engine/telemetry_store.h"
#include "ui/common/flow_layout.h"

namespace ampscope::ui {

namespace {
// Property holding a plottable's pen width at line scale 1.
constexpr const char* kBaseWidth = "ampscopeBaseWidth";
}  // namespace

PlotPanel::PlotPanel(TelemetryStore* store, QWidget* parent)
    : QWidget(parent), store_(store), plot_(new QCustomPlot(this)), controls_(new FlowLayout(nullptr, 8, 2)) {
  auto* layout = new QVBoxLayout(this);
  layout->setContentsMargins(2, 2, 2, 2);
  layout->setSpacing(2);
  controls_->setContentsMargins(4, 0, 4, 0);
  follow_ = new QCheckBox(tr("Follow latest"), this);
  follow_->setChecked(true);
  follow_->setToolTip(tr("Keep the whole run in view as steps arrive. Zooming or panning turns it off."));
  controls_->addWidget(follow_);
  layout->addLayout(controls_);
  layout->addWidget(plot_, 1);

  plot_->setInteractions(QCP::iRangeDrag | QCP::iRangeZoom);
  plot_->setNoAntialiasingOnDrag(true);
  plot_->legend->setVisible(true);
  plot_->legend->setBrush(QColor(255, 255, 255, 230));
  plot_->setMouseTracking(true);
  plot_->setMinimumSize(240, 160);

  connect(follow_, &QCheckBox::toggled, this, [this](bool on) {
    if (on) {
      fitToData();
      replotQueued();
    }
  });
  connect(plot_, &QCustomPlot::mouseWheel, this, [this] { onUserRangeChange(); });
  connect(plot_, &QCustomPlot::mouseMove, this, &PlotPanel::onMouseMove);
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] { setFollowLatest(true); });
}

PlotPanel::~PlotPanel() = default;

bool PlotPanel::followLatest() const { return follow_->isChecked(); }

void PlotPanel::setFollowLatest(bool follow) { follow_->setChecked(follow); }

void PlotPanel::onUserRangeChange() {
  if (!fitting_) follow_->setChecked(false);
}

void PlotPanel::setLineScale(double scale) {
  lineScale_ = scale > 0 ? scale : 1.0;
  for (int i = 0; i < plot_->plottableCount(); ++i) {
    QCPAbstractPlottable* p = plot_->plottable(i);
    const QVariant base = p->property(kBaseWidth);
    if (!base.isValid()) continue;
    QPen pen = p->pen();
    pen.setWidthF(base.toDouble() * lineScale_);
    p->setPen(pen);
  }
  replotQueued();
}

void PlotPanel::setLogValueAxis(bool log) {
  QCPAxis* y = plot_->yAxis;
  if (log) {
    y->setScaleType(QCPAxis::stLogarithmic);
    y->setTicker(QSharedPointer<QCPAxisTickerLog>::create());
    y->setNumberFormat(QStringLiteral("eb"));
    y->setNumberPrecision(0);
  } else {
    y->setScaleType(QCPAxis::stLinear);
    y->setTicker(QSharedPointer<QCPAxisTicker>::create());
    y->setNumberFormat(QStringLiteral("g"));
    y->setNumberPrecision(6);
  }
}

void PlotPanel::setScaledPen(QCPAbstractPlottable* plottable, const QPen& pen) {
  plottable->setProperty(kBaseWidth, pen.widthF());
  QPen scaled = pen;
  scaled.setWidthF(pen.widthF() * lineScale_);
  plottable->setPen(scaled);
}

void PlotPanel::onDataAppended() { update(false); }

void PlotPanel::refresh() { update(true); }

void PlotPanel::update(bool forceRebuild) {
  if (forceRebuild) stale_ = true;
  if (!isVisible()) {
    stale_ = true;  // nothing to draw for: catch up in showEvent
    return;
  }
  if (stale_ || store_->generation() != seenGeneration_) {
    rebuildFromStore();
    seenGeneration_ = store_->generation();
    stale_ = false;
  } else {
    replotWanted_ = true;
    appendFromStore();
    if (!replotWanted_) return;
  }
  fitLegendColumns();
  if (followLatest()) fitToData();
  replotQueued();
}

void PlotPanel::resizeEvent(QResizeEvent* event) {
  QWidget::resizeEvent(event);
  if (legendColumns_ > 0) {
    fitLegendColumns();
    replotQueued();
  }
}

void PlotPanel::fitLegendColumns() {
  if (legendColumns_ <= 0) return;
  QCPLegend* legend = plot_->legend;
  int widest = 0;
  int visible = 0;
  for (int i = 0; i < legend->itemCount(); ++i) {
    QCPAbstractLegendItem* item = legend->item(i);
    if (!item || !item->visible()) continue;
    widest = std::max(widest, item->minimumOuterSizeHint().width());
    ++visible;
  }
  const int available = plot_->width() - legend->margins().left() - legend->margins().right();
  const int spacing = legend->columnSpacing();
  int columns = widest > 0 ? (available + spacing) / (widest + spacing) : legendColumns_;
  columns = std::clamp(columns, 1, legendColumns_);
  if (legend->wrap() == columns) return;
  legend->setWrap(columns);
  legend->setFillOrder(QCPLegend::foColumnsFirst, /*rearrange=*/true);
}

void PlotPanel::showEvent(QShowEvent* event) {
  QWidget::showEvent(event);
  if (stale_) update(true);
}

void PlotPanel::fitToData() {
  fitting_ = true;
  plot_->rescaleAxes(/*onlyVisiblePlottables=*/true);
  fitting_ = false;
}

void PlotPanel::placeLegendAbove(int columns) {
  QCPLegend* legend = plot_->legend;
  if (legend->layout() != plot_->axisRect()->insetLayout()) return;
  plot_->axisRect()->insetLayout()->take(legend);
  plot_->plotLayout()->insertRow(0);
  plot_->plotLayout()->addElement(0, 0, legend);
  plot_->plotLayout()->setRowStretchFactor(0, 0.001);
  legend->setFillOrder(QCPLegend::foColumnsFirst);
  legend->setWrap(columns);
  legendColumns_ = columns;
  legend->setBorderPen(Qt::NoPen);
  legend->setBrush(Qt::NoBrush);
  legend->setMargins(QMargins(4, 2, 4, 0));
}

void PlotPanel::replotQueued() { plot_->replot(QCustomPlot::rpQueuedReplot); }

QString PlotPanel::readoutAt(double key, double) const {
  QStringList lines;
  double shownKey = std::nan("");
  for (int i = 0; i < plot_->graphCount(); ++i) {
    QCPGraph* graph = plot_->graph(i);
    if (!graph->visible() || graph->name().isEmpty() || graph->data()->isEmpty()) continue;
    if (graph->property("noReadout").toBool()) continue;
    auto it = graph->data()->findBegin(key, /*expandedRange=*/false);
    if (it == graph->data()->constEnd()) --it;
    if (it != graph->data()->constBegin()) {
      auto before = it - 1;
      if (std::abs(before->key - key) < std::abs(it->key - key)) it = before;
    }
    if (std::isnan(shownKey)) shownKey = it->key;
    const QVariant readoutName = graph->property("readoutName");
    lines << QStringLiteral("%1: %2").arg(readoutName.isValid() ? readoutName.toString() : graph->name(),
                                          QString::number(it->value, 'g', 6));
  }
  if (lines.isEmpty()) return {};
  lines.prepend(tr("step %1").arg(QString::number(shownKey, 'f', 0)));
  return lines.join(QLatin1Char('\n'));
}

void PlotPanel::onMouseMove(QMouseEvent* event) {
  if (event->buttons() != Qt::NoButton) {
    onUserRangeChange();  // a drag pans the view
    return;
  }
  if (!plot_->axisRect()->rect().contains(event->pos())) {
    QToolTip::hideText();
    return;
  }
  const double key = plot_->xAxis->pixelToCoord(event->pos().x());
  const double value = plot_->yAxis->pixelToCoord(event->pos().y());
  const QString text = readoutAt(key, value);
  if (text.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(plot_->mapToGlobal(event->pos()) + QPoint(14, 10), text, plot_);
}

}  // namespace ampscope::ui
