// The main window shell: docks, menus, layout persistence, About.
#include <gtest/gtest.h>

#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QSettings>
#include <QTabBar>
#include <QScreen>
#include <QTest>

#include "ampscope/engine/version.h"
#include "ui/about_dialog.h"
#include "ui/formats/number_formats_panel.h"
#include "ui/main_window.h"

namespace ampscope::ui {
namespace {

class MainWindowTest : public ::testing::Test {
 protected:
  void SetUp() override { QSettings().clear(); }
  void TearDown() override { QSettings().clear(); }
};

QStringList actionTexts(const QMenu* menu) {
  QStringList texts;
  for (const QAction* action : menu->actions()) texts << action->text();
  return texts;
}

TEST_F(MainWindowTest, EveryPanelIsADockWithAStableNameAndAViewToggle) {
  MainWindow window;
  window.restoreLayout();
  const QList<QDockWidget*> docks = window.findChildren<QDockWidget*>();
  ASSERT_FALSE(docks.isEmpty());
  QStringList names;
  for (QDockWidget* dock : docks) {
    EXPECT_FALSE(dock->objectName().isEmpty()) << dock->windowTitle().toStdString();
    EXPECT_FALSE(names.contains(dock->objectName())) << "duplicate " << dock->objectName().toStdString();
    names << dock->objectName();
    EXPECT_TRUE(window.viewMenu()->actions().contains(dock->toggleViewAction())) << dock->objectName().toStdString();
  }
  EXPECT_TRUE(names.contains(QStringLiteral("numberFormatsDock")));
  EXPECT_TRUE(window.isDockNestingEnabled());
  EXPECT_TRUE(window.dockOptions() & QMainWindow::AllowTabbedDocks);
}

TEST_F(MainWindowTest, MenusOfferQuitPanelTogglesResetLayoutAndAbout) {
  MainWindow window;
  EXPECT_TRUE(actionTexts(window.fileMenu()).contains(QStringLiteral("&Quit")));
  EXPECT_TRUE(actionTexts(window.viewMenu()).contains(QStringLiteral("&Reset layout")));
  EXPECT_EQ(actionTexts(window.helpMenu()), (QStringList{QStringLiteral("&About AmpScope"), QStringLiteral("About &Qt")}));

  // A panel added later gets its toggle above "Reset layout", not below.
  auto* dock = new QDockWidget(QStringLiteral("Extra"), &window);
  dock->setObjectName(QStringLiteral("extraDock"));
  window.addPanel(dock, Qt::RightDockWidgetArea);
  const QList<QAction*> actions = window.viewMenu()->actions();
  EXPECT_LT(actions.indexOf(dock->toggleViewAction()), actions.indexOf(window.resetLayoutAction()));
}

TEST_F(MainWindowTest, DefaultLayoutFitsA1024x700Screen) {
  MainWindow window;
  window.restoreLayout();
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  const QSize minimum = window.minimumSizeHint();
  std::string docks;
  for (const QDockWidget* dock : window.findChildren<QDockWidget*>()) {
    if (!dock->isVisible()) continue;
    docks += dock->objectName().toStdString() + " " + std::to_string(dock->minimumSizeHint().width()) + "x" +
             std::to_string(dock->minimumSizeHint().height()) + "; ";
  }
  EXPECT_LE(minimum.width(), 1024) << "visible docks' minimum sizes: " << docks;
  EXPECT_LE(minimum.height(), 700) << "visible docks' minimum sizes: " << docks;
}

// At 1280x720 the default layout's tab groups showed "Un…", "Op…", "Memory…": a tab must name its panel.
TEST_F(MainWindowTest, TabifiedPanelsShowWholeTitlesAndScrollInstead) {
  MainWindow window;
  window.restoreLayout();
  window.resize(1280, 720);
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  QTest::qWait(50);
  int bars = 0;
  for (QTabBar* bar : window.findChildren<QTabBar*>()) {
    if (!bar->isVisible() || bar->parentWidget() != &window) continue;  // the dock tab bars only
    ++bars;
    EXPECT_EQ(bar->elideMode(), Qt::ElideNone) << bar->tabText(0).toStdString();
    EXPECT_TRUE(bar->usesScrollButtons()) << bar->tabText(0).toStdString();
    // Each tab is wide enough for its title.
    for (int i = 0; i < bar->count(); ++i)
      EXPECT_GE(bar->tabRect(i).width(), bar->fontMetrics().horizontalAdvance(bar->tabText(i)))
          << bar->tabText(i).toStdString();
  }
  EXPECT_GT(bars, 0) << "the default layout tabifies panels";
}

// A first start uses the screen (issue 14: a 1920x1080 projector got a 1400x900 window), never more.
TEST_F(MainWindowTest, AFirstStartOpensAtTheScreensAvailableArea) {
  EXPECT_EQ(MainWindow::startSize(QSize(1920, 1080)), QSize(1920, 1080));
  EXPECT_EQ(MainWindow::startSize(QSize(1280, 720)), QSize(1280, 720));
  EXPECT_EQ(MainWindow::startSize(QSize(1366, 740)), QSize(1366, 740));
  EXPECT_EQ(MainWindow::startSize(QSize(640, 480)), QSize(640, 480));
  // A large monitor: most of it, not all, and never less than a 1920x1200 screen would get.
  EXPECT_EQ(MainWindow::startSize(QSize(3840, 2100)), QSize(3072, 1680));
  EXPECT_EQ(MainWindow::startSize(QSize(2560, 1400)), QSize(2048, 1200));
  EXPECT_EQ(MainWindow::startSize(QSize(2000, 1100)), QSize(1920, 1100));

  MainWindow window;
  window.setLayoutPersistence(false);
  window.restoreLayout();
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  const QRect available = window.screen()->availableGeometry();
  // (The offscreen test screen may be smaller than the window's minimum; then it cannot fit.)
  if (window.minimumSizeHint().width() <= available.width() && window.minimumSizeHint().height() <= available.height()) {
    EXPECT_TRUE(available.contains(window.frameGeometry()));
    EXPECT_EQ(window.size(), MainWindow::startSize(available.size()));
  }
}

TEST_F(MainWindowTest, NumberFormatPanelIsTheRaisedTabByDefault) {
  MainWindow window;
  window.restoreLayout();
  window.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
  EXPECT_TRUE(window.numberFormatsPanel()->isVisible());
  EXPECT_FALSE(window.numberFormatsPanel()->visibleRegion().isEmpty());
}

TEST_F(MainWindowTest, HasTheApplicationIcon) {
  MainWindow window;
  EXPECT_FALSE(window.windowIcon().isNull());
  EXPECT_FALSE(window.windowIcon().pixmap(32, 32).isNull());
}

TEST_F(MainWindowTest, SavesTheLayoutOnCloseAndRestoresItAtTheNextStart) {
  QSize savedSize;
  {
    MainWindow first;
    first.restoreLayout();
    first.resize(1111, 777);
    first.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&first));
    first.numberFormatsDock()->setFloating(true);
    savedSize = first.size();  // 1111x777 unless the docks' minimum sizes need more
    first.close();
  }
  QSettings settings;
  EXPECT_EQ(settings.value(QStringLiteral("mainWindow/layoutVersion")).toInt(), MainWindow::kLayoutVersion);
  EXPECT_FALSE(settings.value(QStringLiteral("mainWindow/state")).toByteArray().isEmpty());
  EXPECT_FALSE(settings.value(QStringLiteral("mainWindow/geometry")).toByteArray().isEmpty());

