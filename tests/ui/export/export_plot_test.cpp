// Image export of plots and widgets: PNG scale and dpi metadata, PDF and SVG as vectors, the slide
// preset and its exact restore, errors that leave no file behind, the clipboard.
#include <gtest/gtest.h>

#include <QApplication>
#include <QClipboard>
#include <QDir>
#include <QFile>
#include <QFont>
#include <QImage>
#include <QLabel>
#include <QPainter>
#include <QPen>
#include <QRegularExpression>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <QtEndian>
#include <cmath>
#include <memory>
#include <optional>
#include <qcustomplot.h>

#include "ui/export/export_writer.h"
#include "ui/export/plot_exporter.h"
#include "ui/export/plot_style_scaler.h"
#include "ui/export/widget_exporter.h"

namespace ampscope::ui {
namespace {

// A plot with everything the slide preset scales: a graph with a scatter style, axis labels, a legend,
// a title and a text item.
std::unique_ptr<QCustomPlot> makePlot(QSize size = {400, 300}) {
  auto plot = std::make_unique<QCustomPlot>();
  plot->resize(size);
  QCPGraph* graph = plot->addGraph();
  graph->setName(QStringLiteral("loss"));
  graph->setPen(QPen(Qt::blue, 1.5));
  graph->setScatterStyle(QCPScatterStyle(QCPScatterStyle::ssCross, QPen(Qt::red, 1.0), Qt::NoBrush, 6));
  for (int i = 0; i < 50; ++i) graph->addData(i, std::sin(i / 5.0));
  plot->xAxis->setLabel(QStringLiteral("step"));
  plot->yAxis->setLabel(QStringLiteral("loss"));
  plot->rescaleAxes();
  plot->legend->setVisible(true);
  plot->plotLayout()->insertRow(0);
  plot->plotLayout()->addElement(0, 0, new QCPTextElement(plot.get(), QStringLiteral("Loss"), QFont(QStringLiteral("sans"), 12)));
  auto* label = new QCPItemText(plot.get());
  label->setText(QStringLiteral("diverged"));
  label->position->setCoords(25, 0.5);
  plot->replot();
  return plot;
}

QByteArray readAll(const QString& path) {
  QFile file(path);
  return file.open(QIODevice::ReadOnly) ? file.readAll() : QByteArray();
}

struct Phys {
  quint32 x = 0;
  quint32 y = 0;
  int unit = -1;
};

// The pHYs chunk of a PNG (PNG specification, 11.3.5.3: pixels per unit X and Y as 4-byte big-endian
// integers, then the unit: 1 = metre).
std::optional<Phys> physChunk(const QByteArray& png) {
  qsizetype pos = 8;  // past the signature
  while (pos + 12 <= png.size()) {
    const quint32 length = qFromBigEndian<quint32>(png.constData() + pos);
    const QByteArray type = png.mid(pos + 4, 4);
    if (type == "pHYs" && length == 9) {
      const char* data = png.constData() + pos + 8;
      return Phys{qFromBigEndian<quint32>(data), qFromBigEndian<quint32>(data + 4), static_cast<unsigned char>(data[8])};
    }
    pos += 12 + length;
  }
  return std::nullopt;
}

constexpr double kMetersPerInch = 0.0254;

// Every font, pen and scatter style of every layerable of the plot, by object and property.
QList<QVariant> styleSnapshot(QCustomPlot* plot) {
  QList<QVariant> values;
  for (QCPLayerable* layerable : plot->findChildren<QCPLayerable*>()) {
    const QMetaObject* meta = layerable->metaObject();
    for (int i = 0; i < meta->propertyCount(); ++i) {
      const int type = meta->property(i).userType();
      if (type == QMetaType::QFont || type == QMetaType::QPen || type == qMetaTypeId<QCPScatterStyle>() ||
          type == QMetaType::QSize)
        values << meta->property(i).read(layerable);
    }
  }
  return values;
}

bool sameStyle(const QList<QVariant>& a, const QList<QVariant>& b) {
  if (a.size() != b.size()) return false;
  for (int i = 0; i < a.size(); ++i) {
    if (a[i].userType() == qMetaTypeId<QCPScatterStyle>()) {
      const auto sa = a[i].value<QCPScatterStyle>();
      const auto sb = b[i].value<QCPScatterStyle>();
      if (sa.size() != sb.size() || sa.pen() != sb.pen() || sa.shape() != sb.shape()) return false;
    } else if (a[i] != b[i]) {
      return false;
    }
  }
  return true;
}

int nonBackgroundPixels(const QImage& image, QRgb background) {
  int count = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x < image.width(); ++x)
      if (image.pixel(x, y) != background) ++count;
  return count;
}

TEST(PlotExporter, PngAt1xHasThePlotSizeAnd96Dpi) {
  QTemporaryDir dir;
  auto plot = makePlot();
  const QString path = dir.filePath(QStringLiteral("plot.png"));
  const ExportResult result = PlotExporter::exportToFile(plot.get(), path, {});
  ASSERT_TRUE(result.ok) << result.error.toStdString();
  EXPECT_EQ(QImage(path).size(), QSize(400, 300));
  const auto phys = physChunk(readAll(path));
  ASSERT_TRUE(phys);
  EXPECT_EQ(phys->unit, 1);
  EXPECT_NEAR(phys->x * kMetersPerInch, 96.0, 0.02);
  EXPECT_NEAR(phys->y * kMetersPerInch, 96.0, 0.02);
}

TEST(PlotExporter, PngAt2xHasTwiceThePixelsAnd192DpiInItsPhysChunk) {
  QTemporaryDir dir;
  auto plot = makePlot();
  const QString path = dir.filePath(QStringLiteral("plot@2x.png"));
  ExportOptions options;
  options.scale = 2;
  const ExportResult result = PlotExporter::exportToFile(plot.get(), path, options);
  ASSERT_TRUE(result.ok) << result.error.toStdString();
  EXPECT_EQ(result.pixelSize, QSize(800, 600));
  EXPECT_EQ(QImage(path).size(), QSize(800, 600));
  // 96 dpi × 2 = 192 dpi = 7559 pixels per metre (rounded; 192 / 0.0254 = 7559.06).
  const auto phys = physChunk(readAll(path));
  ASSERT_TRUE(phys);
  EXPECT_EQ(phys->unit, 1);
  EXPECT_EQ(phys->x, 7559u);
  EXPECT_EQ(phys->y, 7559u);
  EXPECT_NEAR(phys->x * kMetersPerInch, 192.0, 0.02);
}

TEST(PlotExporter, PngAt3xIsThreeTimesLargerAt288Dpi) {
  QTemporaryDir dir;
  auto plot = makePlot();
  const QString path = dir.filePath(QStringLiteral("plot@3x.png"));
  ExportOptions options;
  options.scale = 3;
  ASSERT_TRUE(PlotExporter::exportToFile(plot.get(), path, options).ok);
  EXPECT_EQ(QImage(path).size(), QSize(1200, 900));
  EXPECT_NEAR(physChunk(readAll(path))->x * kMetersPerInch, 288.0, 0.02);
}

TEST(PlotExporter, The2xPngIsDrawnAgainNotUpscaled) {
  // An upscaled 1x image has every pixel doubled; a real 2x drawing has anti-aliased edges that differ
  // between the two pixels of a pair somewhere.
  auto plot = makePlot();
  ExportOptions options;
  options.scale = 2;
  const QImage image = PlotExporter::renderImage(plot.get(), options);
  ASSERT_EQ(image.size(), QSize(800, 600));
  int oddColumnsDiffering = 0;
  for (int y = 0; y < image.height(); ++y)
    for (int x = 0; x + 1 < image.width(); x += 2)
      if (image.pixel(x, y) != image.pixel(x + 1, y)) ++oddColumnsDiffering;
  EXPECT_GT(oddColumnsDiffering, 500);
}

TEST(PlotExporter, PdfIsAVectorPageOfThePlotSize) {
  QTemporaryDir dir;
  auto plot = makePlot();
  const QString path = dir.filePath(QStringLiteral("plot.pdf"));
  const ExportResult result = PlotExporter::exportToFile(plot.get(), path, {});
  ASSERT_TRUE(result.ok) << result.error.toStdString();
  const QByteArray pdf = readAll(path);
  EXPECT_TRUE(pdf.startsWith("%PDF-"));
  EXPECT_GT(pdf.size(), 2000);  // text, axes and 50 points: far more than an empty page (~1 KB)
  EXPECT_TRUE(pdf.trimmed().endsWith("%%EOF"));
  // Vector: no raster image objects at all.
  EXPECT_FALSE(pdf.contains("/Subtype /Image"));
  // 400×300 logical pixels at 96 per inch = 300×225 points (72 per inch).
  const QRegularExpression mediaBox(QStringLiteral("/MediaBox \\[0 0 300(\\.0+)? 225(\\.0+)?\\]"));
  EXPECT_TRUE(mediaBox.match(QString::fromLatin1(pdf)).hasMatch());
}

TEST(PlotExporter, SvgParsesAndIsMadeOfVectorPaths) {
  QTemporaryDir dir;
  auto plot = makePlot();
  const QString path = dir.filePath(QStringLiteral("plot.svg"));
  ASSERT_TRUE(PlotExporter::exportToFile(plot.get(), path, {}).ok);
  QSvgRenderer renderer(path);
  ASSERT_TRUE(renderer.isValid());
  EXPECT_EQ(renderer.viewBox(), QRect(0, 0, 400, 300));
  const QByteArray svg = readAll(path);
  EXPECT_GT(svg.count("<path") + svg.count("<polyline"), 10);
  EXPECT_FALSE(svg.contains("<image"));
  // The SVG draws something: rendered back, it is not a blank page.
  QImage back(400, 300, QImage::Format_ARGB32);
  back.fill(Qt::white);
  QPainter painter(&back);
  renderer.render(&painter);
  painter.end();
  EXPECT_GT(nonBackgroundPixels(back, qRgb(255, 255, 255)), 1000);
}

TEST(PlotExporter, SvgKeepsZoomedDataInsideTheAxisRectAsOnScreen) {
  // Qt 6.4's SVG generator ignores clipping; a zoomed-in line must still end at the axis rect.
  auto plot = makePlot();
  plot->graph(0)->setPen(QPen(QColor(255, 0, 0), 4));
  plot->graph(0)->setScatterStyle(QCPScatterStyle());
  plot->xAxis->setRange(20, 30);  // the data run from 0 to 49: most of the line is outside
  plot->yAxis->setRange(-0.5, 0.5);
  plot->replot();
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("zoomed.svg"));
  ASSERT_TRUE(PlotExporter::exportToFile(plot.get(), path, {}).ok);
  const QRect axisRect = plot->axisRect()->rect();
  QImage back(400, 300, QImage::Format_ARGB32);
  back.fill(Qt::white);
  QPainter painter(&back);
  QSvgRenderer(path).render(&painter);
  painter.end();
  int redInside = 0;
  int redOutside = 0;
  for (int y = 0; y < back.height(); ++y)
    for (int x = 0; x < back.width(); ++x) {
      const QColor c = back.pixelColor(x, y);
      if (c.red() > 200 && c.green() < 80 && c.blue() < 80)
        ++(axisRect.adjusted(-2, -2, 2, 2).contains(x, y) ? redInside : redOutside);
    }
  EXPECT_GT(redInside, 100);
  EXPECT_EQ(redOutside, 0);
  // The axes drawn after the cover are there: the SVG has the axis label's text.
  EXPECT_TRUE(readAll(path).contains(">step</text>"));
}

