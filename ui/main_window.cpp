#include "ui/main_window.h"

namespace ampscope::ui {

MainWindow::MainWindow(QWidget* parent) : QMainWindow(parent) { setWindowTitle(tr("AmpScope")); }

MainWindow::~MainWindow() = default;

}  // namespace ampscope::ui
