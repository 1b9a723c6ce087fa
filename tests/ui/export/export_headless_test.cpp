// `ampscope --steps N --screenshot FILE`: the options parse, and the built `ampscope` trains and writes
// the PNG offscreen (HeadlessTrainer itself: tests/ui/training/headless_trainer_test.cpp).
#include <gtest/gtest.h>

#include <QImage>
#include <QProcess>
#include <QProcessEnvironment>
#include <QTemporaryDir>

#include "ui/app_options.h"

namespace ampscope::ui {
namespace {

TEST(AppOptionsSteps, StepsGoWithAScreenshotAndArePositive) {
  const AppOptions ok = parseAppOptions({"ampscope", "--steps", "40", "--screenshot", "x.png"});
  ASSERT_EQ(ok.action, AppOptions::Action::Run) << ok.message.toStdString();
  EXPECT_EQ(ok.steps, 40);
  EXPECT_EQ(parseAppOptions({"ampscope", "--screenshot", "x.png"}).steps, 0);
  for (const char* bad : {"0", "-3", "ten", "1.5", "99999999999"}) {
    const AppOptions options = parseAppOptions({"ampscope", "--steps", bad, "--screenshot", "x.png"});
    EXPECT_EQ(options.action, AppOptions::Action::Error) << bad;
    EXPECT_TRUE(options.message.contains(QStringLiteral("--steps"))) << options.message.toStdString();
  }
  const AppOptions alone = parseAppOptions({"ampscope", "--steps", "10"});
  EXPECT_EQ(alone.action, AppOptions::Action::Error);
  EXPECT_TRUE(alone.message.contains(QStringLiteral("--screenshot")));
}

// Runs the built `ampscope` offscreen; returns its exit code (-1 when it did not finish in time).
int runAmpscope(const QStringList& arguments, QString* output, const QString& settingsDir) {
  QProcess process;
  QProcessEnvironment env = QProcessEnvironment::systemEnvironment();
  env.insert(QStringLiteral("QT_QPA_PLATFORM"), QStringLiteral("offscreen"));
  // The app's settings (saved layout, last lesson, autosave) go to a throwaway folder.
  env.insert(QStringLiteral("XDG_CONFIG_HOME"), settingsDir);
  env.insert(QStringLiteral("XDG_DATA_HOME"), settingsDir);
  process.setProcessEnvironment(env);
  process.setProcessChannelMode(QProcess::MergedChannels);
  process.start(QStringLiteral(AMPSCOPE_GUI_EXE), arguments);
  if (!process.waitForFinished(180000)) {
    process.kill();
    process.waitForFinished();
    return -1;
  }
  *output = QString::fromLocal8Bit(process.readAll());
  return process.exitStatus() == QProcess::NormalExit ? process.exitCode() : -1;
}

TEST(AmpscopeHeadless, TrainsTheStepsThenWritesTheScreenshot) {
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("trained.png"));
  QString output;
  const int code = runAmpscope({"--steps", "20", "--screenshot", png, "--size", "1280x860"}, &output,
                               dir.filePath(QStringLiteral("settings")));
  ASSERT_EQ(code, 0) << output.toStdString();
  const QImage image(png);
  ASSERT_FALSE(image.isNull()) << output.toStdString();
  // The window may not shrink below its panels' minimum sizes; it is never smaller than asked.
  EXPECT_GE(image.width(), 1280);
  EXPECT_GE(image.height(), 860);
  EXPECT_TRUE(output.contains(QStringLiteral("20 steps"))) << output.toStdString();
}

TEST(AmpscopeHeadless, TrainsALessonsRunThenWritesTheScreenshot) {
  // The loss-scaling lesson loads its own comparison into the run panel; --steps trains that one.
  QTemporaryDir dir;
  const QString png = dir.filePath(QStringLiteral("lesson.png"));
  QString output;
  const int code = runAmpscope({"--lesson", "loss-scaling", "--steps", "25", "--screenshot", png, "--size", "1600x1000"},
                               &output, dir.filePath(QStringLiteral("settings")));
  ASSERT_EQ(code, 0) << output.toStdString();
  EXPECT_FALSE(QImage(png).isNull());
  EXPECT_TRUE(output.contains(QStringLiteral("Trained 25 steps"))) << output.toStdString();
}

TEST(AmpscopeHeadless, StepsWithoutAScreenshotIsAUsageError) {
  QTemporaryDir dir;
  QString output;
  EXPECT_EQ(runAmpscope({"--steps", "20"}, &output, dir.path()), kExitUsageError) << output.toStdString();
}

}  // namespace
}  // namespace ampscope::ui
