#include "ui/training/plot_panel.h"

#include <QCheckBox>
#include <QFontMetrics>
#include <QKeyEvent>
#include <QMouseEvent>
#include <QResizeEvent>
#include <QShowEvent>
#include <QToolTip>
#include <QVBoxLayout>
#include <algorithm>
#include <cmath>
#include <limits>
#include <qcustomplot.h>

#include "ampscope/engine/telemetry_store.h"
#include "ui/common/flow_layout.h"
#include "ui/common/axis_label_fit.h"
#include "ui/training/elided_legend_item.h"
#include "ui/training/tick_label_fitter.h"

namespace ampscope::ui {

namespace {

// The point of a non-empty graph whose key is nearest to `key`.
QCPGraphDataContainer::const_iterator nearestByKey(const QCPGraph& graph, double key) {
  auto it = graph.data()->findBegin(key, /*expandedRange=*/false);
  if (it == graph.data()->constEnd()) --it;
  if (it != graph.data()->constBegin()) {
    auto before = it - 1;
    if (std::abs(before->key - key) < std::abs(it->key - key)) it = before;
  }
  return it;
}

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
  plot_->setMinimumSize(kMinAxisWidth + 80, kMinAxisHeight + 60);
  plot_->axisRect()->setMinimumSize(kMinAxisWidth, kMinAxisHeight);
  TickLabelFitter::install(plot_);

  emptyStateNote_ = new QCPItemText(plot_);
  emptyStateNote_->setObjectName(QStringLiteral("plotEmptyNote"));
  emptyStateNote_->position->setType(QCPItemPosition::ptAxisRectRatio);
  emptyStateNote_->position->setCoords(0.5, 0.5);
  emptyStateNote_->setColor(QColor(90, 90, 90));
  emptyStateNote_->setBrush(QColor(255, 255, 255, 210));
  emptyStateNote_->setPadding(QMargins(6, 3, 6, 3));
  emptyStateNote_->setSelectable(false);
  emptyStateNote_->setVisible(false);
  connect(plot_, &QCustomPlot::beforeReplot, this, &PlotPanel::arrangeBeforeReplot);
  connect(plot_, &QCustomPlot::afterReplot, this, &PlotPanel::updateMinimumSize);

  connect(follow_, &QCheckBox::toggled, this, [this](bool on) {
    if (on) {
      fitToData();
      replotQueued();
    }
  });
  connect(plot_, &QCustomPlot::mouseWheel, this, [this] { onUserRangeChange(); });
  connect(plot_, &QCustomPlot::mouseMove, this, &PlotPanel::onMouseMove);
  connect(plot_, &QCustomPlot::mouseDoubleClick, this, [this] { setFollowLatest(true); });

