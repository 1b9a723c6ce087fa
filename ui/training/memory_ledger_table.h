// MemoryLedgerTable: bytes per category (parameters, gradients, optimizer state, activations,
// temporaries, peak) side by side per mode, from the engine's counting allocator, in human-readable
// binary units. The chapter's point: under autocast only activations and temporaries shrink much.
#pragma once

#include <QString>
#include <QWidget>
#include <cstdint>
#include <vector>

#include "ampscope/engine/run_config.h"
#include "ampscope/engine/telemetry.h"

class QEvent;
class QLabel;
class QTableWidget;

namespace ampscope::ui {

class MemoryLedgerTable : public QWidget {
  Q_OBJECT
 public:
  explicit MemoryLedgerTable(QWidget* parent = nullptr);

  struct ModeLedger {
    PrecisionMode mode;
    MemoryLedger ledger;
  };
  void setLedgers(const std::vector<ModeLedger>& ledgers);
  void clear();
  QTableWidget* table() const { return table_; }
  static QString formatBytes(int64_t bytes);  // "1.50 MiB", "812 B"

 signals:
  void refreshRequested();

 protected:
  void changeEvent(QEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  // Columns no narrower than their widest value and their header's widest word: a narrow dock scrolls
  // the table sideways rather than eliding "1.40 MiB" to "1.…".
  void fitColumns();
  // Rows share the table's height, between a compact row (the text and a little margin) and a
  // comfortable one: six rows fit a 720-pixel screen's dock instead of scrolling the Peak row away.
  void fitRows();

  QTableWidget* table_;
  QLabel* note_;
};

}  // namespace ampscope::ui
