// ScreenshotRenderer: `ampscope --screenshot FILE [--size WxH] [--scale S]`. Shows the window, lets its
// layouts and queued repaints settle, renders it (plots drawn again at the scale, not blown up from their
// on-screen pixmaps) and writes the file in the format its suffix names (.png, .pdf, .svg, .jpg/.jpeg;
// any other name is refused before anything is drawn). The
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
  bool usage = false;  // the request itself cannot be met (too many pixels, too few): exit code 2
};

class ScreenshotRenderer {
 public:
  // How long the window is given to settle before it is drawn.
  static constexpr int kSettleMs = 400;
  // The most pixels per edge of a raster screenshot, after --scale: 16384 x 16384 is 1 GiB of RGBA.
  static constexpr int kMaxPixelEdge = 16384;
  // Why `path` cannot take a screenshot (its suffix names no format written), or an empty string.
  static QString checkPath(const QString& path);
  // checkPath, and the pixel bound for the requested size and scale (when both are given): what can be
  // refused before a window is built. render() checks the window's real size again.
  static QString checkRequest(const ScreenshotRequest& request);
  static ScreenshotResult render(QWidget& window, const ScreenshotRequest& request);

 private:
  // Why `size` at `scale` is not 1 to kMaxPixelEdge pixels per edge, or an empty string.
  static QString checkPixels(QSize size, double scale);
};

}  // namespace ampscope::ui
