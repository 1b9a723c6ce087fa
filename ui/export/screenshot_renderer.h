// ScreenshotRenderer: `ampscope --screenshot FILE [--size WxH] [--scale S]`. Shows the window, lets its
// layouts and queued repaints settle, renders it (plots drawn again at the scale, not blown up from their
// on-screen pixmaps) and writes the file: PDF or SVG when the name ends so, PNG for any other name. The
// write is all-or-nothing (ExportWriter), and a file that cannot be written, a full disk included, is an
// error with the reason, never a silent success.
#pragma once

#include <QSize>
#include <QString>

class QWidget;

namespace ampscope::ui {

struct ScreenshotRequest {
  QString path;
  QSize size;        // invalid: the window's current size
  double scale = 0;  // device pixels per logical pixel (PNG); 0: the window's device pixel ratio
};

struct ScreenshotResult {
  bool ok = false;
  // Messages for the command line, translated, without the program name.
  QString error;    // why nothing was written; names the file
  QString warning;  // written, but not as asked (the window could not shrink to the requested size)
  QString message;  // "Saved FILE (WxH pixels)" on success
};

class ScreenshotRenderer {
 public:
  // How long the window is given to settle before it is drawn.
  static constexpr int kSettleMs = 400;
  static ScreenshotResult render(QWidget& window, const ScreenshotRequest& request);
};

}  // namespace ampscope::ui
