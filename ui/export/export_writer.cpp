#include "ui/export/export_writer.h"

#include <QCoreApplication>
#include <QDir>
#include <QFile>
#include <QFileInfo>
#include <QImageWriter>
#include <QPageLayout>
#include <QPageSize>
#include <QPdfWriter>
#include <QSaveFile>
#include <QSvgGenerator>
#include <cmath>
#include <memory>
#include <qcustomplot.h>

namespace ampscope::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("ampscope::ui::ExportWriter", text); }

constexpr double kMetersPerInch = 0.0254;
// Points per inch in PDF page sizes.
constexpr double kPointsPerInch = 72.0;

ExportResult failure(const QString& path, const QString& reason) {
  ExportResult result;
  result.path = path;
  result.error = tr("Cannot export to \"%1\": %2").arg(QDir::toNativeSeparators(path), reason);
  return result;
}

bool validSize(QSize size, double scale) {
  return size.isValid() && !size.isEmpty() && std::isfinite(scale) && scale > 0 && scale <= kMaxExportScale;
}

// The file an export is written to: a QSaveFile (all-or-nothing) for regular files and new names. An
// existing device or pipe (/dev/stdout, /dev/full) is written directly instead: QSaveFile would write a
// temporary file beside it and rename that over the device node, which a root user is allowed to do.
class TargetFile {
 public:
  explicit TargetFile(const QString& path) {
    const QFileInfo info(path);
    if (info.exists() && !info.isFile() && !info.isDir())
      file_ = std::make_unique<QFile>(path);
    else
      file_ = std::make_unique<QSaveFile>(path);
  }
  QIODevice* device() { return file_.get(); }
  bool open() { return file_->open(QIODevice::WriteOnly); }
  void cancel() {
    if (auto* save = qobject_cast<QSaveFile*>(file_.get())) save->cancelWriting();
  }
  // False, with errorString() saying why, when any byte did not reach the file.
  bool commit() {
    if (auto* save = qobject_cast<QSaveFile*>(file_.get())) return save->commit();
    const bool flushed = file_->flush();
    file_->close();
    return flushed && file_->error() == QFileDevice::NoError;
  }
  QString errorString() const { return file_->errorString(); }
  bool hasError() const { return file_->error() != QFileDevice::NoError; }

 private:
  std::unique_ptr<QFileDevice> file_;
};

void makeVector(QCPPainter& painter) {
  painter.setMode(QCPPainter::pmVectorized);
  painter.setMode(QCPPainter::pmNoCaching);
  painter.setMode(QCPPainter::pmNonCosmetic);
}

ExportResult writePdf(const QString& path, QSize size, const ExportWriter::PaintFunction& paint,
                      const QString& title) {
  TargetFile file(path);
  if (!file.open()) return failure(path, file.errorString());
  {
    QPdfWriter writer(file.device());
    writer.setResolution(static_cast<int>(kExportBaseDpi));
    writer.setCreator(QStringLiteral("AmpScope"));
    writer.setTitle(title);
    const QSizeF points(size.width() * kPointsPerInch / kExportBaseDpi,
                        size.height() * kPointsPerInch / kExportBaseDpi);
    writer.setPageLayout(QPageLayout(QPageSize(points, QPageSize::Point, QString(), QPageSize::ExactMatch),
                                     QPageLayout::Portrait, QMarginsF(0, 0, 0, 0)));
    QCPPainter painter;
    if (!painter.begin(&writer)) {
      file.cancel();
      return failure(path, tr("the PDF writer could not start"));
    }
    makeVector(painter);
    // QPageSize keeps whole points, so the page may differ from the logical size by a fraction of a
    // pixel: map the logical rectangle onto the page rather than assume 1:1.
    painter.setViewport(QRect(0, 0, writer.width(), writer.height()));
    painter.setWindow(QRect(QPoint(0, 0), size));
    paint(painter);
    painter.end();
  }
  if (!file.commit()) return failure(path, file.errorString());
  ExportResult result;
  result.ok = true;
  result.path = path;
  result.pixelSize = size;
  return result;
}

