#include "ui/export/plot_exporter.h"

#include <QClipboard>
#include <QGuiApplication>
#include <QPaintEngine>
#include <QPainterPath>
#include <QStringList>
#include <utility>
#include <QPointer>
#include <memory>
#include <vector>
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
  return [plot, size](QCPPainter& painter) { PlotExporter::drawPlot(plot, painter, size); };
}

// QCPGraph::drawLegendIcon draws its line 5 pixels past the icon rectangle and relies on the clip.
constexpr int kLegendIconOverdraw = 5;

// For as long as it lives: every legend's icons kLegendIconOverdraw narrower and their gap to the text
// as much wider, so the layout is unchanged and an unclipped icon line ends where the icon did.
class UnclippedLegendFix {
 public:
  explicit UnclippedLegendFix(QCustomPlot* plot) {
    for (QCPLegend* legend : plot->findChildren<QCPLegend*>()) {
      if (legend->iconSize().width() <= kLegendIconOverdraw) continue;
      saved_.push_back({legend, legend->iconSize(), legend->iconTextPadding()});
      legend->setIconSize(legend->iconSize() - QSize(kLegendIconOverdraw, 0));
      legend->setIconTextPadding(legend->iconTextPadding() + kLegendIconOverdraw);
    }
  }
  ~UnclippedLegendFix() {
    for (const Saved& s : saved_) {
      if (!s.legend) continue;
      s.legend->setIconSize(s.iconSize);
      s.legend->setIconTextPadding(s.padding);
    }
  }
  UnclippedLegendFix(const UnclippedLegendFix&) = delete;
  UnclippedLegendFix& operator=(const UnclippedLegendFix&) = delete;

 private:
  struct Saved {
    QPointer<QCPLegend> legend;
    QSize iconSize;
    int padding;
  };
  std::vector<Saved> saved_;
};

// toPainter() lays the plot out for the export size; the next on-screen paint needs its own layout.
void relayout(QCustomPlot* plot) { plot->replot(QCustomPlot::rpQueuedReplot); }

}  // namespace

void PlotExporter::drawPlot(QCustomPlot* plot, QCPPainter& painter, QSize size) {
  if (!painter.paintEngine() || painter.paintEngine()->type() != QPaintEngine::SVG) {
    plot->toPainter(&painter, size.width(), size.height());
    return;
  }
  // The SVG generator cannot clip, and the data rely on the axis rect's clip (a band from -inf, a
  // zoomed-in line). So: the plot up to its axes; the plot's background over everything outside the
  // axis rects; then the axes, legend and overlay again on top.
  const QColor background = plot->toPixmap(kMinimumEdge, kMinimumEdge).toImage().pixelColor(0, 0);
  const UnclippedLegendFix fix(plot);
  // Layers above the axes layer (legend, overlay, and any a panel added there) are the second pass;
  // the axes themselves are drawn in both because the grid belongs to them.
  QCPLayer* axesLayer = plot->layer(QStringLiteral("axes"));
  const int top = axesLayer ? axesLayer->index() : plot->layerCount() - 1;
  std::vector<std::pair<QCPLayer*, bool>> visibility;
  for (int i = 0; i < plot->layerCount(); ++i) visibility.emplace_back(plot->layer(i), plot->layer(i)->visible());
  for (auto& [layer, visible] : visibility) layer->setVisible(visible && layer->index() <= top);
  plot->toPainter(&painter, size.width(), size.height());
  // toPainter() left the layout at the export size: the axis rects are where they were just drawn.
  QPainterPath outside;
  outside.addRect(QRectF(QPointF(0, 0), QSizeF(size)));
  const QList<QCPAxisRect*> axisRects = plot->findChildren<QCPAxisRect*>();
  for (QCPAxisRect* rect : axisRects)
    if (rect->realVisibility() && rect->layout()) outside.addRect(rect->rect());
  outside.setFillRule(Qt::OddEvenFill);
  painter.fillPath(outside, background);

  // Second pass: nothing may paint over the first pass's data. Below the axes layer only the layout
  // elements stay (the plot's layout is every axis rect's parent, and a layerable's visibility includes
  // its parent's); grids, plottables and items there are hidden one by one, backgrounds turned off.
  for (auto& [layer, visible] : visibility) layer->setVisible(visible);
  std::vector<QCPLayerable*> hiddenData;
  for (auto& [layer, visible] : visibility) {
    if (layer->index() >= top) continue;
    for (QCPLayerable* layerable : layer->children()) {
      if (qobject_cast<QCPLayoutElement*>(layerable) || !layerable->visible()) continue;
      layerable->setVisible(false);
      hiddenData.push_back(layerable);
    }
  }
  std::vector<std::pair<QCPAxisRect*, QBrush>> rectBrushes;
  for (QCPAxisRect* rect : axisRects) {
    rectBrushes.emplace_back(rect, rect->backgroundBrush());
    rect->setBackground(QBrush(Qt::NoBrush));
  }
  // QCustomPlot has no getter for its background brush: it goes back as the colour it drew (a gradient
  // brush would come back as its corner colour).
  plot->setBackground(QBrush(Qt::NoBrush));
  plot->toPainter(&painter, size.width(), size.height());
  plot->setBackground(QBrush(background));
  for (auto& [rect, brush] : rectBrushes) rect->setBackground(brush);
  for (QCPLayerable* layerable : hiddenData) layerable->setVisible(true);
  for (auto& [layer, visible] : visibility) layer->setVisible(visible);
}

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
