// TickLabelFitter: keeps a plot's tick labels from running into each other. Before every replot it asks
// each axis's ticker for fewer ticks until the labels, measured with the axis's tick-label font against
// the axis length, leave a gap between neighbours; when even two ticks do not fit, the axis shows no
// tick labels at all rather than a smear. The axis length is the one of the previous layout: when the
// layout moved since, the fitter asks for one more replot.
#pragma once

#include <QHash>
#include <QList>
#include <QObject>
#include <QRectF>

class QCPAxis;
class QCPAxisTicker;
class QCustomPlot;

namespace ampscope::ui {

class TickLabelFitter : public QObject {
  Q_OBJECT
 public:
  // Fits every axis of `plot` from now on; the fitter is a child of the plot.
  static TickLabelFitter* install(QCustomPlot* plot);

  // Where the axis's tick labels of the last replot lie, in the plot widget's coordinates: one
  // rectangle per label, from the tick-label font's metrics (a label drawn with exponents in smaller
  // type takes less room than this). Empty when the axis shows no tick labels.
  static QList<QRectF> tickLabelRects(const QCPAxis* axis);

 private:
  explicit TickLabelFitter(QCustomPlot* plot);
  void fit();
  void checkAfterReplot();
  void fitAxis(QCPAxis* axis);

  QCustomPlot* plot_;
  struct AxisState {
    QCPAxisTicker* ticker = nullptr;  // the ticker the preferred count was read from
    int preferredCount = 5;
    bool hidLabels = false;           // tick labels switched off here, not by the plot
    double lengthUsed = -1;
  };
  QHash<QCPAxis*, AxisState> axes_;
  int requeued_ = 0;
};

}  // namespace ampscope::ui
