// A table fitted to its contents: a fixed height of header + every row (+ the horizontal scroll bar while
// it shows), so the table never scrolls vertically inside a panel that has room (where room is short,
// whatever holds the table scrolls as a whole: the number-format dock's scroll area). Rows added or
// removed later, a font change and the scroll bar appearing or going all refit it. Column widths, set
// once for the font of the moment, follow a font change (presenter scaling) in proportion, so the
// numbers are not elided at the larger size.
#pragma once

#include <QObject>

class QTableView;

namespace ampscope::ui::formats {

class TableFit : public QObject {
  Q_OBJECT
 public:
  // Installs itself on `table` (as its child) and fits it now.
  static void fitToRows(QTableView* table);

  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  explicit TableFit(QTableView* table);
  void fit();
  void scaleColumns();

  QTableView* m_table;
  int m_fontHeight = 0;  // the font's height when the column widths were last set
};

}  // namespace ampscope::ui::formats