TEST(PlotExporter, SvgExportLeavesLayersLayerablesAndLegendAsTheyWere) {
  auto plot = makePlot();
  const QList<QVariant> before = styleSnapshot(plot.get());
  std::vector<bool> layers;
  for (int i = 0; i < plot->layerCount(); ++i) layers.push_back(plot->layer(i)->visible());
  std::vector<bool> layerables;
  for (QCPLayerable* l : plot->findChildren<QCPLayerable*>()) layerables.push_back(l->visible());
  const int padding = plot->legend->iconTextPadding();
  QTemporaryDir dir;
  ASSERT_TRUE(PlotExporter::exportToFile(plot.get(), dir.filePath(QStringLiteral("p.svg")), {}).ok);
  EXPECT_TRUE(sameStyle(before, styleSnapshot(plot.get())));
  for (int i = 0; i < plot->layerCount(); ++i) EXPECT_EQ(plot->layer(i)->visible(), layers[i]);
  std::size_t i = 0;
  for (QCPLayerable* l : plot->findChildren<QCPLayerable*>()) EXPECT_EQ(l->visible(), layerables[i++]);
  EXPECT_EQ(plot->legend->iconTextPadding(), padding);
  // The on-screen rendering still has its white background.
  EXPECT_EQ(plot->toPixmap(100, 100).toImage().pixelColor(0, 0), QColor(Qt::white));
}

