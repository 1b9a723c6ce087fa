// Renders the main window with the chapter's 1e-8 entered, once per tab and at the two sizes the
// panel must work at, into $AMPSCOPE_SCREENSHOT_DIR. Skipped when the variable is not set: this is
// for looking at the panel (and for the screenshot), not an assertion about pixels.
#include <gtest/gtest.h>

#include <QDir>
#include <QDockWidget>
#include <QTabWidget>
#include <QTest>

#include "ui/about_dialog.h"
#include "ui/formats/number_formats_panel.h"
#include "ui/main_window.h"

namespace ampscope::ui {
namespace {

TEST(Screenshots, NumberFormatsPanelWithOneEMinus8) {
  const QString dir = qEnvironmentVariable("AMPSCOPE_SCREENSHOT_DIR");
  if (dir.isEmpty()) GTEST_SKIP() << "set AMPSCOPE_SCREENSHOT_DIR to write the screenshots";
  ASSERT_TRUE(QDir().mkpath(dir));

  // The panel on its own, at the sizes it must work at (a full window, and a narrow dock).
  for (const QSize size : {QSize(1400, 860), QSize(1024, 660), QSize(620, 800)}) {
    formats::NumberFormatsPanel panel;
    panel.resize(size);
    panel.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&panel));
    panel.setValueText(QStringLiteral("1e-8"));
    QTabWidget* tabs = panel.tabs();
    for (int tab = 0; tab < tabs->count(); ++tab) {
      tabs->setCurrentIndex(tab);
      QTest::qWait(120);
      const QString name =
          QStringLiteral("%1/panel-1e-8-tab%2-%3x%4.png").arg(dir).arg(tab).arg(size.width()).arg(size.height());
      EXPECT_TRUE(panel.grab().save(name)) << name.toStdString();
    }
    tabs->setCurrentIndex(0);
    panel.setValueText(QStringLiteral("1e-8x"));  // how a bad entry is marked
    QTest::qWait(100);
    EXPECT_TRUE(panel.grab().save(
        QStringLiteral("%1/panel-bad-input-%2x%3.png").arg(dir).arg(size.width()).arg(size.height())));
  }

  // The whole window with its default layout, the number-format dock raised.
  for (const QSize size : {QSize(1400, 900), QSize(1024, 700)}) {
    MainWindow window;
    window.setLayoutPersistence(false);
    window.restoreLayout();
    window.resize(size);
    window.show();
    ASSERT_TRUE(QTest::qWaitForWindowExposed(&window));
    window.numberFormatsDock()->raise();
    window.numberFormatsPanel()->setValueText(QStringLiteral("1e-8"));
    QTest::qWait(200);
    EXPECT_TRUE(window.grab().save(
        QStringLiteral("%1/window-1e-8-%2x%3.png").arg(dir).arg(size.width()).arg(size.height())));
  }

  MainWindow window;
  window.setLayoutPersistence(false);
  window.show();
  AboutDialog* about = window.showAbout();
  ASSERT_TRUE(QTest::qWaitForWindowExposed(about));
  QTest::qWait(100);
  EXPECT_TRUE(about->grab().save(dir + QStringLiteral("/about.png")));
}

}  // namespace
}  // namespace ampscope::ui
