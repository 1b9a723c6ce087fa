// HistogramPlot: the exact exponent histogram of the gradients at the latest instrumented step. Bar e
// counts the values with floor(log2|g|) == e, i.e. |g| in [2^e, 2^(e+1)), so on this x axis a value v
// sits at log2(v) - 1/2 and every format boundary falls on a bar edge. Behind the bars: the run's main
// format's zones (flushed to zero, subnormal, normal, overflow or saturation) as light shading with
// labels, its second format's as a strip along the top (format_window.h: zoneFormats; FP16 and BF16
// for the FP16/BF16 modes, E5M2 for fp8-delayed/current, E4M3 for mxfp8, E2M1 for nvfp4). The scaled/unscaled switch shows the gradients as the GradScaler saw them (slid right by
// log2(scale) bars, into FP16's range) or as the optimizer receives them.
//
// The layer list also holds the quantised tensors of the FP8 and microscaling modes: for one of them the
// plot shows its exponents (unscaled, at the latest instrumented step) and, per mode, the element
// format's window where that step's scale puts it (FormatWindow), with the saturated and flushed shares
// in the side note. The window moves as the scale does.
#pragma once

#include <QStringList>
#include <array>
#include <map>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"
#include "ampscope/engine/telemetry_store.h"
#include "ui/training/format_window.h"
#include "ui/training/plot_panel.h"

class QCheckBox;
class QComboBox;
class QCPAbstractItem;
class QCPBars;
class QCPBarsGroup;
class QCPItemRect;
class QCPItemStraightLine;
class QCPItemText;
class QFont;
class QLabel;
class QMenu;
class QToolButton;

namespace ampscope::ui {

class HistogramPlot : public PlotPanel {
  Q_OBJECT
 public:
  explicit HistogramPlot(TelemetryStore* store, QWidget* parent = nullptr);

  void setScaled(bool scaled);
  bool scaled() const;
  void setLogCounts(bool log);
  // "" = all parameter gradients, "*act" = all tapped activation gradients, kQuantPrefix + a quantised
  // tensor's name, else one tensor's name.
  void setLayer(const QString& layer);
  QString layer() const;
  void setModeShown(PrecisionMode mode, bool shown) { setSeriesShown(SeriesKey{kEngineRun, mode}, shown); }
  bool modeShown(PrecisionMode mode) const { return seriesShown(SeriesKey{kEngineRun, mode}); }
  void setSeriesShown(SeriesKey key, bool shown);
  bool seriesShown(SeriesKey key) const;

  // The histogram currently drawn for a series (chosen layer(s), scaled or not), and its bars (one bar
  // per non-empty exponent bin plus one at zeroKey() for exact zeros). A PrecisionMode is the engine's.
  ExponentHistogram shownHistogram(PrecisionMode mode) const { return shownHistogram(SeriesKey{kEngineRun, mode}); }
  ExponentHistogram shownHistogram(SeriesKey key) const;
  QCPBars* bars(PrecisionMode mode) const { return bars(SeriesKey{kEngineRun, mode}); }
  QCPBars* bars(SeriesKey key) const;
  QString sideNote() const;
  // The formats whose zones are drawn: the main one full height, the second as the strip along the top.
  const FormatZones& mainZones() const { return mainZones_; }
  const FormatZones& stripZones() const { return stripZones_; }
  double zeroKey() const { return zeroKey_; }

  static constexpr const char* kAllActivations = "*act";
  static constexpr const char* kQuantPrefix = "fp8:";
  // The quantised tensor shown ("" when the layer is a gradient), and the format window drawn for a
  // series as log2 of |x|: from the largest value that rounds to 0 to the largest that does not
  // saturate (false when none: no such tensor in that series or no instrumented step yet).
  QString quantTensor() const;
  bool shownWindow(SeriesKey key, double* lowLog2, double* highLog2) const;
  // In the gradient view: the union of a block mode's gradient blocks' windows (false for other modes).
  bool shownBlockWindow(SeriesKey key, double* lowLog2, double* highLog2) const {
    const auto it = blockWindows_.find(key);
    if (it == blockWindows_.end()) return false;
    *lowLog2 = it->second.first;
    *highLog2 = it->second.second;
    return true;
  }