TEST(PlotExporter, SlidePresetIs1920x1080TimesTheScale) {
  auto plot = makePlot();
  ExportOptions options;
  options.slide = true;
  EXPECT_EQ(PlotExporter::renderImage(plot.get(), options).size(), QSize(1920, 1080));
  options.scale = 2;
  EXPECT_EQ(PlotExporter::renderImage(plot.get(), options).size(), QSize(3840, 2160));
  QTemporaryDir dir;
  const QString svg = dir.filePath(QStringLiteral("slide.svg"));
  ASSERT_TRUE(PlotExporter::exportToFile(plot.get(), svg, options).ok);
  EXPECT_EQ(QSvgRenderer(svg).viewBox(), QRect(0, 0, 1920, 1080));
}

TEST(PlotExporter, SlidePresetRestoresEveryFontAndPenExactly) {
  auto plot = makePlot();
  const QList<QVariant> before = styleSnapshot(plot.get());
  ASSERT_GT(before.size(), 20);
  ExportOptions options;
  options.slide = true;
  QTemporaryDir dir;
  for (const char* name : {"s.png", "s.pdf", "s.svg"})
    ASSERT_TRUE(PlotExporter::exportToFile(plot.get(), dir.filePath(QLatin1String(name)), options).ok);
  EXPECT_TRUE(sameStyle(before, styleSnapshot(plot.get())));
}

