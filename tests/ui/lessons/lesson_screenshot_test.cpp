// Screenshots of lessons in Simplified Chinese for the docs and for checking that CJK glyphs render
// (fonts-noto-cjk): one lesson in the light theme, one in presenter mode with the dark theme. Only runs
// when AMPSCOPE_SCREENSHOT_DIR names a folder; the images are <dir>/h7-lesson-*.png.
#include <gtest/gtest.h>

#include <QDir>
#include <QPixmap>
#include <QTest>
#include <memory>

#include "ui/i18n/language_manager.h"
#include "ui/lessons/lesson_controller.h"
#include "ui/lessons/lesson_workspace.h"
#include "ui/main_window.h"
#include "ui/presentation/presenter_mode.h"
#include "ui/presentation/theme_manager.h"
#include "ui/training/run_controller.h"
#include "ui/training/run_panel.h"
#include "ui/training/training_workspace.h"

namespace ampscope::ui {
namespace {

QString screenshotDir() { return qEnvironmentVariable("AMPSCOPE_SCREENSHOT_DIR"); }

// Opens `lessonId`, trains `steps` steps of its configuration and saves the window.
void shoot(const QString& lessonId, int64_t steps, bool presenter, ThemeManager::Theme theme,
           const QString& file) {
  LanguageManager languages;
  ASSERT_TRUE(languages.setLanguage(QStringLiteral("zh_CN"), LanguageManager::Persist::No));
  ThemeManager themes;
  themes.apply(theme, /*persist=*/false);
  MainWindow window;
  window.setLayoutPersistence(false);
  TrainingWorkspace* workspace = window.trainingWorkspace();
  LessonWorkspace lessons(window);
  PresenterMode presenterMode(&window);
  window.resize(1600, 1000);
  window.show();
  ASSERT_TRUE(lessons.controller()->openLesson(lessonId));
  RunConfig config = workspace->runPanel()->config();
  config.steps = steps;
  RunController* run = workspace->controller();
  ASSERT_TRUE(run->start(config));
  ASSERT_TRUE(QTest::qWaitFor([&] { return run->state() == RunState::Finished; }, 240000));
  run->drainNow();
  if (presenter) presenterMode.setScaled(true);
  QTest::qWait(600);
  const QPixmap image = window.grab();
  EXPECT_TRUE(image.save(QDir(screenshotDir()).filePath(file)));
  if (presenter) presenterMode.setScaled(false);
  themes.apply(ThemeManager::Theme::Light, /*persist=*/false);
  workspace->shutdown();
}

TEST(LessonScreenshots, UnderflowLessonInChinese) {
  if (screenshotDir().isEmpty()) GTEST_SKIP() << "set AMPSCOPE_SCREENSHOT_DIR to write screenshots";
  shoot(QStringLiteral("underflow"), 200, false, ThemeManager::Theme::Light,
        QStringLiteral("h7-lesson-underflow-zh.png"));
}

TEST(LessonScreenshots, LossScalingLessonInChinesePresenterModeDarkTheme) {
  if (screenshotDir().isEmpty()) GTEST_SKIP() << "set AMPSCOPE_SCREENSHOT_DIR to write screenshots";
  shoot(QStringLiteral("loss-scaling"), 400, true, ThemeManager::Theme::Dark,
        QStringLiteral("h7-lesson-loss-scaling-zh-presenter-dark.png"));
}

}  // namespace
}  // namespace ampscope::ui
