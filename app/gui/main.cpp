// ampscope: the GUI shell. Parses arguments, builds the main window, runs the event loop.
#include <QApplication>

#include "ui/main_window.h"

int main(int argc, char** argv) {
  QApplication app(argc, argv);
  QApplication::setApplicationName(QStringLiteral("AmpScope"));
  QApplication::setOrganizationName(QStringLiteral("AmpScope"));
  ampscope::ui::MainWindow window;
  window.show();
  return QApplication::exec();
}
