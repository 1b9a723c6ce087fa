// BandGraphs: the translucent band a plot draws over the steps the store folded into buckets, from each
// bucket's minimum to its maximum, so a spike older than the full-resolution window stays as tall as it
// was. Two graphs, the low edge and the high edge filled down to it; BandPoints collects their points.
#pragma once

#include <QColor>
#include <QVector>
#include <cstdint>

class QCPGraph;
class QCustomPlot;

namespace ampscope::ui {

class PlotPanel;

struct BandGraphs {
  QCPGraph* low = nullptr;
  QCPGraph* high = nullptr;  // filled down to low

  // Adds both edges to the panel's plot in `color` (edges at alpha 120, the fill at `fillAlpha`), out of
  // the legend and the read-out: the read-out takes each graph's nearest point, and a band's would be
  // stale over the recent steps. Add a band before its line so that the line is drawn over it.
  static BandGraphs add(PlotPanel& panel, QColor color, int fillAlpha, Qt::PenStyle edgeStyle = Qt::SolidLine);
  void removeFrom(QCustomPlot* plot) const;
  void setVisible(bool visible) const;
};

// A band's points, bucket by bucket in step order.
class BandPoints {
 public:
  void reserve(std::size_t buckets);
  // Two points, at the bucket's first and last step, so the band is flat across the bucket.
  void addBucket(int64_t firstStep, int64_t lastStep, double min, double max);
  // A bucket with nothing to show: a gap in the band (QCustomPlot breaks lines and fills at NaN).
  void addGap(int64_t firstStep);
  void setOn(const BandGraphs& band) const;

 private:
  QVector<double> keys_, lows_, highs_;
};

}  // namespace ampscope::ui
