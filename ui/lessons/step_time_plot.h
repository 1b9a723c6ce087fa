// StepTimePlot: wall time of each training step per mode, for the measuring lesson. Step 1 is drawn like
// any other, so its outlier (allocation, kernel set-up, cold caches) is plain to see; each mode's legend
// entry carries the chapter's figure: the mean of the 20 steps after 5 warm-up steps (steps 6..25),
// which also appears as a dotted level line once those steps exist.
#pragma once

#include <map>
#include <optional>

#include "ampscope/engine/run_config.h"
#include "ui/training/plot_panel.h"

class QCPGraph;

namespace ampscope::ui {

class StepTimePlot : public PlotPanel {
  Q_OBJECT
 public:
  // The chapter's method: 5 warm-up steps, then time 20.
  static constexpr int kWarmupSteps = 5;
  static constexpr int kTimedSteps = 20;

  explicit StepTimePlot(TelemetryStore* store, QWidget* parent = nullptr);

  QCPGraph* timeGraph(PrecisionMode mode) const;
  // Mean step time over steps kWarmupSteps+1 .. kWarmupSteps+kTimedSteps; nullopt until they all exist.
  std::optional<double> meanAfterWarmup(PrecisionMode mode) const;

 protected:
  QString emptyNote() const override;
  void rebuildFromStore() override;
  void appendFromStore() override;
  void fitToData() override;
  void changeEvent(QEvent* event) override;

 private:
  struct Lane {
    QCPGraph* times = nullptr;
    QCPGraph* mean = nullptr;
    int64_t lastStep = 0;
    double timedSum = 0;
    int timedCount = 0;
  };
  Lane& laneFor(PrecisionMode mode);
  void retranslate();
  void updateLane(PrecisionMode mode, Lane& lane);

  std::map<PrecisionMode, Lane> lanes_;
};

}  // namespace ampscope::ui
