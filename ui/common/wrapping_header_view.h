// A horizontal table header whose labels wrap onto more lines when their column is narrow, and which
// grows its height to show them. A part that does not fit even on a line of its own ("(model.half())" in a
// 90-pixel column) elides the label instead, with "…", and the full label is the section's tool tip.
// QHeaderView alone centres a long label and clips it at both ends ("l6 pure (model.hal"), mid-word.
#pragma once

#include <QHeaderView>
#include <QString>

class QFont;

namespace ampscope::ui {

class WrappingHeaderView : public QHeaderView {
  Q_OBJECT
 public:
  explicit WrappingHeaderView(QWidget* parent = nullptr);

  // How the label of `logicalIndex` is drawn in its section as it is now: its lines, or one elided line.
  QStringList displayedLines(int logicalIndex) const;
  // The narrowest section that shows the label of `logicalIndex` without eliding: its widest word on a
  // line of its own, plus the icon and the margins.
  int narrowestWholeWidth(int logicalIndex) const;
  // The text width a section of `sectionWidth` pixels leaves for the label (margins and icon taken off).
  int textWidth(int logicalIndex, int sectionWidth) const;

  // `text` broken where Unicode allows a line break (UAX #14: between words, between CJK characters) into
  // lines no wider than `width`; one elided line when a segment that cannot break is wider. A pure
  // function of the font, for the tests.
  static QStringList wrap(const QString& text, const QFont& font, int width);

 protected:
  QSize sectionSizeFromContents(int logicalIndex) const override;
  void paintSection(QPainter* painter, const QRect& rect, int logicalIndex) const override;
  bool viewportEvent(QEvent* e) override;

 private:
  QString label(int logicalIndex) const;
};

}  // namespace ampscope::ui
