// ScalePlot: the GradScaler's loss scale per mode on a log2 axis, drawn as a step line so every growth
// (×growth_factor after growth_interval clean steps) and backoff (×backoff_factor on inf/NaN) is a visible
// jump. Steps the scaler skipped are marked with a hollow circle on the line. Only modes that run with a
// scaler appear; the others have scale 1 by definition. Steps the store folded into buckets also get a
// translucent band from each bucket's smallest to its largest scale: a backoff and regrowth inside one
// bucket leaves its first and last scale equal, but not its minimum.
#pragma once

#include <map>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry_store.h"
#include "ui/training/band_graphs.h"
#include "ui/training/plot_panel.h"

class QCPGraph;
class QCPItemText;

namespace ampscope::ui {

class ScalePlot : public PlotPanel {
  Q_OBJECT
 public:
  explicit ScalePlot(TelemetryStore* store, QWidget* parent = nullptr);

  QCPGraph* scaleGraph(PrecisionMode mode) const { return scaleGraph(SeriesKey{kEngineRun, mode}); }
  QCPGraph* scaleGraph(SeriesKey key) const;
  QCPGraph* skippedGraph(PrecisionMode mode) const { return skippedGraph(SeriesKey{kEngineRun, mode}); }
  QCPGraph* skippedGraph(SeriesKey key) const;
  QCPGraph* bandLowGraph(PrecisionMode mode) const;   // two points per bucket at its min scale
  QCPGraph* bandHighGraph(PrecisionMode mode) const;  // ... at its max scale, filled down to the min
  // The loss scale of the nearest point: its bits are what the scaler multiplies every gradient by.
  std::optional<PlotValue> valueAt(double key, double value) const override;

 protected:
  QString emptyNote() const override;
  void rebuildFromStore() override;
  void appendFromStore() override;
  void fitToData() override;

 private:
  struct Lane {
    BandGraphs band;
    QCPGraph* scale = nullptr;
    QCPGraph* skipped = nullptr;
    int64_t lastStep = 0;
  };
  Lane& laneFor(SeriesKey key);
  void updateEmptyNote();

  std::map<SeriesKey, Lane> lanes_;
  QCPItemText* emptyNote_;
};

}  // namespace ampscope::ui
