// A layout that places its items left to right and wraps onto the next line when the width runs
// out (the number-format presets, the control bars above the plots), so a narrow dock still shows
// every control instead of forcing the whole window wider.
#pragma once

#include <QLayout>
#include <QList>

namespace ampscope::ui {

class FlowLayout : public QLayout {
 public:
  explicit FlowLayout(QWidget* parent = nullptr, int horizontalSpacing = 4, int verticalSpacing = 4);
  ~FlowLayout() override;

  void addItem(QLayoutItem* item) override;
  // Inserts `widget` before item `index` (appends when index is out of range), as QBoxLayout does.
  void insertWidget(int index, QWidget* widget);
  int count() const override;
  QLayoutItem* itemAt(int index) const override;
  QLayoutItem* takeAt(int index) override;

  Qt::Orientations expandingDirections() const override;
  bool hasHeightForWidth() const override { return true; }
  int heightForWidth(int width) const override;
  QSize minimumSize() const override;
  QSize sizeHint() const override;
  void setGeometry(const QRect& rect) override;
  // Also tells the widget's own parent layout: an item's new text or font changes the height this
  // layout needs for its width, which the parent layout caches (a retranslated legend kept its old height).
  void invalidate() override;

 private:
  // Places the items in `rect` (or only measures, when `apply` is false); returns the height used.
  int arrange(const QRect& rect, bool apply) const;

  QList<QLayoutItem*> m_items;
  int m_horizontalSpacing;
  int m_verticalSpacing;
};

}  // namespace ampscope::ui
