// Draws one "what to look for" item of the lesson panel: the item's text ("① ...") wrapped to the list's
// width and cut with "…" after maxTextLines() lines, then, where the item's claim is checked, one line
// with a coloured state badge and the state ("holds since step 140 — 31 % (claim ≥ 20 %)"). Compact, each
// item is one line: its text cut to what is left beside a badge that holds the state in symbols ("✓ 140":
// holds since step 140, "✗": does not hold, "…": waiting). The lesson panel lowers the line limit, then
// goes compact, until every item fits the list's height, so a class sees every item and its state at once
// on a 1280x720 projector; the whole text and every reading stay in the item's tool tip.
#pragma once

#include <QStyledItemDelegate>

namespace ampscope::ui {

class CalloutItemDelegate : public QStyledItemDelegate {
  Q_OBJECT
 public:
  static constexpr int kTextRole = Qt::UserRole + 2;   // the item's own text, numbered
  static constexpr int kStateRole = Qt::UserRole + 3;  // its claim's state line; empty: none drawn
  static constexpr int kBadgeRole = Qt::UserRole + 4;  // the state in symbols, for the compact badge

  explicit CalloutItemDelegate(QObject* parent = nullptr) : QStyledItemDelegate(parent) {}

  // Lines of an item's text drawn at most (0: all of them).
  void setMaxTextLines(int lines) { maxTextLines_ = lines; }
  int maxTextLines() const { return maxTextLines_; }
  // One line per item, the state in its badge.
  void setCompact(bool compact) { compact_ = compact; }
  bool compact() const { return compact_; }

  // The item's height in a list whose items are `width` wide, its text cut after `maxLines` lines
  // (0: none cut), and how many lines its whole text takes there.
  static int itemHeight(const QModelIndex& index, const QFont& font, int width, int maxLines);
  static int compactHeight(const QFont& font);
  static int textLines(const QModelIndex& index, const QFont& font, int width);

  void paint(QPainter* painter, const QStyleOptionViewItem& option, const QModelIndex& index) const override;
  QSize sizeHint(const QStyleOptionViewItem& option, const QModelIndex& index) const override;

 private:
  int maxTextLines_ = 0;
  bool compact_ = false;
};

}  // namespace ampscope::ui
