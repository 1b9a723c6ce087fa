// Fp8ScalePlot: the scale of every quantised tensor of the FP8 and microscaling modes over the steps, on
// a log2 axis like the loss-scale plot (a per-tensor scale only ever changes by what amax does, and the
// lesson is in binades). One step line per tensor per mode: colour follows the mode, the line style the
// operand (input solid, weight dashed, gradient dotted), the shade the layer.
//
// Everything is plotted as "the factor values are multiplied by before rounding". Block modes have no
// single such factor: their lane is a band over the range of per-block factors, 2^-max to 2^-min of the
// block-scale exponents the engine reports (the decode factor's floor(log2); a block decoding by 2^e
// multiplies its values by 2^-e), so an MXFP8 band lines up with what the same tensor's FP8 scale does.
//
// Tensor names are many (three per linear layer): the filter picks all, the forward or the backward
// operands, or one tensor.
#pragma once

#include <QString>
#include <QStringList>
#include <map>
#include <string>
#include <utility>

#include "ampscope/engine/telemetry_store.h"
#include "ui/training/band_graphs.h"
#include "ui/training/plot_panel.h"

class QComboBox;
class QCPGraph;

namespace ampscope::ui {

class Fp8ScalePlot : public PlotPanel {
  Q_OBJECT
 public:
  explicit Fp8ScalePlot(TelemetryStore* store, QWidget* parent = nullptr);

  // "" = every quantised tensor, kForward = the inputs and weights, kBackward = the gradients, else one
  // tensor's name ("fc1.input").
  void setTensorFilter(const QString& filter);
  QString tensorFilter() const;
  static constexpr const char* kForward = "*fwd";
  static constexpr const char* kBackward = "*bwd";

  // The lane of one tensor of one series (nullptr while it has none, or the filter hides it).
  QCPGraph* scaleGraph(SeriesKey key, const QString& tensor) const;
  QCPGraph* bandLowGraph(SeriesKey key, const QString& tensor) const;   // block modes: smallest factor
  QCPGraph* bandHighGraph(SeriesKey key, const QString& tensor) const;  // ... largest, filled down
  int laneCount() const { return static_cast<int>(lanes_.size()); }
  QComboBox* filterCombo() const { return filter_; }

  // A block scaling's per-block factor range as scales (see the header comment): {2^-max, 2^-min}.
  static std::pair<double, double> blockScaleRange(int blockScaleExpMin, int blockScaleExpMax);

  // The scale of the nearest point (a tensor's FP8 scale, or a block's E8M0/E4M3 scale).
  std::optional<PlotValue> valueAt(double key, double value) const override;

 protected:
  QString emptyNote() const override;
  void rebuildFromStore() override;
  void appendFromStore() override;
  void fitToData() override;

 private:
  using LaneKey = std::pair<SeriesKey, std::string>;
  struct Lane {
    bool block = false;
    BandGraphs band;             // block modes
    QCPGraph* scale = nullptr;   // per-tensor modes
    int64_t lastStep = 0;
  };
  bool matchesFilter(const QuantSeries& q) const;
  Lane& laneFor(SeriesKey key, const QuantSeries& q, int shade);
  void addPoints(Lane& lane, const QuantSeries& q, bool onlyNew);
  // The store's points into the lanes (all of them, or those after each lane's last step); whether any
  // lane gained points.
  bool addFromStore(bool onlyNew);
  void refillFilterCombo();
  void updateLegendVisibility();

  QComboBox* filter_;
  QStringList names_;
  std::map<LaneKey, Lane> lanes_;
};

}  // namespace ampscope::ui
