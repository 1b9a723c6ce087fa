// LossPlot: training loss per series (each mode of the engine's run and of each followed run) against the
// step. Linear or log y, optional exponential
// moving average. NaN and Inf losses are data, not gaps to hide: each one gets a red cross at the last
// finite value of its mode, and a diverged mode gets a labelled marker at the step where it stopped.
// Steps the store folded into buckets show as a translucent band from each bucket's minimum to its
// maximum, so a spike older than the full-resolution window stays as tall as it was; the recent steps
// are the line. A bucket holding NaN or Inf losses gets a red cross on top of its band.
#pragma once

#include <QHash>
#include <map>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry_store.h"
#include "ui/training/band_graphs.h"
#include "ui/training/plot_panel.h"

class QCheckBox;
class QCPGraph;
class QCPItemText;
class QSlider;

namespace ampscope::ui {

class LossPlot : public PlotPanel {
  Q_OBJECT
 public:
  explicit LossPlot(TelemetryStore* store, QWidget* parent = nullptr);

  void setLogScale(bool log);
  bool logScale() const;
  // 0 = raw; otherwise the EMA weight of the past, in [0, 0.999].
  void setSmoothing(double beta);
  double smoothing() const { return smoothing_; }
  // A mode of the engine's run, or any series (followed runs included).
  QCPGraph* lossGraph(PrecisionMode mode) const { return lossGraph(SeriesKey{kEngineRun, mode}); }
  QCPGraph* lossGraph(SeriesKey key) const;
  QCPGraph* nonFiniteGraph(PrecisionMode mode) const { return nonFiniteGraph(SeriesKey{kEngineRun, mode}); }
  QCPGraph* nonFiniteGraph(SeriesKey key) const;
  // The band of folded steps: two points per bucket (its first and last step) at its min / its max.
  QCPGraph* bandLowGraph(PrecisionMode mode) const;
  QCPGraph* bandHighGraph(PrecisionMode mode) const;
  int divergenceMarkerCount() const { return static_cast<int>(divergedLabels_.size()); }

 protected:
  QString emptyNote() const override;
  void rebuildFromStore() override;
  void appendFromStore() override;
  void fitToData() override;

 private:
  struct Lane {
    BandGraphs band;
    QCPGraph* loss = nullptr;
    QCPGraph* nonFinite = nullptr;
    int64_t lastStep = 0;
    double ema = 0;
    bool emaStarted = false;
    double lastFinite = 0;
    bool haveFinite = false;
  };
  Lane& laneFor(SeriesKey key);
  void addPoint(Lane& lane, int64_t step, double key, double loss);
  void markDivergence(SeriesKey key, Lane& lane, int64_t step);

  QCheckBox* log_;
  QSlider* smoothingSlider_;
  double smoothing_ = 0.0;
  std::map<SeriesKey, Lane> lanes_;
  std::map<SeriesKey, QCPItemText*> divergedLabels_;
};

}  // namespace ampscope::ui
