// A table fitted to its contents: a fixed height of header + every row (+ the horizontal scroll bar while
// it shows), so the table never scrolls vertically inside a panel that has room (where room is short,
// whatever holds the table scrolls as a whole: the number-format dock's scroll area). Rows added or
// removed later, a font change and the scroll bar appearing or going all refit it.
//
// Column widths are refitted too. The widths the table's owner set at installation (for the font and
// the language of that moment) are the base: a font change (presenter scaling) scales them in proportion,
// so numbers in a fixed item font are not elided at the larger size, and every column is at least as
// wide as its header text and its cells need now, plus the padding the owner gave it. So a language
// switch (a longer Chinese header) or a larger font never cuts a header, and switching back returns to
// the owner's widths.
#pragma once

#include <QObject>
#include <QVector>

class QTableView;

namespace ampscope::ui::formats {

class TableFit : public QObject {
  Q_OBJECT
 public:
  // Installs itself on `table` (as its child) and fits it now. Call after setting the column widths.
  static void fitToRows(QTableView* table);

  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  explicit TableFit(QTableView* table);
  void fit();
  // Sets every column to max(its base width scaled to the font, what its header and cells need + padding).
  void fitColumns();
  void queueFitColumns();
  // What column `column`'s header text and cells need at the current font and language.
  int contentWidth(int column) const;

  QTableView* m_table;
  int m_baseFontHeight = 0;   // the font's height when the base widths were taken
  QVector<int> m_baseWidths;  // the owner's column widths at installation
  QVector<int> m_padding;     // base width minus the contents' need at installation, at most kMaxPadding
  bool m_columnsQueued = false;
};

}  // namespace ampscope::ui::formats
