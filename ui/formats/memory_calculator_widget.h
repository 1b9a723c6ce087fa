// Memory of N elements in every dtype: bytes and GiB (the chapter's 1e9-element table: float32
// 3.7253 GiB). The count is typed by hand; a bad count is named next to the field.
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

 private:
  void recompute();

  QLineEdit* m_count = nullptr;
  QLabel* m_message = nullptr;
  QTableWidget* m_table = nullptr;
  bool m_valid = true;
};

}  // namespace ampscope::ui::formats
