// UnderflowPlot: what happened at the rounding points of each mode over time, on instrumented steps:
// values flushed to zero (non-zero before the cast, zero after), values left subnormal, and values that
// overflowed to inf. One colour per mode, one line style per quantity (a followed run's lines also carry a marker of their own); as counts or as a percentage of
// the elements that went through a rounding point; summed over the model or for one layer. Instrumented
// steps the store folded into buckets are translucent bands from the least to the most any single step
// of the bucket had; the line is the full-resolution steps.
#pragma once

#include <array>
#include <map>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"
#include "ampscope/engine/telemetry_store.h"
#include "ui/training/band_graphs.h"
#include "ui/training/plot_panel.h"

class QCheckBox;
class QComboBox;
class QCPGraph;

namespace ampscope::ui {

class UnderflowPlot : public PlotPanel {
  Q_OBJECT
 public:
  enum class Quantity { FlushedToZero = 0, Subnormal = 1, Overflowed = 2 };
  static constexpr int kQuantities = 3;

  explicit UnderflowPlot(TelemetryStore* store, QWidget* parent = nullptr);

  void setPercent(bool percent);
  bool percent() const;
  void setQuantityShown(Quantity quantity, bool shown);
  void setLayer(const QString& layer);  // "" = total over all rounding points
  QString layer() const;
  QCPGraph* graph(PrecisionMode mode, Quantity quantity) const { return graph(SeriesKey{kEngineRun, mode}, quantity); }
  QCPGraph* graph(SeriesKey key, Quantity quantity) const;
  // The band of folded steps: two points per bucket (its first and last step) at its per-step maximum.
  QCPGraph* bandHighGraph(PrecisionMode mode, Quantity quantity) const;
  // For the nearest point, a value of the class it counts, in the format the mode's counts are taken
  // against: half the smallest subnormal (a tie, which round-to-nearest-even sends to 0) for flushed, a
  // subnormal for subnormal, the first value past the largest finite one for overflowed.
  std::optional<PlotValue> valueAt(double key, double value) const override;

 protected:
  QString emptyNote() const override;
  void rebuildFromStore() override;
  void appendFromStore() override;

 private:
  struct Lane {
    std::array<BandGraphs, kQuantities> bands{};
    std::array<QCPGraph*, kQuantities> graphs{};
    int64_t lastStep = 0;
  };
  Lane& laneFor(SeriesKey key);
  double valueOf(const RoundingCounts& counts, Quantity quantity, double steps) const;
  void refillLayers();
  void applyVisibility();

  QComboBox* unitCombo_;
  QComboBox* layerCombo_;
  std::array<QCheckBox*, kQuantities> quantityBoxes_{};
  std::map<SeriesKey, Lane> lanes_;
  QStringList layerNames_;
};

}  // namespace ampscope::ui
