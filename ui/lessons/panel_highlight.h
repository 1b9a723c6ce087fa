// A coloured frame drawn over a panel for a moment, so the class sees which panel a callout means.
// It is a transparent child of the panel (mouse events pass through) and deletes itself when done.
#pragma once

#include <QColor>
#include <QWidget>

namespace ampscope::ui {

class PanelHighlight : public QWidget {
  Q_OBJECT
 public:
  // Frames `target` for `durationMs` milliseconds.
  static PanelHighlight* flash(QWidget* target, int durationMs = 1600);

 protected:
  void paintEvent(QPaintEvent* event) override;
  bool eventFilter(QObject* watched, QEvent* event) override;

 private:
  explicit PanelHighlight(QWidget* target);
};

}  // namespace ampscope::ui
