// PlotExporter: any QCustomPlot to PNG (1x/2x/3x with dpi metadata), PDF or SVG (both vector), to a
// QImage or to the clipboard. The plot is drawn again at the export size through QCustomPlot::toPainter,
// not copied from the screen, so a 3x PNG or a PDF is sharp. The slide preset draws at 1920x1080 with
// fonts and pens scaled by PlotStyleScaler, and leaves the plot's style exactly as it was.
#pragma once

#include <QImage>
#include <QSize>
#include <QString>

#include "ui/export/export_options.h"

class QCPPainter;
class QCustomPlot;

namespace ampscope::ui {

class PlotExporter {
 public:
  // The logical size an export of `plot` with `options` has: options.size, else the slide size for
  // the slide preset, else the plot's size (kFallbackSize for a plot that was never laid out).
  static QSize exportSize(const QCustomPlot* plot, const ExportOptions& options);
  // Writes `path` (.png, .pdf or .svg); errors come back in the result, never as a partial file.
  static ExportResult exportToFile(QCustomPlot* plot, const QString& path, const ExportOptions& options = {});
  static QImage renderImage(QCustomPlot* plot, const ExportOptions& options = {});
  // The image at the plot's own device pixel ratio (unless options.scale says otherwise).
  static bool copyToClipboard(QCustomPlot* plot, ExportOptions options = {});

  // Draws `plot` at `size` into the logical rectangle (0, 0, size) of `painter` (any device). On an SVG
  // generator, which in Qt 6.4 ignores clipping, legend icons are narrowed so the 5 pixels that
  // QCPGraph::drawLegendIcon draws past its icon (and normally clips) do not run into the legend text.
  static void drawPlot(QCustomPlot* plot, QCPPainter& painter, QSize size);

  // A plot smaller than this on either edge (hidden before its first layout) is drawn at kFallbackSize.
  static constexpr int kMinimumEdge = 32;
  static constexpr QSize kFallbackSize{800, 500};
};

}  // namespace ampscope::ui
