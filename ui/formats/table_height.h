// A table as tall as its rows: a fixed height of header + every row (+ the horizontal scroll bar while
// it shows), so the table never scrolls vertically inside a panel that has room. Where room is short,
// whatever holds the table scrolls as a whole (NumberFormatsPanel's scroll area). Rows added or removed
// later, a font change and the scroll bar appearing or going all refit it.
#pragma once

#include <QObject>

class QTableView;

namespace ampscope::ui::formats {

class TableHeight : public QObject {
  Q_OBJECT
 public:
  // Installs itself on `table` (as its child) and fits it now.
  static void fitToRows(QTableView* table);

  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  explicit TableHeight(QTableView* table);
  void fit();

  QTableView* m_table;
};

}  // namespace ampscope::ui::formats
