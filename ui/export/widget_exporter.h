// WidgetExporter: the whole window or any widget (a panel, the lesson view) to PNG, PDF or SVG, to a
// QImage or to the clipboard.
//
// The widget is drawn with QWidget::render at its current size; when another output size is asked for
// (the slide preset, a custom size) it is scaled uniformly to fit and centred on the window colour, so
// nothing is relaid out behind the user's back. QCustomPlot paints on screen from a cached pixmap, which
// would come out blurred at 2x and as a bitmap in a PDF; every plot the render shows is therefore left
// out of QWidget::render and drawn in its place, as vectors, through QCustomPlot::toPainter.
//
// SVG: Qt 6.4's QSvgGenerator ignores clipping, which widgets need (scroll areas, frames, tabs), so in an
// SVG the widgets are one embedded 2x image and only the plots shown whole are vectors. PDF is the
// all-vector format for widgets.
#pragma once

#include <QImage>
#include <QSize>
#include <QString>

#include "ui/export/export_options.h"

class QCPPainter;
class QWidget;

namespace ampscope::ui {

class WidgetExporter {
 public:
  // options.size, else the slide size for the slide preset, else the widget's size.
  static QSize exportSize(const QWidget* widget, const ExportOptions& options);
  static ExportResult exportToFile(QWidget* widget, const QString& path, const ExportOptions& options = {});
  static QImage renderImage(QWidget* widget, const ExportOptions& options = {});
  // The image at the widget's own device pixel ratio (unless options.scale says otherwise).
  static bool copyToClipboard(QWidget* widget, ExportOptions options = {});
  // Draws `widget` into the logical rectangle (0, 0, outputSize) of `painter`.
  static void paint(QWidget* widget, QCPPainter& painter, QSize outputSize);
};

}  // namespace ampscope::ui