  cursorKey_ = cursorValue_ = std::nan("");
  cursorLine_ = new QCPItemStraightLine(plot_);
  cursorLine_->setObjectName(QStringLiteral("keyboardCursor"));
  cursorLine_->setPen(QPen(QColor(200, 80, 0), 1, Qt::DashLine));
  cursorLine_->setSelectable(false);
  cursorLine_->setVisible(false);
  plot_->setFocusPolicy(Qt::StrongFocus);
  plot_->installEventFilter(this);
  connect(plot_, &QCustomPlot::mousePress, this, [this](QMouseEvent* event) {
    if (event->button() == Qt::LeftButton) pressPos_ = event->pos();
  });
  connect(plot_, &QCustomPlot::mouseRelease, this, [this](QMouseEvent* event) {
    if (event->button() != Qt::LeftButton || (event->pos() - pressPos_).manhattanLength() > 4) return;
    if (!plot_->axisRect()->rect().contains(event->pos())) return;
    const double key = plot_->xAxis->pixelToCoord(event->pos().x());
    const double value = plot_->yAxis->pixelToCoord(event->pos().y());
    if (activateAt(key, value)) setCursor(key, value);  // the arrows go on from the clicked point
  });
}

std::optional<PlotPanel::PlotValue> PlotPanel::valueAt(double, double) const { return std::nullopt; }

bool PlotPanel::activateAt(double key, double value) {
  const auto shown = valueAt(key, value);
  if (!shown) return false;
  emit valueActivated(shown->value, shown->context);
  return true;
}

double PlotPanel::cursorKeyStep() const { return plot_->xAxis->range().size() / 40.0; }

void PlotPanel::setCursor(double key, double value) {
  cursorKey_ = key;
  cursorValue_ = value;
  cursorLine_->point1->setCoords(key, 0);
  cursorLine_->point2->setCoords(key, 1);
  cursorLine_->setVisible(std::isfinite(key));
  replotQueued();
}

bool PlotPanel::eventFilter(QObject* watched, QEvent* event) {
  if (watched == plot_ && event->type() == QEvent::KeyPress) {
    auto* key = static_cast<QKeyEvent*>(event);
    const int k = key->key();
    if (k == Qt::Key_Left || k == Qt::Key_Right || k == Qt::Key_Up || k == Qt::Key_Down || k == Qt::Key_Return ||
        k == Qt::Key_Enter) {
      onKey(key);
      return true;
    }
  }
  if (watched == plot_ && event->type() == QEvent::FocusOut) {
    cursorLine_->setVisible(false);
    replotQueued();
  }
  return QWidget::eventFilter(watched, event);
}

void PlotPanel::onKey(QKeyEvent* event) {
  const QCPRange keys = plot_->xAxis->range();
  const QCPRange values = plot_->yAxis->range();
  double key = std::isfinite(cursorKey_) && keys.contains(cursorKey_) ? cursorKey_ : keys.center();
  double value = std::isfinite(cursorValue_) && values.contains(cursorValue_) ? cursorValue_ : values.center();
  switch (event->key()) {
    case Qt::Key_Left: key -= cursorKeyStep(); break;
    case Qt::Key_Right: key += cursorKeyStep(); break;
    case Qt::Key_Up: value += cursorValueStep(); break;
    case Qt::Key_Down: value -= cursorValueStep(); break;
    default:  // Enter
      setCursor(key, value);
      activateAt(key, value);
      return;
  }
  setCursor(key, value);
  const QString text = readoutAt(key, value);
  const QPoint at(static_cast<int>(plot_->xAxis->coordToPixel(key)), static_cast<int>(plot_->yAxis->coordToPixel(value)));
  if (text.isEmpty())
    QToolTip::hideText();
  else
    QToolTip::showText(plot_->mapToGlobal(at) + QPoint(14, 10), text, plot_);
}

bool PlotPanel::nearestGraphPoint(double key, double value, QCPGraph** graph, double* pointKey,
                                  double* pointValue) const {
  double best = std::numeric_limits<double>::infinity();
  for (int i = 0; i < plot_->graphCount(); ++i) {
    QCPGraph* g = plot_->graph(i);
    if (!g->visible() || g->name().isEmpty() || g->data()->isEmpty() || g->property("noReadout").toBool()) continue;
    const auto it = nearestByKey(*g, key);
    if (!std::isfinite(it->value)) continue;
    const double dx = g->keyAxis()->coordToPixel(it->key) - g->keyAxis()->coordToPixel(key);
    const double dy = g->valueAxis()->coordToPixel(it->value) - g->valueAxis()->coordToPixel(value);
    const double d = dx * dx + dy * dy;
    if (d < best) {
      best = d;
      *graph = g;
      *pointKey = it->key;
      *pointValue = it->value;
    }
  }
  return std::isfinite(best);
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
  useElidingLegendItems();
  QCPLegend* legend = plot_->legend;
  int widest = 0, widestShort = 0, entries = 0, rowHeight = 0;
  for (int i = 0; i < legend->itemCount(); ++i) {
    auto* item = qobject_cast<ElidedLegendItem*>(legend->item(i));
    if (!item || !item->visible()) continue;
    ++entries;
    widest = std::max(widest, item->fullWidth());
    widestShort = std::max(widestShort, item->shortWidth());
    // Through the base: the entry's override is protected, QCPLayoutElement's is public.
    rowHeight = std::max(rowHeight, static_cast<QCPLayoutElement*>(item)->minimumOuterSizeHint().height());
  }
  const int available = plot_->width() - legend->margins().left() - legend->margins().right();
  const int spacing = legend->columnSpacing();
  const auto columnsFor = [&](int width) {
    return std::clamp(width > 0 ? (available + spacing) / (width + spacing) : legendColumns_, 1, legendColumns_);
  };
  int columns = columnsFor(widest);
  // A legend of whole names one per row can take half of a short plot (four modes on a 720-pixel
  // screen): where its rows would take more than a fifth of the plot, the short names share rows.
  const auto rows = [&](int c) { return (entries + c - 1) / std::max(1, c); };
  if (entries > 0 && rows(columns) * (rowHeight + legend->rowSpacing()) > plot_->height() / 5)
    columns = std::max(columns, columnsFor(widestShort));
  if (legend->wrap() == columns) return;
  legend->setWrap(columns);
  legend->setFillOrder(QCPLegend::foColumnsFirst, /*rearrange=*/true);
}

QRect PlotPanel::axisRectOnScreen() const {
  const QRect r = plot_->axisRect()->rect();
  return QRect(plot_->mapToGlobal(r.topLeft()), r.size());
}

QString PlotPanel::emptyNote() const { return tr("Run to see data here."); }

QString PlotPanel::shownEmptyNote() const { return emptyStateNote_->visible() ? emptyStateNote_->text() : QString(); }

bool PlotPanel::hasPlottedData() const {
  for (int i = 0; i < plot_->plottableCount(); ++i) {
    QCPAbstractPlottable* p = plot_->plottable(i);
    if (p->visible() && p->interface1D() && p->interface1D()->dataCount() > 0) return true;
    if (auto* map = qobject_cast<QCPColorMap*>(p); map && map->visible() && map->data()->keySize() > 0) return true;
  }
  return false;
}

void PlotPanel::useElidingLegendItems() {
  // QCustomPlot adds plain entries (addToLegend); swap them for eliding ones, keeping their order.
  QCPLegend* legend = plot_->legend;
  bool plain = false;
  for (int i = 0; i < legend->itemCount() && !plain; ++i)
    plain = legend->item(i) && !qobject_cast<ElidedLegendItem*>(legend->item(i)) &&
            qobject_cast<QCPPlottableLegendItem*>(legend->item(i));
  if (!plain) return;
  QList<QCPAbstractLegendItem*> items;
  for (int i = 0; i < legend->itemCount(); ++i)
    if (legend->item(i)) items << legend->item(i);
  for (QCPAbstractLegendItem* item : items) legend->take(item);
  legend->simplify();
  for (QCPAbstractLegendItem* item : items) {
    auto* plottableItem = qobject_cast<QCPPlottableLegendItem*>(item);
    if (plottableItem && !qobject_cast<ElidedLegendItem*>(item)) {
      auto* replacement = new ElidedLegendItem(legend, plottableItem->plottable());
      replacement->setVisible(item->visible());
      delete item;
      legend->addItem(replacement);
    } else {
      legend->addItem(item);
    }
  }
}

void PlotPanel::elideLegendNames() {
  QCPLegend* legend = plot_->legend;
  const bool above = legend->layout() != plot_->axisRect()->insetLayout();
  // Outside the axis rect the legend spans the plot's width; inside, it may take most of the axis rect,
  // but it covers data: past half the axis rect's width its names give way to the short ones.
  const int available = above ? plot_->width() - legend->margins().left() - legend->margins().right()
                              : plot_->axisRect()->width() * 3 / 4;
  const int shortenPast = above ? available : plot_->axisRect()->width() / 2;
  const int columns = std::max(1, above ? legend->wrap() : 1);
  const int column = (available - (columns - 1) * legend->columnSpacing()) / columns;
  bool anyShortened = false;
  for (int i = 0; i < legend->itemCount(); ++i) {
    auto* item = qobject_cast<ElidedLegendItem*>(legend->item(i));
    if (!item) continue;
    item->setMaxTextWidth(std::max(1, column - item->chromeWidth()));
    anyShortened = anyShortened || (item->visible() && item->fullWidth() > std::min(column, shortenPast));
  }
  for (int i = 0; i < legend->itemCount(); ++i)
    if (auto* item = qobject_cast<ElidedLegendItem*>(legend->item(i))) item->setPreferShortName(anyShortened);
}

void PlotPanel::arrangeBeforeReplot() {
  QCPLegend* legend = plot_->legend;
  useElidingLegendItems();
  bool anyEntry = false;
  for (int i = 0; i < legend->itemCount(); ++i) anyEntry = anyEntry || (legend->item(i) && legend->item(i)->visible());
  if (legend->layout() != plot_->axisRect()->insetLayout()) {
    // A grid's largest size is the sum of its entries': an empty legend sharing a layout column with the
    // axis rect would squeeze the axis rect to its minimum. Bounded by hand (the bound plus the margins
    // must stay below QWIDGETSIZE_MAX, or the sum counts again), the legend lets it grow.
    legend->setMaximumSize(QWIDGETSIZE_MAX / 2, QWIDGETSIZE_MAX);
  } else {
    // No empty box in the corner before the first series; a legend the plot hid itself stays hidden.
    if (!anyEntry && legend->visible()) {
      legend->setVisible(false);
      legendHiddenWhileEmpty_ = true;
    } else if (anyEntry && legendHiddenWhileEmpty_) {
      legend->setVisible(true);
      legendHiddenWhileEmpty_ = false;
    }
  }
  elideLegendNames();
  moveLegendOffData();
  for (QCPAxisRect* rect : plot_->axisRects()) {
    for (QCPAxis* axis : rect->axes()) {
      if (axis->visible()) AxisLabelFit::fit(axis, axis->orientation() == Qt::Vertical ? rect->height() : rect->width());
    }
  }

  const QString note = hasPlottedData() ? QString() : emptyNote();
  emptyStateNote_->setVisible(!note.isEmpty());
  if (!note.isEmpty()) {
    emptyStateNote_->setFont(plot_->xAxis->labelFont());
    const QFontMetrics fm(emptyStateNote_->font());
    emptyStateNote_->setText(fm.elidedText(note, Qt::ElideRight, std::max(20, plot_->axisRect()->width() - 16)));
  }
}

void PlotPanel::moveLegendOffData() {
  QCPLegend* legend = plot_->legend;
  QCPLayoutInset* inset = plot_->axisRect()->insetLayout();
  if (!legend->visible() || legend->layout() != inset) return;
  const int index = inset->elements(false).indexOf(legend);
  const QRect area = plot_->axisRect()->rect();
  const QSize size = legend->outerRect().size();
  if (index < 0 || size.isEmpty() || area.isEmpty()) return;
  // The data points of every visible graph that a legend in `corner` would cover.
  auto covered = [&](Qt::Alignment corner) {
    const QRect r(corner & Qt::AlignLeft ? area.left() : area.right() - size.width() + 1,
                  corner & Qt::AlignTop ? area.top() : area.bottom() - size.height() + 1, size.width(), size.height());
    int64_t count = 0;
    for (int g = 0; g < plot_->graphCount(); ++g) {
      QCPGraph* graph = plot_->graph(g);
      if (!graph->visible() || graph->data()->isEmpty()) continue;
      const QCPAxis* keys = graph->keyAxis();
      const QCPAxis* values = graph->valueAxis();
      double k0 = keys->pixelToCoord(r.left());
      double k1 = keys->pixelToCoord(r.right());
      if (k0 > k1) std::swap(k0, k1);
      double v0 = values->pixelToCoord(r.bottom());
      double v1 = values->pixelToCoord(r.top());
      if (v0 > v1) std::swap(v0, v1);
      const auto end = graph->data()->findEnd(k1, false);
      for (auto it = graph->data()->findBegin(k0, false); it != end; ++it)
        if (it->value >= v0 && it->value <= v1) ++count;
    }
    return count;
  };
  const Qt::Alignment current = inset->insetAlignment(index) & (Qt::AlignLeft | Qt::AlignRight | Qt::AlignTop | Qt::AlignBottom);
  const int64_t here = covered(current);
  if (here == 0) return;
  Qt::Alignment best = current;
  int64_t fewest = here;
  for (const Qt::Alignment corner : {Qt::AlignTop | Qt::AlignRight, Qt::AlignBottom | Qt::AlignLeft,
                                     Qt::AlignTop | Qt::AlignLeft, Qt::AlignBottom | Qt::AlignRight}) {
    const int64_t count = covered(corner);
    if (count < fewest) {
      fewest = count;
      best = corner;
    }
  }
  // Only a clearly better corner: a legend that hops at every replot would be harder to read than one that
  // covers a few points.
  if (best != current && fewest * 2 < here) inset->setInsetAlignment(index, best);
}

void PlotPanel::updateMinimumSize() {
  // The axis rect's minimum plus the margins its axes need now (they grow with presenter scaling); in
  // height also the legend's rows. Not the legend's width: its names elide to whatever width there is.
  QCPAxisRect* rect = plot_->axisRect();
  const QMargins m = rect->margins();
  const QSize wanted(rect->minimumSize().width() + m.left() + m.right(),
                     std::max(plot_->plotLayout()->minimumOuterSizeHint().height(),
                              rect->minimumSize().height() + m.top() + m.bottom()));
  if (wanted != plot_->minimumSize() && wanted.isValid()) plot_->setMinimumSize(wanted);
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
    const auto it = nearestByKey(*graph, key);
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
  QCPLegend* legend = plot_->legend;
  for (int i = 0; legend->realVisibility() && i < legend->itemCount(); ++i) {
    auto* item = qobject_cast<ElidedLegendItem*>(legend->item(i));
    if (item && item->realVisibility() && item->rect().contains(event->pos())) {
      QToolTip::showText(plot_->mapToGlobal(event->pos()) + QPoint(14, 10), item->fullName(), plot_);
      return;
    }
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
