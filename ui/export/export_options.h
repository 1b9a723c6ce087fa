// What an image export is asked for and what it answers: the file format (from the file name's
// extension), the size and scale, the slide preset, and a result that carries a readable error instead
// of throwing. Shared by PlotExporter, WidgetExporter, ExportWriter and the export UI.
#pragma once

#include <QSize>
#include <QString>
#include <optional>

namespace ampscope::ui {

enum class ExportFormat { Png, Pdf, Svg };

// Logical pixels per inch of an export at scale 1. PNGs carry 96 × scale dpi, so a 2x image prints at
// the same physical size as a 1x one; PDF and SVG pages are sized at 96 logical pixels per inch, the
// resolution fonts are laid out for on screen (Qt's default logical DPI).
inline constexpr double kExportBaseDpi = 96.0;
// The slide preset: a 16:9 full-HD frame, fonts and lines of plots drawn this much larger.
inline constexpr int kSlideWidth = 1920;
inline constexpr int kSlideHeight = 1080;
inline constexpr double kSlideFontScale = 2.0;
inline constexpr double kSlidePenScale = 2.0;
// Raster scales offered by the UI (device pixels per logical pixel); any value in (0, kMaxExportScale]
// is accepted by the exporters.
inline constexpr double kMaxExportScale = 4.0;

struct ExportOptions {
  double scale = 1.0;  // PNG only: device pixels per logical pixel; PDF and SVG are vector
  QSize size;          // logical size; invalid: the target's current size (the slide size with `slide`)
  bool slide = false;  // 1920x1080 with larger fonts and thicker lines
};

struct ExportResult {
  bool ok = false;
  QString error;    // for the user, names the file and the reason
  QString path;
  QSize pixelSize;  // PNG: the image's pixels; PDF/SVG: the page in logical pixels
};

// ".png", ".pdf", ".svg" (any letter case); nullopt for anything else.
std::optional<ExportFormat> exportFormatForPath(const QString& path);
QString exportFormatSuffix(ExportFormat format);  // "png", "pdf", "svg"
QString exportFormatName(ExportFormat format);    // "PNG", "PDF", "SVG"

}  // namespace ampscope::ui