TEST(PlotStyleScaler, DoublesFontsPensAndScatterWhileAliveAndRestoresAfter) {
  auto plot = makePlot();
  QCPGraph* graph = plot->graph(0);
  const double tickPoints = plot->xAxis->tickLabelFont().pointSizeF();
  const double legendItemPoints = plot->legend->item(0)->font().pointSizeF();
  const QList<QVariant> before = styleSnapshot(plot.get());
  {
    PlotStyleScaler scaler(plot.get(), 2.0, 3.0);
    EXPECT_GT(scaler.changedCount(), 20);
    EXPECT_DOUBLE_EQ(plot->xAxis->tickLabelFont().pointSizeF(), 2 * tickPoints);
    EXPECT_DOUBLE_EQ(plot->legend->item(0)->font().pointSizeF(), 2 * legendItemPoints);
    EXPECT_DOUBLE_EQ(graph->pen().widthF(), 4.5);           // 1.5 × 3
    EXPECT_DOUBLE_EQ(graph->scatterStyle().size(), 12.0);   // 6 × 2
    EXPECT_DOUBLE_EQ(graph->scatterStyle().pen().widthF(), 3.0);
    // QCustomPlot's default axis pens have width 0 (a cosmetic hairline): they become 1 × 3 wide.
    EXPECT_DOUBLE_EQ(plot->xAxis->basePen().widthF(), 3.0);
  }
  EXPECT_TRUE(sameStyle(before, styleSnapshot(plot.get())));
}