  // From a bin to its bits and back: clicking a bar emits binActivated with the bin's lower edge 2^e (0
  // for the exact zeros); markValue draws where a value (the formats panel's) falls: a line on its bin.
  void markValue(double value);
  bool markedBin(int* exponent) const;  // false when nothing is marked (0, inf, NaN or no value)
  void activateBin(int exponent);        // as a click on bin e (zeroKey() for the exact zeros)
  // Bin e's lower edge 2^e (0 for the exact zeros) and what the shown series hold there: per mode the
  // count at its step and the tensors that hold such values.
  std::optional<PlotValue> valueAt(double key, double value) const override;

 signals:
  void binActivated(double value);

 protected:
  QString emptyNote() const override;
  void rebuildFromStore() override;
  void appendFromStore() override;
  void fitToData() override;
  QString readoutAt(double key, double value) const override;
  double cursorKeyStep() const override { return 1.0; }

 private:
  void addFormatZones();
  // Moves the zones to the first two formats (the main one full height, the second as the strip).
  void setZoneFormats(const std::vector<ZoneFormat>& formats);
  // Each zone label shows the longest of its texts that fits the visible part of its zone (and, for
  // the FP16 labels, 30% of the plot's height); when none fits it is hidden. While the view follows the
  // data, the count axis then gets head room so that no bar reaches up into the labels. Run before
  // every replot.
  void fitZoneLabels();
  // The count axis's range, such that a bar of fittedMaxCount_ ends below labelsBottom_.
  void fitCountAxis();
  struct ZoneLabel {
    QCPItemText* item;
    double x0, x1;          // the zone, in plot coordinates
    QStringList texts;      // longest first
    bool checkHeight;       // the FP16 labels stack three lines; the BF16 strip's are one line
  };
  void addZoneLabel(QCPItemText* item, double x0, double x1, QStringList texts, bool checkHeight);
  void refillLayerCombo();
  void redrawBars();
  // The latest instrumented stats of the shown quantised tensor in a series, or nullptr.
  const QuantTensorStats* shownQuant(SeriesKey key) const;
  int64_t shownStep(SeriesKey key) const;
  void drawQuantWindows(const std::vector<SeriesKey>& shown);
  void drawBlockWindows(const std::vector<SeriesKey>& shown, const QFont& font);
  QString quantNote(SeriesKey key, const QString& name) const;

  QComboBox* scaledCombo_;
  QComboBox* layerCombo_;
  QCheckBox* logCounts_;
  QToolButton* modesButton_;
  QMenu* modesMenu_;
  QLabel* note_;
  QCPBarsGroup* group_;
  // Exact zeros get a bar of their own, left of the lowest exponent shown, with a label: without it a
  // mode whose gradients all flushed to zero would show an empty histogram.
  double zeroKey_ = -50;
  QCPItemText* zeroLabel_ = nullptr;
  QCPItemStraightLine* zeroSeparator_ = nullptr;
  QCPItemRect* zeroBackground_ = nullptr;
  std::map<SeriesKey, QCPBars*> bars_;
  std::map<SeriesKey, bool> hidden_;  // series the user unticked
  std::map<SeriesKey, int64_t> drawnStep_;
  QStringList layerNames_;
  std::vector<ZoneLabel> zoneLabels_;  // the main format's four, the strip's three, the zeros'
  std::array<QCPItemRect*, 4> mainRects_{};   // flush, subnormal, normal, overflow
  std::array<QCPItemStraightLine*, 3> mainLines_{};
  std::array<QCPItemRect*, 4> stripRects_{};
  FormatZones mainZones_;
  FormatZones stripZones_;
  bool zonesSet_ = false;
  double fittedMaxCount_ = 1;  // the tallest bar when fitToData last ran (1 before any)
  double labelsBottom_ = 0;    // where the zone labels end, as a fraction of the axis rect from its top
  // Over the FP16/BF16 zones while a quantised tensor is shown, and the windows drawn on it.
  QCPItemRect* quantCover_ = nullptr;
  std::vector<QCPAbstractItem*> quantItems_;
  std::map<SeriesKey, std::pair<double, double>> windows_;
  // The gradient view's block windows of the block modes (log2 |g| from the lowest block's smallest
  // subnormal to the highest block's max).
  std::map<SeriesKey, std::pair<double, double>> blockWindows_;
  // The formats panel's value: a line on its bin, and its label.
  QCPItemStraightLine* markLine_ = nullptr;
  QCPItemText* markLabel_ = nullptr;
  double markedValue_ = 0;
  bool marked_ = false;
};

}  // namespace ampscope::ui
