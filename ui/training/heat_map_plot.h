// HeatMapPlot: the exponent histogram of one series' parameter gradients over time (a mode of the
// engine's run or of a followed run). x = step of each
// instrumented step the store still holds (a bounded ring), y = binary exponent, colour = count on a log
// colour scale; empty cells are transparent. Dashed lines mark the series' format's landmarks (its mode's
// gradient format, mode_formats.h; FP16 for FP32 runs).
#pragma once

#include <array>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry_store.h"
#include "ui/training/format_window.h"
#include "ui/training/plot_panel.h"

class QComboBox;
class QCPItemStraightLine;
class QCPItemText;
class QCPColorMap;
class QCPColorScale;

namespace ampscope::ui {

class HeatMapPlot : public PlotPanel {
  Q_OBJECT
 public:
  explicit HeatMapPlot(TelemetryStore* store, QWidget* parent = nullptr);

  void setMode(PrecisionMode mode);  // of the engine's run
  PrecisionMode mode() const;
  void setSeries(SeriesKey key);      // any series, followed runs included
  SeriesKey seriesKey() const;
  void setScaled(bool scaled);
  bool scaled() const;
  QCPColorMap* colorMap() const { return map_; }
  // The format whose landmarks the dashed lines mark.
  const FormatZones& landmarks() const { return zones_; }
  int columns() const { return columns_; }
  // A cell's value: 2^e of its exponent row (the bin's lower edge), with the step and count it holds.
  std::optional<PlotValue> valueAt(double key, double value) const override;

 protected:
  QString emptyNote() const override;
  void rebuildFromStore() override;
  void appendFromStore() override;
  void fitToData() override;
  QString readoutAt(double key, double value) const override;
  // The cursor moves a column (step snapshot) left/right and an exponent up/down.
  double cursorKeyStep() const override;
  double cursorValueStep() const override { return 1.0; }

 private:
  void refillModes();
  void redraw();
  void setLandmarks(PrecisionMode mode);

  QComboBox* modeCombo_;
  QComboBox* scaledCombo_;
  QCPColorMap* map_;
  QCPColorScale* colorScale_;
  int columns_ = 0;
  int64_t drawnStep_ = -1;
  int minExponent_ = -40;
  int maxExponent_ = 20;
  FormatZones zones_;
  std::array<QCPItemStraightLine*, 3> lines_{};
  std::array<QCPItemText*, 3> lineLabels_{};
};

}  // namespace ampscope::ui
