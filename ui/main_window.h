// The application's main window: a QMainWindow whose panels are dock widgets. Dock layout and geometry
// are saved in QSettings and restored at the next start.
#pragma once

#include <QMainWindow>

namespace ampscope::ui {

class MainWindow : public QMainWindow {
  Q_OBJECT
 public:
  explicit MainWindow(QWidget* parent = nullptr);
  ~MainWindow() override;
};

}  // namespace ampscope::ui
