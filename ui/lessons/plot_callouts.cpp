#include "ui/lessons/plot_callouts.h"

#include <QFontMetricsF>
#include <algorithm>
#include <cmath>
#include <limits>
#include <qcustomplot.h>

namespace ampscope::ui {

namespace {

const QColor kCalloutColor(240, 150, 20);
// Feature anchors have no y of their own: they sit this far down the axis rect (0 = top, 1 = bottom).
constexpr double kFeatureAnchorRatioY = 0.2;
// What covering one cell costs: data is to be avoided, an anchor or the legend almost never covered,
// another callout and the plot's own texts (zone labels name what the data means, a callout over one
// hides the lesson's landmark) never, and the cells next to another callout a little more than data, so
// that two boxes do not read as one.
constexpr double kDataCost = 1;
constexpr double kGapCost = 2 * kDataCost;
constexpr double kAnchorCost = 60;
constexpr double kBoxCost = 1000;
// One cell of covered data weighs as much as this many pixels of distance from the anchor.
constexpr double kCellPerPixels = 400;
// A box that would cover data in more than this share of its cells (a corner of a bar) shrinks to its number.
constexpr double kBadgeShare = 0.04;

// Breaks `text` into lines no wider than `width` pixels: between words, or between any two characters
// of Chinese text (which has no spaces).
QString wrapToWidth(const QString& text, const QFontMetricsF& fm, double width) {
  QStringList tokens;
  QString current;
  for (const QChar c : text) {
    if (c.unicode() >= 0x2E80) {
      if (!current.isEmpty()) tokens << current;
      current.clear();
      tokens << QString(c);
      continue;
    }
    current += c;
    if (c == u' ') {
      tokens << current;
      current.clear();
    }
  }
  if (!current.isEmpty()) tokens << current;
  QStringList lines;
  QString line;
  for (const QString& token : tokens) {
    if (!line.isEmpty() && fm.horizontalAdvance((line + token).trimmed()) > width) {
      lines << line.trimmed();
      line.clear();
    }
    line += token;
  }
  if (!line.trimmed().isEmpty()) lines << line.trimmed();
  return lines.join(QLatin1Char('\n'));
}

// Costs on a grid of kCell-sized cells over the axis rect, with a summed-area table for box sums.
class CostGrid {
 public:
  explicit CostGrid(const QRectF& area)
      : area_(area),
        cols_(std::max(1, static_cast<int>(std::ceil(area.width() / PlotCallouts::kCell)))),
        rows_(std::max(1, static_cast<int>(std::ceil(area.height() / PlotCallouts::kCell)))),
        cost_(static_cast<size_t>(cols_ * rows_), 0.0) {}

  int cols() const { return cols_; }
  int rows() const { return rows_; }

  void add(const QRectF& r, double cost) {
    const QRectF in = r.intersected(area_);
    if (in.isEmpty() && !(in.width() == 0 && area_.contains(in.topLeft()))) return;
    const int c0 = cellX(in.left()), c1 = cellX(in.right() - 0.01);
    const int r0 = cellY(in.top()), r1 = cellY(in.bottom() - 0.01);
    for (int y = r0; y <= r1; ++y)
      for (int x = c0; x <= c1; ++x) cost_[static_cast<size_t>(y * cols_ + x)] += cost;
  }

  void buildSums() {
    sums_.assign(static_cast<size_t>((cols_ + 1) * (rows_ + 1)), 0.0);
    for (int y = 0; y < rows_; ++y)
      for (int x = 0; x < cols_; ++x)
        sum(x + 1, y + 1) = cost_[static_cast<size_t>(y * cols_ + x)] + sum(x, y + 1) + sum(x + 1, y) - sum(x, y);
  }

  // Cost of the box of w x h cells at cell (x, y); call buildSums first.
  double boxCost(int x, int y, int w, int h) const {
    return at(x + w, y + h) - at(x, y + h) - at(x + w, y) + at(x, y);
  }

