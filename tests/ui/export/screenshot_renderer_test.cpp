// ScreenshotRenderer (`ampscope --screenshot`): the size and scale asked for, the format from the name,
// and a file that cannot be written reported as an error with the reason, nothing written.
#include <gtest/gtest.h>

#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QTemporaryDir>
#include <QVBoxLayout>
#include <QWidget>

#include "ui/export/screenshot_renderer.h"

namespace ampscope::ui {
namespace {

struct SmallWindow {
  QWidget window;
  SmallWindow() {
    auto* layout = new QVBoxLayout(&window);
    layout->addWidget(new QLabel(QStringLiteral("AmpScope"), &window));
    window.setMinimumSize(100, 80);
  }
};

TEST(ScreenshotRenderer, WritesAPngOfTheAskedSizeTimesTheScale) {
  SmallWindow w;
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("shot.png"));
  const ScreenshotResult result = ScreenshotRenderer::render(w.window, {path, QSize(320, 200), 2.0});
  ASSERT_TRUE(result.ok) << result.error.toStdString();
  EXPECT_TRUE(result.warning.isEmpty()) << result.warning.toStdString();
  const QImage image(path);
  ASSERT_FALSE(image.isNull());
  EXPECT_EQ(image.size(), QSize(640, 400));  // 320x200 logical pixels at 2 device pixels each
  EXPECT_TRUE(result.message.contains(QStringLiteral("640x400"))) << result.message.toStdString();
}

TEST(ScreenshotRenderer, WarnsWhenTheWindowCannotShrinkToTheAskedSize) {
  SmallWindow w;
  QTemporaryDir dir;
  const ScreenshotResult result =
      ScreenshotRenderer::render(w.window, {dir.filePath(QStringLiteral("small.png")), QSize(40, 30), 1.0});
  ASSERT_TRUE(result.ok) << result.error.toStdString();
  EXPECT_TRUE(result.warning.contains(QStringLiteral("40x30"))) << result.warning.toStdString();
}

TEST(ScreenshotRenderer, APdfNameGivesAPdf) {
  SmallWindow w;
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("shot.pdf"));
  ASSERT_TRUE(ScreenshotRenderer::render(w.window, {path, QSize(320, 200), 1.0}).ok);
  QFile file(path);
  ASSERT_TRUE(file.open(QIODevice::ReadOnly));
  EXPECT_TRUE(file.read(5).startsWith("%PDF-"));  // the PDF header (ISO 32000-1, 7.5.2)
}

TEST(ScreenshotRenderer, AFullDiskIsAnErrorWithTheReasonAndTheDeviceStaysADevice) {
  if (!QFileInfo::exists(QStringLiteral("/dev/full"))) GTEST_SKIP() << "no /dev/full on this system";
  SmallWindow w;
  // A .png name (the format comes from the suffix) that leads to the device.
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("full.png"));
  ASSERT_TRUE(QFile::link(QStringLiteral("/dev/full"), path));
  const ScreenshotResult result = ScreenshotRenderer::render(w.window, {path, QSize(320, 200), 1.0});
  EXPECT_FALSE(result.ok);
  EXPECT_FALSE(result.usage);
  EXPECT_TRUE(result.message.isEmpty());
  EXPECT_TRUE(result.error.contains(QStringLiteral("full.png"))) << result.error.toStdString();
  // /dev/full answers every write with ENOSPC (Linux's null(4) man page); strerror names it so.
  EXPECT_TRUE(result.error.contains(QStringLiteral("No space left on device"))) << result.error.toStdString();
  // Written directly, not through a temporary file renamed over the device node.
  const QFileInfo device(QStringLiteral("/dev/full"));
  EXPECT_FALSE(device.isFile());
}

TEST(ScreenshotRenderer, AMissingFolderIsAnErrorAndWritesNothing) {
  SmallWindow w;
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("missing/shot.png"));
  const ScreenshotResult result = ScreenshotRenderer::render(w.window, {path, QSize(320, 200), 1.0});
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.error.contains(QStringLiteral("missing"))) << result.error.toStdString();
  EXPECT_FALSE(QFileInfo::exists(path));
}

TEST(ScreenshotRenderer, AJpegNameGivesAJpeg) {
  SmallWindow w;
  QTemporaryDir dir;
  for (const QString& name : {QStringLiteral("shot.jpg"), QStringLiteral("shot.JPEG")}) {
    const QString path = dir.filePath(name);
    const ScreenshotResult result = ScreenshotRenderer::render(w.window, {path, QSize(320, 200), 1.0});
    ASSERT_TRUE(result.ok) << result.error.toStdString();
    QFile file(path);
    ASSERT_TRUE(file.open(QIODevice::ReadOnly));
    // Every JPEG starts with the SOI marker FF D8 FF (ITU T.81, B.1.1.2); a PNG with 89 'P' 'N' 'G'.
    EXPECT_TRUE(file.read(3) == QByteArray("\xff\xd8\xff", 3)) << name.toStdString();
    EXPECT_EQ(QImage(path).size(), QSize(320, 200));
  }
}

TEST(ScreenshotRenderer, ANameWithoutAKnownSuffixIsRefusedNamingTheOption) {
  SmallWindow w;
  QTemporaryDir dir;
  for (const QString& name : {QStringLiteral("shot"), QStringLiteral("shot.gif"), QStringLiteral("shot.png.txt")}) {
    const QString path = dir.filePath(name);
    EXPECT_FALSE(ScreenshotRenderer::checkPath(path).isEmpty()) << name.toStdString();
    const ScreenshotResult result = ScreenshotRenderer::render(w.window, {path, QSize(320, 200), 1.0});
    EXPECT_FALSE(result.ok);
    EXPECT_TRUE(result.usage);
    EXPECT_TRUE(result.error.contains(QStringLiteral("--screenshot"))) << result.error.toStdString();
    EXPECT_FALSE(QFileInfo::exists(path));
  }
  for (const QString name : {"a.png", "a.PDF", "a.svg", "a.jpg", "a.jpeg"})
    EXPECT_TRUE(ScreenshotRenderer::checkPath(name).isEmpty()) << name.toStdString();
}

TEST(ScreenshotRenderer, TooManyOrTooFewPixelsAreRefusedNamingTheScale) {
  SmallWindow w;
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("huge.png"));
  // 320 x 60 = 19200 pixels per edge, over the 16384 bound; 320 x 0.001 rounds to 0.
  for (const double scale : {60.0, 0.001}) {
    const ScreenshotResult result = ScreenshotRenderer::render(w.window, {path, QSize(320, 200), scale});
    EXPECT_FALSE(result.ok) << scale;
    EXPECT_TRUE(result.usage) << scale;
    EXPECT_TRUE(result.error.contains(QStringLiteral("--scale"))) << result.error.toStdString();
    EXPECT_TRUE(result.error.contains(QStringLiteral("16384"))) << result.error.toStdString();
    EXPECT_FALSE(QFileInfo::exists(path));
  }
}

}  // namespace
}  // namespace ampscope::ui
