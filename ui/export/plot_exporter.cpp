#include "ui/export/plot_exporter.h"

#include <QClipboard>
#include <QGuiApplication>
#include <memory>
#include <qcustomplot.h>

#include "ui/export/export_writer.h"
#include "ui/export/plot_style_scaler.h"

namespace ampscope::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("ampscope::ui::PlotExporter", text); }

// Draws the plot at `size` for as long as the returned scaler lives (slide preset: larger style).
std::unique_ptr<PlotStyleScaler> slideStyle(QCustomPlot* plot, const ExportOptions& options) {
  if (!options.slide) return nullptr;
  return std::make_unique<PlotStyleScaler>(plot, kSlideFontScale, kSlidePenScale);
}

ExportWriter::PaintFunction painterFor(QCustomPlot* plot, QSize size) {
  return [plot, size](QCPPainter& painter) { plot->toPainter(&painter, size.width(), size.height()); };
}

// toPainter() lays the plot out for the export size; the next on-screen paint needs its own layout.
void relayout(QCustomPlot* plot) { plot->replot(QCustomPlot::rpQueuedReplot); }

}  // namespace

QSize PlotExporter::exportSize(const QCustomPlot* plot, const ExportOptions& options) {
  if (options.size.isValid() && !options.size.isEmpty()) return options.size;
  if (options.slide) return {kSlideWidth, kSlideHeight};
  if (!plot || plot->width() < kMinimumEdge || plot->height() < kMinimumEdge) return kFallbackSize;
  return plot->size();
}

ExportResult PlotExporter::exportToFile(QCustomPlot* plot, const QString& path, const ExportOptions& options) {
  if (!plot) {
    ExportResult result;
    result.path = path;
    result.error = tr("There is no plot to export.");
    return result;
  }
  const QSize size = exportSize(plot, options);
  ExportResult result;
  {
    const auto style = slideStyle(plot, options);
    result = ExportWriter::write(path, size, options.scale, painterFor(plot, size), plot->window()->windowTitle());
  }
  relayout(plot);
  return result;
}

QImage PlotExporter::renderImage(QCustomPlot* plot, const ExportOptions& options) {
  if (!plot) return {};
  const QSize size = exportSize(plot, options);
  QImage image;
  {
    const auto style = slideStyle(plot, options);
    image = ExportWriter::render(size, options.scale, painterFor(plot, size));
  }
  relayout(plot);
  return image;
}

bool PlotExporter::copyToClipboard(QCustomPlot* plot, ExportOptions options) {
  if (!plot) return false;
  if (options.scale == 1.0) options.scale = plot->devicePixelRatioF();
  const QImage image = renderImage(plot, options);
  if (image.isNull()) return false;
  QGuiApplication::clipboard()->setImage(image);
  return true;
}

}  // namespace ampscope::ui
