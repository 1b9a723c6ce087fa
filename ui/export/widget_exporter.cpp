#include "ui/export/widget_exporter.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QPaintEngine>
#include <QPainter>
#include <QWidget>
#include <algorithm>
#include <qcustomplot.h>

#include "ui/export/export_writer.h"
#include "ui/export/plot_exporter.h"

namespace ampscope::ui {

namespace {

QString tr(const char* text) { return QCoreApplication::translate("ampscope::ui::WidgetExporter", text); }

// Device pixels per widget pixel of the image that stands in for the widgets in an SVG.
constexpr int kSvgRasterScale = 2;

// The part of `plot` not clipped away by its ancestors up to `root`, in root coordinates.
QRect visibleRectIn(const QWidget* plot, const QWidget* root) {
  QRect rect(plot->mapTo(root, QPoint(0, 0)), plot->size());
  for (const QWidget* w = plot->parentWidget(); w && w != root; w = w->parentWidget())
    rect &= QRect(w->mapTo(root, QPoint(0, 0)), w->size());
  return rect & root->rect();
}

// The plots a render of `root` shows: visible inside it and in the same top-level window (a floating
// dock is a window of its own and QWidget::render leaves it out).
QList<QCustomPlot*> plotsShownIn(QWidget* root) {
  QList<QCustomPlot*> plots;
  if (auto* self = qobject_cast<QCustomPlot*>(root)) plots << self;
  for (QCustomPlot* plot : root->findChildren<QCustomPlot*>()) {
    if (!plot->isVisibleTo(root)) continue;
    bool sameWindow = true;
    for (const QWidget* w = plot; w && w != root; w = w->parentWidget())
      if (w->isWindow()) sameWindow = false;
    if (sameWindow) plots << plot;
  }
  return plots;
}

// Swallows the paint events of the plots while the widget is rendered: their cached pixmap would end up
// under the vector drawing (as a bitmap inside a PDF or SVG) for nothing.
class PaintBlocker : public QObject {
 public:
  bool eventFilter(QObject*, QEvent* event) override { return event->type() == QEvent::Paint; }
};

}  // namespace

QSize WidgetExporter::exportSize(const QWidget* widget, const ExportOptions& options) {
  if (options.size.isValid() && !options.size.isEmpty()) return options.size;
  if (options.slide) return {kSlideWidth, kSlideHeight};
  return widget ? widget->size() : QSize();
}

void WidgetExporter::paint(QWidget* widget, QCPPainter& painter, QSize outputSize) {
  const QSize source = widget->size();
  if (source.isEmpty()) return;
  painter.fillRect(QRect(QPoint(0, 0), outputSize), widget->palette().color(QPalette::Window));
  const double fit = std::min(static_cast<double>(outputSize.width()) / source.width(),
                              static_cast<double>(outputSize.height()) / source.height());
  painter.save();
  painter.translate((outputSize.width() - source.width() * fit) / 2.0,
                    (outputSize.height() - source.height() * fit) / 2.0);
  painter.scale(fit, fit);
  // No clip of our own here: QWidget::render clips to the widget itself, and with a clip already set on
  // the painter Qt 6.4's PDF engine hides parts of the children (tool buttons, labels, tab texts).
  // Qt 6.4's SVG generator ignores clipping, and widgets rely on it everywhere (scroll areas, frames):
  // in an SVG the widgets go in as one image and only the plots shown whole are vectors.
  const bool clips = !(painter.paintEngine() && painter.paintEngine()->type() == QPaintEngine::SVG);
  QList<QCustomPlot*> vectorPlots;
  QImage widgetsImage;  // SVG only: the widgets, drawn over the plots
  for (QCustomPlot* plot : plotsShownIn(widget)) {
    const QRect shown = visibleRectIn(plot, widget);
    if (shown.isEmpty()) continue;
    if (clips || shown.size() == plot->size()) vectorPlots << plot;
  }
  {
    PaintBlocker blocker;
    for (QCustomPlot* plot : vectorPlots) plot->installEventFilter(&blocker);
    if (clips) {
      widget->render(&painter, QPoint(), QRegion(), QWidget::DrawWindowBackground | QWidget::DrawChildren);
    } else {
      widgetsImage = QImage(source * kSvgRasterScale, QImage::Format_ARGB32_Premultiplied);
      widgetsImage.setDevicePixelRatio(kSvgRasterScale);
      widgetsImage.fill(Qt::transparent);
      widget->render(&widgetsImage, QPoint(), QRegion(), QWidget::DrawWindowBackground | QWidget::DrawChildren);
      // Holes where the vector plots go: the image is laid over them and hides whatever a plot drew
      // beyond its own rectangle.
      QPainter holes(&widgetsImage);
      holes.setCompositionMode(QPainter::CompositionMode_Clear);
      for (QCustomPlot* plot : vectorPlots) holes.fillRect(QRect(plot->mapTo(widget, QPoint(0, 0)), plot->size()), Qt::transparent);
    }
    for (QCustomPlot* plot : vectorPlots) plot->removeEventFilter(&blocker);
  }
  for (QCustomPlot* plot : vectorPlots) {
    painter.save();
    painter.setClipRect(visibleRectIn(plot, widget), Qt::IntersectClip);
    painter.translate(plot->mapTo(widget, QPoint(0, 0)));
    PlotExporter::drawPlot(plot, painter, plot->size());
    painter.restore();
    plot->replot(QCustomPlot::rpQueuedReplot);
  }
  if (!widgetsImage.isNull()) painter.drawImage(QRectF(QPointF(0, 0), QSizeF(source)), widgetsImage);
  painter.restore();
}

ExportResult WidgetExporter::exportToFile(QWidget* widget, const QString& path, const ExportOptions& options) {
  if (!widget || widget->size().isEmpty()) {
    ExportResult result;
    result.path = path;
    result.error = tr("There is nothing to export: the panel is closed or has no size.");
    return result;
  }
  const QSize size = exportSize(widget, options);
  return ExportWriter::write(
      path, size, options.scale, [widget, size](QCPPainter& painter) { paint(widget, painter, size); },
      widget->window()->windowTitle());
}

QImage WidgetExporter::renderImage(QWidget* widget, const ExportOptions& options) {
  if (!widget || widget->size().isEmpty()) return {};
  const QSize size = exportSize(widget, options);
  return ExportWriter::render(size, options.scale, [widget, size](QCPPainter& painter) { paint(widget, painter, size); });
}

bool WidgetExporter::copyToClipboard(QWidget* widget, ExportOptions options) {
  if (!widget) return false;
  if (options.scale == 1.0) options.scale = widget->devicePixelRatioF();
  const QImage image = renderImage(widget, options);
  if (image.isNull()) return false;
  QGuiApplication::clipboard()->setImage(image);
  return true;
}

}  // namespace ampscope::ui
