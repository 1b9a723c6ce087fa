// Help -> About: AmpScope's version, the Qt and LibTorch it runs with, the native kernels of that
// LibTorch and what their self-check on this CPU found, the licence and the third-party code it ships
// (QCustomPlot, GPL).
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

  // The native-kernel self-check as an HTML table (ampscope/engine/kernel_check.h).
  static QString kernelTable();

 private:
  QLabel* m_text = nullptr;
  QLabel* m_kernels = nullptr;
};

}  // namespace ampscope::ui
