// ClipNormPlot: for the clipping lesson, the gradient norm clip_grad_norm_ computed at each step (solid)
// and the real, unscaled norm after clipping (dashed), per mode, on a log axis, with max_norm drawn as a
// line. Clipping after unscale_ sees the true norm (the chapter prints 1.534 for TinyMLP); clipping
// before it sees the norm times the loss scale, so after unscaling the gradients are max_norm / scale.
// Steps the store folded into buckets are translucent bands from each bucket's smallest to its largest
// norm (solid edges: the norm clip_grad_norm_ saw; dashed: after clipping).
#pragma once

#include <map>

#include "ampscope/engine/run_config.h"
#include "ui/training/band_graphs.h"
#include "ui/training/plot_panel.h"

class QCPGraph;
class QCPItemStraightLine;
class QCPItemText;

namespace ampscope::ui {

class ClipNormPlot : public PlotPanel {
  Q_OBJECT
 public:
  explicit ClipNormPlot(TelemetryStore* store, QWidget* parent = nullptr);

  QCPGraph* seenGraph(PrecisionMode mode) const;
  QCPGraph* afterGraph(PrecisionMode mode) const;
  // Two points per bucket (its first and last step) at its largest norm clip_grad_norm_ saw.
  QCPGraph* seenBandHighGraph(PrecisionMode mode) const;

 protected:
  QString emptyNote() const override;
  void rebuildFromStore() override;
  void appendFromStore() override;
  void fitToData() override;
  void changeEvent(QEvent* event) override;

 private:
  struct Lane {
    BandGraphs seenBand;   // solid edges
    BandGraphs afterBand;  // dashed edges
    QCPGraph* seen = nullptr;
    QCPGraph* after = nullptr;
    int64_t lastStep = 0;
  };
  Lane& laneFor(PrecisionMode mode);
  void nameLane(PrecisionMode mode, Lane& lane);
  void retranslate();
  void updateMaxNormLine();

  std::map<PrecisionMode, Lane> lanes_;
  QCPItemStraightLine* maxNormLine_ = nullptr;
  QCPItemText* maxNormLabel_ = nullptr;
};

}  // namespace ampscope::ui
