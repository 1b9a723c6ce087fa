// Switching the UI language at run time: AmpScope's zh_CN catalogue and Qt's own are installed, every
// sampled widget retranslates its visible texts (labels, buttons, plot axes, lesson prose), and going
// back to English restores the source strings.
#include "ui/i18n/language_manager.h"

#include <gtest/gtest.h>
#include <qcustomplot.h>

#include <QAction>
#include <QApplication>
#include <QDialogButtonBox>
#include <QDockWidget>
#include <QLabel>
#include <QMenu>
#include <QPushButton>
#include <QRegularExpression>
#include <QTest>

#include "ampscope/engine/telemetry_store.h"
#include "ui/i18n/static_text_retranslator.h"
#include "ui/lessons/clip_norm_plot.h"
#include "ui/lessons/lesson_browser.h"
#include "ui/lessons/lesson_library.h"
#include "ui/lessons/lesson_panel.h"
#include "ui/main_window.h"
#include "ui/training/loss_plot.h"
#include "ui/training/training_workspace.h"

namespace ampscope::ui {
namespace {

bool containsHan(const QString& text) {
  static const QRegularExpression han(QStringLiteral("\\p{Han}"));
  return text.contains(han);
}

class LanguageSwitch : public ::testing::Test {
 protected:
  void TearDown() override { languages.setLanguage(QStringLiteral("en")); }
  // Delivers the LanguageChange events QApplication posts to the top-level widgets.
  static void settle() { QCoreApplication::sendPostedEvents(nullptr, QEvent::LanguageChange); }
  LanguageManager languages;
};

TEST_F(LanguageSwitch, ChineseRetranslatesLessonWidgetsPlotsAndLessonText) {
  LessonLibrary library;
  ASSERT_TRUE(library.load());
  LessonPanel panel;
  panel.setLesson(&library.at(0), 0, library.size());
  LessonBrowser browser(library);
  TelemetryStore store;
  ClipNormPlot plot(&store);
  panel.show();
  plot.show();
  auto* next = panel.findChild<QPushButton*>(QStringLiteral("lessonNext"));
  ASSERT_NE(next, nullptr);
  const QString englishNext = next->text();
  const QString englishAxis = plot.plot()->yAxis->label();
  EXPECT_EQ(panel.titleLabel()->text(), library.at(0).title.en);

  ASSERT_TRUE(languages.setLanguage(QStringLiteral("zh_CN"))) << languages.errorString().toStdString();
  settle();
  EXPECT_EQ(languages.language(), QStringLiteral("zh_CN"));
  EXPECT_TRUE(containsHan(next->text())) << next->text().toStdString();
  EXPECT_NE(next->text(), englishNext);
  EXPECT_TRUE(containsHan(browser.windowTitle())) << browser.windowTitle().toStdString();
  EXPECT_TRUE(containsHan(plot.plot()->yAxis->label())) << plot.plot()->yAxis->label().toStdString();
  EXPECT_TRUE(containsHan(plot.plot()->xAxis->label())) << plot.plot()->xAxis->label().toStdString();
  // Lesson prose comes from the lesson file, chosen by the default locale the manager switched.
  EXPECT_EQ(panel.titleLabel()->text(), library.at(0).title.zhCN);

  ASSERT_TRUE(languages.setLanguage(QStringLiteral("en")));
  settle();
  EXPECT_EQ(next->text(), englishNext);
  EXPECT_EQ(plot.plot()->yAxis->label(), englishAxis);
  EXPECT_EQ(panel.titleLabel()->text(), library.at(0).title.en);
}

TEST_F(LanguageSwitch, MainWindowMenusDocksToolbarAndTrainingPlotsFollowTheLanguage) {
  MainWindow window;
  window.setLayoutPersistence(false);
  TrainingWorkspace* training = window.trainingWorkspace();
  const QString view = window.viewMenu()->title();
  const QString lossDock = training->dock(QStringLiteral("loss"))->windowTitle();
  const QString run = training->runPauseAction()->text();
  const QString axis = training->lossPlot()->plot()->xAxis->label();

  ASSERT_TRUE(languages.setLanguage(QStringLiteral("zh_CN")));
  settle();
  EXPECT_TRUE(containsHan(window.viewMenu()->title())) << window.viewMenu()->title().toStdString();
  EXPECT_TRUE(containsHan(training->dock(QStringLiteral("loss"))->windowTitle()));
  EXPECT_TRUE(containsHan(training->runPauseAction()->text()))
      << training->runPauseAction()->text().toStdString();
  EXPECT_TRUE(containsHan(training->lossPlot()->plot()->xAxis->label()));

  ASSERT_TRUE(languages.setLanguage(QStringLiteral("en")));
  settle();
  EXPECT_EQ(window.viewMenu()->title(), view);
  EXPECT_EQ(training->dock(QStringLiteral("loss"))->windowTitle(), lossDock);
  EXPECT_EQ(training->runPauseAction()->text(), run);
  EXPECT_EQ(training->lossPlot()->plot()->xAxis->label(), axis);
  training->shutdown();
}

TEST_F(LanguageSwitch, QtsOwnStandardButtonsAreTranslatedToo) {
  ASSERT_TRUE(languages.setLanguage(QStringLiteral("zh_CN")));
  // qt6-translations-l10n ships qtbase_zh_CN.qm; QPlatformTheme's standard button texts come from it.
  EXPECT_TRUE(languages.qtCatalogueLoaded());
  QDialogButtonBox box(QDialogButtonBox::Cancel);
  EXPECT_TRUE(containsHan(box.button(QDialogButtonBox::Cancel)->text()))
      << box.button(QDialogButtonBox::Cancel)->text().toStdString();
}

TEST_F(LanguageSwitch, TheChoiceIsRememberedAndCommandLineChoicesAreNot) {
  ASSERT_TRUE(languages.setLanguage(QStringLiteral("zh_CN")));
  EXPECT_EQ(LanguageManager::preferredLanguage(), QStringLiteral("zh_CN"));
  ASSERT_TRUE(languages.setLanguage(QStringLiteral("en"), LanguageManager::Persist::No));
  EXPECT_EQ(LanguageManager::preferredLanguage(), QStringLiteral("zh_CN"));
  ASSERT_TRUE(languages.setLanguage(QStringLiteral("en")));
  EXPECT_EQ(LanguageManager::preferredLanguage(), QStringLiteral("en"));
}

TEST_F(LanguageSwitch, AnUnknownLanguageIsRefusedWithTheAvailableOnes) {
  EXPECT_FALSE(languages.setLanguage(QStringLiteral("fr")));
  EXPECT_TRUE(languages.errorString().contains(QStringLiteral("zh_CN")))
      << languages.errorString().toStdString();
  EXPECT_EQ(languages.language(), QStringLiteral("en"));
}

TEST_F(LanguageSwitch, TheLanguageMenuChecksTheCurrentLanguage) {
  QMenu view;
  QMenu* menu = languages.addMenuTo(&view);
  ASSERT_EQ(menu->actions().size(), 2);
  menu->actions().at(1)->trigger();  // 简体中文
  EXPECT_EQ(languages.language(), QStringLiteral("zh_CN"));
  EXPECT_TRUE(menu->actions().at(1)->isChecked());
  EXPECT_FALSE(menu->actions().at(0)->isChecked());
  settle();
  EXPECT_TRUE(containsHan(menu->title())) << menu->title().toStdString();
}

TEST(StaticTextRetranslator, ReadsTheWholeCatalogueIncludingPastPluralMessages) {
  StaticTextRetranslator table;
  ASSERT_TRUE(table.load());
  EXPECT_GT(table.size(), 300);
  // A plain string, both ways; "Memory ledger" sits in a context after the plural message in the file.
  const QString view = table.convert(QStringLiteral("&View"), QStringLiteral("en"), QStringLiteral("zh_CN"));
  EXPECT_TRUE(containsHan(view)) << view.toStdString();
  EXPECT_EQ(table.convert(view, QStringLiteral("zh_CN"), QStringLiteral("en")), QStringLiteral("&View"));
  EXPECT_TRUE(containsHan(
      table.convert(QStringLiteral("Memory ledger"), QStringLiteral("en"), QStringLiteral("zh_CN"))));
  // Strings with arguments are left to their widgets, and unknown text is not touched.
  EXPECT_TRUE(
      table.convert(QStringLiteral("step %1"), QStringLiteral("en"), QStringLiteral("zh_CN")).isNull());
  EXPECT_TRUE(
      table.convert(QStringLiteral("no such text"), QStringLiteral("en"), QStringLiteral("zh_CN")).isNull());
}

}  // namespace
}  // namespace ampscope::ui
