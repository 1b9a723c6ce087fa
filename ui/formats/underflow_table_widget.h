// The chapter's gradient-underflow table: the FP32 tensor [1e-2, 1e-4, 1e-6, 1e-7, 1e-8, 1e-9] cast
// to FP16 and BF16 (%.4e), zeros and subnormals highlighted. Double-clicking a row makes that value
// the panel's entry value. The table copies and exports as CSV.
#pragma once

#include <QWidget>

class QTableWidget;

namespace ampscope::ui::formats {

class UnderflowTableWidget : public QWidget {
  Q_OBJECT
 public:
  explicit UnderflowTableWidget(QWidget* parent = nullptr);

  // The FP32 tensor the chapter casts in its gradient-underflow section (section 5).
  static const QVector<double>& inputs();

  QTableWidget* table() const { return m_table; }
  // The table as CSV: one line per input; each dtype's value as shown (%.4e), then every stored
  // value at full precision (the shortest text that reads back exactly).
  QString toCsv() const;

 public slots:
  void copyCsvToClipboard();
  void exportCsv();

 signals:
  void valueActivated(double value);

 private:
  QTableWidget* m_table = nullptr;
};

}  // namespace ampscope::ui::formats