TEST(ExportWriter, UnwritableFolderGivesAnErrorNamingThePathAndLeavesNoFile) {
  QTemporaryDir dir;
  // A path through a regular file: no folder can be made there, not even by root.
  const QString blocker = dir.filePath(QStringLiteral("not-a-folder"));
  {
    QFile f(blocker);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("x");
  }
  auto plot = makePlot();
  for (const char* name : {"out.png", "out.pdf", "out.svg"}) {
    const QString path = blocker + QLatin1Char('/') + QLatin1String(name);
    const ExportResult result = PlotExporter::exportToFile(plot.get(), path, {});
    EXPECT_FALSE(result.ok) << name;
    EXPECT_TRUE(result.error.contains(QDir::toNativeSeparators(path))) << result.error.toStdString();
    EXPECT_FALSE(QFile::exists(path));
  }
  const ExportResult missing = PlotExporter::exportToFile(plot.get(), QStringLiteral("/nonexistent-h9-dir/x.png"), {});
  EXPECT_FALSE(missing.ok);
  EXPECT_FALSE(missing.error.isEmpty());
  EXPECT_EQ(QDir(dir.path()).entryList(QDir::Files | QDir::Hidden).size(), 1);  // only the blocker
}

TEST(ExportWriter, UnknownExtensionIsRefusedWithTheFormatsThatWork) {
  QTemporaryDir dir;
  auto plot = makePlot();
  const QString path = dir.filePath(QStringLiteral("plot.jpg"));
  const ExportResult result = PlotExporter::exportToFile(plot.get(), path, {});
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.error.contains(QStringLiteral(".jpg"))) << result.error.toStdString();
  EXPECT_TRUE(result.error.contains(QStringLiteral(".png, .pdf or .svg")));
  EXPECT_FALSE(QFile::exists(path));
  EXPECT_FALSE(PlotExporter::exportToFile(plot.get(), dir.filePath(QStringLiteral("noext")), {}).ok);
  EXPECT_FALSE(PlotExporter::exportToFile(plot.get(), QString(), {}).ok);
  EXPECT_TRUE(QDir(dir.path()).isEmpty());
}

TEST(ExportWriter, AFailedExportKeepsTheFileThatWasThere) {
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("plot.png"));
  {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("previous");
  }
  // A size no image can have fails before anything is written.
  const ExportResult result = ExportWriter::write(path, QSize(0, 0), 1.0, [](QCPPainter&) {});
  EXPECT_FALSE(result.ok);
  EXPECT_EQ(readAll(path), QByteArray("previous"));
}

TEST(ExportWriter, FormatComesFromTheExtensionInAnyCase) {
  EXPECT_EQ(exportFormatForPath(QStringLiteral("a/b.PNG")), ExportFormat::Png);
  EXPECT_EQ(exportFormatForPath(QStringLiteral("b.Pdf")), ExportFormat::Pdf);
  EXPECT_EQ(exportFormatForPath(QStringLiteral("b.svg")), ExportFormat::Svg);
  EXPECT_FALSE(exportFormatForPath(QStringLiteral("b.svgz")));
  EXPECT_FALSE(exportFormatForPath(QStringLiteral("png")));
}

struct Panel {
  std::unique_ptr<QWidget> widget = std::make_unique<QWidget>();
  QCustomPlot* plot = nullptr;
  Panel() {
    auto* layout = new QVBoxLayout(widget.get());
    layout->addWidget(new QLabel(QStringLiteral("Lesson 3: loss scaling"), widget.get()));
    plot = new QCustomPlot(widget.get());
    plot->addGraph()->setData({0, 1, 2, 3}, {1, 0.5, 0.3, 0.2});
    plot->rescaleAxes();
    layout->addWidget(plot, 1);
    widget->resize(500, 400);
    widget->show();
    QApplication::processEvents();
  }
};

