// ExportWriter: turns "paint this many logical pixels" into a PNG, PDF or SVG file, all-or-nothing.
// Every format is written through a QSaveFile, so a failure (unwritable folder, full disk, painter that
// cannot start) leaves no partial file and the previous file of that name, if any, untouched. An existing
// device (/dev/stdout, /dev/full) is written directly, and a write it refuses is a failure too.
//
// PNG: rendered at `scale` device pixels per logical pixel, with 96 × scale dpi in its pHYs chunk.
// PDF: one page of the logical size at 96 logical pixels per inch, vector (QPdfWriter).
// SVG: viewBox of the logical size, vector (QSvgGenerator).
// The painter handed to the paint function is a QCPPainter so QCustomPlot::toPainter() can draw into it;
// for PDF and SVG it is in vectorized, non-cosmetic mode (a 1-pixel pen stays 1 logical pixel when zoomed).
#pragma once

#include <QColor>
#include <QImage>
#include <QSize>
#include <QString>
#include <functional>

#include "ui/export/export_options.h"

class QCPPainter;

namespace ampscope::ui {

class ExportWriter {
 public:
  // Paints the logical rectangle (0, 0, size) with the painter it is given.
  using PaintFunction = std::function<void(QCPPainter& painter)>;

  // Writes `path` in the format its extension names. `title` goes into the PDF/SVG metadata.
  static ExportResult write(const QString& path, QSize logicalSize, double scale, const PaintFunction& paint,
                            const QString& title = QString());
  // The raster image (transparent where nothing is painted) with its dpi metadata set.
  static QImage render(QSize logicalSize, double scale, const PaintFunction& paint);
  // Writes an image as PNG; its dpi metadata is kept as it is.
  static ExportResult writePng(const QString& path, const QImage& image);
  // Writes an image in a QImageWriter format ("png", "jpeg"), all-or-nothing like the others.
  static ExportResult writeImage(const QString& path, const QImage& image, const char* format);
  // Dots per meter for 96 × scale dpi (the unit PNG's pHYs chunk stores).
  static int dotsPerMeter(double scale);
  // The reason a path cannot be exported to, or an empty string when its format is known.
  static QString checkPath(const QString& path);
};

}  // namespace ampscope::ui
