#include "ui/training/band_graphs.h"

#include <cmath>
#include <qcustomplot.h>

#include "ui/training/plot_panel.h"

namespace ampscope::ui {

BandGraphs BandGraphs::add(PlotPanel& panel, QColor color, int fillAlpha, Qt::PenStyle edgeStyle) {
  QColor edge = color, fill = color;
  edge.setAlpha(120);
  fill.setAlpha(fillAlpha);
  BandGraphs band;
  band.low = panel.plot()->addGraph();
  band.high = panel.plot()->addGraph();
  for (QCPGraph* g : {band.low, band.high}) {
    panel.setScaledPen(g, QPen(edge, 1.0, edgeStyle));
    g->removeFromLegend();
    g->setProperty("noReadout", true);
  }
  band.high->setBrush(fill);
  band.high->setChannelFillGraph(band.low);
  return band;
}

void BandGraphs::removeFrom(QCustomPlot* plot) const {
  plot->removeGraph(low);
  plot->removeGraph(high);
}

void BandGraphs::setVisible(bool visible) const {
  low->setVisible(visible);
  high->setVisible(visible);
}

void BandPoints::reserve(std::size_t buckets) {
  const int points = static_cast<int>(2 * buckets);
  keys_.reserve(points);
  lows_.reserve(points);
  highs_.reserve(points);
}

void BandPoints::addBucket(int64_t firstStep, int64_t lastStep, double min, double max) {
  keys_ << static_cast<double>(firstStep) << static_cast<double>(lastStep);
  lows_ << min << min;
  highs_ << max << max;
}

void BandPoints::addGap(int64_t firstStep) {
  keys_ << static_cast<double>(firstStep);
  lows_ << std::nan("");
  highs_ << std::nan("");
}

void BandPoints::setOn(const BandGraphs& band) const {
  band.low->setData(keys_, lows_, /*alreadySorted=*/true);
  band.high->setData(keys_, highs_, /*alreadySorted=*/true);
}

}  // namespace ampscope::ui
