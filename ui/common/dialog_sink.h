// Where a panel's questions and messages go: message boxes where somebody can answer them, the log on
// the offscreen and minimal platforms (tests, --screenshot), where a dialog would block with nobody there.
#pragma once

#include <QString>

#include <functional>

class QWidget;

namespace ampscope::ui {

// False on the offscreen and minimal platforms.
bool canShowDialogs();

using MessageSink = std::function<void(const QString& title, const QString& text, bool error)>;
// A warning (error) or information box over `parent`; without dialogs, a qWarning / qInfo line.
MessageSink messageBoxSink(QWidget* parent);

}  // namespace ampscope::ui
