// OpDtypeTable: which op ran in which dtype during one forward pass, one column per precision mode
// (the engine's op-dtype report: autocast's per-op policy made visible). Emulated dtypes are marked,
// because on this LibTorch FP16 is FP32 arithmetic rounded exactly to FP16 at autocast's cast points.
#pragma once

#include <QWidget>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"

class QLabel;
class QTableWidget;

namespace ampscope::ui {

class OpDtypeTable : public QWidget {
  Q_OBJECT
 public:
  explicit OpDtypeTable(QWidget* parent = nullptr);

  struct ModeReport {
    PrecisionMode mode;
    std::vector<OpDtypeEntry> entries;
  };
  void setReports(const std::vector<ModeReport>& reports);
  void clear();
  QTableWidget* table() const { return table_; }

 signals:
  void refreshRequested();

 private:
  QTableWidget* table_;
  QLabel* note_;
};

}  // namespace ampscope::ui
