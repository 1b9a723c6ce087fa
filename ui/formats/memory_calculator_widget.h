// Memory of N elements in every dtype: bytes and GiB (the chapter's 1e9-element table: float32
// 3.7253 GiB). The count is typed by hand; a bad count is named next to the field. The table copies
// and exports as CSV.
#pragma once

#include <QWidget>

class QLabel;
class QLineEdit;
class QTableWidget;

namespace ampscope::ui::formats {

class MemoryCalculatorWidget : public QWidget {
  Q_OBJECT
 public:
  explicit MemoryCalculatorWidget(QWidget* parent = nullptr);

  QLineEdit* countEdit() const { return m_count; }
  QTableWidget* table() const { return m_table; }
  bool isCountValid() const { return m_valid; }
  QString message() const;
  // The GiB cell of a dtype, as shown (%.4f).
  QString gibText(int row) const;
  // The table as CSV, for the last valid count: plain integers (no digit grouping), GiB as shown
  // (%.4f) and at full precision.
  QString toCsv() const;

 public slots:
  void copyCsvToClipboard();
  void exportCsv();

 private:
  void recompute();

  QLineEdit* m_count = nullptr;
  QLabel* m_message = nullptr;
  QTableWidget* m_table = nullptr;
  bool m_valid = true;
  long double m_elements = 0;  // the last valid count, the one the table shows
};

}  // namespace ampscope::ui::formats
