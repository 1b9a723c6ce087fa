// NonFiniteTable: "Non-finite gradients": one row per step of any run (engine or followed) whose
// gradients held inf or NaN (the scaler skipped it, or found_inf): the run, its mode, the step, how many
// non-finite values the gradients held and which parameters held them, in module order. The first of
// them is where the trouble entered the backward pass, so it has a column of its own, highlighted.
// Sortable by any column; Ctrl+C (or the context menu) copies the selected rows as tab-separated text.
#pragma once

#include <QString>
#include <QStringList>
#include <QWidget>
#include <cstdint>
#include <vector>

#include "ampscope/engine/telemetry.h"

class QTableWidget;

namespace ampscope::ui {

class NonFiniteTable : public QWidget {
  Q_OBJECT
 public:
  static constexpr int kMaxRows = 10000;  // the oldest rows go first beyond this
  // "Look here" comes right after the step: the dock is often narrow, and it is the column that matters.
  enum Column { RunColumn, StepColumn, FirstColumn, CountColumn, ModeColumn, ParametersColumn, kColumns };

  explicit NonFiniteTable(QWidget* parent = nullptr);

  // Adds a row for every step of `steps` that was skipped or found inf/NaN.
  void addSteps(const QString& run, const std::vector<ModeStep>& steps);
  void addRecords(const QString& run, const std::vector<StepRecord>& records);
  void clearRun(const QString& run);
  void clear();

  int rowCount() const;
  QString text(int row, Column column) const;
  QTableWidget* table() const { return table_; }
  // The selected rows (all rows when none is selected) as tab-separated lines with a header line.
  QString selectionText() const;
  void copySelection() const;

  // The parameters whose gradients held inf/NaN: the writer's list when it gave one, else the instrumented
  // tensors with non-finite values (module order either way).
  static QStringList nonFiniteParameters(const ModeStep& step);
  static int64_t nonFiniteValues(const ModeStep& step);

 private:
  void addStep(const QString& run, const ModeStep& step);

  QTableWidget* table_;
};

}  // namespace ampscope::ui
