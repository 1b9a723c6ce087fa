// PlotStyleScaler: makes every font and pen of a QCustomPlot larger for the life of the object and puts
// back the exact previous values when it goes (the slide preset). It walks the plot's layerables (axes,
// grids, legend and its items, text elements, plottables, items) through their Qt properties, so plots
// added later by other panels are covered without a list to maintain.
//
// Scaled: every QFont property (point or pixel size), every QPen property (width 0, a cosmetic hairline,
// counts as 1), scatter styles (size by the font factor, a defined pen by the pen factor) and the legend's
// icon size. Restoring writes the saved QVariants back (legends before their items); a layerable deleted meanwhile is
// skipped. The plot is not replotted here: the caller renders and replots.
#pragma once

#include <QByteArray>
#include <QPointer>
#include <QVariant>
#include <vector>

class QCustomPlot;
class QObject;

namespace ampscope::ui {

class PlotStyleScaler {
 public:
  PlotStyleScaler(QCustomPlot* plot, double fontScale, double penScale);
  ~PlotStyleScaler();
  PlotStyleScaler(const PlotStyleScaler&) = delete;
  PlotStyleScaler& operator=(const PlotStyleScaler&) = delete;

  // Restores now (the destructor then does nothing).
  void restore();
  // How many properties were changed.
  int changedCount() const { return static_cast<int>(saved_.size()); }

 private:
  struct Saved {
    QPointer<QObject> object;
    QByteArray property;
    QVariant value;
  };
  // Appends the object's scalable properties to saved_ and their scaled values to `scaledValues`.
  void collect(QObject* object, double fontScale, double penScale, std::vector<QVariant>& scaledValues);

  std::vector<Saved> saved_;
};

}  // namespace ampscope::ui