TEST(WidgetExporter, PngAt2xDrawsThePlotsAgainAtFullResolution) {
  Panel panel;
  ExportOptions options;
  options.scale = 2;
  const QImage image = WidgetExporter::renderImage(panel.widget.get(), options);
  ASSERT_EQ(image.size(), QSize(1000, 800));
  // The plot's part of the widget image is the plot's own 2x rendering, not its 1x screen buffer blown up.
  const QRect where(panel.plot->mapTo(panel.widget.get(), QPoint(0, 0)) * 2, panel.plot->size() * 2);
  ExportOptions plotOptions;
  plotOptions.scale = 2;
  const QImage plotImage = PlotExporter::renderImage(panel.plot, plotOptions);
  const QImage part = image.copy(where).convertToFormat(plotImage.format());
  ASSERT_EQ(part.size(), plotImage.size());
  int differing = 0;
  for (int y = 0; y < part.height(); ++y)
    for (int x = 0; x < part.width(); ++x)
      if (part.pixel(x, y) != plotImage.pixel(x, y)) ++differing;
  EXPECT_LT(differing, part.width() * part.height() / 100);
}

TEST(WidgetExporter, PdfAndSvgOfAPanelKeepItsPlotAsVectors) {
  Panel panel;
  QTemporaryDir dir;
  const QString pdf = dir.filePath(QStringLiteral("panel.pdf"));
  ASSERT_TRUE(WidgetExporter::exportToFile(panel.widget.get(), pdf, {}).ok);
  const QByteArray bytes = readAll(pdf);
  EXPECT_TRUE(bytes.startsWith("%PDF-"));
  EXPECT_FALSE(bytes.contains("/Subtype /Image"));
  const QString svg = dir.filePath(QStringLiteral("panel.svg"));
  ASSERT_TRUE(WidgetExporter::exportToFile(panel.widget.get(), svg, {}).ok);
  EXPECT_TRUE(QSvgRenderer(svg).isValid());
  // Qt 6.4's SVG generator cannot clip, so the widgets are one embedded image; the plot stays vector
  // (its 4-point graph, axes and ticks are polylines and paths).
  const QByteArray svgBytes = readAll(svg);
  EXPECT_EQ(svgBytes.count("<image"), 1);
  EXPECT_GT(svgBytes.count("<polyline") + svgBytes.count("<path"), 5);
}

TEST(WidgetExporter, SlideSizeFitsTheWidgetIntoTheFrame) {
  Panel panel;
  ExportOptions options;
  options.slide = true;
  const QImage image = WidgetExporter::renderImage(panel.widget.get(), options);
  EXPECT_EQ(image.size(), QSize(1920, 1080));
  // 500×400 into 1920×1080: height-bound, scaled 2.7, so 1350 wide and centred with 285 px each side
  // in the window colour.
  const QRgb window = panel.widget->palette().color(QPalette::Window).rgb();
  EXPECT_EQ(image.pixel(10, 540), window);
  EXPECT_EQ(image.pixel(1910, 540), window);
  EXPECT_EQ(panel.widget->size(), QSize(500, 400));
}

TEST(Clipboard, CopyingAPlotOrAWidgetPutsItsImageOnTheClipboard) {
  auto plot = makePlot();
  ASSERT_TRUE(PlotExporter::copyToClipboard(plot.get()));
  const double dpr = plot->devicePixelRatioF();
  EXPECT_EQ(QApplication::clipboard()->image().size(), QSize(400 * dpr, 300 * dpr));
  Panel panel;
  ASSERT_TRUE(WidgetExporter::copyToClipboard(panel.widget.get()));
  EXPECT_EQ(QApplication::clipboard()->image().size(), QSize(500 * dpr, 400 * dpr));
}

}  // namespace
}  // namespace ampscope::ui
