#include "ui/export/screenshot_renderer.h"

#include <cmath>

#include <QCoreApplication>
#include <QDir>
#include <QFileInfo>
#include <QPainter>
#include <QEventLoop>
#include <QTimer>
#include <QWidget>

#include "ui/export/export_options.h"
#include "ui/export/export_writer.h"
#include "ui/export/widget_exporter.h"

namespace ampscope::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("ampscope::ui::ScreenshotRenderer", text); }

bool isJpeg(const QString& path) {
  const QString suffix = QFileInfo(path).suffix().toLower();
  return suffix == QLatin1String("jpg") || suffix == QLatin1String("jpeg");
}

}  // namespace

QString ScreenshotRenderer::checkPath(const QString& path) {
  if (exportFormatForPath(path) || isJpeg(path)) return {};
  return tr("--screenshot: \"%1\" does not end in .png, .pdf, .svg, .jpg or .jpeg, the formats a "
            "screenshot is written in")
      .arg(QDir::toNativeSeparators(path));
}

// Why `size` at `scale` is not 1 to kMaxPixelEdge pixels per edge, or an empty string.
QString ScreenshotRenderer::checkPixels(QSize size, double scale) {
  const double width = std::round(size.width() * scale);
  const double height = std::round(size.height() * scale);
  if (width <= kMaxPixelEdge && height <= kMaxPixelEdge && width >= 1 && height >= 1) return {};
  return tr("--scale %1 makes the %2x%3 window a %4x%5 pixel image; a screenshot has 1 to %6 pixels per edge")
      .arg(scale)
      .arg(size.width())
      .arg(size.height())
      .arg(width, 0, 'f', 0)
      .arg(height, 0, 'f', 0)
      .arg(kMaxPixelEdge);
}

QString ScreenshotRenderer::checkRequest(const ScreenshotRequest& request) {
  const QString pathProblem = checkPath(request.path);
  if (!pathProblem.isEmpty()) return pathProblem;
  const bool vector = exportFormatForPath(request.path) == ExportFormat::Pdf ||
                      exportFormatForPath(request.path) == ExportFormat::Svg;
  if (vector || !request.size.isValid() || request.scale <= 0) return {};
  return checkPixels(request.size, request.scale);
}

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
  const QString pathProblem = checkPath(request.path);
  if (!pathProblem.isEmpty()) {
    result.error = pathProblem;
    result.usage = true;
    return result;
  }
  ExportOptions options;
  options.scale = request.scale > 0 ? request.scale : window.devicePixelRatioF();
  const std::optional<ExportFormat> format = exportFormatForPath(request.path);
  const bool raster = format == ExportFormat::Png || isJpeg(request.path);
  if (raster) {
    // Checked before anything is allocated: the window's size, not the requested one, is what is drawn.
    const QString pixelProblem = checkPixels(window.size(), options.scale);
    if (!pixelProblem.isEmpty()) {
      result.error = pixelProblem;
      result.usage = true;
      return result;
    }
  }
  ExportResult written;
  if (format == ExportFormat::Pdf || format == ExportFormat::Svg) {
    written = WidgetExporter::exportToFile(&window, request.path, options);
  } else if (format == ExportFormat::Png) {
    written = ExportWriter::writePng(request.path, WidgetExporter::renderImage(&window, options));
  } else {
    // JPEG has no transparency: the window is laid on white, as a viewer would show the PNG.
    const QImage image = WidgetExporter::renderImage(&window, options);
    QImage opaque(image.size(), QImage::Format_RGB32);
    if (!image.isNull() && !opaque.isNull()) {
      opaque.fill(Qt::white);
      QPainter painter(&opaque);
      painter.drawImage(0, 0, image);
      painter.end();
      opaque.setDotsPerMeterX(image.dotsPerMeterX());
      opaque.setDotsPerMeterY(image.dotsPerMeterY());
    }
    written = ExportWriter::writeImage(request.path, image.isNull() ? QImage() : opaque, "jpeg");
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