  MainWindow second;
  second.restoreLayout();
  second.show();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(&second));
  EXPECT_TRUE(second.numberFormatsDock()->isFloating());
  // Qt 6.8's offscreen platform (Debian 13) gives the restored window back 3 px shorter than it was
  // saved (909x774 for 909x777); Qt 6.4's is exact. A few pixels of frame are not the layout: a size
  // that was not restored is the default one, hundreds of pixels away.
  EXPECT_NEAR(second.size().width(), savedSize.width(), 4);
  EXPECT_NEAR(second.size().height(), savedSize.height(), 4);

  second.resetLayout();
  EXPECT_FALSE(second.numberFormatsDock()->isFloating());
}

TEST_F(MainWindowTest, HiddenPanelStaysHiddenAfterRestartAndResetShowsIt) {
  {
    MainWindow first;
    first.restoreLayout();
    first.show();
    first.numberFormatsDock()->toggleViewAction()->trigger();
    EXPECT_FALSE(first.numberFormatsDock()->isVisible());
    first.close();
  }
  MainWindow second;
  second.restoreLayout();
  second.show();
  EXPECT_FALSE(second.numberFormatsDock()->toggleViewAction()->isChecked());
  second.resetLayoutAction()->trigger();
  EXPECT_TRUE(second.numberFormatsDock()->isVisible());
}

TEST_F(MainWindowTest, IgnoresALayoutSavedByAnotherLayoutVersion) {
  {
    MainWindow first;
    first.restoreLayout();
    first.show();
    first.numberFormatsDock()->setFloating(true);
    first.close();
  }
  QSettings().setValue(QStringLiteral("mainWindow/layoutVersion"), MainWindow::kLayoutVersion + 1);
  MainWindow second;
  second.restoreLayout();
  second.show();
  EXPECT_FALSE(second.numberFormatsDock()->isFloating());
}

TEST_F(MainWindowTest, WithoutPersistenceNothingIsSavedOrRestored) {
  MainWindow window;
  window.setLayoutPersistence(false);
  window.restoreLayout();
  window.show();
  window.close();
  EXPECT_FALSE(QSettings().contains(QStringLiteral("mainWindow/state")));
}

TEST_F(MainWindowTest, AboutShowsTheVersionsOfAmpScopeQtAndLibTorchAndTheLicence) {
  MainWindow window;
  window.show();
  window.aboutAction()->trigger();
  auto* dialog = window.findChild<AboutDialog*>();
  ASSERT_NE(dialog, nullptr);
  EXPECT_TRUE(dialog->isVisible());
  const QString text = dialog->plainText();
  EXPECT_TRUE(text.contains(QStringLiteral("AmpScope ") + QString::fromStdString(ampscopeVersion()))) << text.toStdString();
  EXPECT_TRUE(text.contains(QString::fromLatin1(qVersion()))) << text.toStdString();
  EXPECT_TRUE(text.contains(QString::fromStdString(libtorchVersion()))) << text.toStdString();
  EXPECT_TRUE(text.contains(QStringLiteral("GPL-3.0-or-later")));
  EXPECT_TRUE(text.contains(QStringLiteral("QCustomPlot")));
  EXPECT_EQ(QString::fromStdString(ampscopeVersion()), QStringLiteral(AMPSCOPE_TEST_VERSION));
  dialog->reject();

  // Opening it again reuses the one dialog.
  EXPECT_EQ(window.showAbout(), dialog);
}

}  // namespace
}  // namespace ampscope::ui
