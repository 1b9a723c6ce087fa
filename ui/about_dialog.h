// Help -> About: AmpScope's version, the Qt and LibTorch it runs with, the licence and the
// third-party code it ships (QCustomPlot, GPL).
#pragma once

#include <QDialog>

class QLabel;

namespace ampscope::ui {

class AboutDialog : public QDialog {
  Q_OBJECT
 public:
  explicit AboutDialog(QWidget* parent = nullptr);

  // The dialog's text without markup (what a test or a screen reader sees).
  QString plainText() const;

  // One line per component, also printed by `ampscope --version`.
  static QString versionSummary();

 private:
  QLabel* m_text = nullptr;
};

}  // namespace ampscope::ui
