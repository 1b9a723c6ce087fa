// File -> Export..., Copy window image and the plots' context menu, on a plain main window with plot
// and panel docks: what is offered, what gets written, the remembered folder, overwrite and error paths.
#include <gtest/gtest.h>

#include <QAction>
#include <QApplication>
#include <QClipboard>
#include <QComboBox>
#include <QContextMenuEvent>
#include <QDir>
#include <QDockWidget>
#include <QFile>
#include <QFileInfo>
#include <QImage>
#include <QLabel>
#include <QLineEdit>
#include <QMainWindow>
#include <QMenu>
#include <QMenuBar>
#include <QMessageBox>
#include <QSettings>
#include <QSignalSpy>
#include <QSpinBox>
#include <QSvgRenderer>
#include <QTemporaryDir>
#include <QTest>
#include <memory>
#include <qcustomplot.h>

#include "ui/export/export_dialog.h"
#include "ui/export/export_manager.h"

namespace ampscope::ui {
namespace {

QCustomPlot* makePlot(QWidget* parent) {
  auto* plot = new QCustomPlot(parent);
  plot->addGraph()->setData({0, 1, 2, 3, 4}, {2.3, 1.1, 0.7, 0.5, 0.45});
  plot->rescaleAxes();
  return plot;
}

struct Window {
  std::unique_ptr<QMainWindow> window = std::make_unique<QMainWindow>();
  QMenu* file = nullptr;
  QAction* quit = nullptr;
  QCustomPlot* loss = nullptr;
  QLabel* lesson = nullptr;
  ExportManager* manager = nullptr;
  Window() {
    file = window->menuBar()->addMenu(QStringLiteral("&File"));
    quit = file->addAction(QStringLiteral("&Quit"));
    quit->setObjectName(QStringLiteral("quitAction"));
    window->setCentralWidget(new QWidget(window.get()));
    window->centralWidget()->hide();
    loss = makePlot(window.get());
    addDock(QStringLiteral("Loss"), loss, Qt::RightDockWidgetArea);
    lesson = new QLabel(QStringLiteral("Step 2: watch the loss scale halve"), window.get());
    addDock(QStringLiteral("Lesson"), lesson, Qt::LeftDockWidgetArea);
    manager = ExportManager::install(window.get(), file);
    window->resize(1000, 700);
    window->show();
    QApplication::processEvents();
  }
  QDockWidget* addDock(const QString& title, QWidget* content, Qt::DockWidgetArea area) {
    auto* dock = new QDockWidget(title, window.get());
    dock->setObjectName(title);
    dock->setWidget(content);
    window->addDockWidget(area, dock);
    return dock;
  }
  ~Window() {
    // Close dialogs and message boxes the test left open before the window goes.
    for (QWidget* w : QApplication::topLevelWidgets())
      if (w != window.get() && w->isVisible() && qobject_cast<QDialog*>(w)) w->close();
  }
};

QStringList labels(const QList<ExportTarget>& targets) {
  QStringList list;
  for (const ExportTarget& t : targets) list << t.label;
  return list;
}

QMenu* visibleMenuOf(QWidget* widget) {
  for (QMenu* menu : widget->findChildren<QMenu*>())
    if (menu->isVisible()) return menu;
  return nullptr;
}

TEST(ExportManager, AddsExportAndCopyWindowImageToTheFileMenuAboveQuit) {
  Window w;
  const QList<QAction*> actions = w.file->actions();
  ASSERT_EQ(actions.size(), 4);
  EXPECT_EQ(actions[0], w.manager->exportAction());
  EXPECT_EQ(actions[1], w.manager->copyWindowAction());
  EXPECT_TRUE(actions[2]->isSeparator());
  EXPECT_EQ(actions[3], w.quit);
}

TEST(ExportManager, OffersTheWholeWindowEachPlotByItsDockTitleAndEachPanel) {
  Window w;
  const QStringList offered = labels(w.manager->targets());
  EXPECT_EQ(offered.value(0), QStringLiteral("Whole window"));
  EXPECT_TRUE(offered.contains(QStringLiteral("Plot: Loss"))) << offered.join(u',').toStdString();
  EXPECT_TRUE(offered.contains(QStringLiteral("Panel: Lesson")));
  // The hidden, empty central placeholder is not something to export.
  EXPECT_FALSE(offered.contains(QStringLiteral("Central area")));
  // A closed dock is not offered.
  w.lesson->parentWidget()->close();
  EXPECT_FALSE(labels(w.manager->targets()).contains(QStringLiteral("Panel: Lesson")));
}

TEST(ExportManager, EveryPlotOfTheWindowGetsTheContextMenuIncludingOnesAddedLater) {
  Window w;
  QCustomPlot* later = makePlot(w.window.get());
  w.addDock(QStringLiteral("Gradient exponents"), later, Qt::BottomDockWidgetArea);
  QApplication::processEvents();
  for (QCustomPlot* plot : {w.loss, later}) {
    QContextMenuEvent event(QContextMenuEvent::Mouse, QPoint(20, 20), plot->mapToGlobal(QPoint(20, 20)));
    QApplication::sendEvent(plot, &event);
    QMenu* menu = visibleMenuOf(plot);
    ASSERT_NE(menu, nullptr);
    QStringList names;
    for (QAction* a : menu->actions())
      if (!a->isSeparator()) names << a->objectName();
    EXPECT_EQ(names, QStringList({"exportPng1x", "exportPng2x", "exportPng3x", "exportPdf", "exportSvg",
                                  "exportSlidePng", "copyPlotImage"}));
    menu->close();
  }
  EXPECT_TRUE(labels(w.manager->targets()).contains(QStringLiteral("Plot: Gradient exponents")));
  // A plot in another window is left alone.
  QCustomPlot stranger;
  stranger.show();
  QContextMenuEvent event(QContextMenuEvent::Mouse, QPoint(5, 5), stranger.mapToGlobal(QPoint(5, 5)));
  QApplication::sendEvent(&stranger, &event);
  EXPECT_EQ(visibleMenuOf(&stranger), nullptr);
}

TEST(ExportManager, PlotMenuWritesTheChosenFileAndTheNextExportStartsInThatFolder) {
  Window w;
  QTemporaryDir dir;
  QString suggestedSeen;
  w.manager->setFileChooser([&](const QString& suggested, ExportFormat) {
    suggestedSeen = suggested;
    return dir.filePath(QStringLiteral("loss.png"));
  });
  std::unique_ptr<QMenu> menu(w.manager->createPlotMenu(w.loss));
  QSignalSpy exported(w.manager, &ExportManager::exported);
  menu->findChild<QAction*>(QStringLiteral("exportPng2x"))->trigger();
  ASSERT_EQ(exported.count(), 1);
  EXPECT_EQ(QImage(dir.filePath(QStringLiteral("loss.png"))).size(), w.loss->size() * 2);
  EXPECT_TRUE(suggestedSeen.endsWith(QStringLiteral("loss@2x.png"))) << suggestedSeen.toStdString();
  EXPECT_EQ(QSettings().value(QStringLiteral("export/lastFolder")).toString(), QFileInfo(dir.path()).absoluteFilePath());
  menu->findChild<QAction*>(QStringLiteral("exportSlidePng"))->trigger();
  EXPECT_EQ(QFileInfo(suggestedSeen).absolutePath(), QFileInfo(dir.path()).absoluteFilePath());
  EXPECT_TRUE(suggestedSeen.endsWith(QStringLiteral("loss-slide.png")));
  EXPECT_EQ(QImage(dir.filePath(QStringLiteral("loss.png"))).size(), QSize(1920, 1080));
}

TEST(ExportManager, CancellingTheFileChoiceWritesNothingAndSaysNothing) {
  Window w;
  w.manager->setFileChooser([](const QString&, ExportFormat) { return QString(); });
  QSignalSpy failed(w.manager, &ExportManager::exportFailed);
  const ExportResult result = w.manager->exportPlot(w.loss, ExportFormat::Pdf, {});
  EXPECT_FALSE(result.ok);
  EXPECT_TRUE(result.error.isEmpty());
  EXPECT_EQ(failed.count(), 0);
}

TEST(ExportManager, AnUnwritablePathIsReportedInAMessageBox) {
  Window w;
  const QString path = QStringLiteral("/nonexistent-h9-folder/loss.pdf");
  w.manager->setFileChooser([&](const QString&, ExportFormat) { return path; });
  QSignalSpy failed(w.manager, &ExportManager::exportFailed);
  std::unique_ptr<QMenu> menu(w.manager->createPlotMenu(w.loss));
  menu->findChild<QAction*>(QStringLiteral("exportPdf"))->trigger();
  ASSERT_EQ(failed.count(), 1);
  auto* box = w.window->findChild<QMessageBox*>(QStringLiteral("exportErrorBox"));
  ASSERT_NE(box, nullptr);
  EXPECT_TRUE(box->isVisible());
  EXPECT_TRUE(box->text().contains(path)) << box->text().toStdString();
  EXPECT_FALSE(QFile::exists(path));
  box->close();
}

TEST(ExportManager, CopyWindowImagePutsTheWholeWindowOnTheClipboard) {
  Window w;
  QApplication::clipboard()->clear();
  w.manager->copyWindowAction()->trigger();
  EXPECT_EQ(QApplication::clipboard()->image().size(), w.window->size() * w.window->devicePixelRatioF());
}

TEST(ExportDialog, ExportsTheChosenPlotAsASlideSvgAndRemembersTheFolder) {
  Window w;
  QTemporaryDir dir;
  ExportDialog* dialog = w.manager->showExportDialog();
  ASSERT_TRUE(dialog->isVisible());
  ASSERT_TRUE(dialog->selectTarget(QStringLiteral("Plot: Loss")));
  dialog->formatCombo()->setCurrentIndex(dialog->formatCombo()->findData(static_cast<int>(ExportFormat::Svg)));
  dialog->sizeCombo()->setCurrentIndex(ExportDialog::kSlideSize);
  const QString path = dir.filePath(QStringLiteral("slide.svg"));
  dialog->fileEdit()->setText(path);
  QSignalSpy exported(w.manager, &ExportManager::exported);
  QSignalSpy finished(dialog, &QDialog::finished);
  dialog->accept();
  ASSERT_EQ(exported.count(), 1) << dialog->lastResult().error.toStdString();
  EXPECT_EQ(finished.count(), 1);
  EXPECT_EQ(QSvgRenderer(path).viewBox(), QRect(0, 0, 1920, 1080));
  // The next dialog proposes a file in that folder.
  ExportDialog next(w.manager->targets());
  EXPECT_EQ(QFileInfo(next.filePath()).absolutePath(), QFileInfo(dir.path()).absoluteFilePath());
}

TEST(ExportDialog, TheFormatDecidesTheExtensionAndScaleOnlyAppliesToPng) {
  Window w;
  ExportDialog dialog(w.manager->targets());
  dialog.selectTarget(QStringLiteral("Plot: Loss"));
  EXPECT_TRUE(dialog.filePath().endsWith(QStringLiteral("/loss.png"))) << dialog.filePath().toStdString();
  dialog.scaleCombo()->setCurrentIndex(1);
  EXPECT_EQ(dialog.options().scale, 2.0);
  dialog.formatCombo()->setCurrentIndex(dialog.formatCombo()->findData(static_cast<int>(ExportFormat::Pdf)));
  EXPECT_TRUE(dialog.filePath().endsWith(QStringLiteral("/loss.pdf")));
  EXPECT_FALSE(dialog.scaleCombo()->isEnabled());
  EXPECT_EQ(dialog.options().scale, 1.0);
  dialog.sizeCombo()->setCurrentIndex(ExportDialog::kCustomSize);
  dialog.widthSpin()->setValue(1280);
  dialog.heightSpin()->setValue(720);
  EXPECT_EQ(dialog.options().size, QSize(1280, 720));
  EXPECT_FALSE(dialog.options().slide);
}

TEST(ExportDialog, AsksBeforeReplacingAFileAndKeepsItWhenTheAnswerIsNo) {
  Window w;
  QTemporaryDir dir;
  const QString path = dir.filePath(QStringLiteral("window.png"));
  {
    QFile f(path);
    ASSERT_TRUE(f.open(QIODevice::WriteOnly));
    f.write("keep me");
  }
  ExportDialog dialog(w.manager->targets());
  dialog.fileEdit()->setText(path);
  int asked = 0;
  dialog.setOverwriteConfirmer([&](const QString&) {
    ++asked;
    return false;
  });
  dialog.show();
  dialog.accept();
  EXPECT_EQ(asked, 1);
  EXPECT_TRUE(dialog.isVisible());
  QFile kept(path);
  ASSERT_TRUE(kept.open(QIODevice::ReadOnly));
  EXPECT_EQ(kept.readAll(), QByteArray("keep me"));
  kept.close();
  dialog.setOverwriteConfirmer([&](const QString&) { return true; });
  dialog.accept();
  EXPECT_FALSE(dialog.isVisible());
  EXPECT_EQ(QImage(path).size(), w.window->size());
}

TEST(ExportDialog, AnUnknownExtensionShowsTheReasonAndTheDialogStaysOpen) {
  Window w;
  QTemporaryDir dir;
  ExportDialog dialog(w.manager->targets());
  dialog.show();
  const QString path = dir.filePath(QStringLiteral("window.bmp"));
  dialog.fileEdit()->setText(path);
  dialog.accept();
  EXPECT_TRUE(dialog.isVisible());
  EXPECT_TRUE(dialog.errorLabel()->isVisible());
  EXPECT_TRUE(dialog.errorLabel()->text().contains(QStringLiteral(".bmp")));
  EXPECT_FALSE(QFile::exists(path));
  auto* box = dialog.findChild<QMessageBox*>(QStringLiteral("exportErrorBox"));
  ASSERT_NE(box, nullptr);
  box->close();
}

TEST(ExportDialog, ExportsTheLessonPanelAndTheWholeWindow) {
  Window w;
  QTemporaryDir dir;
  ExportDialog dialog(w.manager->targets());
  ASSERT_TRUE(dialog.selectTarget(QStringLiteral("Panel: Lesson")));
  dialog.fileEdit()->setText(dir.filePath(QStringLiteral("lesson.png")));
  dialog.accept();
  ASSERT_TRUE(dialog.lastResult().ok) << dialog.lastResult().error.toStdString();
  EXPECT_EQ(QImage(dir.filePath(QStringLiteral("lesson.png"))).size(), w.lesson->size());
  ExportDialog whole(w.manager->targets());
  ASSERT_TRUE(whole.selectTarget(QStringLiteral("Whole window")));
  whole.formatCombo()->setCurrentIndex(whole.formatCombo()->findData(static_cast<int>(ExportFormat::Pdf)));
  whole.fileEdit()->setText(dir.filePath(QStringLiteral("window.pdf")));
  whole.accept();
  ASSERT_TRUE(whole.lastResult().ok) << whole.lastResult().error.toStdString();
  QFile pdf(dir.filePath(QStringLiteral("window.pdf")));
  ASSERT_TRUE(pdf.open(QIODevice::ReadOnly));
  EXPECT_TRUE(pdf.read(5) == "%PDF-");
}

}  // namespace
}  // namespace ampscope::ui
