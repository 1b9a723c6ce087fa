#include "ui/export/screenshot_renderer.h"

#include <QCoreApplication>
#include <QDir>
#include <QEventLoop>
#include <QTimer>
#include <QWidget>

#include "ui/export/export_options.h"
#include "ui/export/export_writer.h"
#include "ui/export/widget_exporter.h"

namespace ampscope::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("ampscope::ui::ScreenshotRenderer", text); }

}  // namespace

ScreenshotResult ScreenshotRenderer::render(QWidget& window, const ScreenshotRequest& request) {
  ScreenshotResult result;
  if (request.size.isValid() && window.size() != request.size) window.resize(request.size);
  window.show();
  QEventLoop settle;
  QTimer::singleShot(kSettleMs, &settle, &QEventLoop::quit);
  settle.exec();

  if (request.size.isValid() && window.size() != request.size) {
    result.warning = tr("the window needs %1x%2 (its panels' minimum sizes), not %3x%4")
                         .arg(window.width())
                         .arg(window.height())
                         .arg(request.size.width())
                         .arg(request.size.height());
  }
  ExportOptions options;
  options.scale = request.scale > 0 ? request.scale : window.devicePixelRatioF();
  const std::optional<ExportFormat> format = exportFormatForPath(request.path);
  ExportResult written;
  if (format == ExportFormat::Pdf || format == ExportFormat::Svg) {
    written = WidgetExporter::exportToFile(&window, request.path, options);
  } else {
    // PNG whatever the name says (a screenshot to "shot" or "/dev/stdout" is a PNG).
    written = ExportWriter::writePng(request.path, WidgetExporter::renderImage(&window, options));
  }
  if (!written.ok) {
    result.error = tr("cannot write the screenshot: %1").arg(written.error);
    return result;
  }
  result.ok = true;
  result.message = tr("Saved %1 (%2x%3 pixels)")
                       .arg(QDir::toNativeSeparators(request.path))
                       .arg(written.pixelSize.width())
                       .arg(written.pixelSize.height());
  return result;
}

}  // namespace ampscope::ui