 private:
  int cellX(double px) const { return std::clamp(static_cast<int>((px - area_.left()) / PlotCallouts::kCell), 0, cols_ - 1); }
  int cellY(double py) const { return std::clamp(static_cast<int>((py - area_.top()) / PlotCallouts::kCell), 0, rows_ - 1); }
  double& sum(int x, int y) { return sums_[static_cast<size_t>(y * (cols_ + 1) + x)]; }
  double at(int x, int y) const { return sums_[static_cast<size_t>(y * (cols_ + 1) + x)]; }

  QRectF area_;
  int cols_, rows_;
  std::vector<double> cost_, sums_;
};

void addBars(CostGrid& grid, QCPBars* bars, const QRectF& area) {
  QCPAxis* key = bars->keyAxis();
  QCPAxis* value = bars->valueAxis();
  const double base = std::clamp(value->coordToPixel(bars->baseValue()), area.top(), area.bottom());
  for (auto it = bars->data()->constBegin(); it != bars->data()->constEnd(); ++it) {
    if (!std::isfinite(it->value)) continue;
    // The whole bin: a group of bars shares it side by side.
    const double x0 = key->coordToPixel(it->key - 0.5), x1 = key->coordToPixel(it->key + 0.5);
    const double top = std::clamp(value->coordToPixel(it->value), area.top(), area.bottom());
    grid.add(QRectF(QPointF(std::min(x0, x1), std::min(top, base)), QPointF(std::max(x0, x1), std::max(top, base))),
             kDataCost);
  }
}

void addGraph(CostGrid& grid, QCPGraph* graph) {
  QCPAxis* key = graph->keyAxis();
  QCPAxis* value = graph->valueAxis();
  const bool lines = graph->lineStyle() != QCPGraph::lsNone;
  QPointF previous;
  bool havePrevious = false;
  for (auto it = graph->data()->constBegin(); it != graph->data()->constEnd(); ++it) {
    if (!std::isfinite(it->value)) {
      havePrevious = false;
      continue;
    }
    const QPointF p(key->coordToPixel(it->key), value->coordToPixel(it->value));
    grid.add(QRectF(p - QPointF(2, 2), QSizeF(4, 4)), kDataCost);
    if (lines && havePrevious) {
      // The segment in pieces at most a cell wide, each marked by its bounding box.
      const int pieces = std::max(1, static_cast<int>(std::abs(p.x() - previous.x()) / PlotCallouts::kCell));
      for (int i = 0; i < pieces; ++i) {
        const QPointF a = previous + (p - previous) * (static_cast<double>(i) / pieces);
        const QPointF b = previous + (p - previous) * (static_cast<double>(i + 1) / pieces);
        grid.add(QRectF(a, b).normalized().adjusted(-1, -1, 1, 1), kDataCost);
      }
    }
    previous = p;
    havePrevious = true;
  }
}

}  // namespace

PlotCallouts* PlotCallouts::of(QCustomPlot* plot) {
  if (auto* existing = plot->findChild<PlotCallouts*>(QString(), Qt::FindDirectChildrenOnly)) return existing;
  return new PlotCallouts(plot);
}

PlotCallouts::PlotCallouts(QCustomPlot* plot) : QObject(plot), plot_(plot) {
  connect(plot, &QCustomPlot::beforeReplot, this, &PlotCallouts::place);
}

PlotCallouts::~PlotCallouts() = default;  // the plot deletes its items with itself

QString PlotCallouts::badgeText(int number) {
  if (number >= 1 && number <= 20) return QString(QChar(0x2460 + number - 1));
  return QString::number(number);
}

void PlotCallouts::add(const Lesson::Anchor& anchor, const QString& text, int number) {
  Entry e;
  e.anchor = anchor;
  e.text = text;
  e.number = number;
  e.leader = new QCPItemLine(plot_);
  e.leader->setObjectName(QStringLiteral("lessonCalloutArrow"));
  e.leader->setPen(QPen(kCalloutColor, 2));
  e.leader->setHead(QCPLineEnding::esSpikeArrow);
  e.leader->setClipToAxisRect(true);
  e.leader->setSelectable(false);
  e.leader->start->setType(QCPItemPosition::ptAbsolute);
  e.leader->end->setType(QCPItemPosition::ptAbsolute);
  e.label = new QCPItemText(plot_);
  e.label->setObjectName(QStringLiteral("lessonCalloutText"));
  e.label->setClipToAxisRect(false);
  e.label->setSelectable(false);
  e.label->position->setType(QCPItemPosition::ptAbsolute);
  e.label->setPositionAlignment(Qt::AlignLeft | Qt::AlignTop);
  e.label->setTextAlignment(Qt::AlignLeft);
  e.label->setColor(Qt::black);
  QColor fill = kCalloutColor.lighter(170);
  fill.setAlpha(235);
  e.label->setBrush(QBrush(fill));
  e.label->setPen(QPen(kCalloutColor));
  e.label->setPadding(QMargins(6, 4, 6, 4));
  e.label->setText(text);
  entries_.push_back(e);
  areaUsed_ = QRectF();  // place everything afresh
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

void PlotCallouts::clear() {
  for (const Entry& e : entries_) {
    if (plot_->hasItem(e.leader)) plot_->removeItem(e.leader);
    if (plot_->hasItem(e.label)) plot_->removeItem(e.label);
  }
  entries_.clear();
  plot_->replot(QCustomPlot::rpQueuedReplot);
}

QList<QRectF> PlotCallouts::rects() const {
  QList<QRectF> out;
  for (const Entry& e : entries_) out << e.rect;
  return out;
}

QList<QPointF> PlotCallouts::anchors() const {
  QList<QPointF> out;
  for (const Entry& e : entries_) out << e.anchorAt;
  return out;
}

void PlotCallouts::place() {
  if (entries_.empty()) return;
  const QRectF area = plot_->axisRect()->rect();
  if (area.width() < 2 || area.height() < 2) return;
  const bool sameArea = areaUsed_.size() == area.size();

  CostGrid grid(area);
  for (int i = 0; i < plot_->plottableCount(); ++i) {
    QCPAbstractPlottable* p = plot_->plottable(i);
    if (!p->visible()) continue;
    if (auto* bars = qobject_cast<QCPBars*>(p)) addBars(grid, bars, area);
    if (auto* graph = qobject_cast<QCPGraph*>(p)) addGraph(grid, graph);
  }
  QCPLegend* legend = plot_->legend;
  if (legend && legend->realVisibility() && legend->layout() == plot_->axisRect()->insetLayout())
    grid.add(legend->outerRect(), kBoxCost);
  for (int i = 0; i < plot_->itemCount(); ++i) {
    auto* text = qobject_cast<QCPItemText*>(plot_->item(i));
    if (!text || !text->visible() || text->objectName() == QLatin1String("lessonCalloutText")) continue;
    const QPointF topLeft = text->topLeft->pixelPosition(), bottomRight = text->bottomRight->pixelPosition();
    // The plot's own texts (zone labels, the "Run to see ..." note): kept clear like a box.
    grid.add(QRectF(topLeft, bottomRight).normalized(), kBoxCost);
  }
  // Every anchor, so that no box hides the point another box explains.
  QCPAxis* x = plot_->xAxis;
  QCPAxis* y = plot_->yAxis;
  for (Entry& e : entries_) {
    const double px = x->coordToPixel(e.anchor.x);
    const double py = e.anchor.kind == Lesson::Anchor::Kind::Feature
                          ? area.top() + kFeatureAnchorRatioY * area.height()
                          : y->coordToPixel(e.anchor.y);
    e.anchorAt = QPointF(std::clamp(px, area.left(), area.right()), std::clamp(py, area.top(), area.bottom()));
    grid.add(QRectF(e.anchorAt - QPointF(kCell, kCell), QSizeF(2 * kCell, 2 * kCell)), kAnchorCost);
  }

  grid.buildSums();
  for (Entry& e : entries_) {
    const QFontMetricsF fm(e.label->font());
    const QMargins pad = e.label->padding();
    const double digit = fm.horizontalAdvance(QLatin1Char('0'));
    // Narrow boxes are tall, wide ones flat: try a few widths (never narrower than a short phrase nor
    // wider than a long line) and keep the one that covers the least.
    struct Choice {
      QString text;
      QSizeF size;
      int x = 0, y = 0, w = 1, h = 1;
      double score = std::numeric_limits<double>::infinity();
    } best;
    const auto search = [&](const QString& text) {
      Choice c;
      c.text = text;
      c.size = fm.boundingRect(QRectF(), Qt::TextDontClip | Qt::AlignLeft, c.text).size() +
               QSizeF(pad.left() + pad.right(), pad.top() + pad.bottom());
      c.w = std::min(grid.cols(), static_cast<int>(std::ceil((c.size.width() + 2) / kCell)));
      c.h = std::min(grid.rows(), static_cast<int>(std::ceil((c.size.height() + 2) / kCell)));
      for (int cy = 0; cy + c.h <= grid.rows(); ++cy)
        for (int cx = 0; cx + c.w <= grid.cols(); ++cx) {
          const QPointF centre(area.left() + (cx + c.w / 2.0) * kCell, area.top() + (cy + c.h / 2.0) * kCell);
          const double s = grid.boxCost(cx, cy, c.w, c.h) * kCellPerPixels +
                           std::hypot(centre.x() - e.anchorAt.x(), centre.y() - e.anchorAt.y());
          if (s < c.score) {
            c.score = s;
            c.x = cx;
            c.y = cy;
          }
        }
      return c;
    };
    for (const double share : {0.34, 0.5, 0.7, 0.95}) {
      const double textWidth = std::clamp(area.width() * share - pad.left() - pad.right(), digit * 16, digit * 60);
      Choice c = search(wrapToWidth(e.text, fm, textWidth));
      if (c.score < best.score) best = c;
    }
    // No room for the whole text without hiding data (see kBadgeShare): the number.
    // So also when the box is larger than the plot.
    e.badge = grid.boxCost(best.x, best.y, best.w, best.h) > kBadgeShare * best.w * best.h * kDataCost ||
              best.size.width() > area.width() - 2 || best.size.height() > area.height() - 2;
    if (e.badge) best = search(badgeText(e.number));
    // Stay put, at the same width, while the old place is as free as the best one.
    if (sameArea && e.rect.isValid()) {
      const int oldX = static_cast<int>(std::lround((e.rect.left() - areaUsed_.left()) / kCell));
      const int oldY = static_cast<int>(std::lround((e.rect.top() - areaUsed_.top()) / kCell));
      const int oldW = static_cast<int>(std::ceil((e.rect.width() + 2) / kCell));
      const int oldH = static_cast<int>(std::ceil((e.rect.height() + 2) / kCell));
      const bool wasBadge = e.label->text() == badgeText(e.number);
      if (wasBadge == e.badge && oldX >= 0 && oldY >= 0 && oldX + oldW <= grid.cols() && oldY + oldH <= grid.rows() &&
          grid.boxCost(oldX, oldY, oldW, oldH) <= grid.boxCost(best.x, best.y, best.w, best.h)) {
        best.x = oldX;
        best.y = oldY;
        best.text = e.label->text();
        best.size = e.rect.size();
      }
    }
    const int bestX = best.x, bestY = best.y;
    const QSizeF size = best.size;
    e.label->setText(best.text);
    e.rect = QRectF(QPointF(area.left() + bestX * kCell + 1, area.top() + bestY * kCell + 1), size);
    e.label->position->setCoords(e.rect.topLeft());
    grid.add(e.rect.adjusted(-kCell, -kCell, kCell, kCell), kGapCost);
    grid.add(e.rect, kBoxCost);
    grid.buildSums();

    // The leader runs from the box's edge nearest the anchor to the anchor.
    const QPointF from(std::clamp(e.anchorAt.x(), e.rect.left(), e.rect.right()),
                       std::clamp(e.anchorAt.y(), e.rect.top(), e.rect.bottom()));
    e.leader->start->setCoords(from);
    e.leader->end->setCoords(e.anchorAt);
    e.leader->setVisible(std::hypot(from.x() - e.anchorAt.x(), from.y() - e.anchorAt.y()) > 4);
  }
  areaUsed_ = area;
}

}  // namespace ampscope::ui