ExportResult writeSvg(const QString& path, QSize size, const ExportWriter::PaintFunction& paint,
                      const QString& title) {
  TargetFile file(path);
  if (!file.open()) return failure(path, file.errorString());
  {
    QSvgGenerator generator;
    generator.setOutputDevice(file.device());
    generator.setSize(size);
    generator.setViewBox(QRect(QPoint(0, 0), size));
    // Fonts are sized in points: at the generator's default 72 dpi a 9 pt label would come out 25 %
    // smaller than on screen.
    generator.setResolution(static_cast<int>(kExportBaseDpi));
    generator.setTitle(title);
    generator.setDescription(tr("Exported from AmpScope"));
    QCPPainter painter;
    if (!painter.begin(&generator)) {
      file.cancel();
      return failure(path, tr("the SVG generator could not start"));
    }
    makeVector(painter);
    paint(painter);
    painter.end();
  }
  if (!file.commit()) return failure(path, file.errorString());
  ExportResult result;
  result.ok = true;
  result.path = path;
  result.pixelSize = size;
  return result;
}

}  // namespace

int ExportWriter::dotsPerMeter(double scale) {
  return static_cast<int>(std::lround(kExportBaseDpi * scale / kMetersPerInch));
}

QString ExportWriter::checkPath(const QString& path) {
  if (path.trimmed().isEmpty()) return tr("No file name given.");
  if (!exportFormatForPath(path)) {
    const QString suffix = QFileInfo(path).suffix();
    return tr("Cannot export to \"%1\": %2 is not an image format AmpScope writes. Use .png, .pdf or .svg.")
        .arg(QDir::toNativeSeparators(path),
             suffix.isEmpty() ? tr("a name without an extension") : QStringLiteral(".") + suffix);
  }
  return {};
}

QImage ExportWriter::render(QSize logicalSize, double scale, const PaintFunction& paint) {
  if (!validSize(logicalSize, scale)) return {};
  const QSize pixels(static_cast<int>(std::lround(logicalSize.width() * scale)),
                     static_cast<int>(std::lround(logicalSize.height() * scale)));
  QImage image(pixels, QImage::Format_ARGB32_Premultiplied);
  if (image.isNull()) return {};
  image.fill(Qt::transparent);
  // The device pixel ratio makes Qt lay text and styles out in logical pixels and draw them crisply at
  // `scale`, exactly as on a HiDPI screen.
  image.setDevicePixelRatio(scale);
  {
    QCPPainter painter(&image);
    painter.setMode(QCPPainter::pmNoCaching);
    paint(painter);
  }
  image.setDevicePixelRatio(1.0);
  // Set after painting: the image's dpi also decides how large point-size fonts are drawn on it.
  image.setDotsPerMeterX(dotsPerMeter(scale));
  image.setDotsPerMeterY(dotsPerMeter(scale));
  return image;
}

ExportResult ExportWriter::writePng(const QString& path, const QImage& image) {
  return writeImage(path, image, "png");
}

ExportResult ExportWriter::writeImage(const QString& path, const QImage& image, const char* format) {
  if (image.isNull()) return failure(path, tr("the image is empty or too large"));
  TargetFile file(path);
  if (!file.open()) return failure(path, file.errorString());
  QImageWriter writer(file.device(), format);
  if (!writer.write(image)) {
    // A full disk shows up as the file's error; the writer then only knows that writing failed.
    const QString reason = file.hasError() ? file.errorString() : writer.errorString();
    file.cancel();
    return failure(path, reason);
  }
  if (!file.commit()) return failure(path, file.errorString());
  ExportResult result;
  result.ok = true;
  result.path = path;
  result.pixelSize = image.size();
  return result;
}

ExportResult ExportWriter::write(const QString& path, QSize logicalSize, double scale, const PaintFunction& paint,
                                 const QString& title) {
  const QString problem = checkPath(path);
  if (!problem.isEmpty()) {
    ExportResult result;
    result.path = path;
    result.error = problem;
    return result;
  }
  if (!validSize(logicalSize, scale)) {
    return failure(path, tr("the size %1x%2 at scale %3 is not a size that can be drawn")
                             .arg(logicalSize.width())
                             .arg(logicalSize.height())
                             .arg(scale));
  }
  switch (*exportFormatForPath(path)) {
    case ExportFormat::Png:
      return writePng(path, render(logicalSize, scale, paint));
    case ExportFormat::Pdf:
      return writePdf(path, logicalSize, paint, title);
    case ExportFormat::Svg:
      return writeSvg(path, logicalSize, paint, title);
  }
  return failure(path, tr("unknown format"));
}

}  // namespace ampscope::ui
