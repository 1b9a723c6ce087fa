// PlotCallouts: a lesson's callouts inside one plot. Each is a boxed text with a leader line to the
// point it explains. Before every replot the boxes are placed afresh in the free space of the axis
// rect: away from the bars and curves (rasterised onto a coarse grid of cells), the legend, the other
// boxes and every anchor, as near to their own anchor as that allows. A box keeps its place while that
// place stays free, so callouts do not jump about as a run streams in. Where the plot has no free room
// for the whole text (a small plot full of bars), the box shrinks to its number ("①"), the number the
// lesson panel's list gives the same callout, so the data stays readable. Resizing, the presenter's larger
// fonts and new data all reflow them, because all of them replot.
#pragma once

#include <QList>
#include <QObject>
#include <QPointF>
#include <QRectF>
#include <QString>
#include <vector>

#include "ui/lessons/lesson.h"

class QCPItemLine;
class QCPItemText;
class QCustomPlot;

namespace ampscope::ui {

class PlotCallouts : public QObject {
  Q_OBJECT
 public:
  // The callouts of `plot`: one object per plot, a child of it, found again by `of`.
  static PlotCallouts* of(QCustomPlot* plot);
  ~PlotCallouts() override;

  // `number` is the callout's number in its lesson (from 1), shown when the box shrinks to a badge.
  void add(const Lesson::Anchor& anchor, const QString& text, int number);
  // Whether callout i is shown as its number only (see above).
  bool isBadge(int i) const { return entries_.at(static_cast<size_t>(i)).badge; }
  // "①" for 1 ... "⑳" for 20, then the plain number.
  static QString badgeText(int number);
  void clear();
  int count() const { return static_cast<int>(entries_.size()); }
  QCustomPlot* plot() const { return plot_; }

  // As last placed, in the plot widget's coordinates: each callout's box and the point its leader
  // line ends at (the anchor, kept inside the axis rect).
  QList<QRectF> rects() const;
  QList<QPointF> anchors() const;

  // Cell size of the free-space search, in pixels.
  static constexpr int kCell = 8;

 private:
  explicit PlotCallouts(QCustomPlot* plot);
  void place();

  struct Entry {
    Lesson::Anchor anchor;
    QString text;
    int number = 0;
    bool badge = false;
    QCPItemText* label = nullptr;
    QCPItemLine* leader = nullptr;
    QRectF rect;       // last placement (plot widget coordinates)
    QPointF anchorAt;  // last anchor pixel
  };
  QCustomPlot* plot_;
  std::vector<Entry> entries_;
  QRectF areaUsed_;  // the axis rect the last placement was made for
};

}  // namespace ampscope::ui
