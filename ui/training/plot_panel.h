// PlotPanel: the common frame of every streaming plot: a row of controls above a QCustomPlot, a
// "follow latest" toggle (turned off by the user's own zoom or pan), hover read-out in a tooltip,
// wheel zoom / drag pan, a line-width scale for presenter mode, and the store bookkeeping that decides
// between appending new points and rebuilding from scratch (after a fold or a clear).
//
// Hidden panels (a closed or tabbed-away dock) do no work: they remember that they are stale and
// rebuild when shown.
//
// Every panel keeps a plot area of at least kMinAxisWidth x kMinAxisHeight pixels (the widget's minimum
// size follows the margins its axes need, so the window's layout honours it), shows a one-line "Run to
// see ..." note while nothing is plotted, thins its tick labels until they do not touch
// (TickLabelFitter), and elides legend names that do not fit, with the full name in a tooltip.
#pragma once

#include "ui/common/flow_layout.h"
#include <QPen>
#include <QWidget>
#include <cstdint>
#include <functional>
#include <optional>

class QCheckBox;
class QCustomPlot;
class QCPAbstractPlottable;
class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;
class QKeyEvent;
class QMouseEvent;

namespace ampscope {
class TelemetryStore;
}  // namespace ampscope

namespace ampscope::ui {

class PlotPanel : public QWidget {
  Q_OBJECT
 public:
  PlotPanel(TelemetryStore* store, QWidget* parent = nullptr);
  ~PlotPanel() override;

  QCustomPlot* plot() const { return plot_; }
  TelemetryStore* store() const { return store_; }
  void setLineScale(double scale);
  double lineScale() const { return lineScale_; }
  bool followLatest() const;
  void setFollowLatest(bool follow);
  // Sets a pen whose width follows setLineScale (the pen's own width is the width at scale 1).
  void setScaledPen(QCPAbstractPlottable* plottable, const QPen& pen);

  // The plot's axis rect (the area inside the axes) in global screen coordinates, as last laid out.
  QRect axisRectOnScreen() const;
  // The "Run to see ..." note while nothing is plotted; empty once data is drawn (or for a plot
  // with an empty state of its own).
  QString shownEmptyNote() const;

  static constexpr int kMinAxisWidth = 160;
  static constexpr int kMinAxisHeight = 90;

  // New steps are in the store; append them (or rebuild when the store rewrote history).
  void onDataAppended();
  // Everything from the store again (after a clear, a run start, a settings change).
  void refresh();

  // From a plotted point to its bits: a value the formats panel can open, and a sentence saying where it
  // came from ("fp16-amp-scaled's loss scale at step 120"). A click on the plot (without dragging), or
  // Enter at the keyboard cursor (←/→, and ↑/↓ where the value axis has cells), emits valueActivated.
  struct PlotValue {
    double value = 0;
    QString context;
  };
  // The value at plot coordinates (key, value); nullopt where the plot has none (the default).
  virtual std::optional<PlotValue> valueAt(double key, double value) const;
  // As a click at (key, value) would: emits valueActivated when valueAt has one; returns whether it did.
  bool activateAt(double key, double value);
  // The keyboard cursor, in plot coordinates (NaN until a key moved it).
  double cursorKey() const { return cursorKey_; }
  double cursorValue() const { return cursorValue_; }
  void setCursor(double key, double value);

 signals:
  void valueActivated(double value, const QString& context);

 protected:
  virtual void rebuildFromStore() = 0;   // clear the plottables and add everything the store holds
  virtual void appendFromStore() = 0;    // add what arrived since the last call
  // Subclasses call this from appendFromStore when nothing visible changed: the panel then skips fit and
  // replot (a replot costs milliseconds of the GUI thread). Without the call every append replots.
  void skipReplot() { replotWanted_ = false; }
  virtual void fitToData();              // "follow latest": keys to the whole run, values to the data
  // The one-line note shown while no plottable holds data ("" for none).
  virtual QString emptyNote() const;
  // The read-out for the mouse at plot coordinates (key, value); empty hides the tooltip.
  virtual QString readoutAt(double key, double value) const;

  FlowLayout* controls() const { return controls_; }
  // Switches the y axis between linear and log10 (ticks at powers of ten, "1E+03" labels).
  void setLogValueAxis(bool log);
  void replotQueued();
  // How far ←/→ (↑/↓) move the keyboard cursor: a fortieth of the visible key range by default (and no
  // vertical movement); plots of bins or cells move one bin.
  virtual double cursorKeyStep() const;
  virtual double cursorValueStep() const { return 0; }
  // The graph point nearest to plot coordinates (key, value), in pixels, among the visible named graphs
  // (those marked "noReadout" left out); false when none has data.
  bool nearestGraphPoint(double key, double value, QCPGraph** graph, double* pointKey, double* pointValue) const;
  // Moves the legend out of the plot area into a row above it, entries side by side (for plots whose
  // data or labels fill the whole frame).
  void placeLegendAbove(int columns);
  void showEvent(QShowEvent* event) override;
  void resizeEvent(QResizeEvent* event) override;

 private:
  void update(bool forceRebuild);
  void onMouseMove(QMouseEvent* event);
  bool eventFilter(QObject* watched, QEvent* event) override;
  void onKey(QKeyEvent* event);
  void onUserRangeChange();
  // A legend above the plot takes at most as many columns as its widest entry fits into the width
  // (followed runs' long names would otherwise be cut off), never more than placeLegendAbove's.
  void fitLegendColumns();
  // Before every replot: legend entries that elide, the legend hidden while empty, the empty note.
  void arrangeBeforeReplot();
  void useElidingLegendItems();
  void elideLegendNames();
  // A legend inside the axis rect goes to the corner that hides the fewest data points of the graphs
  // (the newest steps of a falling loss are bottom right, a flat curve runs along one edge).
  void moveLegendOffData();
  // After a replot: the widget's minimum size from the plot layout's (margins + minimum axis rect).
  void updateMinimumSize();
  bool hasPlottedData() const;

  TelemetryStore* store_;
  QCustomPlot* plot_;
  FlowLayout* controls_;
  QCheckBox* follow_;
  double lineScale_ = 1.0;
  uint64_t seenGeneration_ = ~uint64_t{0};
  bool stale_ = true;
  bool fitting_ = false;  // our own range changes must not switch "follow latest" off
  bool replotWanted_ = true;
  int legendColumns_ = 0;  // placeLegendAbove's column count; 0: the legend is inside the plot
  QCPItemText* emptyStateNote_ = nullptr;
  QCPItemStraightLine* cursorLine_ = nullptr;
  double cursorKey_;
  double cursorValue_;
  QPoint pressPos_;  // where the left button went down: a release there (not a drag) is a click
  bool legendHiddenWhileEmpty_ = false;
};

// The graph `pick` takes from the lane a plot keeps for `key` (one lane of graphs per mode), or nullptr
// while that mode has no lane yet.
template <typename Lanes, typename Pick>
QCPGraph* laneGraph(const Lanes& lanes, const typename Lanes::key_type& key, Pick pick) {
  const auto it = lanes.find(key);
  return it == lanes.end() ? nullptr : std::invoke(pick, it->second);
}

}  // namespace ampscope::ui
