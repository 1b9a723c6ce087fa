#include "ui/common/dialog_sink.h"

#include <QDebug>
#include <QGuiApplication>
#include <QMessageBox>
#include <QPointer>
#include <QWidget>

namespace ampscope::ui {

bool canShowDialogs() {
  const QString platform = QGuiApplication::platformName();
  return platform != QLatin1String("offscreen") && platform != QLatin1String("minimal");
}

MessageSink messageBoxSink(QWidget* parent) {
  return [parent = QPointer<QWidget>(parent)](const QString& title, const QString& text, bool error) {
    if (!canShowDialogs()) {
      (error ? qWarning() : qInfo()).noquote() << title << ":" << text;
      return;
    }
    if (error) {
      QMessageBox::warning(parent, title, text);
    } else {
      QMessageBox::information(parent, title, text);
    }
  };
}

}  // namespace ampscope::ui
